#include <kcoro/runtime/event_aggregator.hpp>

#include <boost/json/serialize.hpp>

#include <cstdio>

namespace kcoro::runtime {

namespace {

constexpr std::size_t max_note_bytes = 1024;  // events.k8s.io validation limit

std::string_view str_at(const boost::json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// The identity of a reference, without resourceVersion (see the header).
void append_ref(std::string& out, const boost::json::object& ref) {
    for (auto key : {"apiVersion", "kind", "namespace", "name", "uid", "fieldPath"}) {
        out += str_at(ref, key);
        out += '\x1f';
    }
}

std::string cut_note(std::string_view note) {
    if (note.size() <= max_note_bytes) return std::string(note);
    std::size_t n = max_note_bytes;
    while (n > 0 && (static_cast<unsigned char>(note[n]) & 0xC0) == 0x80) --n;  // keep UTF-8 whole
    return std::string(note.substr(0, n));
}

std::int64_t unix_nanos(wall_time t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

} // namespace

boost::json::object object_reference_of(const boost::json::object& obj) {
    boost::json::object ref;
    auto* meta = obj.if_contains("metadata");
    const boost::json::object empty;
    const auto& m = meta && meta->is_object() ? meta->get_object() : empty;
    ref["apiVersion"] = str_at(obj, "apiVersion");
    ref["kind"] = str_at(obj, "kind");
    if (!str_at(m, "namespace").empty()) ref["namespace"] = str_at(m, "namespace");
    ref["name"] = str_at(m, "name");
    ref["uid"] = str_at(m, "uid");
    if (!str_at(m, "resourceVersion").empty()) ref["resourceVersion"] = str_at(m, "resourceVersion");
    return ref;
}

write_verdict classify_write_error(const error& e, bool series) noexcept {
    if (is_cancelled(e)) return write_verdict::drop;
    if (is_api_error(e)) {
        // The server answered: the event is malformed or refused, except a
        // series' create racing with its first create.
        return is_already_exists(e) && series ? write_verdict::retry : write_verdict::drop;
    }
    return write_verdict::retry;  // transport errors, undecodable answers
}

event_aggregator::event_aggregator(event_aggregator_config cfg, drop_hook on_drop)
    : cfg_(std::move(cfg)), on_drop_(std::move(on_drop)) {}

void event_aggregator::dropped(std::string_view reason) {
    ++dropped_total_;
    if (on_drop_) on_drop_(reason);
}

bool event_aggregator::allow(const std::string& key, steady_time now) {
    auto it = spam_.find(key);
    if (it == spam_.end()) {
        if (spam_.size() >= cfg_.spam_cache_size && !spam_lru_.empty()) {
            spam_.erase(spam_lru_.back());
            spam_lru_.pop_back();
        }
        const double qps = 1e9 / static_cast<double>(std::max<std::int64_t>(cfg_.spam_refill_every.count(), 1));
        spam_lru_.push_front(key);
        it = spam_.emplace(key, spam_entry{token_bucket(qps, cfg_.spam_burst, now), spam_lru_.begin()}).first;
    } else {
        spam_lru_.splice(spam_lru_.begin(), spam_lru_, it->second.lru);
    }
    return it->second.bucket.try_take(now);
}

std::optional<event_write> event_aggregator::record(const event_request& req, steady_time now, wall_time wall) {
    if (req.reason.empty() || req.action.empty() || str_at(req.regarding, "kind").empty() ||
        str_at(req.regarding, "name").empty() || cfg_.reporting_controller.empty() ||
        cfg_.reporting_instance.empty()) {
        dropped("invalid");
        return std::nullopt;
    }
    const std::string_view type = req.type == event_type::warning ? "Warning" : "Normal";

    std::string key;
    key += type;
    key += '\x1e';
    key += req.action;
    key += '\x1e';
    key += req.reason;
    key += '\x1e';
    key += cfg_.reporting_controller;
    key += '\x1e';
    key += cfg_.reporting_instance;
    key += '\x1e';
    append_ref(key, req.regarding);
    key += '\x1e';
    if (req.related) append_ref(key, *req.related);

    std::string spam_key = cfg_.reporting_controller + '\x1e';
    append_ref(spam_key, req.regarding);

    if (auto it = cache_.find(key); it != cache_.end()) {
        cached& c = it->second;
        if (str_at(c.event, "note") == cut_note(req.note)) {
            if (c.count >= 2) {
                // Folded into the series in memory; written by tick().
                ++c.count;
                c.last_seen = now;
                c.last_seen_wall = wall;
                return std::nullopt;
            }
            if (!allow(spam_key, now)) {
                dropped("rate_limited");
                return std::nullopt;
            }
            c.count = 2;
            c.written = 2;
            c.last_seen = now;
            c.last_seen_wall = wall;
            return series_write(c);
        }
        // Another note: an Event's note never changes (the API refuses it:
        // ValidateEventUpdate), so this one starts a new Event; the old
        // series' last count, if unwritten, goes out at the next tick().
        if (c.count > c.written) pending_.push_back(series_write(c));
        cache_.erase(it);
    }

    if (!allow(spam_key, now)) {
        dropped("rate_limited");
        return std::nullopt;
    }

    // client-go names events "<regarding name>.<unix nanos in hex>"; the
    // nanos are kept strictly increasing so two events never share a name.
    std::int64_t nanos = unix_nanos(wall);
    if (nanos <= last_name_nanos_) nanos = last_name_nanos_ + 1;
    last_name_nanos_ = nanos;
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));

    std::string ns(str_at(req.regarding, "namespace"));
    if (ns.empty()) ns = "default";
    boost::json::object ev{{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}};
    ev["metadata"] = boost::json::object{{"name", std::string(str_at(req.regarding, "name")) + "." + hex},
                                         {"namespace", ns}};
    ev["eventTime"] = format_rfc3339_micro(wall);
    ev["reportingController"] = cfg_.reporting_controller;
    ev["reportingInstance"] = cfg_.reporting_instance;
    ev["action"] = req.action;
    ev["reason"] = req.reason;
    ev["regarding"] = req.regarding;
    if (req.related) ev["related"] = *req.related;
    ev["note"] = cut_note(req.note);
    ev["type"] = type;

    if (cache_.size() >= cfg_.max_cached_events && !cache_.empty()) {
        // Forget the entry seen longest ago: a later repeat creates a new event.
        auto oldest = cache_.begin();
        for (auto i = cache_.begin(); i != cache_.end(); ++i)
            if (i->second.last_seen < oldest->second.last_seen) oldest = i;
        cache_.erase(oldest);
    }
    cached c{std::move(ev), 1, 1, now, now, wall};
    event_write w;
    w.op = event_write::kind::create;
    w.ns = ns;
    w.name = std::string(str_at(c.event.at("metadata").as_object(), "name"));
    w.body = to_api(c.event, 1, wall);
    cache_.emplace(std::move(key), std::move(c));
    return w;
}

boost::json::object event_aggregator::to_api(const boost::json::object& ev, std::int64_t count,
                                             wall_time last) const {
    boost::json::object series{{"count", count}, {"lastObservedTime", format_rfc3339_micro(last)}};
    if (cfg_.api == events_api::events_v1) {
        boost::json::object out = ev;
        if (count >= 2) out["series"] = series;
        return out;
    }
    // core/v1 fallback: the same event in the older schema, with the legacy
    // fields kubectl still reads.
    boost::json::object out{{"apiVersion", "v1"}, {"kind", "Event"}};
    out["metadata"] = ev.at("metadata");
    out["involvedObject"] = ev.at("regarding");
    if (auto* rel = ev.if_contains("related")) out["related"] = *rel;
    out["reason"] = ev.at("reason");
    out["message"] = ev.at("note");
    out["type"] = ev.at("type");
    out["eventTime"] = ev.at("eventTime");
    out["action"] = ev.at("action");
    out["reportingComponent"] = ev.at("reportingController");
    out["reportingInstance"] = ev.at("reportingInstance");
    out["source"] = boost::json::object{{"component", ev.at("reportingController")}};
    auto first = parse_rfc3339(str_at(ev, "eventTime"));
    out["firstTimestamp"] = format_rfc3339(first ? *first : last);
    out["lastTimestamp"] = format_rfc3339(last);
    out["count"] = count;
    if (count >= 2) out["series"] = series;
    return out;
}

event_write event_aggregator::series_write(const cached& c) const {
    event_write w;
    w.op = event_write::kind::patch_series;
    const auto& meta = c.event.at("metadata").as_object();
    w.ns = std::string(str_at(meta, "namespace"));
    w.name = std::string(str_at(meta, "name"));
    boost::json::object series{{"count", c.count}, {"lastObservedTime", format_rfc3339_micro(c.last_seen_wall)}};
    w.body = boost::json::object{{"series", series}};
    if (cfg_.api == events_api::core_v1) {
        w.body["count"] = c.count;
        w.body["lastTimestamp"] = format_rfc3339(c.last_seen_wall);
    }
    w.create_if_missing = to_api(c.event, c.count, c.last_seen_wall);
    return w;
}

std::vector<event_write> event_aggregator::tick(steady_time now, wall_time) {
    std::vector<event_write> out = std::move(pending_);
    pending_.clear();
    // Finish: a series idle for finish_time gets its final count written and
    // is forgotten; a single event is just forgotten.
    for (auto it = cache_.begin(); it != cache_.end();) {
        const cached& c = it->second;
        if (c.count >= 2 && now - c.last_seen > cfg_.finish_time) {
            out.push_back(series_write(c));
            it = cache_.erase(it);
        } else if (c.count < 2 && now - c.first_seen > cfg_.finish_time) {
            it = cache_.erase(it);
        } else {
            ++it;
        }
    }
    // Refresh: every refresh_time, every live series is written again.
    if (!last_refresh_) {
        last_refresh_ = now;
    } else if (now - *last_refresh_ >= cfg_.refresh_time) {
        last_refresh_ = now;
        for (auto& [key, c] : cache_) {
            if (c.count >= 2) {
                out.push_back(series_write(c));
                c.written = c.count;
            }
        }
    }
    return out;
}

} // namespace kcoro::runtime
