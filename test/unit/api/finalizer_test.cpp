// runtime::finalizer (kube-rs's finalizer()) against an in-process
// kcoro-apiserver: the finalizer persisted before the apply step, cleanup on
// deletion, only ours removed, never re-added while deleting.
#include <kcoro/runtime/finalizer.hpp>

#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>

#include "run_until.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <sstream>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using namespace kcoro;
using runtime::finalizer_event;
using runtime::finalizer_step;

namespace {

constexpr std::string_view ours = "example.io/cleanup";

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

struct write_counter final : request_metrics {
    int writes = 0;
    void observe(std::string_view, std::string_view method, std::string_view, std::string_view, double) override {
        writes += method != "GET";
    }
};

struct fixture {
    asio::io_context ioc;
    io::system_clock clk;
    apiserver::server srv{ioc.get_executor(), clk, {}};
    std::unique_ptr<client::client> admin, op;
    write_counter counter;
    std::vector<std::string> calls;  // what the reconcile function was asked, with the finalizers it saw
    std::optional<error> fail_with;

    fixture() {
        REQUIRE(srv.start());
        client::client_config cfg;
        cfg.server = srv.url();
        admin = client::client::create(cfg, clk).value();
        client::client_options oo;
        oo.metrics = &counter;
        op = client::client::create(cfg, clk, oo).value();
    }
    ~fixture() { srv.stop(0ms); }

    template <class T>
    T run(asio::awaitable<T> aw) {
        auto out = test::run(ioc, std::move(aw));
        REQUIRE(out.has_value());
        return std::move(*out);
    }

    object_ptr create(std::string_view text) {
        auto r = run(admin->create(resources::configmaps(), "default", parse(text)));
        REQUIRE(r);
        return *r;
    }
    result<object_ptr> get(std::string name) { return run(admin->get(resources::configmaps(), {"default", name})); }

    result<runtime::reconcile_result> pass(object_ptr obj) {
        runtime::finalizer_reconcile work = [this](finalizer_event ev,
                                                   object_ptr o) -> asio::awaitable<result<runtime::reconcile_result>> {
            std::string seen(to_string(ev));
            for (const auto& f : finalizers_of(*o)) seen += " " + f;
            calls.push_back(seen);
            if (fail_with) co_return *fail_with;
            co_return runtime::requeue_after(5min);
        };
        return run(runtime::finalizer(*op, resources::configmaps(), std::move(obj), std::string(ours), std::move(work),
                                      runtime::helper_options{}));
    }
};

} // namespace

TEST_CASE("the decision table") {
    auto live = parse(R"({"metadata":{"name":"a"}})");
    CHECK(runtime::decide_finalizer_step(live, ours) == finalizer_step::add_then_apply);
    auto with = parse(R"({"metadata":{"name":"a","finalizers":["x.io/y","example.io/cleanup"]}})");
    CHECK(runtime::decide_finalizer_step(with, ours) == finalizer_step::apply);
    auto deleting = parse(R"({"metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z",
                              "finalizers":["example.io/cleanup"]}})");
    CHECK(runtime::decide_finalizer_step(deleting, ours) == finalizer_step::cleanup_then_remove);
    auto gone = parse(R"({"metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["x.io/y"]}})");
    CHECK(runtime::decide_finalizer_step(gone, ours) == finalizer_step::nothing);
    std::ostringstream os;
    os << finalizer_step::cleanup_then_remove;
    CHECK(os.str() == "cleanup_then_remove");
}

TEST_CASE("a new object: the finalizer is persisted first, then apply runs on the answer, in the same pass") {
    fixture f;
    auto obj = f.create(R"({"metadata":{"name":"a","namespace":"default","finalizers":["other.io/keep"]}})");
    auto r = f.pass(obj);
    REQUIRE(r);
    CHECK(*r == runtime::requeue_after(5min));  // apply's result, passed through
    CHECK(f.calls == std::vector<std::string>{"apply other.io/keep example.io/cleanup"});
    CHECK(f.counter.writes == 1);
    CHECK(finalizers_of(**f.get("a")) == std::vector<std::string>{"other.io/keep", "example.io/cleanup"});

    // With the finalizer there: apply only, no write.
    r = f.pass(*f.get("a"));
    REQUIRE(r);
    CHECK(f.calls.size() == 2);
    CHECK(f.counter.writes == 1);
}

TEST_CASE("deleting: cleanup, then only our finalizer is removed; a failed cleanup keeps it") {
    fixture f;
    f.create(R"({"metadata":{"name":"a","namespace":"default","finalizers":["other.io/keep","example.io/cleanup"]}})");
    REQUIRE(f.run(f.admin->remove(resources::configmaps(), {"default", "a"})));
    auto deleting = *f.get("a");
    REQUIRE(is_being_deleted(*deleting));

    f.fail_with = error(api_errc::service_unavailable, "the external registry is down");
    auto r = f.pass(deleting);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().rfind("cleanup: ", 0) == 0);
    CHECK(r.error().code() == make_error_code(api_errc::service_unavailable));
    CHECK(has_finalizer(**f.get("a"), ours));
    CHECK(f.counter.writes == 0);

    f.fail_with.reset();
    r = f.pass(*f.get("a"));
    REQUIRE(r);
    CHECK(f.calls == std::vector<std::string>{"cleanup other.io/keep example.io/cleanup",
                                              "cleanup other.io/keep example.io/cleanup"});
    auto still = f.get("a");
    REQUIRE(still);  // another finalizer holds it
    CHECK(finalizers_of(**still) == std::vector<std::string>{"other.io/keep"});

    // Deleting without our finalizer: nothing at all, and never re-added.
    const int writes = f.counter.writes;
    r = f.pass(*still);
    REQUIRE(r);
    CHECK(f.calls.size() == 2);
    CHECK(f.counter.writes == writes);
    CHECK(finalizers_of(**f.get("a")) == std::vector<std::string>{"other.io/keep"});
}

TEST_CASE("removing the last finalizer lets the object go: success") {
    fixture f;
    f.create(R"({"metadata":{"name":"a","namespace":"default","finalizers":["example.io/cleanup"]}})");
    REQUIRE(f.run(f.admin->remove(resources::configmaps(), {"default", "a"})));
    auto r = f.pass(*f.get("a"));
    REQUIRE(r);
    auto gone = f.get("a");
    CHECK((!gone && is_not_found(gone.error())));
}

TEST_CASE("an apply error names the phase and keeps its code (terminal stays terminal)") {
    fixture f;
    auto obj = f.create(R"({"metadata":{"name":"a","namespace":"default"}})");
    f.fail_with = runtime::terminal_error("spec.port: must be > 0");
    auto r = f.pass(obj);
    REQUIRE_FALSE(r);
    CHECK(runtime::is_terminal(r.error()));
    CHECK(r.error().message() == "apply: spec.port: must be > 0");
    CHECK(has_finalizer(**f.get("a"), ours));  // persisted before the apply step ran
}
