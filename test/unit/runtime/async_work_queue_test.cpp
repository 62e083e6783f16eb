#include <kcoro/runtime/async_work_queue.hpp>

#include <doctest/doctest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <memory>

using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::runtime::async_work_queue;
namespace asio = boost::asio;

namespace {

const object_key a{"ns", "a"};
const object_key b{"ns", "b"};

struct pending_get {
    bool completed = false;
    std::optional<object_key> key;
};

// Starts q.get(); poll() the io_context to let it progress.
std::shared_ptr<pending_get> start_get(asio::io_context& ioc, async_work_queue& q,
                                       asio::cancellation_signal* cancel = nullptr) {
    auto out = std::make_shared<pending_get>();
    auto done = [out](std::exception_ptr e, std::optional<object_key> k) {
        REQUIRE_FALSE(e);
        out->completed = true;
        out->key = std::move(k);
    };
    if (cancel) {
        asio::co_spawn(ioc, q.get(), asio::bind_cancellation_slot(cancel->slot(), done));
    } else {
        asio::co_spawn(ioc, q.get(), done);
    }
    return out;
}

void poll(asio::io_context& ioc) {
    ioc.restart();
    ioc.poll();
}

} // namespace

TEST_CASE("get waits for an add") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock);
    auto g = start_get(ioc, q);
    poll(ioc);
    CHECK_FALSE(g->completed);
    q.add(a);
    poll(ioc);
    REQUIRE(g->completed);
    CHECK(g->key == a);
    CHECK(q.in_flight() == 1);
}

TEST_CASE("get wakes at the delayed-add deadline on the manual clock; an earlier add_after moves it") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock);
    q.add_after(a, 10s);
    auto g = start_get(ioc, q);
    poll(ioc);
    CHECK_FALSE(g->completed);
    q.add_after(b, 2s);
    poll(ioc);
    clock.advance(1s);
    poll(ioc);
    CHECK_FALSE(g->completed);
    clock.advance(1s);
    poll(ioc);
    REQUIRE(g->completed);
    CHECK(g->key == b);
    q.done(b);
    auto g2 = start_get(ioc, q);
    poll(ioc);
    CHECK_FALSE(g2->completed);
    CHECK(clock.advance_to_next());
    poll(ioc);
    REQUIRE(g2->completed);
    CHECK(g2->key == a);
}

TEST_CASE("at most max_concurrent keys in flight") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock, {}, 2);
    q.add(a);
    q.add(b);
    q.add(object_key{"ns", "c"});
    auto g1 = start_get(ioc, q);
    auto g2 = start_get(ioc, q);
    auto g3 = start_get(ioc, q);
    poll(ioc);
    CHECK(g1->completed);
    CHECK(g2->completed);
    CHECK_FALSE(g3->completed);
    CHECK(q.in_flight() == 2);
    q.done(*g1->key);
    poll(ioc);
    REQUIRE(g3->completed);
    CHECK(g3->key == object_key{"ns", "c"});
}

TEST_CASE("a key added while processing is handed out again only after done") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock, {}, 4);
    q.add(a);
    auto g1 = start_get(ioc, q);
    poll(ioc);
    REQUIRE(g1->key == a);
    q.add(a);
    auto g2 = start_get(ioc, q);
    poll(ioc);
    CHECK_FALSE(g2->completed);  // slots are free, but a is processing
    q.done(a);
    poll(ioc);
    REQUIRE(g2->completed);
    CHECK(g2->key == a);
}

TEST_CASE("shut_down ends waiting gets; shut_down_with_drain waits for in-flight work") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock, {}, 2);
    q.add(a);
    auto g1 = start_get(ioc, q);
    auto g2 = start_get(ioc, q);
    poll(ioc);
    REQUIRE(g1->key == a);
    CHECK_FALSE(g2->completed);
    bool drained = false;
    asio::co_spawn(ioc, q.shut_down_with_drain(), [&](std::exception_ptr) { drained = true; });
    poll(ioc);
    CHECK(g2->completed);  // nothing left to hand out
    CHECK_FALSE(g2->key);
    CHECK_FALSE(drained);  // a is still processing
    q.add(b);              // intake stopped
    q.done(a);
    poll(ioc);
    CHECK(drained);
    auto g3 = start_get(ioc, q);
    poll(ioc);
    CHECK(g3->completed);
    CHECK_FALSE(g3->key);
}

TEST_CASE("a cancelled get returns nullopt and leaves no sleeper behind") {
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    async_work_queue q(ioc.get_executor(), clock);
    q.add_after(a, 5s);
    asio::cancellation_signal cancel;
    auto g = start_get(ioc, q, &cancel);
    poll(ioc);
    CHECK(clock.sleepers() == 1);
    cancel.emit(asio::cancellation_type::terminal);
    poll(ioc);
    REQUIRE(g->completed);
    CHECK_FALSE(g->key);
    CHECK(clock.sleepers() == 0);
}

TEST_CASE("run_metrics reports unfinished work periodically until shutdown") {
    struct m final : kcoro::workqueue_metrics {
        double unfinished = -1;
        void add() override {}
        void set_depth(std::int64_t) override {}
        void queue_latency(double) override {}
        void work_duration(double) override {}
        void set_unfinished_work(double s) override { unfinished = s; }
        void set_longest_running(double) override {}
        void retry() override {}
    } metrics;
    asio::io_context ioc;
    kcoro::io::manual_clock clock;
    kcoro::runtime::work_queue_options o;
    o.metrics = &metrics;
    async_work_queue q(ioc.get_executor(), clock, o);
    q.add(a);
    auto g = start_get(ioc, q);
    bool stopped = false;
    asio::co_spawn(ioc, q.run_metrics(500ms), [&](std::exception_ptr) { stopped = true; });
    poll(ioc);
    REQUIRE(g->key == a);
    clock.advance(500ms);
    poll(ioc);
    CHECK(metrics.unfinished == doctest::Approx(0.5));
    clock.advance(500ms);
    poll(ioc);
    CHECK(metrics.unfinished == doctest::Approx(1.0));
    q.shut_down();
    clock.advance(500ms);
    poll(ioc);
    CHECK(stopped);
}
