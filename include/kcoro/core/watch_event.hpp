// One event of a watch stream (metav1.WatchEvent) and its decoding from an
// already parsed JSON value. The incremental stream decoder is
// kcoro/core/watch_decoder.hpp.
//
// Pure values; `object` is shared and immutable, so events are cheap to copy
// and safe to hand to several readers.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/status.hpp>

#include <boost/json/value.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro {

enum class watch_event_type { added, modified, deleted, bookmark, error };

/// "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR".
const char* to_string(watch_event_type t) noexcept;
std::optional<watch_event_type> parse_watch_event_type(std::string_view s) noexcept;
std::ostream& operator<<(std::ostream& os, watch_event_type t);

/// The annotation on the BOOKMARK that ends the initial events of a watch
/// with sendInitialEvents=true.
inline constexpr std::string_view initial_events_end_annotation = "k8s.io/initial-events-end";

struct watch_event {
    watch_event_type type = watch_event_type::added;
    /// The object (for ERROR: the Status object as sent). Never null in a
    /// decoded event.
    object_ptr object;
    /// ERROR only: the decoded Status; `error::from_status(*status)` gives the
    /// error value (410 Expired/Gone -> `needs_relist`).
    std::optional<kcoro::status> status;
    /// The object's metadata.resourceVersion (for BOOKMARK the only content).
    std::string resource_version;
    /// A BOOKMARK annotated `k8s.io/initial-events-end: "true"`.
    bool initial_events_end = false;

    /// The error an ERROR event reports (empty error for other types).
    kcoro::error to_error() const;
};

std::ostream& operator<<(std::ostream& os, const watch_event& e);

/// Decode one event. `v` is consumed (its object is moved out, no copy).
/// Anything but {"type": <known string>, "object": {...}} is a
/// kcoro_errc::decode_error naming what was wrong; an ERROR whose object is not
/// a Status is a decode_error as well.
result<watch_event> decode_watch_event(boost::json::value&& v);

} // namespace kcoro
