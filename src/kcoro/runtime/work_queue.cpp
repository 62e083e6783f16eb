#include <kcoro/runtime/work_queue.hpp>

#include <algorithm>

namespace kcoro::runtime {

namespace {
double seconds(std::chrono::nanoseconds d) {
    return std::chrono::duration<double>(d).count();
}
} // namespace

work_queue::work_queue(work_queue_options opts) : opts_(opts), limiter_(opts.limiter) {}

void work_queue::report_depth() {
    if (opts_.metrics) {
        opts_.metrics->set_depth(static_cast<std::int64_t>(queue_.size()));
    }
}

void work_queue::cancel_waiting(const object_key& key) {
    auto it = waiting_.find(key);
    if (it == waiting_.end()) {
        return;
    }
    waiting_by_time_.erase({it->second, key});
    waiting_.erase(it);
}

void work_queue::add(const object_key& key, steady_time now) {
    if (shutting_down()) {
        return;
    }
    // ADR 0004: an immediate add supersedes a pending delayed one.
    cancel_waiting(key);
    if (dirty_.contains(key)) {
        return;
    }
    if (opts_.metrics) {
        opts_.metrics->add();
    }
    dirty_.emplace(key, now);
    if (processing_.contains(key)) {
        // Queued again by done(): never two of one key at once.
        return;
    }
    queue_.push_back(key);
    report_depth();
}

void work_queue::add_after(const object_key& key, std::chrono::nanoseconds delay, steady_time now) {
    if (shutting_down()) {
        return;
    }
    if (delay <= std::chrono::nanoseconds::zero()) {
        add(key, now);
        return;
    }
    if (dirty_.contains(key)) {
        // It runs (again) before the delay would expire anyway; that run
        // decides afresh whether to requeue.
        return;
    }
    auto ready = now + delay;
    auto it = waiting_.find(key);
    if (it != waiting_.end()) {
        if (it->second <= ready) {
            return;  // the earliest ready time wins
        }
        waiting_by_time_.erase({it->second, key});
        it->second = ready;
    } else {
        waiting_.emplace(key, ready);
    }
    waiting_by_time_.emplace(ready, key);
}

void work_queue::add_rate_limited(const object_key& key, steady_time now) {
    if (shutting_down()) {
        return;
    }
    if (opts_.metrics) {
        opts_.metrics->retry();
    }
    add_after(key, limiter_.when(key, now), now);
}

void work_queue::forget(const object_key& key) {
    limiter_.forget(key);
}

std::size_t work_queue::remove_if(const std::function<bool(const object_key&)>& pred) {
    std::size_t n = 0;
    const auto before = queue_.size();
    std::erase_if(queue_, [&](const object_key& k) { return pred(k); });
    // Queued keys are dirty; a dirty processing key is what done() requeues.
    for (auto it = dirty_.begin(); it != dirty_.end();) {
        if (pred(it->first)) {
            limiter_.forget(it->first);
            it = dirty_.erase(it);
            ++n;
        } else {
            ++it;
        }
    }
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (pred(it->first)) {
            waiting_by_time_.erase({it->second, it->first});
            limiter_.forget(it->first);
            it = waiting_.erase(it);
            ++n;
        } else {
            ++it;
        }
    }
    if (queue_.size() != before) report_depth();
    return n;
}

int work_queue::num_requeues(const object_key& key) const noexcept {
    return limiter_.num_requeues(key);
}

void work_queue::promote(steady_time now) {
    while (!waiting_by_time_.empty() && waiting_by_time_.begin()->first <= now) {
        auto key = waiting_by_time_.begin()->second;
        waiting_by_time_.erase(waiting_by_time_.begin());
        waiting_.erase(key);
        add(key, now);
    }
}

std::optional<object_key> work_queue::get(steady_time now) {
    if (!shutting_down()) {
        promote(now);
    }
    if (queue_.empty()) {
        return std::nullopt;
    }
    object_key key = std::move(queue_.front());
    queue_.pop_front();
    auto d = dirty_.find(key);
    if (d != dirty_.end()) {
        if (opts_.metrics) {
            opts_.metrics->queue_latency(seconds(now - d->second));
        }
        dirty_.erase(d);
    }
    processing_.emplace(key, now);
    report_depth();
    return key;
}

void work_queue::done(const object_key& key, steady_time now) {
    auto it = processing_.find(key);
    if (it == processing_.end()) {
        return;  // not handed out: nothing to finish
    }
    if (opts_.metrics) {
        opts_.metrics->work_duration(seconds(now - it->second));
    }
    processing_.erase(it);
    if (dirty_.contains(key)) {
        queue_.push_back(key);
        report_depth();
    }
}

std::optional<steady_time> work_queue::next_deadline() const noexcept {
    if (waiting_by_time_.empty() || shutting_down()) {
        return std::nullopt;
    }
    return waiting_by_time_.begin()->first;
}

void work_queue::shut_down() noexcept {
    if (state_ == queue_state::running) {
        state_ = queue_state::shutting_down;
    }
    // Delayed adds die with the queue, as client-go's delaying queue's do.
    waiting_.clear();
    waiting_by_time_.clear();
}

void work_queue::shut_down_with_drain() noexcept {
    shut_down();
    state_ = queue_state::draining;
}

std::pair<double, double> work_queue::unfinished_work(steady_time now) const noexcept {
    double total = 0;
    double longest = 0;
    for (const auto& [key, start] : processing_) {
        double age = seconds(now - start);
        total += age;
        longest = std::max(longest, age);
    }
    return {total, longest};
}

void work_queue::update_unfinished_work(steady_time now) {
    if (!opts_.metrics) {
        return;
    }
    auto [total, longest] = unfinished_work(now);
    opts_.metrics->set_unfinished_work(total);
    opts_.metrics->set_longest_running(longest);
}

} // namespace kcoro::runtime
