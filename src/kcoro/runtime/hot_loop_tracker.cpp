#include <kcoro/runtime/hot_loop_tracker.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace kcoro::runtime {

namespace {

// Descriptions an alarm lists (the most recent).
constexpr std::size_t max_descriptions = 5;

std::string seconds_text(std::chrono::nanoseconds d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3gs", std::chrono::duration<double>(d).count());
    return buf;
}

} // namespace

std::string describe(const hot_loop_alarm& a) {
    std::string out = std::to_string(a.writing_reconciles) + " writing reconciles of " + a.key.str() + " in " +
                      seconds_text(a.span);
    if (a.noop_writes > 0) {
        out += " (" + std::to_string(a.noop_writes) + " no-op writes)";
    }
    if (!a.written.empty()) {
        out += "; wrote: ";
        for (std::size_t i = 0; i < a.written.size(); ++i) {
            out += (i == 0 ? "" : ", ") + a.written[i];
        }
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const hot_loop_alarm& a) { return os << describe(a); }

hot_loop_tracker::hot_loop_tracker(hot_loop_options opts) : opts_(opts) {}

bool hot_loop_tracker::expired(const history& h, steady_time now) const {
    const bool quiet = h.recent.empty() || now - h.recent.back().at >= opts_.window;
    const bool alarm_over = !h.alarmed_at || now - *h.alarmed_at >= opts_.window;
    return quiet && alarm_over;
}

void hot_loop_tracker::sweep(steady_time now) {
    // Once per window: drop keys nothing was written to for a whole window
    // (deleted objects, keys that settled).
    if (last_sweep_ && now - *last_sweep_ < opts_.window) {
        return;
    }
    last_sweep_ = now;
    std::erase_if(keys_, [&](const auto& kv) { return expired(kv.second, now); });
}

std::optional<hot_loop_alarm> hot_loop_tracker::record(const object_key& key, steady_time now, std::size_t writes,
                                                       std::size_t noop_writes, const std::vector<std::string>& what) {
    if (opts_.max_writing_reconciles == 0) {
        return std::nullopt;
    }
    sweep(now);
    if (writes == 0) {
        if (auto it = keys_.find(key); it != keys_.end() && expired(it->second, now)) {
            keys_.erase(it);
        }
        return std::nullopt;
    }
    auto& h = keys_[key];
    // An alarm names the descriptions of its last reconciles (at most
    // max_descriptions, most recent last): an entry that can never be among
    // the last max_descriptions of a window of max + 1 keeps none. Most keys
    // write once after a sync; their history holds no strings (~80 B a key
    // less: 8 MB at 100,000 keys).
    const bool may_be_described = h.recent.size() + max_descriptions >= opts_.max_writing_reconciles + 1;
    h.recent.push_back({now, noop_writes, may_be_described ? what : std::vector<std::string>{}});
    // Drop what fell out of the window, then all but the newest max + 1: the
    // threshold is crossed when they all fall within the window.
    auto first = std::find_if(h.recent.begin(), h.recent.end(),
                              [&](const writing_reconcile& r) { return now - r.at < opts_.window; });
    const auto keep = static_cast<std::ptrdiff_t>(opts_.max_writing_reconciles + 1);
    if (h.recent.end() - first > keep) {
        first = h.recent.end() - keep;
    }
    h.recent.erase(h.recent.begin(), first);
    if (h.recent.size() <= opts_.max_writing_reconciles) {
        return std::nullopt;
    }
    if (h.alarmed_at && now - *h.alarmed_at < opts_.window) {
        return std::nullopt;  // one alarm per key per window
    }
    h.alarmed_at = now;
    hot_loop_alarm a;
    a.key = key;
    a.writing_reconciles = h.recent.size();
    a.span = now - h.recent.front().at;
    for (const auto& r : h.recent) {
        a.noop_writes += r.noop_writes;
        for (const auto& w : r.what) {
            // Most recent last, each description once.
            std::erase(a.written, w);
            a.written.push_back(w);
        }
    }
    if (a.written.size() > max_descriptions) {
        a.written.erase(a.written.begin(), a.written.end() - static_cast<std::ptrdiff_t>(max_descriptions));
    }
    return a;
}

} // namespace kcoro::runtime
