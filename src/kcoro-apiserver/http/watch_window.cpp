#include "http/watch_window.hpp"

#include "store/status_errors.hpp"

#include <algorithm>

namespace kcoro::apiserver::http {

void watch_window::start(const std::string& bucket, revision_t list_revision) {
    if (caches_.count(bucket) != 0) {
        return;
    }
    cache c;
    c.list_revision = list_revision;
    c.last_revision = list_revision;
    c.capacity = params_.lower_bound_capacity;
    caches_.emplace(bucket, std::move(c));
}

// resizeCacheLocked: grow while full and fresh, shrink while full and the
// newest quarter is stale; a shrink drops the oldest events.
void watch_window::resize(cache& c, steady_time when) const {
    if (c.ring.size() < c.capacity || c.ring.empty()) {
        return;
    }
    if (when - c.ring.front().when < params_.event_fresh_duration) {
        c.capacity = std::min(c.capacity * 2, params_.upper_bound_capacity);
        return;
    }
    const auto quarter = c.ring[c.ring.size() - c.capacity / 4].when;
    if (when - quarter > params_.event_fresh_duration) {
        auto smaller = std::max(c.capacity / 2, params_.lower_bound_capacity);
        if (smaller < c.capacity) {
            c.capacity = smaller;
            while (c.ring.size() > c.capacity) {
                c.ring.pop_front();  // doCacheResizeLocked moves startIndex
            }
        }
    }
}

void watch_window::record(const std::string& bucket, revision_t revision, steady_time when) {
    auto it = caches_.find(bucket);
    if (it == caches_.end() || revision <= it->second.last_revision) {
        return;
    }
    auto& c = it->second;
    resize(c, when);
    if (c.ring.size() >= c.capacity) {
        c.ring.pop_front();  // updateCache: full, drop the oldest
        c.removed_since_relist = true;
    }
    c.ring.push_back({revision, when});
    c.last_revision = revision;
}

result<void> watch_window::check(const std::string& bucket, revision_t rv) const {
    auto it = caches_.find(bucket);
    if (it == caches_.end()) {
        return {};
    }
    const auto& c = it->second;
    revision_t oldest = 0;
    if (c.list_revision > 0 && !c.removed_since_relist) {
        oldest = c.list_revision + 1;
    } else if (!c.ring.empty()) {
        oldest = c.ring.front().revision;
    } else {
        return {};
    }
    if (rv + 1 < oldest) {
        return errors::expired("too old resource version: " + std::to_string(rv) + " (" +
                               std::to_string(oldest - 1) + ")");
    }
    return {};
}

revision_t watch_window::last_revision(const std::string& bucket) const {
    auto it = caches_.find(bucket);
    return it == caches_.end() ? 0 : it->second.last_revision;
}

std::size_t watch_window::capacity(const std::string& bucket) const {
    auto it = caches_.find(bucket);
    return it == caches_.end() ? 0 : it->second.capacity;
}

} // namespace kcoro::apiserver::http
