// metav1.Status: what the API server answers on failure (and inside watch
// ERROR events). Decoding is pure and never throws on bad input.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

struct status_cause {
    std::string type;    // e.g. FieldValueRequired, ResourceVersionTooLarge
    std::string message;
    std::string field;   // e.g. spec.replicas
    friend bool operator==(const status_cause&, const status_cause&) = default;
};

struct status_details {
    std::string name;
    std::string group;
    std::string kind;
    std::string uid;
    std::vector<status_cause> causes;
    int retry_after_seconds = 0;
    friend bool operator==(const status_details&, const status_details&) = default;
};

struct status {
    std::string outcome;  // Status.status: "Failure" or "Success"
    std::string message;
    std::string reason;   // metav1.StatusReason, may be empty
    int code = 0;         // HTTP code
    std::optional<status_details> details;
    friend bool operator==(const status&, const status&) = default;
};

/// Decode a Status object; nullopt if `v` is not an object of kind Status
/// (a missing kind is accepted when `code`/`reason` are present, as some
/// proxies answer that way).
std::optional<status> decode_status(const boost::json::value& v);

/// Decode a Status from a response body; nullopt for non-JSON bodies.
std::optional<status> decode_status_body(std::string_view body);

/// Encode as the API server does (kind/apiVersion/metadata included).
boost::json::object encode_status(const status& s);

/// A Status for an HTTP answer that carried none (e.g. a proxy's HTML 502):
/// reason derived from the code, the body's start as message.
status status_from_http(int http_code, std::string_view body);

} // namespace kcoro
