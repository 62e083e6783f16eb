#include "http/api_handler.hpp"

#include "http/discovery.hpp"
#include "server_side_apply.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/status.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <charconv>

namespace kcoro::apiserver::http {

namespace asio = boost::asio;
namespace json = boost::json;
using io::http_reply;
using io::http_request;
using io::http_response;

io::http_response json_response(unsigned code, const json::object& body) {
    http_response r;
    r.status = code;
    r.content_type = "application/json";
    r.body = json::serialize(body);
    r.body.push_back('\n');
    return r;
}

io::http_response status_response(const error& e) {
    status s;
    if (const auto* st = e.api_status()) {
        s = *st;
    } else {
        s = status_from_http(500, e.message());
        s.outcome = "Failure";
    }
    auto r = json_response(static_cast<unsigned>(s.code ? s.code : 500), encode_status(s));
    if (s.details && s.details->retry_after_seconds > 0) {
        r.headers.emplace_back("Retry-After", std::to_string(s.details->retry_after_seconds));
    }
    return r;
}

namespace {

error not_found_path() {
    status s;
    s.outcome = "Failure";
    s.message = "the server could not find the requested resource";
    s.reason = "NotFound";
    s.code = 404;
    s.details = status_details{};
    return error::from_status(std::move(s));
}

/// A JSON object body, or the 400 the real server answers.
result<json::object> parse_body(std::string_view body) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object()) {
        return errors::bad_request(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json, application/yaml");
    }
    return std::move(v.get_object());
}

bool is_write(std::string_view verb) {
    return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" || verb == "deletecollection";
}

std::string event_line(std::string_view type, const json::object& obj) {
    std::string line = "{\"type\":\"";
    line += type;
    line += "\",\"object\":";
    line += json::serialize(obj);
    line += "}\n";
    return line;
}

} // namespace

struct api_handler::watch_params {
    watch_filter filter;
    std::string kind;
    std::string api_version;
    std::string resource_version;
    bool bookmarks = false;
    std::optional<bool> send_initial_events;
    std::chrono::seconds timeout{0};
    // Accept asked for Table: each event's object is a one-row Table.
    std::optional<std::vector<table_column>> columns;
    table_options table;
};

const std::string& api_handler::event_line_for(const char* type, const object_ptr& obj) {
    const std::pair<const json::object*, const char*> key{obj.get(), type};
    auto it = line_cache_.find(key);
    if (it != line_cache_.end()) {
        return it->second.second;
    }
    constexpr std::size_t capacity = 4096;
    if (line_order_.size() >= capacity) {
        line_cache_.erase(line_order_.front());
        line_order_.pop_front();
    }
    line_order_.push_back(key);
    // The cache holds the object, so its address is not reused meanwhile.
    return line_cache_.emplace(key, std::make_pair(obj, event_line(type, *obj))).first->second.second;
}

std::vector<table_column> api_handler::columns_for(const resource_def& def, std::string_view version) const {
    if (def.crd_name.empty()) {
        return table_columns(def.gvr.group, def.gvr.resource, nullptr, false);
    }
    json::array printer;
    auto crd = store_.get(resources::customresourcedefinitions(), "", def.crd_name);
    if (crd) {
        if (const auto* versions = find_path(*crd, {"spec", "versions"}); versions && versions->is_array()) {
            for (const auto& v : versions->get_array()) {
                const auto* vo = v.if_object();
                if (vo == nullptr) continue;
                const auto* n = vo->if_contains("name");
                if (n == nullptr || !n->is_string() || n->get_string() != version) continue;
                if (const auto* pc = vo->if_contains("additionalPrinterColumns"); pc && pc->is_array()) {
                    printer = pc->get_array();
                }
            }
        }
    }
    return table_columns(def.gvr.group, def.gvr.resource, &printer, true);
}

api_handler::api_handler(object_store& store, io::clock& clk, access_control& access, fault_table& faults,
                         watch_hub& hub, handler_options options, log_sink log)
    : store_(store), clk_(clk), access_(access), faults_(faults), hub_(hub), options_(std::move(options)),
      log_(std::move(log)) {}

void api_handler::log(json::object line) const {
    if (log_) {
        line.emplace("ts", format_rfc3339_micro(clk_.wall_now()));
        log_(line);
    }
}

asio::awaitable<http_reply> api_handler::operator()(http_request req) {
    auto parsed = parse_route(req.method, req.target);
    if (!parsed) {
        co_return status_response(parsed.error());
    }
    route& r = *parsed;
    std::optional<user_info> cert_user;
    if (req.client_cert) {
        cert_user = user_info{req.client_cert->user, req.client_cert->groups};
    }
    auto user = access_.authenticate(req.header("authorization"), cert_user);
    if (!user) {
        log({{"level", "info"}, {"msg", "unauthorized"}, {"path", r.path}});
        co_return status_response(user.error());
    }
    http_reply reply;
    switch (r.kind) {
    case route_kind::version:
        reply = json_response(200, version_document());
        break;
    case route_kind::core_groups:
        reply = json_response(200, core_versions_document(options_.server_address));
        break;
    case route_kind::core_resources:
    case route_kind::group_resources: {
        auto doc = resource_list_document(store_.registry(), r.group, r.version);
        reply = doc ? json_response(200, *doc) : status_response(not_found_path());
        break;
    }
    case route_kind::groups:
        reply = json_response(200, group_list_document(store_.registry()));
        break;
    case route_kind::group: {
        auto doc = group_document(store_.registry(), r.group);
        reply = doc ? json_response(200, *doc) : status_response(not_found_path());
        break;
    }
    case route_kind::health:
        reply = http_response{200, "text/plain", {}, "ok"};
        break;
    case route_kind::faults: {
        access_request ar{req.method == "GET" ? "get" : req.method == "DELETE" ? "delete" : "create",
                          {"kcoro.io", "v1", "faults"}, "", "", ""};
        if (auto a = access_.authorize(*user, ar); !a) {
            reply = status_response(a.error());
        } else {
            reply = handle_faults(req);
        }
        break;
    }
    case route_kind::resource:
        reply = co_await handle_resource(req, r, *user);
        break;
    case route_kind::openapi: {
        // /openapi/v3 and /openapi/v3/<gv path>; v2 is not served (404).
        constexpr std::string_view v3 = "/openapi/v3";
        std::optional<json::object> doc;
        if (r.path == v3 || r.path == "/openapi/v3/") {
            doc = openapi_v3_index(store_.registry());
        } else if (r.path.size() > v3.size() + 1 && r.path.compare(0, v3.size() + 1, "/openapi/v3/") == 0) {
            doc = openapi_v3_document(store_.registry(), std::string_view(r.path).substr(v3.size() + 1));
        }
        reply = doc ? json_response(200, *doc) : status_response(not_found_path());
        break;
    }
    case route_kind::not_found:
        reply = status_response(not_found_path());
        break;
    }
    if (auto* resp = std::get_if<http_response>(&reply)) {
        log({{"level", "info"}, {"msg", "request"}, {"method", req.method}, {"path", r.path},
             {"verb", r.verb}, {"user", user->name}, {"code", resp->status}});
    }
    co_return reply;
}

asio::awaitable<http_reply> api_handler::handle_resource(http_request& req, route& r, const user_info& user) {
    const resource_def* def = store_.registry().find(r.gvr());
    if (def == nullptr || (!r.subresource.empty() && !(r.subresource == "status" && def->has_status))) {
        co_return status_response(not_found_path());
    }
    if (!def->namespaced && !r.ns.empty()) {
        co_return status_response(not_found_path());
    }
    access_request ar{r.verb, r.gvr(), r.subresource, r.ns, r.name};
    if (auto a = access_.authorize(user, ar); !a) {
        log({{"level", "info"}, {"msg", "forbidden"}, {"user", user.name}, {"verb", r.verb}, {"resource", r.resource}});
        co_return status_response(a.error());
    }
    std::string_view ct = req.header("content-type");
    if ((r.verb == "create" || r.verb == "update") && ct.find("protobuf") != std::string_view::npos) {
        co_return status_response(errors::unsupported_media_type(ct));
    }
    // Content negotiation: JSON, or a Table for get/list/watch; nothing else
    // (a protobuf-only Accept) is 406 with the real Status.
    const media_choice media = negotiate(req.header("accept"));
    if (media == media_choice::not_acceptable) {
        co_return status_response(errors::not_acceptable(not_acceptable_message()));
    }

    // Fault injection: fail / delay / drop after commit.
    bool drop_after = false;
    if (auto f = faults_.take(r.verb, r.resource, r.name)) {
        log({{"level", "warn"}, {"msg", "fault"}, {"fault", f->to_json()}, {"verb", r.verb}, {"path", r.path}});
        switch (f->action) {
        case fault_action::fail:
            co_return status_response(fault_table::failure_for(*f));
        case fault_action::delay:
            co_await clk_.sleep_for(f->delay);
            break;
        case fault_action::drop_after_commit:
            drop_after = is_write(r.verb);
            break;
        }
    }

    if (r.verb == "watch") {
        co_return handle_watch(r, media);
    }

    request_context ctx;
    ctx.now = clk_.wall_now();
    ctx.user = user.name;
    ctx.dry_run = r.query.dry_run;
    // handlers.managerOrUserAgent: the User-Agent up to its first '/'.
    ctx.field_manager = field_manager_or_user_agent(r.query.field_manager, req.header("user-agent"));
    ctx.field_validation = r.query.field_validation;
    std::vector<std::string> warnings;
    ctx.warnings = &warnings;
    subresource sub = r.subresource == "status" ? subresource::status : subresource::none;
    list_options lo{r.query.label_selector, r.query.field_selector, r.query.limit, r.query.continue_token,
                    r.query.resource_version, r.query.resource_version_match};

    auto del_opts = [&]() -> result<delete_options> {
        delete_options d;
        if (!req.body.empty()) {
            auto b = parse_body(req.body);
            if (!b) return b.error();
            auto parsed = delete_options::from_json(*b);
            if (!parsed) return parsed.error();
            d = std::move(*parsed);
        }
        if (!r.query.propagation_policy.empty()) {
            auto p = delete_options::parse_propagation(r.query.propagation_policy);
            if (!p) return p.error();
            d.propagation_policy = *p;
        }
        if (r.query.grace_period_seconds) d.grace_period_seconds = r.query.grace_period_seconds;
        if (!req.body.empty()) {
            // dryRun may also come in the body (DeleteOptions.dryRun: ["All"]).
            auto b = parse_body(req.body);
            if (b && b->contains("dryRun")) ctx.dry_run = true;
        }
        return d;
    };

    const bool as_table = media == media_choice::table_v1 || media == media_choice::table_v1beta1;
    auto table_response = [&](const json::object& body, bool is_list) {
        table_options to;
        to.api_version = media == media_choice::table_v1beta1 ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1";
        to.include_object = r.query.include_object.empty() ? std::string("Metadata") : r.query.include_object;
        to.now = clk_.wall_now();
        std::vector<const json::object*> items;
        json::object meta;
        if (is_list) {
            if (const auto* it = body.if_contains("items"); it && it->is_array()) {
                for (const auto& i : it->get_array()) {
                    if (i.is_object()) items.push_back(&i.get_object());
                }
            }
            if (const auto* m = body.if_contains("metadata"); m && m->is_object()) meta = m->get_object();
        } else {
            items.push_back(&body);
            meta["resourceVersion"] = resource_version_of(body);
        }
        return json_response(200, make_table(columns_for(*def, r.version), r.group, r.resource, items,
                                              std::move(meta), to));
    };

    http_response out;
    if (r.verb == "get") {
        auto o = store_.get(r.gvr(), r.ns, r.name);
        out = !o ? status_response(o.error()) : as_table ? table_response(*o, false) : json_response(200, *o);
    } else if (r.verb == "list") {
        auto o = store_.list(r.gvr(), r.ns, lo);
        if (!o && is_resource_version_too_large(o.error())) {
            // The watch cache waits (blockTimeout, 3 s) for the revision to
            // arrive before answering 504.
            const auto until = clk_.now() + options_.too_large_wait;
            while (!o && is_resource_version_too_large(o.error()) && clk_.now() < until) {
                co_await hub_.wait(clk_, until);
                o = store_.list(r.gvr(), r.ns, lo);
            }
        }
        out = !o ? status_response(o.error()) : as_table ? table_response(*o, true) : json_response(200, *o);
    } else if (r.verb == "create") {
        auto b = parse_body(req.body);
        auto o = b ? store_.create(ctx, r.gvr(), r.ns, std::move(*b)) : result<json::object>(b.error());
        out = o ? json_response(201, *o) : status_response(o.error());
    } else if (r.verb == "update") {
        auto b = parse_body(req.body);
        bool created = false;
        auto o = b ? store_.update(ctx, r.gvr(), r.ns, r.name, std::move(*b), sub, &created)
                   : result<json::object>(b.error());
        out = o ? json_response(created ? 201 : 200, *o) : status_response(o.error());
    } else if (r.verb == "patch") {
        auto type = patch_type_from_content_type(ct);
        if (!type) {
            out = status_response(errors::unsupported_media_type(ct));
        } else {
            bool created = false;
            auto o = store_.patch(ctx, r.gvr(), r.ns, r.name, *type, req.body, sub, r.query.force, &created);
            out = o ? json_response(created ? 201 : 200, *o) : status_response(o.error());
        }
    } else if (r.verb == "delete") {
        auto d = del_opts();
        auto o = d ? store_.remove(ctx, r.gvr(), r.ns, r.name, *d) : result<delete_result>(d.error());
        out = o ? json_response(200, o->body) : status_response(o.error());
    } else if (r.verb == "deletecollection") {
        auto d = del_opts();
        auto o = d ? store_.delete_collection(ctx, r.gvr(), r.ns, lo, *d) : result<json::object>(d.error());
        out = o ? json_response(200, *o) : status_response(o.error());
    } else {
        out = status_response(errors::method_not_allowed(r.gvr(), r.verb));
    }
    // The store's warnings (unknown fields under fieldValidation=Warn), one
    // `Warning: 299 - "<text>"` header each, as warning.AddWarning sends them.
    for (const auto& w : warnings) {
        std::string text = "299 - \"";
        for (char c : w) {
            if (c == '"' || c == '\\') text += '\\';
            text += c;
        }
        out.headers.emplace_back("Warning", text + "\"");
    }
    if (drop_after) {
        log({{"level", "warn"}, {"msg", "fault: dropping the answer after the write"}, {"path", r.path},
             {"code", out.status}});
        co_return io::http_drop{};
    }
    co_return out;
}

http_reply api_handler::handle_watch(route& r, media_choice media) {
    const resource_def* def = store_.registry().find(r.gvr());
    auto filter = watch_filter::make(r.gvr(), r.ns, r.query.label_selector, r.query.field_selector);
    if (!filter) {
        return status_response(filter.error());
    }
    // A named watch is a watch with fieldSelector metadata.name=<name>.
    if (!r.name.empty()) {
        auto named = watch_filter::make(r.gvr(), r.ns, r.query.label_selector,
                                        r.query.field_selector.empty() ? "metadata.name=" + r.name
                                                                       : r.query.field_selector + ",metadata.name=" + r.name);
        if (!named) return status_response(named.error());
        filter = std::move(named);
    }
    watch_params p;
    p.filter = std::move(*filter);
    p.kind = def->kind;
    p.api_version = def->api_version();
    p.resource_version = r.query.resource_version;
    p.bookmarks = r.query.allow_watch_bookmarks;
    p.send_initial_events = r.query.send_initial_events;
    if (p.send_initial_events.value_or(false) && !p.bookmarks) {
        return status_response(errors::invalid("meta.k8s.io", "ListOptions", "",
                                               {errors::field_forbidden("allowWatchBookmarks",
                                                                        "allowWatchBookmarks must be set to true when sendInitialEvents is set to true")}));
    }
    if (media == media_choice::table_v1 || media == media_choice::table_v1beta1) {
        p.columns = columns_for(*def, r.version);
        p.table.api_version = media == media_choice::table_v1beta1 ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1";
        p.table.include_object = r.query.include_object.empty() ? std::string("Metadata") : r.query.include_object;
    }
    p.timeout = r.query.timeout_seconds && *r.query.timeout_seconds > 0 ? std::chrono::seconds(*r.query.timeout_seconds)
                                                                        : options_.default_watch_timeout;
    io::http_stream s;
    s.status = 200;
    s.content_type = "application/json";
    s.body = [this, p = std::move(p)](io::http_stream_writer& w) { return run_watch(p, w); };
    return s;
}

asio::awaitable<void> api_handler::run_watch(watch_params p, io::http_stream_writer& w) {
    const auto deadline = clk_.now() + p.timeout;
    revision_t last = 0;
    const bool legacy_initial = p.resource_version.empty() || p.resource_version == "0";
    const bool initial = p.send_initial_events.value_or(legacy_initial && !p.send_initial_events.has_value());
    auto bookmark = [&](revision_t rev, bool initial_end) {
        json::object md{{"resourceVersion", std::to_string(rev)}};
        if (initial_end) {
            md["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
        }
        return event_line("BOOKMARK", json::object{{"kind", p.kind}, {"apiVersion", p.api_version}, {"metadata", std::move(md)}});
    };

    // With Accept as=Table each event's object is a one-row Table.
    auto append = [&](std::string& batch, const char* type, const object_ptr& obj) {
        if (!p.columns) {
            batch += event_line_for(type, obj);
            return;
        }
        table_options to = p.table;
        to.now = clk_.wall_now();
        std::vector<const json::object*> items{obj.get()};
        json::object meta{{"resourceVersion", resource_version_of(*obj)}};
        batch += event_line(type, make_table(*p.columns, p.filter.gvr.group, p.filter.gvr.resource, items,
                                             std::move(meta), to));
    };

    if (initial && p.send_initial_events.value_or(false) && !p.resource_version.empty() &&
        p.resource_version != "0") {
        // NotOlderThan N: wait (blockTimeout) for the store to reach N.
        revision_t want = 0;
        const auto& rv = p.resource_version;
        auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), want);
        if (ec == std::errc{} && ptr == rv.data() + rv.size()) {
            const auto until = clk_.now() + options_.too_large_wait;
            while (store_.current_revision() < want && clk_.now() < until) {
                co_await hub_.wait(clk_, until);
            }
            if (store_.current_revision() < want) {
                auto e = errors::too_large_resource_version(want, store_.current_revision());
                co_await w.write(event_line("ERROR", encode_status(*e.api_status())));
                co_return;
            }
        }
    }

    if (initial) {
        // The current state as ADDED, taken atomically at current_revision().
        last = store_.current_revision();
        auto evs = store_.initial_events(p.filter);
        std::string batch;
        for (const auto& ev : evs) {
            append(batch, "ADDED", ev.object);
        }
        if (p.send_initial_events.value_or(false)) {
            batch += bookmark(last, true);
        }
        if (!batch.empty() && !co_await w.write(std::move(batch))) {
            co_return;
        }
    } else if (p.send_initial_events.has_value() && p.resource_version.empty()) {
        last = store_.current_revision();  // sendInitialEvents=false: from now
    } else {
        const auto& rv = p.resource_version;
        auto [ptr, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), last);
        if (ec != std::errc{} || ptr != rv.data() + rv.size()) {
            auto e = errors::bad_request("invalid resource version: \"" + rv + "\"");
            co_await w.write(event_line("ERROR", encode_status(*e.api_status())));
            co_return;
        }
    }

    auto next_bookmark = clk_.now() + options_.bookmark_interval;
    for (;;) {
        if (!faults_.watch_stalled()) {
            auto evs = store_.events_since(last, p.filter);
            if (!evs) {
                // 410 and friends travel as an ERROR event on a 200 stream.
                co_await w.write(event_line("ERROR", encode_status(*evs.error().api_status())));
                co_return;
            }
            const revision_t caught_up = store_.current_revision();
            std::string batch;
            for (const auto& ev : *evs) {
                append(batch, to_string(ev.type), ev.object);
            }
            last = std::max(last, caught_up);
            if (!batch.empty() && !co_await w.write(std::move(batch))) {
                co_return;
            }
            auto now = clk_.now();
            if (p.bookmarks && now >= next_bookmark) {
                if (!co_await w.write(bookmark(last, false))) {
                    co_return;
                }
                next_bookmark = now + options_.bookmark_interval;
            }
        }
        if (clk_.now() >= deadline) {
            co_return;
        }
        if (store_.current_revision() > last && !faults_.watch_stalled()) {
            continue;  // committed while we were writing
        }
        auto until = p.bookmarks ? std::min(deadline, next_bookmark) : deadline;
        co_await hub_.wait(clk_, until);
    }
}

http_reply api_handler::handle_faults(const http_request& req) {
    if (req.method == "GET") {
        return json_response(200, faults_.to_json());
    }
    if (req.method == "DELETE") {
        faults_.clear();
        hub_.notify();
        log({{"level", "warn"}, {"msg", "faults cleared"}});
        return json_response(200, faults_.to_json());
    }
    if (req.method != "POST") {
        return status_response(errors::bad_request("fault endpoint: GET, POST or DELETE"));
    }
    auto b = parse_body(req.body);
    if (!b) {
        return status_response(b.error());
    }
    const auto* a = b->if_contains("action");
    std::string action = a && a->is_string() ? std::string(a->get_string()) : std::string{};
    log({{"level", "warn"}, {"msg", "fault requested"}, {"fault", *b}});
    if (action == "closeWatches") {
        faults_.log("closing all watch streams");
        if (close_streams_) close_streams_();
    } else if (action == "compact") {
        faults_.log("compacting history at revision " + std::to_string(store_.current_revision()));
        store_.compact();
    } else if (action == "stallWatches") {
        const auto* s = b->if_contains("stall");
        faults_.set_watch_stall(!s || !s->is_bool() || s->get_bool());
        hub_.notify();
    } else if (action == "clear") {
        faults_.clear();
        hub_.notify();
    } else {
        auto rule = fault_rule::from_json(*b);
        if (!rule) {
            status s = status_from_http(400, rule.error().message());
            s.outcome = "Failure";
            s.message = rule.error().message();
            return status_response(error::from_status(std::move(s)));
        }
        faults_.add(std::move(*rule));
    }
    return json_response(200, faults_.to_json());
}

} // namespace kcoro::apiserver::http
