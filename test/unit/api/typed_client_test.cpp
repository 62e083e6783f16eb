// The typed verbs against an in-process kcoro-apiserver: each verb sends
// what the JSON one sends and answers a decoded T; a malformed answer is a
// decode_error naming the field path, API errors pass through.
#include <kcoro/client/typed_client.hpp>

#include "server.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/k8s/deployment.hpp>

#include "run_until.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;
using k8s::config_map;

namespace strict {

// A ConfigMap read as if its values were integers: every real ConfigMap
// is a malformed answer for this type.
struct int_config_map {
    typed::object_meta metadata;
    std::map<std::string, std::int32_t> data;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(int_config_map, (), (metadata, data))
KCORO_RESOURCE(int_config_map, resource("", "v1", "ConfigMap", "configmaps"))

} // namespace strict

namespace {

struct fixture {
    asio::io_context ioc;
    io::system_clock clk;
    apiserver::server srv{ioc.get_executor(), clk, {}};
    std::unique_ptr<client::client> c;

    fixture() {
        REQUIRE(srv.start());
        client::client_config cfg;
        cfg.server = srv.url();
        c = client::client::create(cfg, clk).value();
    }
    ~fixture() { srv.stop(0ms); }

    template <class T> T run(asio::awaitable<T> aw) {
        auto out = test::run(ioc, std::move(aw));
        REQUIRE(out.has_value());
        return std::move(*out);
    }
    template <class T> T must(result<T> r) {
        REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
        return std::move(*r);
    }
};

config_map make_cm(std::string name, std::string value) {
    config_map cm;
    cm.metadata.name = std::move(name);
    cm.metadata.namespace_ = "default";
    cm.metadata.labels["app"] = "web";
    cm.data["k"] = std::move(value);
    return cm;
}

} // namespace

TEST_CASE("create, get, update: a typed read-modify-write") {
    fixture f;
    auto created = f.must(f.run(client::create<config_map>(*f.c, make_cm("x", "1"))));
    CHECK(created.metadata.name == "x");
    CHECK_FALSE(created.metadata.uid.empty());
    CHECK_FALSE(created.metadata.resource_version.empty());
    CHECK(created.data.at("k") == "1");

    auto got = f.must(f.run(client::get<config_map>(*f.c, {"default", "x"})));
    CHECK(got.metadata.uid == created.metadata.uid);
    CHECK(got.metadata.labels.at("app") == "web");

    got.data["k"] = "2";
    auto updated = f.must(f.run(client::update<config_map>(*f.c, got)));
    CHECK(updated.data.at("k") == "2");
    CHECK(updated.metadata.resource_version != got.metadata.resource_version);

    // The resourceVersion read is the precondition: a stale write conflicts.
    got.data["k"] = "3";
    auto stale = f.run(client::update<config_map>(*f.c, got));
    REQUIRE_FALSE(stale.has_value());
    CHECK(is_conflict(stale.error()));
}

TEST_CASE("API errors pass through unchanged") {
    fixture f;
    auto missing = f.run(client::get<config_map>(*f.c, {"default", "nope"}));
    REQUIRE_FALSE(missing.has_value());
    CHECK(is_not_found(missing.error()));
    f.must(f.run(client::create<config_map>(*f.c, make_cm("x", "1"))));
    auto again = f.run(client::create<config_map>(*f.c, make_cm("x", "1")));
    REQUIRE_FALSE(again.has_value());
    CHECK(is_already_exists(again.error()));
}

TEST_CASE("list and list_all decode every item, with the list's metadata") {
    fixture f;
    for (const char* n : {"a", "b", "c"}) {
        f.must(f.run(client::create<config_map>(*f.c, make_cm(n, n))));
    }
    auto one = f.must(f.run(client::list<config_map>(*f.c, "default")));
    REQUIRE(one.items.size() == 3);
    CHECK(one.items[1].metadata.name == "b");
    CHECK(one.items[1].data.at("k") == "b");
    CHECK_FALSE(one.metadata.resource_version.empty());

    list_options paged;
    paged.limit = 2;
    auto page = f.must(f.run(client::list<config_map>(*f.c, "default", paged)));
    CHECK(page.items.size() == 2);
    CHECK_FALSE(page.metadata.continue_.empty());
    auto all = f.must(f.run(client::list_all<config_map>(*f.c, "default", paged)));
    CHECK(all.items.size() == 3);
    CHECK(all.items[2].metadata.name == "c");
}

TEST_CASE("apply: server-side apply of a typed object, a second identical apply changes nothing") {
    fixture f;
    auto first = f.must(f.run(client::apply<config_map>(*f.c, make_cm("x", "1"), "typed-test")));
    CHECK(first.data.at("k") == "1");
    REQUIRE_FALSE(first.metadata.managed_fields.empty());
    CHECK(first.metadata.managed_fields[0].at("manager") == "typed-test");

    // Applying what was read back (managedFields and all) works: they are not sent.
    auto second = f.must(f.run(client::apply<config_map>(*f.c, first, "typed-test", true)));
    CHECK(second.metadata.resource_version == first.metadata.resource_version);
}

TEST_CASE("patch and the status subresource answer typed objects") {
    fixture f;
    f.must(f.run(client::create<config_map>(*f.c, make_cm("x", "1"))));
    auto patched = f.must(f.run(client::patch<config_map>(*f.c, {"default", "x"}, R"({"data":{"k2":"v"}})")));
    CHECK(patched.data.at("k") == "1");
    CHECK(patched.data.at("k2") == "v");

    k8s::deployment d;
    d.metadata.name = "web";
    d.metadata.namespace_ = "default";
    d.spec.replicas = 2;
    d.spec.selector.match_labels["app"] = "web";
    d.spec.template_.metadata.labels["app"] = "web";
    d.spec.template_.spec.containers.resize(1);
    d.spec.template_.spec.containers[0].name = "web";
    d.spec.template_.spec.containers[0].image = "nginx:1.27";
    auto live = f.must(f.run(client::create<k8s::deployment>(*f.c, d)));
    CHECK(live.spec.replicas == 2);

    live.status.observed_generation = live.metadata.generation;
    live.status.replicas = 2;
    auto st = f.must(f.run(client::update_status<k8s::deployment>(*f.c, live)));
    CHECK(st.status.replicas == 2);
    CHECK(st.status.observed_generation == live.metadata.generation);

    auto ps = f.must(f.run(client::patch_status<k8s::deployment>(*f.c, {"default", "web"},
                                                                  R"({"status":{"updatedReplicas":1}})")));
    CHECK(ps.status.updated_replicas == 1);
    CHECK(ps.status.replicas == 2);
}

TEST_CASE("a malformed answer is a decode_error naming the object and the field path, never a crash") {
    fixture f;
    f.must(f.run(client::create<config_map>(*f.c, make_cm("x", "one"))));
    auto got = f.run(client::get<strict::int_config_map>(*f.c, {"default", "x"}));
    REQUIRE_FALSE(got.has_value());
    CHECK(got.error().code() == make_error_code(kcoro_errc::decode_error));
    CHECK(got.error().message() == "ConfigMap default/x: data[k]: expected an integer, got \"one\"");

    auto listed = f.run(client::list<strict::int_config_map>(*f.c, "default"));
    REQUIRE_FALSE(listed.has_value());
    CHECK(listed.error().message() == "ConfigMapList: items[0].data[k]: expected an integer, got \"one\"");

    // The server's write succeeded; only the typed answer is refused.
    auto patched = f.run(client::patch<strict::int_config_map>(*f.c, {"default", "x"}, R"({"data":{"n":"5"}})"));
    REQUIRE_FALSE(patched.has_value());
    CHECK(patched.error().message().find("data[k]") != std::string::npos);
    auto raw = f.must(f.run(f.c->get(resources::configmaps(), {"default", "x"})));
    CHECK(raw->at("data").at("n") == "5");
}

namespace {

// Every typed verb from inside a coroutine, the three ways users write them
// (call_styles_test.cpp says why; the unit suite runs under ASan): inline,
// with a braced options object, and made now and awaited later. Typed
// objects are aggregates: they are passed as a function's result or moved
// from a name, never as a braced T{...} in a co_await operand.
asio::awaitable<void> typed_call_styles(client::client& c) {
    auto a = co_await client::create<config_map>(c, make_cm("a", "1"));
    REQUIRE(a.has_value());
    auto b = co_await client::create<config_map>(c, make_cm("b", "1"), create_options{});
    REQUIRE(b.has_value());
    auto create_op = client::create<config_map>(c, make_cm("c", "1"));
    auto made = co_await std::move(create_op);
    REQUIRE(made.has_value());

    auto g1 = co_await client::get<config_map>(c, {"default", "a"});
    REQUIRE(g1.has_value());
    auto g2 = co_await client::get<config_map>(c, {"default", "b"}, get_options{});
    REQUIRE(g2.has_value());
    auto get_op = client::get<config_map>(c, {std::string("default"), std::string("c")});
    auto g3 = co_await std::move(get_op);
    REQUIRE(g3.has_value());
    CHECK(g3->metadata.name == "c");

    auto l1 = co_await client::list<config_map>(c, "default");
    REQUIRE(l1.has_value());
    CHECK(l1->items.size() == 3);
    auto l2 = co_await client::list_all<config_map>(c, "default", list_options{});
    REQUIRE(l2.has_value());
    auto list_op = client::list<config_map>(c, std::string("default"));
    auto l3 = co_await std::move(list_op);
    REQUIRE(l3.has_value());
    CHECK(l3->items.size() == 3);

    // A copy of what was read, in the operand; a moved name; a deferred one.
    auto u1 = co_await client::update<config_map>(c, *g1);
    REQUIRE(u1.has_value());
    u1->data["k"] = "2";
    auto u2 = co_await client::update<config_map>(c, std::move(*u1), update_options{});
    REQUIRE(u2.has_value());
    auto update_op = client::update<config_map>(c, *u2);
    auto u3 = co_await std::move(update_op);
    REQUIRE(u3.has_value());
    CHECK(u3->data.at("k") == "2");

    auto p1 = co_await client::patch<config_map>(c, {"default", "a"}, R"({"data":{"p":"1"}})");
    REQUIRE(p1.has_value());
    auto p2 = co_await client::patch<config_map>(c, {"default", "a"}, R"([{"op":"add","path":"/data/q","value":"1"}])",
                                                 patch_options{patch_type::json});
    REQUIRE(p2.has_value());
    CHECK(p2->data.size() == 3);

    auto s1 = co_await client::apply<config_map>(c, make_cm("s", "1"), "tester");
    REQUIRE(s1.has_value());
    auto apply_op = client::apply<config_map>(c, make_cm("s", "1"), std::string("tester"), true);
    auto s2 = co_await std::move(apply_op);
    REQUIRE(s2.has_value());
    CHECK(s2->metadata.resource_version == s1->metadata.resource_version);
}

} // namespace

TEST_CASE("every typed verb from a coroutine, inline, with options and deferred") {
    fixture f;
    bool done = false;
    asio::co_spawn(f.ioc, typed_call_styles(*f.c), [&](std::exception_ptr e) {
        done = true;
        if (e) std::rethrow_exception(e);
    });
    REQUIRE(test::run_until(f.ioc, [&] { return done; }));
}
