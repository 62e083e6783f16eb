// The configmap-mirror controller (src/examples/configmap-mirror) running
// under a real controller + informers against kcoro-apiserver in process,
// for section16_test.cpp and controller_test.cpp. The controller's client
// counts its writes (every attempt, as request_metrics sees them); the
// test's own client (admin) is not counted.
#pragma once

#include "harness.hpp"
#include "recorders.hpp"
#include "mirror.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/informer_factory.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mirror_test {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;

using kcoro::test::write_counter;

// One controller incarnation: its informers, reconciler and controller.
struct incarnation {
    std::unique_ptr<kcoro::runtime::informer_factory> factory;
    std::unique_ptr<mirror::reconciler> rec;
    std::unique_ptr<kcoro::runtime::controller> ctl;
    asio::cancellation_signal cancel_ctl, cancel_factory;
    std::shared_ptr<bool> ctl_done = std::make_shared<bool>(false);
    std::shared_ptr<bool> factory_done = std::make_shared<bool>(false);
};

// The shared harness on a manual clock (memory transport): waits advance
// virtual time in 10 ms steps, settling after each.
struct harness : kcoro::test::harness {
    kcoro::io::manual_clock& clk = manual_clock();
    kcoro::apiserver::server& srv = server();
    kcoro::client::client* admin = &kcoro::test::harness::admin();
    write_counter counter;
    std::unique_ptr<kcoro::client::client> op;
    std::unique_ptr<incarnation> cur;
    std::uint64_t past_noop_writes = 0;  // of the controllers stopped so far

    // No-op writes the controllers reported (their reconciles' write hooks).
    std::uint64_t noop_writes() const { return past_noop_writes + (cur ? cur->ctl->stats().noop_writes : 0); }

    static kcoro::test::harness_options options() {
        kcoro::test::harness_options o;
        o.server.gc_interval = 20ms;
        return o;
    }

    explicit harness(std::size_t max_concurrent = 1) : kcoro::test::harness(options()) {
        kcoro::test::client_spec spec;
        spec.user = "mirror";
        spec.metrics = &counter;
        op = make_client(spec);
        start_controller(max_concurrent);
    }
    ~harness() { stop_controller(); }

    void start_controller(std::size_t max_concurrent = 1) {
        cur = std::make_unique<incarnation>();
        kcoro::runtime::informer_factory_options fo;
        fo.random = [] { return 0.5; };
        cur->factory = std::make_unique<kcoro::runtime::informer_factory>(*op, clk, ioc.get_executor(), fo);
        cur->rec = std::make_unique<mirror::reconciler>(*op);
        kcoro::runtime::controller_options o;
        o.max_concurrent_reconciles = max_concurrent;
        cur->ctl = mirror::make_controller(*cur->factory, clk, ioc.get_executor(), *cur->rec, o);
        auto fdone = cur->factory_done;
        auto f = cur->factory->run();
        asio::co_spawn(ioc, std::move(f), asio::bind_cancellation_slot(cur->cancel_factory.slot(), [fdone](std::exception_ptr e) {
                           if (e) std::rethrow_exception(e);
                           *fdone = true;
                       }));
        auto cdone = cur->ctl_done;
        auto c = cur->ctl->run();
        asio::co_spawn(ioc, std::move(c), asio::bind_cancellation_slot(cur->cancel_ctl.slot(), [cdone](std::exception_ptr e) {
                           if (e) std::rethrow_exception(e);
                           *cdone = true;
                       }));
    }

    // Graceful: stop() and wait for the drain. `hard`: cancel run() instead.
    void stop_controller(bool hard = false) {
        if (!cur) return;
        if (hard) {
            cur->cancel_ctl.emit(asio::cancellation_type::terminal);
        } else {
            cur->ctl->stop();
        }
        CHECK(wait_for([&] { return *cur->ctl_done; }));
        past_noop_writes += cur->ctl->stats().noop_writes;
        cur->factory->stop();
        if (!wait_for([&] { return *cur->factory_done; }, 2s)) {
            cur->cancel_factory.emit(asio::cancellation_type::terminal);
            CHECK(wait_for([&] { return *cur->factory_done; }));
        }
        cur.reset();
    }

    template <class T>
    T run(asio::awaitable<T> aw) {
        return kcoro::test::harness::run(std::move(aw));
    }

    // Until `pred` holds at a settled point, within `bound` of virtual time.
    template <class Pred>
    bool wait_for(Pred pred, std::chrono::milliseconds bound = 10s) {
        return advance_until(pred, bound, 10ms);
    }

    // Lets `d` of virtual time pass (settling every 10 ms): a chance for
    // wrong writes, timer-driven ones included, to happen before asserting
    // that none did.
    void let_run(std::chrono::milliseconds d) {
        advance_until([] { return false; }, d, 10ms);
    }

    // The controller has nothing queued, waiting or running.
    bool idle() const {
        const auto& q = cur->ctl->queue().queue();
        return q.len() == 0 && q.num_waiting() == 0 && q.num_processing() == 0;
    }
    // Waits until idle after at least `n` more reconciles than `before`.
    bool settle_after(std::uint64_t before, std::uint64_t n = 1) {
        return wait_for([&] { return cur->ctl->stats().reconciles >= before + n && idle(); });
    }

    kcoro::object_ptr create_parent(std::string_view name, bool managed = true) {
        auto o = json::parse(std::string(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")") +
                             std::string(name) + R"(","namespace":"default","labels":{"app.example.io/managed":")" +
                             (managed ? "true" : "false") + R"("}},"data":{"input":"hello"}})");
        auto r = run(admin->create(kcoro::resources::configmaps(), "default", o.as_object()));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
        return *r;
    }

    // Creates the parent while watches are stalled, then adds `rule`: a fault
    // on "create configmaps" (whose name the server only knows from the
    // body, so rules cannot match it by name) hits the controller's create of
    // the child, not the test's create of the parent.
    kcoro::object_ptr create_parent_with_fault(std::string_view name, kcoro::apiserver::http::fault_rule rule) {
        srv.stall_watches(true);
        auto p = create_parent(name);
        srv.faults().add(std::move(rule));
        srv.stall_watches(false);
        return p;
    }

    kcoro::result<kcoro::object_ptr> get(std::string_view name) {
        return run(admin->get(kcoro::resources::configmaps(), object_key{"default", std::string(name)}));
    }

    // The child exists with the right content for `parent`.
    bool child_ok(const kcoro::object_ptr& parent) {
        auto c = get(mirror::child_name(kcoro::name_of(*parent)));
        if (!c) return false;
        const auto* uid = kcoro::find_path(**c, {"data", "parentUID"});
        return uid && uid->is_string() && uid->as_string() == kcoro::uid_of(*parent) &&
               kcoro::is_controlled_by(**c, kcoro::uid_of(*parent)) &&
               kcoro::label_of(**c, mirror::child_label) == std::optional<std::string_view>("true");
    }

    // Overwrites the child's parentUID through the admin client, with a PUT
    // (so faults set on "patch" hit the controller's repair, not this).
    void tamper(std::string_view child, std::string_view value = "tampered") {
        auto cur = get(child);
        REQUIRE(cur);
        json::object o = **cur;
        o["data"].as_object()["parentUID"] = value;
        auto r = run(admin->update(kcoro::resources::configmaps(), o));
        REQUIRE_MESSAGE(r, (r ? "" : r.error().message()));
    }

    // Fault rules that fired so far.
    int faults_fired() {
        int n = 0;
        for (auto& e : srv.faults().entries()) n += e.rfind("fired", 0) == 0;
        return n;
    }

    std::size_t children() {
        kcoro::list_options lo;
        lo.label_selector = std::string(mirror::child_selector);
        auto l = run(admin->list(kcoro::resources::configmaps(), "default", lo));
        REQUIRE(l);
        return l->items.size();
    }
};

} // namespace mirror_test
