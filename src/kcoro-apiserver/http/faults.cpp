#include "http/faults.hpp"

#include <kcoro/core/status.hpp>

#include <boost/json/array.hpp>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

const char* action_name(fault_action a) {
    switch (a) {
    case fault_action::fail: return "fail";
    case fault_action::delay: return "delay";
    case fault_action::drop_after_commit: return "dropAfterCommit";
    }
    return "?";
}

std::string str_field(const json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

std::optional<std::int64_t> int_field(const json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    if (v && v->is_int64()) return v->get_int64();
    if (v && v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return std::nullopt;
}

std::string describe(const fault_rule& r) {
    std::string s = action_name(r.action);
    s += " verb=" + (r.verb.empty() ? std::string("*") : r.verb);
    s += " resource=" + (r.resource.empty() ? std::string("*") : r.resource);
    s += " name=" + (r.name.empty() ? std::string("*") : r.name);
    if (r.action == fault_action::fail) s += " code=" + std::to_string(r.code);
    if (r.retry_after_seconds) s += " retryAfter=" + std::to_string(r.retry_after_seconds);
    if (r.action == fault_action::delay) s += " delayMillis=" + std::to_string(r.delay.count());
    return s;
}

} // namespace

result<fault_rule> fault_rule::from_json(const json::object& o) {
    fault_rule r;
    auto action = str_field(o, "action");
    if (action == "fail") {
        r.action = fault_action::fail;
    } else if (action == "delay") {
        r.action = fault_action::delay;
    } else if (action == "dropAfterCommit") {
        r.action = fault_action::drop_after_commit;
    } else {
        return error(api_errc::bad_request, "fault: unknown action \"" + action + "\"");
    }
    r.verb = str_field(o, "verb");
    r.resource = str_field(o, "resource");
    r.name = str_field(o, "name");
    r.message = str_field(o, "message");
    if (auto v = int_field(o, "count")) r.count = static_cast<int>(*v);
    if (auto v = int_field(o, "code")) r.code = static_cast<int>(*v);
    if (auto v = int_field(o, "retryAfterSeconds")) r.retry_after_seconds = static_cast<int>(*v);
    if (auto v = int_field(o, "delayMillis")) r.delay = std::chrono::milliseconds(*v);
    if (r.count < 0 || r.code < 400 || r.code > 599 || r.retry_after_seconds < 0 || r.delay.count() < 0) {
        return error(api_errc::bad_request, "fault: count, code (400-599), retryAfterSeconds, delayMillis out of range");
    }
    return r;
}

json::object fault_rule::to_json() const {
    return json::object{{"action", action_name(action)},
                        {"verb", verb},
                        {"resource", resource},
                        {"name", name},
                        {"count", count},
                        {"code", code},
                        {"retryAfterSeconds", retry_after_seconds},
                        {"delayMillis", delay.count()},
                        {"message", message}};
}

std::uint64_t fault_table::add(fault_rule r) {
    log_.push_back("added: " + describe(r) + " count=" + std::to_string(r.count));
    rules_.push_back({next_id_, std::move(r), 0});
    return next_id_++;
}

void fault_table::clear() {
    rules_.clear();
    stalled_ = false;
    log_.push_back("cleared");
}

std::optional<fault_rule> fault_table::take(std::string_view verb, std::string_view resource, std::string_view name) {
    for (auto it = rules_.begin(); it != rules_.end(); ++it) {
        const auto& r = it->rule;
        if ((!r.verb.empty() && r.verb != verb) || (!r.resource.empty() && r.resource != resource) ||
            (!r.name.empty() && r.name != name)) {
            continue;
        }
        auto out = r;
        ++it->fired;
        log_.push_back("fired: " + describe(r) + " on " + std::string(verb) + " " + std::string(resource) +
                       (name.empty() ? "" : "/" + std::string(name)));
        if (r.count > 0 && it->fired >= r.count) {
            rules_.erase(it);
        }
        return out;
    }
    return std::nullopt;
}

void fault_table::set_watch_stall(bool on) {
    stalled_ = on;
    log_.push_back(on ? "watch delivery stalled" : "watch delivery resumed");
}

json::object fault_table::to_json() const {
    json::array rules;
    for (const auto& l : rules_) {
        auto o = l.rule.to_json();
        o["id"] = l.id;
        o["fired"] = l.fired;
        rules.push_back(std::move(o));
    }
    json::array log;
    for (const auto& s : log_) log.push_back(json::value(s));
    return json::object{{"rules", std::move(rules)}, {"watchStalled", stalled_}, {"log", std::move(log)}};
}

error fault_table::failure_for(const fault_rule& r) {
    auto s = status_from_http(r.code, {});
    s.outcome = "Failure";
    if (!r.message.empty()) {
        s.message = r.message;
    } else {
        s.message = "injected fault: " + std::to_string(r.code);
    }
    if (r.retry_after_seconds > 0) {
        if (!s.details) s.details = status_details{};
        s.details->retry_after_seconds = r.retry_after_seconds;
    }
    return error::from_status(std::move(s));
}

} // namespace kcoro::apiserver::http
