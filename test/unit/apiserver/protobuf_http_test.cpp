// Protobuf request bodies over a real socket: kcoro-apiserver on a loopback
// port, a plain HTTP client sending what client-go sends when its
// ContentType is protobuf (Content-Type application/vnd.kubernetes.protobuf,
// Accept "application/vnd.kubernetes.protobuf,application/json" as kubectl
// 1.32 sends it), and the object read back in JSON.
#include "server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

#include <functional>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace json = boost::json;
using asio::ip::tcp;
using namespace kcoro;
using namespace std::chrono_literals;

namespace {

constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);
constexpr const char* kubectl_accept = "application/vnd.kubernetes.protobuf,application/json";
constexpr const char* protobuf = "application/vnd.kubernetes.protobuf";

bool run_until(asio::io_context& io, const std::function<bool()>& done, std::chrono::milliseconds bound = 10000ms) {
    auto end = std::chrono::steady_clock::now() + bound;
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) return false;
        io.restart();
        io.run_for(5ms);
    }
    return true;
}

std::string varint(std::uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
    return out + static_cast<char>(v);
}
std::string vi(std::uint32_t n, std::uint64_t v) { return varint(n << 3) + varint(v); }
std::string ld(std::uint32_t n, std::string_view b) { return varint(n << 3 | 2) + varint(b.size()) + std::string(b); }
std::string entry(std::uint32_t n, std::string_view k, std::string_view v) { return ld(n, ld(1, k) + ld(2, v)); }
std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
    return std::string("k8s\0", 4) + ld(1, ld(1, api_version) + ld(2, kind)) + ld(2, raw) + ld(3, "") + ld(4, "");
}

struct pb_call {
    bhttp::verb verb;
    std::string target;
    std::string body = {};
    std::string content_type = {};
    std::string accept = kubectl_accept;
};

struct pb_reply {
    unsigned code = 0;
    std::string body;
    std::vector<std::string> warnings;
};

struct pb_client {
    tcp::socket s;
    beast::flat_buffer buf;
    explicit pb_client(asio::io_context& io) : s(io) {}
    asio::awaitable<pb_reply> request(const pb_call& q) {
        bhttp::request<bhttp::string_body> req{q.verb, q.target, 11};
        req.set(bhttp::field::host, "127.0.0.1");
        if (!q.content_type.empty()) req.set(bhttp::field::content_type, q.content_type);
        if (!q.accept.empty()) req.set(bhttp::field::accept, q.accept);
        req.body() = q.body;
        req.prepare_payload();
        auto [wec, wn] = co_await bhttp::async_write(s, req, tuple_awaitable);
        if (wec) co_return pb_reply{};
        bhttp::response<bhttp::string_body> res;
        auto [rec, rn] = co_await bhttp::async_read(s, buf, res, tuple_awaitable);
        if (rec) co_return pb_reply{};
        pb_reply r{res.result_int(), res.body(), {}};
        for (const auto& f : res) {
            if (f.name_string() == "Warning") r.warnings.emplace_back(f.value());
        }
        co_return r;
    }
};

json::object obj(const pb_reply& r) { return json::parse(r.body).as_object(); }

} // namespace

TEST_CASE("protobuf over HTTP: kubectl's creates, the object read back, the 400/406/415 answers") {
    asio::io_context io;
    io::manual_clock clk;
    apiserver::server srv(io.get_executor(), clk, {});
    REQUIRE(srv.start().has_value());
    pb_client c(io);
    std::vector<pb_reply> r;
    bool done = false;
    const std::string ns = "/api/v1/namespaces/default";
    // Every request built first: no temporaries in a co_await operand (g++ 12).
    std::vector<pb_call> calls;
    {
        // 0: kubectl create configmap x --from-literal=a=b (ObjectMeta with every non-pointer field, as gogo writes it).
        std::string meta = ld(1, "x") + ld(2, "") + ld(3, "") + ld(4, "") + ld(5, "") + ld(6, "") + vi(7, 0) + ld(8, "");
        calls.push_back(pb_call{bhttp::verb::post, ns + "/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
                                       envelope("v1", "ConfigMap", ld(1, meta) + entry(2, "a", "b")), protobuf});
        // 1: read back.
        calls.push_back(pb_call{bhttp::verb::get, ns + "/configmaps/x"});
        // 2: a Secret with binary data, plus a field kcoro does not decode (99).
        calls.push_back(pb_call{bhttp::verb::post, ns + "/secrets",
                                       envelope("v1", "Secret", ld(1, ld(1, "s")) + entry(2, "k", std::string("\0\xff", 2)) +
                                                                    ld(3, "Opaque") + vi(99, 1)),
                                       protobuf});
        // 3: update of the ConfigMap (PUT) in protobuf.
        calls.push_back(pb_call{bhttp::verb::put, ns + "/configmaps/x",
                                       envelope("v1", "ConfigMap", ld(1, ld(1, "x")) + entry(2, "a", "c")), protobuf});
        // 4: garbage: 400 with the envelope error.
        calls.push_back(pb_call{bhttp::verb::post, ns + "/configmaps", "nope", protobuf});
        // 5: a kind kcoro has no table for (CRDs): 415 listing what it takes.
        calls.push_back(pb_call{bhttp::verb::post, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                       envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", ld(1, ld(1, "x"))),
                                       protobuf});
        // 6: an unknown content type: 415 listing all three.
        calls.push_back(pb_call{bhttp::verb::post, ns + "/configmaps", "x", "text/plain"});
        // 7: a client that accepts only protobuf: 406 (kcoro encodes JSON only).
        calls.push_back(pb_call{bhttp::verb::get, ns + "/configmaps/x", {}, {}, protobuf});
        // 8: a protobuf DeleteOptions body (client-go's typed Delete) with a uid precondition that fails.
        calls.push_back(pb_call{bhttp::verb::delete_, ns + "/configmaps/x",
                                       envelope("v1", "DeleteOptions", ld(2, ld(1, "wrong-uid"))), protobuf});
        // 9: a Lease as client-go's leader election writes it (MicroTime renewTime).
        calls.push_back(pb_call{
            bhttp::verb::post, "/apis/coordination.k8s.io/v1/namespaces/default/leases",
            envelope("coordination.k8s.io/v1", "Lease",
                     ld(1, ld(1, "leader")) + ld(2, ld(1, "me") + vi(2, 15) + ld(4, vi(1, 1767323045) + vi(2, 250000000)))),
            protobuf});
        // 10, 11: a CRD (JSON), then one of its objects in protobuf: the real server's 400.
        calls.push_back(pb_call{bhttp::verb::post, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                       R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
            "metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
            "names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[{"name":"v1","served":true,
            "storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})",
                                       "application/json"});
        calls.push_back(pb_call{bhttp::verb::post, "/apis/example.com/v1/namespaces/default/widgets",
                                       envelope("example.com/v1", "Widget", ld(1, ld(1, "w"))), protobuf});
        // 12: a Deployment in protobuf, 13: its Scale updated in protobuf (client-go's UpdateScale).
        std::string tmpl = ld(1, entry(11, "app", "d")) + ld(2, ld(2, ld(1, "c") + ld(2, "nginx")));
        calls.push_back(pb_call{
            bhttp::verb::post, "/apis/apps/v1/namespaces/default/deployments",
            envelope("apps/v1", "Deployment", ld(1, ld(1, "d")) + ld(2, ld(2, entry(1, "app", "d")) + ld(3, tmpl))),
            protobuf});
        calls.push_back(pb_call{bhttp::verb::put, "/apis/apps/v1/namespaces/default/deployments/d/scale",
                                       envelope("autoscaling/v1", "Scale", ld(1, ld(1, "d")) + ld(2, vi(1, 4)) + vi(98, 1)),
                                       protobuf});
        // 14: a Service as a typed client writes it without a targetPort: the
        // IntOrString struct is always on the wire ({type 0, intVal 0}), defaulted to the port.
        std::string port = ld(1, "http") + ld(2, "TCP") + vi(3, 8080) + ld(4, vi(1, 0) + vi(2, 0)) + vi(5, 0);
        calls.push_back(pb_call{bhttp::verb::post, ns + "/services",
                             envelope("v1", "Service", ld(1, ld(1, "svc")) + ld(2, ld(1, port) + entry(2, "app", "d"))),
                             protobuf});
    }
    auto flow = [&]() -> asio::awaitable<void> {
        const tcp::endpoint at{asio::ip::make_address("127.0.0.1"), srv.port()};
        auto [ec] = co_await c.s.async_connect(at, tuple_awaitable);
        REQUIRE_FALSE(ec);
        for (const auto& q : calls) r.push_back(co_await c.request(q));
        done = true;
    };
    asio::co_spawn(io, flow(), asio::detached);
    REQUIRE(run_until(io, [&] { return done; }));
    REQUIRE(r.size() == 15);

    CHECK(r[0].code == 201);
    CHECK(obj(r[0])["data"].as_object()["a"] == "b");
    CHECK(r[0].warnings.empty());
    REQUIRE(r[1].code == 200);
    auto cm = obj(r[1]);
    CHECK(cm["kind"] == "ConfigMap");
    CHECK(cm["metadata"].as_object()["name"] == "x");
    CHECK(cm["metadata"].as_object()["namespace"] == "default");
    CHECK(cm["metadata"].as_object()["managedFields"].as_array()[0].as_object()["manager"] == "kubectl-create");
    CHECK(cm["data"].as_object()["a"] == "b");

    CHECK(r[2].code == 201);
    CHECK(obj(r[2])["data"].as_object()["k"] == "AP8=");
    REQUIRE(r[2].warnings.size() == 1);
    CHECK(r[2].warnings[0] ==
          "299 - \"kcoro-apiserver does not decode this protobuf field, dropped: <root>: Secret field 99\"");

    CHECK(r[3].code == 200);
    CHECK(obj(r[3])["data"].as_object()["a"] == "c");

    CHECK(r[4].code == 400);
    CHECK(obj(r[4])["reason"] == "BadRequest");
    CHECK(obj(r[4])["message"] ==
          "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a "
          "protobuf message, expected prefix [107 56 115 0] (6e6f7065)");

    CHECK(r[5].code == 415);
    CHECK(obj(r[5])["message"] ==
          "the body of the request was in an unknown format - accepted media types include: application/json, "
          "application/yaml");
    CHECK(r[6].code == 415);
    CHECK(obj(r[6])["message"] ==
          "the body of the request was in an unknown format - accepted media types include: application/json, "
          "application/yaml, application/vnd.kubernetes.protobuf");
    CHECK(r[7].code == 406);
    CHECK(r[8].code == 409);
    CHECK(obj(r[8])["message"].as_string().starts_with(
        "Operation cannot be fulfilled on ConfigMap \"x\": the UID in the precondition (wrong-uid)"));
    CHECK(r[9].code == 201);
    CHECK(obj(r[9])["spec"].as_object()["renewTime"] == "2026-01-02T03:04:05.250000Z");
    CHECK(r[10].code == 201);
    CHECK(r[11].code == 400);
    CHECK(obj(r[11])["message"] ==
          "Widget in version \"v1\" cannot be handled as a Widget: object *unstructured.Unstructured does not "
          "implement the protobuf marshalling interface and cannot be encoded to a protobuf message");
    CHECK(r[12].code == 201);
    CHECK(r[13].code == 200);
    CHECK(obj(r[13])["spec"].as_object()["replicas"] == 4);
    REQUIRE(r[13].warnings.size() == 1);
    CHECK(r[13].warnings[0].find("<root>: Scale field 98") != std::string::npos);
    CHECK(r[14].code == 201);
    CHECK(obj(r[14])["spec"].as_object()["ports"].as_array()[0].as_object()["targetPort"] == 8080);
    srv.stop(0ms);
    CHECK(run_until(io, [&] { return srv.http_server()->session_count() == 0; }));
}
