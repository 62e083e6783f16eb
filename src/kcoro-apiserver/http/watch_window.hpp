// The watch cache's retained window, per resource, as kube-apiserver's cacher
// keeps it (staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go,
// cacher.go): which resourceVersions a watch may still start from, and the
// resourceVersion a bookmark carries.
//
// Each resource's cache starts when its storage starts (built-ins at server
// start, a custom resource at the first request, as crdHandler creates its
// storage lazily) at the then current revision (`listResourceVersion`). It
// then records every event of its resource in a ring whose capacity starts at
// 100 and doubles (up to 102,400) when the ring is full and its oldest event
// is younger than the fresh duration (75 s), and halves (not below 100) when
// the ring is full and the newest quarter is older than that
// (resizeCacheLocked). A full ring drops its oldest event.
//
// A watch from resourceVersion N is served when N >= oldest - 1, where
// oldest is listResourceVersion + 1 while nothing was dropped since the
// start, else the oldest retained event's revision; otherwise 410 Expired
// `too old resource version: N (oldest-1)` (getAllEventsSinceLocked). So on
// a server that has done any work before its caches started, a watch from
// resourceVersion 1 is always too old, as on a real cluster.
//
// Pure: times come in as arguments. Thread safety: none.
#pragma once

#include "store/object_store.hpp"

#include <kcoro/core/error.hpp>
#include <kcoro/core/time.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <string_view>

namespace kcoro::apiserver::http {

struct watch_window_params {
    std::size_t lower_bound_capacity = 100;       // defaultLowerBoundCapacity
    std::size_t upper_bound_capacity = 100 * 1024;  // defaultUpperBoundCapacity
    /// DefaultEventFreshDuration = defaultBookmarkFrequency (1 min) + 15 s.
    std::chrono::milliseconds event_fresh_duration{75000};
};

class watch_window {
public:
    explicit watch_window(watch_window_params p = {}) : params_(p) {}

    /// Starts the cache of `bucket` at `list_revision` unless it runs already.
    void start(const std::string& bucket, revision_t list_revision);
    bool started(const std::string& bucket) const { return caches_.count(bucket) != 0; }
    /// Records one event of `bucket` (ignored when its cache has not started).
    void record(const std::string& bucket, revision_t revision, steady_time when);
    /// 410 Expired when a watch from `rv` can no longer be served.
    result<void> check(const std::string& bucket, revision_t rv) const;
    /// The newest revision the cache of `bucket` has seen (its start revision
    /// when no event came since): what bookmarks carry (0 when not started).
    revision_t last_revision(const std::string& bucket) const;
    /// The ring's capacity (for tests and metrics; 0 when not started).
    std::size_t capacity(const std::string& bucket) const;

private:
    struct event {
        revision_t revision;
        steady_time when;
    };
    struct cache {
        revision_t list_revision = 0;
        revision_t last_revision = 0;
        bool removed_since_relist = false;
        std::size_t capacity = 0;
        std::deque<event> ring;
    };
    void resize(cache& c, steady_time when) const;

    watch_window_params params_;
    std::map<std::string, cache, std::less<>> caches_;
};

} // namespace kcoro::apiserver::http
