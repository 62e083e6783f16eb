// The calls a new user writes first, inside co_await operands, the way they
// come to mind: braced keys and options, typed objects built in place
// (designated initializers), capturing lambdas passed in place, `?:`
// temporaries, defaulted and braced arguments of the user's own coroutines.
// Built with the default compiler (clang) and run under ASan + UBSan by
// `kcoro-dev test`: every style must run clean. Under g++ 12 three of them
// (a typed aggregate in the operand, an in-place capturing lambda, a `?:`
// of class type) destroy a temporary twice (docs/toolchain.md), so this file
// is not built with g++ < 13 (test/unit/api/meson.build); call_styles_test
// covers what is safe with every compiler.
#include <kcoro/client/typed_client.hpp>

#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/delete_owned.hpp>
#include <kcoro/testing/test_server.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/k8s/service.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <doctest/doctest.h>

#include <string>

namespace asio = boost::asio;
namespace json = boost::json;
namespace k8s = kcoro::k8s;
namespace client = kcoro::client;
namespace runtime = kcoro::runtime;
using kcoro::object_key;

namespace {

#define OK(r) REQUIRE_MESSAGE(bool(r), ((r) ? std::string() : (r).error().message()))

// A user's own options, an aggregate, and a coroutine with a defaulted
// parameter of that type (the pattern g++ 12 miscompiles).
struct label_options {
    std::string key = "app";
    std::string value = "web";
};

asio::awaitable<kcoro::result<k8s::config_map>> label_config_map(client::client& c, object_key key,
                                                                 label_options opts = {}) {
    co_return co_await client::merge_patch<k8s::config_map>(
        c, key, k8s::config_map{.metadata = {.labels = {{opts.key, opts.value}}}});
}

struct fixture {
    asio::io_context ioc;
    std::unique_ptr<kcoro::testing::test_server> srv = kcoro::testing::test_server::start(ioc).value();
    client::client& c = srv->client();

    void run(asio::awaitable<void> body) { REQUIRE(srv->run(std::move(body))); }
};

asio::awaitable<void> styles(kcoro::testing::test_server& srv, client::client& c) {
    const std::string ns = "default";
    const bool flag = srv.current_revision() > 0;

    // 1. A typed object built in place, in the operand (designated initializers).
    auto made = co_await client::create(c, k8s::config_map{.metadata = {.name = "web", .namespace_ = ns},
                                                           .data = {{"k", "v"}, {"other", "x"}}});
    OK(made);
    CHECK(made->data.at("k") == "v");

    // 2. A braced key, 3. a braced key and braced options.
    auto got = co_await client::get<k8s::config_map>(c, {ns, "web"});
    OK(got);
    auto raw = co_await c.get(kcoro::resources::configmaps(), {ns, "web"}, kcoro::get_options{});
    OK(raw);

    // 4. A `?:` of class type in the operand.
    const object_key other{ns, "nope"};
    auto picked = co_await c.get(kcoro::resources::configmaps(), flag ? object_key{ns, "web"} : other);
    OK(picked);
    CHECK(kcoro::name_of(**picked) == "web");

    // 5. A typed merge patch built in place.
    auto patched = co_await client::merge_patch<k8s::config_map>(c, {ns, "web"},
                                                                 k8s::config_map{.data = {{"k", "v2"}}});
    OK(patched);
    CHECK(patched->data.at("k") == "v2");
    CHECK(patched->data.at("other") == "x");

    // 6. The user's coroutine with its defaulted aggregate parameter, and 7.
    // with a braced one.
    auto labelled = co_await label_config_map(c, {ns, "web"});
    OK(labelled);
    CHECK(labelled->metadata.labels.at("app") == "web");
    auto relabelled = co_await label_config_map(c, {ns, "web"}, {.key = "tier", .value = "front"});
    OK(relabelled);
    CHECK(relabelled->metadata.labels.at("tier") == "front");

    // 8. A capturing lambda passed in place (create_or_patch's mutate, which
    // adjusts the desired object to the one that exists: the second call).
    const auto owner = std::make_shared<const json::object>(kcoro::typed::to_object(*made));
    json::object desired{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                         {"metadata", json::object{{"name", "child"}, {"namespace", ns}}}};
    auto first = co_await runtime::create_or_patch(c, kcoro::resources::configmaps(), desired, owner, {},
                                                   runtime::helper_options{});
    OK(first);
    auto child = co_await runtime::create_or_patch(
        c, kcoro::resources::configmaps(), desired, owner,
        [extra = std::string("from-lambda")](json::object& d, const json::object&) {
            d["data"] = json::object{{"extra", extra}};
        },
        runtime::helper_options{});
    OK(child);
    CHECK(child->object->at("data").at("extra") == "from-lambda");

    // 9. A capturing lambda coroutine spawned in place.
    auto answer = co_await asio::co_spawn(
        co_await asio::this_coro::executor,
        [&c, name = std::string("child")]() -> asio::awaitable<std::string> {
            auto r = co_await client::get<k8s::config_map>(c, {"default", name});
            co_return r ? r->data.at("extra") : std::string();
        },
        asio::use_awaitable);
    CHECK(answer == "from-lambda");

    // 10. A typed child applied from a reconcile context, built in place.
    runtime::reconcile_context ctx;
    ctx.key = {ns, "web"};
    ctx.field_manager = "probe";
    auto svc = co_await runtime::apply_owned(
        c, ctx,
        k8s::service{.metadata = {.name = "web", .namespace_ = ns},
                     .spec = {.ports = {{.name = "http", .protocol = "TCP", .port = 80, .target_port = 8080}},
                              .selector = {{"app", "web"}}}},
        owner);
    OK(svc);
    CHECK(svc->op == runtime::write_op::created);

    // 11. delete_owned with a braced key; 12. a delete with braced preconditions.
    auto gone = co_await runtime::delete_owned<k8s::service>(c, ctx, {ns, "web"}, owner);
    OK(gone);
    CHECK(gone->op == runtime::write_op::deleted);
    auto removed = co_await c.remove(kcoro::resources::configmaps(), {ns, "child"},
                                     kcoro::delete_options{kcoro::delete_preconditions{
                                         std::string(kcoro::uid_of(*child->object)), ""}});
    OK(removed);
}

} // namespace

TEST_CASE("the call styles a new user writes first run clean (ASan + UBSan)") {
    fixture f;
    f.run(styles(*f.srv, f.c));
    CHECK_FALSE(f.srv->get<k8s::config_map>({"default", "child"}));
    CHECK_FALSE(f.srv->get<k8s::service>({"default", "web"}));
    auto web = f.srv->get<k8s::config_map>({"default", "web"});
    REQUIRE(web);
    CHECK(web->metadata.labels.at("tier") == "front");
}
