// Watch bookmarks as the cacher sends them
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go
// nextBookmarkTime, cacher.go dispatchEvents / processEvent).
//
// Scheduling: a watcher with allowWatchBookmarks gets a bookmark every
// bookmark frequency (1 min), moved to 2 s before its deadline when that is
// sooner; none is scheduled once that time has passed. A bookmark carries the
// newest resourceVersion the resource's cache has seen and is sent only when
// that is newer than the resourceVersion the watch started from (a watcher
// gets nothing it already has).
//
// Object: the resource's empty object (`newFunc()`) with only
// metadata.resourceVersion set, serialized as the Go types serialize their
// zero values (`creationTimestamp: null`, non-pointer structs as `{}`);
// a custom resource's (unstructured) bookmark has only apiVersion, kind and
// metadata.resourceVersion.
//
// Pure functions; thread safety: values.
#pragma once

#include "store/object_store.hpp"

#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string_view>

namespace kcoro::apiserver::http {

/// The cacher's bookmark frequency (defaultBookmarkFrequency).
inline constexpr std::chrono::seconds default_bookmark_frequency{60};

/// When the next bookmark is due, or nullopt when no more is (nextBookmarkTime).
std::optional<steady_time> next_bookmark_time(steady_time now, steady_time deadline,
                                              std::chrono::milliseconds frequency);

/// Whether a bookmark at `bookmark_rv` goes to a watch that started at `start_rv`.
inline bool should_send_bookmark(revision_t bookmark_rv, revision_t start_rv) noexcept {
    return bookmark_rv > start_rv;
}

/// The bookmark object of a resource: `group`/`kind` select the Go type's
/// zero-value skeleton; `custom` (a CRD's kind) has none.
boost::json::object bookmark_object(std::string_view group, std::string_view kind, std::string_view api_version,
                                    bool custom, revision_t revision);

} // namespace kcoro::apiserver::http
