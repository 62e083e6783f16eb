#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/work_queue.hpp>

#include <ostream>

namespace kcoro::runtime {

error terminal_error(const error& cause) {
    return error(kcoro_errc::terminal, cause.message());
}

error terminal_error(std::string message) {
    return error(kcoro_errc::terminal, std::move(message));
}

bool is_terminal(const error& e) noexcept {
    return e.code() == make_error_code(kcoro_errc::terminal);
}

reconcile_decision decide(const reconcile_result& res, const error& err) noexcept {
    reconcile_decision d;
    if (err) {
        d.error = true;
        d.outcome = reconcile_outcome::error;
        d.result_ignored = !res.is_zero();
        if (is_terminal(err)) {
            d.terminal = true;
            d.op = queue_op::none;
        } else {
            d.op = queue_op::add_rate_limited;
        }
        return d;
    }
    if (res.requeue_after.count() > 0) {
        // RequeueAfter wins over Requeue, as in controller-runtime.
        d.op = queue_op::forget_then_add_after;
        d.after = res.requeue_after;
        d.outcome = reconcile_outcome::requeue_after;
        return d;
    }
    if (res.requeue) {
        d.op = queue_op::add_rate_limited;
        d.outcome = reconcile_outcome::requeue;
        return d;
    }
    d.op = queue_op::forget;
    return d;
}

void apply(const reconcile_decision& d, work_queue& q, const object_key& key, steady_time now) {
    switch (d.op) {
    case queue_op::none:
        break;
    case queue_op::forget:
        q.forget(key);
        break;
    case queue_op::add_rate_limited:
        q.add_rate_limited(key, now);
        break;
    case queue_op::forget_then_add_after:
        q.forget(key);
        q.add_after(key, d.after, now);
        break;
    }
}

std::ostream& operator<<(std::ostream& os, queue_op op) {
    switch (op) {
    case queue_op::none: return os << "none";
    case queue_op::forget: return os << "forget";
    case queue_op::add_rate_limited: return os << "add_rate_limited";
    case queue_op::forget_then_add_after: return os << "forget_then_add_after";
    }
    return os << "?";
}

std::ostream& operator<<(std::ostream& os, const reconcile_result& r) {
    if (r.is_zero()) {
        return os << "success";
    }
    if (r.requeue_after.count() > 0) {
        return os << "requeue_after(" << std::chrono::duration<double>(r.requeue_after).count() << "s)";
    }
    return os << "requeue";
}

std::ostream& operator<<(std::ostream& os, const reconcile_decision& d) {
    os << "{op=" << d.op;
    if (d.op == queue_op::forget_then_add_after) {
        os << " after=" << std::chrono::duration<double>(d.after).count() << "s";
    }
    os << " outcome=" << static_cast<int>(d.outcome);
    if (d.error) os << " error";
    if (d.terminal) os << " terminal";
    if (d.result_ignored) os << " result_ignored";
    return os << "}";
}

} // namespace kcoro::runtime
