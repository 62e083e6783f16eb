// Fuzz target: protobuf request bodies (store/protobuf_decoder.hpp), which
// any client can send to a built-in endpoint. The first input byte picks the
// endpoint's kind, the rest is the body. Properties: decoding never crashes;
// a failure is a 400 in one of transformDecodeError's two forms; a success is
// an object with the envelope's (or the URL's) kind and apiVersion whose JSON
// text parses back (valid JSON, valid UTF-8) to the same value.
#include "store/protobuf_decoder.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

struct endpoint {
    const char* group;
    const char* kind;
};
constexpr endpoint endpoints[] = {
    {"", "ConfigMap"},  {"", "Secret"}, {"", "Namespace"}, {"", "ServiceAccount"},    {"", "Service"},
    {"apps", "Deployment"}, {"coordination.k8s.io", "Lease"}, {"", "Event"}, {"events.k8s.io", "Event"},
    {"autoscaling", "Scale"}, {"", "DeleteOptions"},
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kcoro::apiserver;
    if (size == 0) return 0;
    const endpoint& ep = endpoints[data[0] % (sizeof endpoints / sizeof endpoints[0])];
    std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto r = decode_protobuf_body(body, ep.group, "v1", ep.kind);
    if (!r) {
        check(r.error().http_code() == 400, "a failure that is not a 400");
        const std::string m = r.error().message();
        const bool envelope_form = m.starts_with("the object provided is unrecognized (must be of type " + std::string(ep.kind) + "): ");
        const bool object_form = m.find(" cannot be handled as a " + std::string(ep.kind) + ": ") != std::string::npos;
        check(envelope_form || object_form, "a 400 in neither of transformDecodeError's forms");
        boost::system::error_code ec;
        boost::json::parse(boost::json::serialize(boost::json::value(m)), ec);
        check(!ec, "the message is not valid UTF-8 (its Status would not be JSON)");
        return 0;
    }
    const auto* kind = r->object.if_contains("kind");
    const auto* api_version = r->object.if_contains("apiVersion");
    check(kind && kind->is_string() && !kind->get_string().empty(), "no kind");
    check(api_version && api_version->is_string() && !api_version->get_string().empty(), "no apiVersion");
    const std::string text = boost::json::serialize(r->object);
    boost::system::error_code ec;
    auto back = boost::json::parse(text, ec);
    check(!ec, "the decoded object is not valid JSON text");
    check(back == boost::json::value(r->object), "the JSON text does not parse back to the same value");
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
