// Typed controllers on a manager in process, against kcoro-apiserver:
// for_<T>() / owns<T>() take the resource from resource_traits<T>, the
// reconciler gets the decoded object (shared, decoded once per version),
// an object that fails its checks goes to the invalid path (terminal: not
// retried until it changes, logged as "Reconciler error"), and
// mgr.cache().get<T>(key) reads typed from the shared cache.
#include <kcoro/server/controller_builder.hpp>

#include "harness.hpp"
#include "recorders.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/client/typed_client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/typed_cache.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/k8s/secret.hpp>

#include <boost/asio/io_context.hpp>
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;
using kcoro::k8s::config_map;
using kcoro::object_key;
using kcoro::runtime::reconcile_context;
using kcoro::runtime::reconcile_result;

namespace demo {

// A ConfigMap with a rule: the value of "replicas" is 0 to 5. The schema
// bound is checked on every reconcile (typed::check), as validate() is.
struct sized_config {
    kcoro::typed::object_meta metadata;
    std::map<std::string, std::string> data;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(sized_config, (), (metadata, data))
KCORO_RESOURCE(sized_config, resource("", "v1", "ConfigMap", "configmaps"))

inline kcoro::typed::field_errors validate(const sized_config& c) {
    kcoro::typed::field_errors errors;
    auto it = c.data.find("replicas");
    if (it != c.data.end() && (it->second.size() != 1 || it->second[0] < '0' || it->second[0] > '5')) {
        errors.push_back({kcoro::typed::field_path("data").key("replicas").str(),
                          kcoro::typed::field_error_type::invalid, "must be 0 to 5, got \"" + it->second + "\""});
    }
    return errors;
}

// Claims the configmaps resource under another kind: refused.
struct wrong_kind {
    kcoro::typed::object_meta metadata;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(wrong_kind, (), (metadata))
KCORO_RESOURCE(wrong_kind, resource("", "v1", "Secret", "configmaps"))

// A custom resource the manager's table does not know.
struct widget {
    kcoro::typed::object_meta metadata;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(widget, (), (metadata))
KCORO_RESOURCE(widget, resource("example.com", "v1", "Widget", "widgets").status_subresource())

} // namespace demo

namespace {

using kcoro::test::line_sink;

// The shared harness (real clock, memory transport) with one manager.
struct harness : kcoro::test::harness {
    kcoro::client::client* admin = &kcoro::test::harness::admin();
    std::unique_ptr<kcoro::client::client> op = make_client();
    std::shared_ptr<line_sink> sink = std::make_shared<line_sink>();
    std::unique_ptr<kcoro::server::manager> mgr;
    std::shared_ptr<std::optional<int>> exit_code;

    static kcoro::test::harness_options options() {
        kcoro::test::harness_options o;
        o.clock = kcoro::test::clock_kind::steady;
        return o;
    }

    harness() : kcoro::test::harness(options()) {
        auto o = manager_options();
        o.health_probe_bind_address = "127.0.0.1:0";
        auto s = manager_setup("typed", op.get());
        s.sink = sink;
        mgr = make_manager(std::move(o), std::move(s));
    }
    ~harness() {
        if (exit_code && !exit_code->has_value()) {
            mgr->request_stop();
            run_until([&] { return exit_code->has_value(); }, 40s);
        }
        mgr.reset();
    }
    void start() { exit_code = kcoro::test::start(ioc, mgr->run_async()); }
    template <class T> T run(asio::awaitable<T> aw) { return kcoro::test::harness::run(std::move(aw)); }
    template <class Pred> bool wait_for(Pred p) { return run_until(p, 10s); }
    void create_cm(std::string name, std::map<std::string, std::string> data) {
        config_map cm;
        cm.metadata.name = std::move(name);
        cm.metadata.namespace_ = "default";
        cm.data = std::move(data);
        auto r = run(kcoro::client::create<config_map>(*admin, std::move(cm)));
        REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message()));
    }
};

} // namespace

TEST_CASE("a typed controller gets the decoded object; an invalid one goes to the invalid path, once") {
    harness h;
    std::map<std::string, std::vector<std::string>> seen;  // name -> replicas values reconciled
    std::map<std::string, std::string> invalid;            // name -> describe(errors)
    std::map<std::string, int> invalid_passes;
    kcoro::server::typed_reconcile_func<demo::sized_config> reconcile =
        [&](reconcile_context ctx, std::shared_ptr<const demo::sized_config> obj)
        -> asio::awaitable<kcoro::result<reconcile_result>> {
        REQUIRE(obj);
        CHECK(obj->metadata.key() == ctx.key);
        auto it = obj->data.find("replicas");
        seen[ctx.key.name].push_back(it == obj->data.end() ? "" : it->second);
        co_return kcoro::runtime::success();
    };
    kcoro::server::invalid_object_func on_invalid =
        [&](reconcile_context ctx, kcoro::object_ptr raw,
            kcoro::typed::field_errors errors) -> asio::awaitable<kcoro::result<reconcile_result>> {
        REQUIRE(raw);
        CHECK(kcoro::name_of(*raw) == ctx.key.name);
        invalid[ctx.key.name] = kcoro::typed::describe(errors);
        ++invalid_passes[ctx.key.name];
        co_return kcoro::runtime::terminal_error("invalid spec: " + kcoro::typed::describe(errors));
    };
    h.mgr->controller("sized").for_<demo::sized_config>().complete<demo::sized_config>(reconcile, on_invalid);
    h.start();

    h.create_cm("bad", {{"replicas", "9"}});
    REQUIRE(h.wait_for([&] { return invalid.contains("bad"); }));
    CHECK(invalid["bad"] == "data[replicas]: must be 0 to 5, got \"9\"");
    CHECK_FALSE(seen.contains("bad"));

    // A later object is reconciled; the invalid one was not retried meanwhile.
    h.create_cm("good", {{"replicas", "3"}});
    REQUIRE(h.wait_for([&] { return seen.contains("good"); }));
    CHECK(seen["good"] == std::vector<std::string>{"3"});
    CHECK(invalid_passes["bad"] == 1);

    // Fixed: the new version is decoded and reconciled.
    auto fixed = h.run(kcoro::client::patch<config_map>(*h.admin, {"default", "bad"}, R"({"data":{"replicas":"2"}})"));
    REQUIRE(fixed.has_value());
    REQUIRE(h.wait_for([&] { return seen.contains("bad"); }));
    CHECK(seen["bad"].back() == "2");
    CHECK(invalid_passes["bad"] == 1);
}

TEST_CASE("the default invalid path: a terminal error, logged with every field path") {
    harness h;
    int passes = 0;
    kcoro::server::typed_reconcile_func<demo::sized_config> reconcile =
        [&](reconcile_context, std::shared_ptr<const demo::sized_config>)
        -> asio::awaitable<kcoro::result<reconcile_result>> {
        ++passes;
        co_return kcoro::runtime::success();
    };
    h.mgr->controller("sized").for_<demo::sized_config>().complete<demo::sized_config>(reconcile);
    h.start();
    h.create_cm("bad", {{"replicas", "x"}});
    REQUIRE(h.wait_for([&] { return h.sink->count("Reconciler error") >= 1; }));
    CHECK(h.sink->count("ConfigMap default/bad: data[replicas]: must be 0 to 5") == 1);
    h.create_cm("good", {});
    REQUIRE(h.wait_for([&] { return passes == 1; }));
    CHECK(h.sink->count("Reconciler error") == 1);  // not retried
}

TEST_CASE("cache.get<T>: shared and decoded once while unchanged, the new version after an update") {
    harness h;
    kcoro::server::typed_reconcile_func<config_map> reconcile =
        [&](reconcile_context, std::shared_ptr<const config_map>) -> asio::awaitable<kcoro::result<reconcile_result>> {
        co_return kcoro::runtime::success();
    };
    h.mgr->controller("cms").for_<config_map>().owns<kcoro::k8s::secret>().complete<config_map>(reconcile);
    h.start();
    h.create_cm("a", {{"k", "1"}});
    auto& cache = h.mgr->cache();
    REQUIRE(h.wait_for([&] { auto g = cache.get<config_map>({"default", "a"}); return g && *g; }));
    auto first = cache.get<config_map>({"default", "a"}).value();
    CHECK(first->data.at("k") == "1");
    CHECK(cache.get<config_map>({"default", "a"}).value() == first);
    CHECK(cache.get<config_map>({"default", "none"}).value() == nullptr);
    // Secrets are watched (owns<secret>()): a typed read of them works too.
    CHECK(cache.get<kcoro::k8s::secret>({"default", "none"}).value() == nullptr);

    REQUIRE(h.run(kcoro::client::patch<config_map>(*h.admin, {"default", "a"}, R"({"data":{"k":"2"}})")).has_value());
    REQUIRE(h.wait_for([&] { return cache.get<config_map>({"default", "a"}).value()->data.at("k") == "2"; }));
    CHECK(first->data.at("k") == "1");  // the old object is untouched
}

TEST_CASE("watches<T>: events of another type, mapped to primaries") {
    harness h;
    std::vector<std::string> passes;
    kcoro::server::typed_reconcile_func<config_map> reconcile =
        [&](reconcile_context ctx, std::shared_ptr<const config_map>) -> asio::awaitable<kcoro::result<reconcile_result>> {
        passes.push_back(ctx.key.name);
        co_return kcoro::runtime::success();
    };
    // A Secret "<name>-creds" wakes the ConfigMap "<name>".
    kcoro::runtime::map_func by_name = [](const boost::json::object& secret) -> std::vector<object_key> {
        std::string name(kcoro::name_of(secret));
        if (!name.ends_with("-creds")) return {};
        return {object_key(std::string(kcoro::namespace_of(secret)), name.substr(0, name.size() - 6))};
    };
    h.mgr->controller("cms").for_<config_map>().watches<kcoro::k8s::secret>(by_name).complete<config_map>(reconcile);
    h.start();
    h.create_cm("app", {{"k", "1"}});
    REQUIRE(h.wait_for([&] { return passes.size() == 1; }));
    kcoro::k8s::secret creds;
    creds.metadata.name = "app-creds";
    creds.metadata.namespace_ = "default";
    creds.string_data["password"] = "x";
    REQUIRE(h.run(kcoro::client::create<kcoro::k8s::secret>(*h.admin, std::move(creds))).has_value());
    REQUIRE(h.wait_for([&] { return passes.size() == 2; }));
    CHECK(passes == std::vector<std::string>{"app", "app"});
}

TEST_CASE("a typed reconciler owns children through apply_owned with its typed owner") {
    harness h;
    int applied = 0;
    kcoro::client::client* c = h.op.get();
    kcoro::server::typed_reconcile_func<config_map> reconcile =
        [&, c](reconcile_context ctx, std::shared_ptr<const config_map> cm)
        -> asio::awaitable<kcoro::result<reconcile_result>> {
        boost::json::object desired{{"apiVersion", "v1"}, {"kind", "Secret"},
                                    {"metadata", boost::json::object{{"name", cm->metadata.name},
                                                                     {"namespace", cm->metadata.namespace_}}},
                                    {"stringData", boost::json::object{{"copy", cm->data.at("k")}}}};
        auto written = co_await kcoro::runtime::apply_owned(*c, ctx, kcoro::resources::secrets(), std::move(desired), cm);
        if (!written) co_return written.error();
        ++applied;
        co_return kcoro::runtime::success();
    };
    h.mgr->controller("cms").for_<config_map>().owns<kcoro::k8s::secret>().complete<config_map>(reconcile);
    h.start();
    h.create_cm("app", {{"k", "v"}});
    REQUIRE(h.wait_for([&] { return applied >= 1; }));
    auto cm = h.run(kcoro::client::get<config_map>(*h.admin, {"default", "app"})).value();
    auto child = h.run(kcoro::client::get<kcoro::k8s::secret>(*h.admin, {"default", "app"}));
    REQUIRE(child.has_value());
    const auto* ref = child->metadata.controller();
    REQUIRE(ref);
    CHECK(ref->uid == cm.metadata.uid);
    CHECK(ref->kind == "ConfigMap");
    CHECK(ref->api_version == "v1");
    CHECK(ref->name == "app");
}

TEST_CASE("typed sources and reconcilers that disagree are start-up errors") {
    harness h;
    kcoro::server::typed_reconcile_func<demo::sized_config> reconcile =
        [&](reconcile_context, std::shared_ptr<const demo::sized_config>)
        -> asio::awaitable<kcoro::result<reconcile_result>> { co_return kcoro::runtime::success(); };
    // configmaps is kind ConfigMap in the manager's table: a type naming it Secret is refused.
    CHECK_THROWS_AS(h.mgr->controller("wrong").for_<demo::wrong_kind>(), std::invalid_argument);
    // The reconciler's type must be the primary's.
    auto b = h.mgr->controller("mismatch");
    b.for_<kcoro::k8s::secret>();
    CHECK_THROWS_AS(b.complete<demo::sized_config>(reconcile), std::invalid_argument);
}

TEST_CASE("for_<T>() adds a custom resource's kind to the manager's table: no separate registration") {
    harness h;
    const kcoro::group_version_resource widgets{"example.com", "v1", "widgets"};
    CHECK(h.mgr->resources().find(widgets) == nullptr);
    kcoro::server::typed_reconcile_func<demo::widget> reconcile =
        [&](reconcile_context, std::shared_ptr<const demo::widget>)
        -> asio::awaitable<kcoro::result<reconcile_result>> { co_return kcoro::runtime::success(); };
    CHECK_NOTHROW(h.mgr->controller("widgets").for_<demo::widget>().complete<demo::widget>(reconcile));
    const auto* info = h.mgr->resources().find(widgets);
    REQUIRE(info);
    CHECK(info->kind == "Widget");
    CHECK(info->namespaced);
    CHECK(info->has_status);
}
