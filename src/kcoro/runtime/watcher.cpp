#include <kcoro/runtime/watcher.hpp>

#include <kcoro/client/client.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <random>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

std::string_view to_string(watcher_phase p) noexcept {
    switch (p) {
    case watcher_phase::list: return "list";
    case watcher_phase::watch_open: return "watch";
    case watcher_phase::watch_stream: return "watch stream";
    }
    return "?";
}

std::function<double()> uniform_random_source() {
    auto gen = std::make_shared<std::mt19937_64>(std::random_device{}());
    return [gen] { return std::uniform_real_distribution<double>(0.0, 1.0)(*gen); };
}

std::string restart_reason(const error& e) {
    if (!e) {
        return "stream_end";
    }
    if (is_resource_version_too_large(e)) {
        return "too_large_resource_version";
    }
    if (is_gone_or_expired(e)) {
        return "gone";
    }
    if (is_too_many_requests(e)) {
        return "too_many_requests";
    }
    if (is_unauthorized(e)) {
        return "unauthorized";
    }
    if (is_forbidden(e)) {
        return "forbidden";
    }
    if (is_not_found(e)) {
        return "not_found";
    }
    if (e.code() == kcoro_errc::stream_truncated) {
        return e.message().find("very short watch") != std::string::npos ? "short_watch" : "stream_truncated";
    }
    if (e.code() == kcoro_errc::decode_error) {
        return "decode_error";
    }
    if (is_transport_error(e)) {
        return "transport";
    }
    return "error";
}

namespace {

watcher_options with_random(watcher_options o) {
    if (!o.random) {
        o.random = uniform_random_source();
    }
    return o;
}

// A failure of someone else's coroutine that escaped as an exception (e.g.
// operation_aborted after cancellation) becomes a value like the rest.
error from_exception(std::exception_ptr p) {
    try {
        std::rethrow_exception(p);
    } catch (const boost::system::system_error& e) {
        return error(e.code(), e.what());
    } catch (const std::exception& e) {
        return error(kcoro_errc::io_error, e.what());
    } catch (...) {
        return error(kcoro_errc::io_error, "unknown exception");
    }
}

} // namespace

watcher::watcher(client::client& c, io::clock& clk, asio::any_io_executor ex, watcher_target target,
                 watcher_hooks hooks, watcher_options opts, informer_metrics* metrics)
    : client_(c), clk_(clk), target_(std::move(target)), hooks_(std::move(hooks)), metrics_(metrics),
      fsm_(with_random(std::move(opts))), signal_(ex, asio::steady_timer::time_point::max()) {}

watcher::~watcher() = default;

void watcher::stop() {
    stopped_ = true;
    // The stream is closed by the loop once the read in flight was cancelled.
    signal_.cancel();
}

void watcher::relist() {
    if (stopped_ || !running_) {
        return;
    }
    relist_pending_ = true;
    signal_.cancel();
}

void watcher::close_stream() noexcept {
    if (stream_) {
        stream_->close();
        stream_.reset();
    }
}

asio::awaitable<void> watcher::run() {
    if (stopped_ || running_) {
        co_return;
    }
    running_ = true;
    watcher_input first = start{};
    for (;;) {
        // g++ 12 (docs/toolchain.md): awaitables named first, not temporaries in the operand.
        auto work = loop(std::move(first));
        auto signalled = wait_signal();
        co_await (std::move(work) || std::move(signalled));
        auto cs = co_await asio::this_coro::cancellation_state;
        if (stopped_ || !relist_pending_ || cs.cancelled() != asio::cancellation_type::none ||
            fsm_.state() == watcher_state::stopped) {
            break;
        }
        // relist(): the operation in flight was abandoned; the fsm starts over
        // from the last revision it saw.
        relist_pending_ = false;
        close_stream();
        first = relist_requested{};
    }
    close_stream();
    fsm_.step(runtime::stop{}, clk_.now());
    running_ = false;
}

asio::awaitable<void> watcher::wait_signal() {
    co_await asio::this_coro::throw_if_cancelled(false);
    while (!stopped_ && !relist_pending_) {
        co_await signal_.async_wait(asio::as_tuple(asio::use_awaitable));
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return;
        }
    }
}

void watcher::deliver(const watcher_action& a) {
    if (!hooks_.on_event) {
        return;
    }
    for (const auto& e : a.events) {
        hooks_.on_event(e);
    }
}

void watcher::outcome(watcher_phase p, const error& e) {
    if (hooks_.on_outcome) {
        hooks_.on_outcome(p, e);
    }
}

void watcher::count_restart(const watcher_next& next) {
    if (const auto* l = std::get_if<list_request>(&next)) {
        if (!l->continue_token.empty()) {
            return;  // the next page of the same list
        }
        if (last_op_ != last_op::none && metrics_) {
            metrics_->relisted(reason_.empty() ? std::string_view("error") : std::string_view(reason_));
        }
        last_op_ = last_op::list;
        reason_.clear();
    } else if (std::holds_alternative<watch_request>(next)) {
        if (last_op_ == last_op::watch && metrics_) {
            metrics_->watch_restarted(reason_.empty() ? std::string_view("stream_end") : std::string_view(reason_));
        }
        last_op_ = last_op::watch;
        reason_.clear();
    }
}

asio::awaitable<watcher_input> watcher::perform_list(const list_request& r) {
    list_options o;
    o.label_selector = target_.label_selector;
    o.field_selector = target_.field_selector;
    o.limit = r.limit;
    o.continue_token = r.continue_token;
    o.resource_version = r.resource_version;
    o.metadata_only = target_.metadata_only;
    o.shard_selector = target_.shard_selector;
    const std::string& ns = target_.namespace_;
    ++lists_;
    std::exception_ptr thrown;
    result<list_result> res = error(kcoro_errc::cancelled, "list not sent");
    // Each item goes to the store as soon as it is decoded, while the body
    // still streams in (docs/runtime.md, "Lists decoded as they stream").
    list_stream_decoder::item_sink on_item = [this](object_ptr item) {
        deliver(fsm_.step(list_item_received{std::move(item)}, clk_.now()));
    };
    try {
        // g++ 12 (docs/toolchain.md): the sink named first, not built in the operand.
        auto op = client_.list_each(target_.gvr, ns, o, std::move(on_item));
        res = co_await std::move(op);
    } catch (...) {
        thrown = std::current_exception();
    }
    if (thrown) {
        co_return list_failed{from_exception(thrown)};
    }
    if (!res) {
        co_return list_failed{res.error()};
    }
    last_list_shard_ = std::move(res->shard_selector);
    co_return list_page_received{std::move(res->resource_version), std::move(res->continue_token), {}};
}

asio::awaitable<watcher_input> watcher::perform_watch(const watch_request& r) {
    watch_options o;
    o.label_selector = target_.label_selector;
    o.field_selector = target_.field_selector;
    o.resource_version = r.resource_version;
    o.allow_watch_bookmarks = r.allow_watch_bookmarks;
    if (r.timeout_seconds > 0) {
        o.timeout_seconds = r.timeout_seconds;
    }
    // resourceVersionMatch=NotOlderThan is implied by sendInitialEvents
    // (the request builder adds it).
    o.send_initial_events = r.send_initial_events;
    o.metadata_only = target_.metadata_only;
    o.shard_selector = target_.shard_selector;
    const std::string& ns = target_.namespace_;
    ++watches_;
    std::exception_ptr thrown;
    result<client::watch_stream> res = error(kcoro_errc::cancelled, "watch not sent");
    try {
        res = co_await client_.watch(target_.gvr, ns, o);
    } catch (...) {
        thrown = std::current_exception();
    }
    if (thrown) {
        co_return watch_failed{from_exception(thrown)};
    }
    if (!res) {
        co_return watch_failed{res.error()};
    }
    stream_ = std::make_unique<client::watch_stream>(std::move(*res));
    co_return watch_started{};
}

asio::awaitable<watcher_input> watcher::read_stream() {
    if (!stream_ || !stream_->is_open()) {
        close_stream();
        co_return watch_stream_ended{};
    }
    std::exception_ptr thrown;
    result<std::optional<watch_event>> n = std::optional<watch_event>{};
    try {
        n = co_await stream_->next();
    } catch (...) {
        thrown = std::current_exception();
    }
    if (thrown) {
        close_stream();
        co_return watch_failed{from_exception(thrown)};
    }
    if (!n) {
        close_stream();
        co_return watch_failed{n.error()};
    }
    if (!*n) {
        close_stream();
        co_return watch_stream_ended{};
    }
    if ((*n)->type == watch_event_type::error) {
        auto err = (*n)->to_error();
        close_stream();
        co_return watch_failed{std::move(err)};
    }
    co_return watch_event_received{std::move(**n)};
}

asio::awaitable<void> watcher::loop(watcher_input first) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto action = fsm_.step(first, clk_.now());
    for (;;) {
        deliver(action);
        // Delivered: the objects are the store's now. Kept here they would
        // live until the next input (a quiet watch: minutes).
        action.events.clear();
        count_restart(action.next);
        if (!std::holds_alternative<await_input>(action.next)) {
            close_stream();
        }
        if (stopped_ || std::holds_alternative<watcher_done>(action.next)) {
            fsm_.step(runtime::stop{}, clk_.now());
            co_return;
        }

        watcher_input in = timer_fired{};
        watcher_phase phase = watcher_phase::list;
        if (const auto* l = std::get_if<list_request>(&action.next)) {
            in = co_await perform_list(*l);
            phase = watcher_phase::list;
        } else if (const auto* w = std::get_if<watch_request>(&action.next)) {
            in = co_await perform_watch(*w);
            phase = watcher_phase::watch_open;
        } else if (const auto* s = std::get_if<sleep_until>(&action.next)) {
            const steady_time deadline = s->deadline;
            co_await clk_.sleep_until(deadline);
            in = timer_fired{};
        } else {
            // await_input: the next thing the open stream says.
            const auto st = fsm_.state();
            if (st != watcher_state::watch_pending && st != watcher_state::watching &&
                st != watcher_state::streaming_pending && st != watcher_state::streaming) {
                // Nothing in flight would ever answer: a driver bug, not a hang.
                fsm_.step(runtime::stop{}, clk_.now());
                co_return;
            }
            in = co_await read_stream();
            phase = watcher_phase::watch_stream;
        }

        auto cs = co_await asio::this_coro::cancellation_state;
        if (stopped_ || cs.cancelled() != asio::cancellation_type::none) {
            // Stopped, or abandoned for a relist (run() decides which).
            close_stream();
            co_return;
        }

        // Report the outcome before the events it causes, and remember why
        // the attempt ended for the restart metrics.
        if (auto* f = std::get_if<list_failed>(&in)) {
            outcome(phase, f->err);
            reason_ = restart_reason(f->err);
        } else if (std::holds_alternative<list_page_received>(in)) {
            outcome(phase, error());
        } else if (std::holds_alternative<watch_started>(in)) {
            outcome(phase, error());
        } else if (auto* wf = std::get_if<watch_failed>(&in)) {
            outcome(phase, wf->err);
            reason_ = restart_reason(wf->err);
        } else if (std::holds_alternative<watch_stream_ended>(in)) {
            reason_ = "stream_end";
        }

        action = fsm_.step(in, clk_.now());
        if (fsm_.state() == watcher_state::backing_off && fsm_.last_error()) {
            reason_ = restart_reason(fsm_.last_error());
        }
    }
}

} // namespace kcoro::runtime
