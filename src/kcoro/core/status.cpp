#include <kcoro/core/status.hpp>

#include <boost/json/parse.hpp>

namespace kcoro {
namespace json = boost::json;

namespace {

std::string str_field(const json::object& o, std::string_view key) {
    if (auto* v = o.if_contains(key); v && v->is_string()) {
        return std::string(v->get_string());
    }
    return {};
}

int int_field(const json::object& o, std::string_view key) {
    if (auto* v = o.if_contains(key)) {
        if (v->is_int64()) {
            auto i = v->get_int64();
            return (i < -1000000 || i > 1000000) ? 0 : static_cast<int>(i);
        }
        if (v->is_uint64()) {
            auto u = v->get_uint64();
            return u > 1000000 ? 0 : static_cast<int>(u);
        }
    }
    return 0;
}

const char* reason_for(int code) {
    switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "";
    }
}

} // namespace

std::optional<status> decode_status(const json::value& v) {
    const auto* o = v.if_object();
    if (!o) {
        return std::nullopt;
    }
    auto kind = str_field(*o, "kind");
    if (kind.empty()) {
        if (!o->contains("code") && !o->contains("reason")) {
            return std::nullopt;
        }
    } else if (kind != "Status") {
        return std::nullopt;
    }
    status s;
    s.outcome = str_field(*o, "status");
    s.message = str_field(*o, "message");
    s.reason = str_field(*o, "reason");
    s.code = int_field(*o, "code");
    if (auto* d = o->if_contains("details"); d && d->is_object()) {
        const auto& dobj = d->get_object();
        status_details det;
        det.name = str_field(dobj, "name");
        det.group = str_field(dobj, "group");
        det.kind = str_field(dobj, "kind");
        det.uid = str_field(dobj, "uid");
        det.retry_after_seconds = int_field(dobj, "retryAfterSeconds");
        if (auto* c = dobj.if_contains("causes"); c && c->is_array()) {
            for (const auto& cv : c->get_array()) {
                if (const auto* co = cv.if_object()) {
                    det.causes.push_back({str_field(*co, "reason"), str_field(*co, "message"),
                                          str_field(*co, "field")});
                }
            }
        }
        s.details = std::move(det);
    }
    return s;
}

std::optional<status> decode_status_body(std::string_view body) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec) {
        return std::nullopt;
    }
    return decode_status(v);
}

json::object encode_status(const status& s) {
    json::object o;
    o["kind"] = "Status";
    o["apiVersion"] = "v1";
    o["metadata"] = json::object{};
    o["status"] = s.outcome.empty() ? "Failure" : s.outcome;
    if (!s.message.empty()) {
        o["message"] = s.message;
    }
    if (!s.reason.empty()) {
        o["reason"] = s.reason;
    }
    if (s.details) {
        json::object d;
        if (!s.details->name.empty()) d["name"] = s.details->name;
        if (!s.details->group.empty()) d["group"] = s.details->group;
        if (!s.details->kind.empty()) d["kind"] = s.details->kind;
        if (!s.details->uid.empty()) d["uid"] = s.details->uid;
        if (!s.details->causes.empty()) {
            json::array causes;
            for (const auto& c : s.details->causes) {
                json::object co;
                if (!c.type.empty()) co["reason"] = c.type;
                if (!c.message.empty()) co["message"] = c.message;
                if (!c.field.empty()) co["field"] = c.field;
                causes.push_back(std::move(co));
            }
            d["causes"] = std::move(causes);
        }
        if (s.details->retry_after_seconds > 0) {
            d["retryAfterSeconds"] = s.details->retry_after_seconds;
        }
        o["details"] = std::move(d);
    }
    o["code"] = s.code;
    return o;
}

status status_from_http(int http_code, std::string_view body) {
    status s;
    s.outcome = "Failure";
    s.code = http_code;
    s.reason = reason_for(http_code);
    constexpr std::size_t max_message = 256;
    s.message = std::string(body.substr(0, max_message));
    if (s.message.empty()) {
        s.message = "the server responded with HTTP " + std::to_string(http_code);
    }
    return s;
}

} // namespace kcoro
