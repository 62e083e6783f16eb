// metav1.Time and metav1.MicroTime: RFC 3339 strings on the wire. The text
// is kept as received (an offset such as +02:00 survives a round trip); new
// values are written in UTC, to the second (timestamp) or the microsecond
// (micro_timestamp, as leases and events.k8s.io use).
//
// Thread safety: values.
#pragma once

#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kcoro::typed {

enum class time_precision { seconds, microseconds };

template <time_precision P> class basic_timestamp {
public:
    /// Unset: omitted when encoded.
    basic_timestamp() = default;
    explicit basic_timestamp(wall_time t)
        : text_(P == time_precision::seconds ? format_rfc3339(t) : format_rfc3339_micro(t)) {}
    /// Parses; nullopt when `s` is not RFC 3339.
    static std::optional<basic_timestamp> parse(std::string_view s) {
        if (!parse_rfc3339(s))
            return std::nullopt;
        basic_timestamp t;
        t.text_ = std::string(s);
        return t;
    }

    bool empty() const noexcept { return text_.empty(); }
    const std::string& str() const noexcept { return text_; }
    /// The time point; the epoch when unset.
    wall_time time_point() const {
        return empty() ? wall_time{} : parse_rfc3339(text_).value_or(wall_time{});
    }

    // --- the codec's scalar interface ---
    static constexpr std::string_view expected = "an RFC 3339 time";
    bool assign(const boost::json::value& v) {
        const auto* s = v.if_string();
        if (!s || !parse_rfc3339(*s))
            return false;
        text_.assign(s->data(), s->size());
        return true;
    }
    /// Unset is null, as metav1.Time writes its zero value.
    boost::json::value to_json() const {
        return empty() ? boost::json::value(nullptr) : boost::json::value(text_);
    }
    static void schema(boost::json::object& s) {
        s["type"] = "string";
        s["format"] = "date-time";
    }

    friend bool operator==(const basic_timestamp&, const basic_timestamp&) = default;

private:
    std::string text_;
};

using timestamp = basic_timestamp<time_precision::seconds>;
using micro_timestamp = basic_timestamp<time_precision::microseconds>;

} // namespace kcoro::typed
