#include <kcoro/core/log.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <ostream>

namespace kcoro {

namespace {

constexpr std::string_view redacted = "[redacted]";

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view level_name(log_level l) noexcept {
    switch (l) {
    case log_level::error: return "error";
    case log_level::info: return "info";
    case log_level::debug: return "debug";
    case log_level::trace: return "trace";
    }
    return "info";
}

std::string_view console_level_name(log_level l) noexcept {
    switch (l) {
    case log_level::error: return "ERROR";
    case log_level::info: return "INFO";
    case log_level::debug: return "DEBUG";
    case log_level::trace: return "TRACE";
    }
    return "INFO";
}

// RFC 3339 UTC with milliseconds: the microsecond form cut to three digits.
std::string format_ts(wall_time t) {
    auto s = format_rfc3339_micro(t);
    if (s.size() >= 27) return s.substr(0, 23) + "Z";
    return s;
}

void put(boost::json::object& o, std::string_view key, const boost::json::value& v) {
    o[key] = is_sensitive_key(key) ? boost::json::value(redacted) : redact(v);
}

} // namespace

std::optional<log_level> parse_log_level(std::string_view s) {
    if (s == "error") return log_level::error;
    if (s == "info") return log_level::info;
    if (s == "debug") return log_level::debug;
    if (s == "trace") return log_level::trace;
    return std::nullopt;
}

std::optional<log_format> parse_log_format(std::string_view s) {
    if (s == "json") return log_format::json;
    if (s == "console") return log_format::console;
    return std::nullopt;
}

void ostream_sink::write(std::string_view line) {
    std::lock_guard lock(mutex_);
    out_ << line;
    out_.flush();
}

bool is_sensitive_key(std::string_view key) {
    const std::string k = lower(key);
    for (std::string_view word : {"token", "password", "passwd", "authorization", "bearer", "apikey", "api_key",
                                  "api-key", "client-key", "clientkey", "private-key", "privatekey", "private_key",
                                  "credential", "cookie"}) {
        if (k.find(word) != std::string::npos) return true;
    }
    return false;
}

boost::json::value redact(const boost::json::value& v) {
    if (auto* arr = v.if_array()) {
        boost::json::array out;
        out.reserve(arr->size());
        for (auto& e : *arr) out.push_back(redact(e));
        return out;
    }
    auto* obj = v.if_object();
    if (!obj) return v;
    const auto* kind = obj->if_contains("kind");
    const bool secret = kind && kind->is_string() && kind->get_string() == "Secret";
    boost::json::object out;
    for (auto& [k, val] : *obj) {
        if (is_sensitive_key(k) || (secret && (k == "data" || k == "stringData")))
            out[k] = redacted;
        else
            out[k] = redact(val);
    }
    return out;
}

logger::logger() = default;

logger::logger(log_config config)
    : config_(std::make_shared<const log_config>(std::move(config))),
      values_(std::make_shared<const std::vector<log_kv>>()) {}

logger logger::with_name(std::string_view name) const {
    logger l = *this;
    l.name_ = name_.empty() ? std::string(name) : name_ + "." + std::string(name);
    return l;
}

logger logger::with_values(std::vector<log_kv> kvs) const {
    logger l = *this;
    auto merged = values_ ? *values_ : std::vector<log_kv>{};
    for (auto& kv : kvs) {
        auto it = std::find_if(merged.begin(), merged.end(), [&](const log_kv& e) { return e.key == kv.key; });
        if (it != merged.end())
            it->value = std::move(kv.value);
        else
            merged.push_back(std::move(kv));
    }
    l.values_ = std::make_shared<const std::vector<log_kv>>(std::move(merged));
    return l;
}

logger logger::with_values(std::initializer_list<log_kv> kvs) const {
    return with_values(std::vector<log_kv>(kvs));
}

logger logger::for_reconcile(std::string_view controller, std::string_view group, std::string_view kind,
                             std::string_view ns, std::string_view name, std::string_view reconcile_id) const {
    boost::json::object ref;
    ref["name"] = name;
    if (!ns.empty()) ref["namespace"] = ns;
    std::vector<log_kv> kvs{{"controller", controller}, {"controllerGroup", group}, {"controllerKind", kind}};
    kvs.emplace_back(kind, boost::json::value(std::move(ref)));
    kvs.emplace_back("namespace", ns);
    kvs.emplace_back("name", name);
    kvs.emplace_back("reconcileID", reconcile_id);
    return with_values(std::move(kvs));
}

bool logger::enabled(log_level l) const noexcept {
    return config_ && config_->sink && static_cast<int>(l) <= static_cast<int>(config_->level);
}

std::string logger::format(log_level l, std::string_view msg, std::initializer_list<log_kv> kvs,
                           const std::string* err) const {
    const wall_time now = (config_ && config_->clock) ? config_->clock() : wall_time{};
    boost::json::object fields;
    if (values_)
        for (auto& kv : *values_) put(fields, kv.key, kv.value);
    for (auto& kv : kvs) put(fields, kv.key, kv.value);
    if (err) fields["error"] = *err;

    if (config_ && config_->format == log_format::console) {
        std::string line = format_ts(now);
        line += '\t';
        line += console_level_name(l);
        line += '\t';
        if (!name_.empty()) {
            line += name_;
            line += '\t';
        }
        line += msg;
        if (!fields.empty()) {
            line += '\t';
            line += boost::json::serialize(fields);
        }
        line += '\n';
        return line;
    }

    // zap's production layout: level, ts, logger, msg, then the fields.
    boost::json::object o;
    o["level"] = level_name(l);
    o["ts"] = format_ts(now);
    if (!name_.empty()) o["logger"] = name_;
    o["msg"] = msg;
    for (auto& [k, v] : fields) {
        if (k == "level" || k == "ts" || k == "logger" || k == "msg") continue;  // never shadow the envelope
        o[k] = v;
    }
    return boost::json::serialize(o) + "\n";
}

void logger::emit(log_level l, std::string_view msg, std::initializer_list<log_kv> kvs,
                  const std::string* err) const {
    if (!enabled(l)) return;
    config_->sink->write(format(l, msg, kvs, err));
}

void logger::error(const kcoro::error& err, std::string_view msg, std::initializer_list<log_kv> kvs) const {
    if (!enabled(log_level::error)) return;
    const std::string text = err.message();
    emit(log_level::error, msg, kvs, &text);
}

void logger::error(std::string_view err, std::string_view msg, std::initializer_list<log_kv> kvs) const {
    if (!enabled(log_level::error)) return;
    const std::string text(err);
    emit(log_level::error, msg, kvs, &text);
}

void logger::info(std::string_view msg, std::initializer_list<log_kv> kvs) const {
    emit(log_level::info, msg, kvs, nullptr);
}
void logger::debug(std::string_view msg, std::initializer_list<log_kv> kvs) const {
    emit(log_level::debug, msg, kvs, nullptr);
}
void logger::trace(std::string_view msg, std::initializer_list<log_kv> kvs) const {
    emit(log_level::trace, msg, kvs, nullptr);
}

} // namespace kcoro
