#include "http/api_handler.hpp"
#include "http/reviews.hpp"

#include "http/bookmark.hpp"
#include "http/discovery.hpp"
#include "http/partial_metadata.hpp"
#include "http/pretty.hpp"
#include "http/request_checks.hpp"
#include "http/scale.hpp"
#include "http/surface.hpp"
#include "server_side_apply.hpp"
#include "store/protobuf_decoder.hpp"
#include "store/proto_wire.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/yaml.hpp>

#include <kcoro/core/status.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
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
    // responsewriters.SerializeObject sets it on every API answer.
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
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

/// http.NotFound, what the not-found handler answers for paths no handler
/// claims (staging/src/k8s.io/apiserver/pkg/util/notfoundhandler).
/// responsewriters.InternalError: http.Error's plain text, as the
/// impersonation filter answers a request it cannot build
/// (`Internal Server Error: "<uri>": <err>`, %q-quoted URI).
http_response internal_error_text(std::string_view request_uri, std::string_view err) {
    std::string quoted = "\"";
    for (char c : request_uri) {
        if (c == '"' || c == '\\') quoted.push_back('\\');
        quoted.push_back(c);
    }
    quoted += "\"";
    std::string body = "Internal Server Error: " + quoted + ": " + std::string(err) + "\n";
    // The sanitizer of responsewriters/errors.go.
    std::string safe;
    for (char c : body) {
        if (c == '&') safe += "&amp;";
        else if (c == '<') safe += "&lt;";
        else if (c == '>') safe += "&gt;";
        else safe.push_back(c);
    }
    http_response r{500, "text/plain; charset=utf-8", {}, std::move(safe)};
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
}

http_response not_found_text() {
    http_response r{404, "text/plain; charset=utf-8", {}, "404 page not found\n"};
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
}

/// NewGenericServerResponse for go-restful's route errors (handler.go
/// serviceErrorHandler): the message is the generic one for the code.
error generic_route_error(int code, std::string message, std::string reason, bool details = true) {
    status s;
    s.outcome = "Failure";
    s.message = std::move(message);
    s.reason = std::move(reason);
    s.code = code;
    if (details) s.details = status_details{};
    return error::from_status(std::move(s));
}

/// A JSON (or YAML, which the real server also decodes) object body, or the
/// 400 the real server answers.
result<json::object> parse_body(std::string_view body, std::string_view content_type = {}) {
    if (content_type.starts_with("application/yaml")) {
        auto y = parse_yaml(body);
        if (y && y->is_object()) return std::move(y->get_object());
    }
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object()) {
        return errors::bad_request(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json, application/yaml");
    }
    return std::move(v.get_object());
}

/// One `Warning: 299 - "<text>"` header per warning, as warning.AddWarning sends them.
void add_warning_headers(http_response& out, const std::vector<std::string>& warnings) {
    for (const auto& w : warnings) {
        std::string text = "299 - \"";
        for (char c : w) {
            if (c == '"' || c == '\\') text += '\\';
            text += c;
        }
        out.headers.emplace_back("Warning", text + "\"");
    }
}

bool is_protobuf(std::string_view content_type) {
    return boost::algorithm::istarts_with(content_type, "application/vnd.kubernetes.protobuf");
}

/// A request body of any Content-Type the endpoint decodes: JSON and YAML as
/// parse_body; protobuf through store/protobuf_decoder.hpp for the built-in
/// kinds kcoro has tables for (fields it skips become warnings). A custom
/// resource's protobuf body fails as it does in kube-apiserver (crdHandler
/// lists protobuf, so no 415; the protobuf serializer then cannot decode into
/// *unstructured.Unstructured: runtime/serializer/protobuf/protobuf.go
/// errNotMarshalable, wrapped by handlers/rest.go transformDecodeError).
result<json::object> parse_request_body(std::string_view body, std::string_view content_type,
                                        const resource_def& def, std::string_view kind,
                                        std::vector<std::string>& warnings) {
    if (!is_protobuf(content_type)) return parse_body(body, content_type);
    if (!def.crd_name.empty()) {
        auto env = proto::parse_envelope(body);
        if (auto* e = std::get_if<std::string>(&env)) {
            return errors::bad_request(valid_utf8("the object provided is unrecognized (must be of type " +
                                                  std::string(kind) + "): " + *e + " (" + summarize_body(body) + ")"));
        }
        const auto& u = std::get<proto::unknown_envelope>(env);
        std::string version = def.gvr.version;
        if (!u.api_version.empty()) {
            auto slash = u.api_version.find('/');
            version = slash == std::string::npos ? u.api_version : u.api_version.substr(slash + 1);
        }
        return errors::bad_request(valid_utf8((u.kind.empty() ? std::string(kind) : u.kind) + " in version \"" +
                                              version + "\" cannot be handled as a " + std::string(kind) +
                                              ": object *unstructured.Unstructured does not implement the protobuf "
                                              "marshalling interface and cannot be encoded to a protobuf message"));
    }
    auto decoded = decode_protobuf_body(body, def.gvr.group, def.gvr.version, kind);
    if (!decoded) return decoded.error();
    for (const auto& s : decoded->skipped) {
        warnings.push_back("kcoro-apiserver does not decode this protobuf field, dropped: " + s);
    }
    return std::move(decoded->object);
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
    std::string bucket;  // the resource's storage (its watch cache window)
    bool custom = false;
    media_choice media = media_choice::json;
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
      log_(std::move(log)), window_(options_.watch_cache) {
    // The built-ins' watch caches start with the server, at its revision.
    for (const auto* d : store_.registry().all()) {
        if (d->crd_name.empty()) window_.start(object_store::storage_bucket(d->gvr), store_.current_revision());
    }
    // Service account tokens this handler issues are bearer credentials here.
    access_.set_bearer_authenticator([this](std::string_view token) {
        return service_account_user(tokens_, store_, token, clk_.wall_now());
    });
}

void api_handler::on_commit(revision_t rev) {
    window_.record(store_.last_commit_bucket(), rev, clk_.now());
}

void api_handler::log(json::object line) const {
    if (log_) {
        line.emplace("ts", format_rfc3339_micro(clk_.wall_now()));
        log_(line);
    }
}

asio::awaitable<http_reply> api_handler::operator()(http_request req) {
    auto reply = co_await dispatch(req);
    // genericfilters.WithCacheControl: every answer is uncacheable.
    auto no_cache = [](io::http_headers& h) {
        if (io::find_header(h, "cache-control").empty()) h.emplace_back("Cache-Control", "no-cache, private");
    };
    if (auto* resp = std::get_if<http_response>(&reply)) {
        no_cache(resp->headers);
        // Negotiated JSON answers are indented on request (http/pretty.hpp);
        // kube-openapi's documents never are (its errors, from the filters, are).
        auto q = req.target.find('?');
        std::string_view path = std::string_view(req.target).substr(0, q);
        std::string_view query = q == std::string::npos ? std::string_view{} : std::string_view(req.target).substr(q + 1);
        if (resp->content_type.starts_with("application/json") && (resp->status >= 400 || !path.starts_with("/openapi")) &&
            wants_pretty(query, req.header("user-agent"))) {
            resp->body = indent_json(resp->body);
        }
    } else if (auto* st = std::get_if<io::http_stream>(&reply)) {
        no_cache(st->headers);
    }
    co_return reply;
}

asio::awaitable<http_reply> api_handler::dispatch(http_request& req) {
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
    // WithImpersonation runs after authentication and before authorization
    // (apiserver/pkg/server/config.go DefaultBuildHandlerChain).
    std::vector<std::string> imp_groups;
    for (const auto& [k, v] : req.headers) {
        if (boost::algorithm::iequals(k, "impersonate-group")) imp_groups.push_back(v);
    }
    if (auto as = req.header("impersonate-user"); as.empty() && !imp_groups.empty()) {
        // buildImpersonationRequests: groups without a user; %v of the
        // ObjectReferences (Kind, Namespace, Name, UID, APIVersion,
        // ResourceVersion, FieldPath).
        std::string refs;
        for (const auto& g : imp_groups) refs += (refs.empty() ? "" : " ") + std::string("{Group  ") + g + "    }";
        co_return internal_error_text(req.target, "requested [" + refs + "] without impersonating a user");
    } else if (!as.empty()) {
        const auto& groups = imp_groups;
        auto imp = access_.impersonate(*user, as, groups);
        if (!imp) {
            log({{"level", "info"}, {"msg", "forbidden"}, {"user", user->name}, {"verb", "impersonate"}});
            co_return status_response(imp.error());
        }
        user = std::move(*imp);
    }
    if (r.kind != route_kind::resource && r.kind != route_kind::faults) {
        std::string verb = req.method;
        std::transform(verb.begin(), verb.end(), verb.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (auto a = access_.authorize_path(*user, verb, r.path); !a) {
            log({{"level", "info"}, {"msg", "forbidden"}, {"user", user->name}, {"path", r.path}});
            co_return status_response(a.error());
        }
    }
    http_reply reply;
    // The discovery documents and /version are go-restful web services with
    // GET routes only (built-in groups; a CRD group's discovery is crdHandler's).
    const bool restful_get_only =
        r.kind == route_kind::version || r.kind == route_kind::core_groups || r.kind == route_kind::groups ||
        r.kind == route_kind::core_resources ||
        ((r.kind == route_kind::group || r.kind == route_kind::group_resources) &&
         check_surface("GET", r, store_.registry()) == surface_answer::not_found_json);
    if (restful_get_only && req.method != "GET") {
        co_return status_response(generic_route_error(
            405, "the server does not allow this method on the requested resource", "MethodNotAllowed"));
    }
    // Aggregated discovery of /api and /apis when the Accept header asks for it first.
    const std::string aggregated = r.kind == route_kind::core_groups || r.kind == route_kind::groups
                                       ? aggregated_discovery_version(req.header("accept"))
                                       : std::string{};
    if (!aggregated.empty()) {
        auto resp = json_response(200, aggregated_discovery_document(store_.registry(),
                                                                     r.kind == route_kind::core_groups, aggregated));
        resp.content_type = "application/json;g=apidiscovery.k8s.io;v=" + aggregated + ";as=APIGroupDiscoveryList";
        resp.headers.emplace_back("Vary", "Accept");
        reply = std::move(resp);
    } else switch (r.kind) {
    case route_kind::version: {
        // routes/version.go: WriteRawJSON, always MarshalIndent.
        auto v = json_response(200, version_document());
        v.body = indent_json(v.body);
        reply = std::move(v);
        break;
    }
    case route_kind::core_groups:
        reply = json_response(200, core_versions_document(options_.server_address));
        break;
    case route_kind::core_resources:
    case route_kind::group_resources: {
        auto doc = resource_list_document(store_.registry(), r.group, r.version);
        if (doc) {
            reply = json_response(200, *doc);
        } else {
            // Under a go-restful web service (/api, a built-in group): JSON.
            reply = check_surface(req.method, r, store_.registry()) == surface_answer::not_found_json
                        ? http_reply(status_response(not_found_path()))
                        : http_reply(not_found_text());
        }
        break;
    }
    case route_kind::groups:
        reply = json_response(200, group_list_document(store_.registry()));
        break;
    case route_kind::group: {
        auto doc = group_document(store_.registry(), r.group);
        reply = doc ? http_reply(json_response(200, *doc)) : http_reply(not_found_text());
        break;
    }
    case route_kind::health:
        // healthz.go: http.Error-style plain text.
        reply = http_response{200, "text/plain; charset=utf-8", {{"X-Content-Type-Options", "nosniff"}}, "ok"};
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
        // /openapi/v2 (JSON or protobuf), /openapi/v3 and /openapi/v3/<gv path>.
        constexpr std::string_view v3 = "/openapi/v3";
        std::optional<json::object> doc;
        if (r.path == "/openapi/v2") {
            if (req.header("accept").find("protobuf") != std::string_view::npos) {
                reply = http_response{200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", {},
                                      openapi_v2_protobuf()};
                break;
            }
            doc = openapi_v2_document();
        } else if (r.path == v3 || r.path == "/openapi/v3/") {
            doc = openapi_v3_index(store_.registry());
        } else if (r.path.size() > v3.size() + 1 && r.path.compare(0, v3.size() + 1, "/openapi/v3/") == 0) {
            doc = openapi_v3_document(store_.registry(), std::string_view(r.path).substr(v3.size() + 1));
        }
        reply = doc ? http_reply(json_response(200, *doc)) : http_reply(not_found_text());
        break;
    }
    case route_kind::not_found:
        reply = check_surface(req.method, r, store_.registry()) == surface_answer::not_found_json
                    ? http_reply(status_response(not_found_path()))
                    : http_reply(not_found_text());
        break;
    }
    if (auto* resp = std::get_if<http_response>(&reply)) {
        // userAgent as in the real server's audit events: tells clients
        // that share a user apart (test/bench/mirror_bench counts by it).
        log({{"level", "info"}, {"msg", "request"}, {"method", req.method}, {"path", r.path},
             {"verb", r.verb}, {"group", r.group}, {"resource", r.resource}, {"subresource", r.subresource},
             {"namespace", r.ns}, {"name", r.name}, {"user", user->name},
             {"userAgent", req.header("user-agent")}, {"code", resp->status}});
    }
    co_return reply;
}

asio::awaitable<http_reply> api_handler::handle_resource(http_request& req, route& r, const user_info& user) {
    const resource_def* def = store_.registry().find(r.gvr());
    access_request ar{r.verb, r.gvr(), r.subresource, r.ns, r.name};
    if (auto a = access_.authorize(user, ar); !a) {
        log({{"level", "info"}, {"msg", "forbidden"}, {"user", user.name}, {"verb", r.verb}, {"resource", r.resource}});
        co_return status_response(a.error());
    }
    // Which handler claims the path, and whether it has the method.
    switch (check_surface(req.method, r, store_.registry())) {
    case surface_answer::serve:
        break;
    case surface_answer::not_found_text:
        co_return not_found_text();
    case surface_answer::not_found_json:
        co_return status_response(not_found_path());
    case surface_answer::not_found_resource:
        co_return status_response(errors::not_found(r.gvr(), r.name));
    case surface_answer::method_not_allowed:
        co_return status_response(generic_route_error(
            405, "the server does not allow this method on the requested resource", "MethodNotAllowed"));
    case surface_answer::method_not_supported:
        co_return status_response(errors::method_not_allowed(r.gvr(), r.verb));
    case surface_answer::name_required:
        co_return status_response(errors::bad_request("name must be provided"));
    }
    const bool builtin = def->crd_name.empty();
    // A custom resource's watch cache starts with its storage, at the first
    // request (crdHandler.getOrCreateServingInfoFor).
    window_.start(object_store::storage_bucket(def->gvr), store_.current_revision());

    // Content negotiation: JSON, a Table or PartialObjectMetadata(List) for
    // reads; nothing servable is 406 with the real Status.
    const media_choice media = negotiate(req.header("accept"), builtin);
    if (media == media_choice::not_acceptable_route) {
        co_return status_response(generic_route_error(406, route_not_acceptable_message(), "NotAcceptable"));
    }
    if (media == media_choice::not_acceptable) {
        co_return status_response(errors::not_acceptable(not_acceptable_message()));
    }
    std::string_view ct = req.header("content-type");
    if (r.verb == "create" || r.verb == "update") {
        // NegotiateInputSerializer: JSON, YAML and protobuf (built-ins and
        // custom resources alike list all three; a custom resource's protobuf
        // body then fails to decode, see parse_request_body).
        // staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/errors.go.
        const bool known = ct.empty() || ct.starts_with("application/json") || ct.starts_with("application/yaml") ||
                           is_protobuf(ct);
        // A built-in kind without a protobuf table in kcoro: the 415 lists
        // what kcoro takes for it (a real server decodes every built-in).
        const bool undecodable = builtin && is_protobuf(ct) && !protobuf_decodable(def->gvr.group, def->kind);
        if (!known || undecodable) {
            // negotiation.errUnsupportedMediaType (no details).
            co_return status_response(generic_route_error(
                415, "the body of the request was in an unknown format - accepted media types include: " +
                         std::string(undecodable ? json_yaml_media_types : served_media_types),
                "UnsupportedMediaType", false));
        }
    }
    if (r.verb == "patch" && !patch_type_from_content_type(ct)) {
        // go-restful's route Consumes check for the built-ins; crdHandler's own.
        co_return status_response(builtin ? generic_route_error(415, "415: Unsupported Media Type",
                                                                "UnsupportedMediaType")
                                          : errors::unsupported_media_type(ct));
    }
    // The options of writes (CreateOptions.meta.k8s.io etc.).
    if (is_write(r.verb)) {
        write_options wo{r.query.dry_run_values, r.query.field_validation, r.query.field_manager,
                         r.query.force_given ? std::optional<bool>(r.query.force) : std::nullopt};
        const bool apply = r.verb == "patch" && patch_type_from_content_type(ct) == patch_type::apply;
        if (auto v = validate_write_options(r.verb, wo, apply); !v) {
            co_return status_response(v.error());
        }
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
    if (r.subresource == "scale") {
        auto out = co_await handle_scale(req, r, ctx, media);
        if (auto* resp = std::get_if<http_response>(&out)) add_warning_headers(*resp, warnings);
        if (drop_after) co_return io::http_drop{};
        co_return out;
    }
    subresource sub = r.subresource == "status" ? subresource::status : subresource::none;
    list_options lo{r.query.label_selector, r.query.field_selector, r.query.limit, r.query.continue_token,
                    r.query.resource_version, r.query.resource_version_match,
                    r.query.send_initial_events.has_value(), r.query.shard_selector};

    auto del_opts = [&]() -> result<delete_options> {
        delete_options d;
        if (!req.body.empty()) {
            auto b = parse_request_body(req.body, req.header("content-type"), *def, "DeleteOptions", warnings);
            if (!b) return b.error();
            auto parsed = delete_options::from_json(*b);
            if (!parsed) return parsed.error();
            d = std::move(*parsed);
            // dryRun may also come in the body (DeleteOptions.dryRun: ["All"]).
            if (const auto* dr = b->if_contains("dryRun"); dr && dr->is_array()) {
                write_options wo;
                for (const auto& v : dr->get_array()) wo.dry_run.push_back(v.is_string() ? std::string(v.get_string()) : std::string{});
                if (auto v = validate_write_options("delete", wo, false); !v) return v.error();
                if (!wo.dry_run.empty()) ctx.dry_run = true;
            }
        }
        if (!r.query.propagation_policy.empty()) {
            auto p = delete_options::parse_propagation(r.query.propagation_policy);
            if (!p) return p.error();
            d.propagation_policy = *p;
        }
        if (r.query.grace_period_seconds) d.grace_period_seconds = r.query.grace_period_seconds;
        return d;
    };

    auto table_response = [&](const json::object& body, bool is_list) {
        table_options to;
        to.api_version = meta_api_version(media);
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
    // transformResponseObject: the negotiated form of an answer object.
    auto respond = [&](unsigned code, const json::object& body, bool is_list) -> http_response {
        if (body.contains("kind") && body.at("kind") == "Status") return json_response(code, body);
        if (is_table(media)) return table_response(body, is_list);
        if (is_partial(media)) {
            if (is_list) {
                return status_response(partial_of_list_error(
                    internal_type_name(def->gvr.group, def->kind, !builtin, true)));
            }
            return json_response(code, as_partial_object_metadata(body, meta_api_version(media)));
        }
        if (is_partial_list(media)) {
            if (!is_list) {
                return status_response(partial_list_of_object_error(
                    internal_type_name(def->gvr.group, def->kind, !builtin, false)));
            }
            return json_response(code, as_partial_object_metadata_list(body, meta_api_version(media)));
        }
        return json_response(code, body);
    };
    const endpoint_kind ep{def->gvr.group, def->gvr.version, def->kind, !builtin};

    http_response out;
    if (r.verb == "get") {
        // cacher.Get: a resourceVersion is parsed (500 when it does not) and
        // waited for (blockTimeout, then 504) before the cache answers.
        auto rv = errors::parse_resource_version_param(r.query.resource_version);
        if (!rv) co_return status_response(rv.error());
        if (*rv > store_.current_revision()) {
            const auto until = clk_.now() + options_.too_large_wait;
            while (store_.current_revision() < *rv && clk_.now() < until) co_await hub_.wait(clk_, until);
            if (store_.current_revision() < *rv) {
                co_return status_response(errors::too_large_resource_version(*rv, store_.current_revision()));
            }
        }
        auto o = store_.get(r.gvr(), r.ns, r.name);
        out = !o ? status_response(o.error()) : respond(200, *o, false);
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
        out = !o ? status_response(o.error()) : respond(200, *o, true);
    } else if (r.verb == "create") {
        // serviceaccounts/<name>/token takes an authentication.k8s.io/v1 TokenRequest.
        const bool token_request = r.subresource == "token";
        auto b = parse_request_body(req.body, ct, *def, token_request ? "TokenRequest" : def->kind, warnings);
        result<void> k = !b ? result<void>(b.error()) : token_request ? result<void>() : check_body_kind(ep, *b, store_.registry());
        // The review APIs and TokenRequest answer without storing anything.
        auto o = !k                   ? result<json::object>(k.error())
                 : token_request      ? answer_token_request(tokens_, store_, r.ns, r.name, std::move(*b), ctx.now,
                                                             ctx.field_manager)
                 : is_review(r.gvr()) ? answer_review(access_, store_, r.gvr(), r.ns, user, std::move(*b), ctx.now,
                                                        ctx.field_manager)
                                      : store_.create(ctx, r.gvr(), r.ns, std::move(*b));
        out = o ? respond(201, *o, false) : status_response(o.error());
    } else if (r.verb == "update") {
        auto b = parse_request_body(req.body, ct, *def, def->kind, warnings);
        result<void> k = b ? check_body_kind(ep, *b, store_.registry()) : result<void>(b.error());
        bool created = false;
        auto o = k ? store_.update(ctx, r.gvr(), r.ns, r.name, std::move(*b), sub, &created)
                   : result<json::object>(k.error());
        out = o ? respond(created ? 201 : 200, *o, false) : status_response(o.error());
    } else if (r.verb == "patch") {
        auto type = patch_type_from_content_type(ct);
        if (*type == patch_type::apply) {
            ctx.field_manager = r.query.field_manager;  // required, no User-Agent default
        }
        bool created = false;
        auto o = store_.patch(ctx, r.gvr(), r.ns, r.name, *type, req.body, sub, r.query.force, &created);
        out = o ? respond(created ? 201 : 200, *o, false) : status_response(o.error());
    } else if (r.verb == "delete") {
        auto d = del_opts();
        auto o = d ? store_.remove(ctx, r.gvr(), r.ns, r.name, *d) : result<delete_result>(d.error());
        out = o ? respond(200, o->body, false) : status_response(o.error());
    } else if (r.verb == "deletecollection") {
        auto d = del_opts();
        auto o = d ? store_.delete_collection(ctx, r.gvr(), r.ns, lo, *d) : result<json::object>(d.error());
        out = o ? respond(200, *o, true) : status_response(o.error());
    } else {
        out = status_response(errors::method_not_allowed(r.gvr(), r.verb));
    }
    // The store's warnings (unknown fields under fieldValidation=Warn), one
    // `Warning: 299 - "<text>"` header each, as warning.AddWarning sends them.
    add_warning_headers(out, warnings);
    if (drop_after) {
        log({{"level", "warn"}, {"msg", "fault: dropping the answer after the write"}, {"path", r.path},
             {"code", out.status}});
        co_return io::http_drop{};
    }
    co_return out;
}

// deployments/scale (pkg/registry/apps/deployment/storage/storage.go ScaleREST).
asio::awaitable<http_reply> api_handler::handle_scale(http_request& req, route& r, const request_context& ctx,
                                                      media_choice media) {
    const group_version_resource deployments = r.gvr();
    auto respond = [&](const json::object& scale) -> http_response {
        if (is_partial(media)) return json_response(200, as_partial_object_metadata(scale, meta_api_version(media)));
        if (is_partial_list(media)) {
            return status_response(partial_list_of_object_error("*autoscaling.Scale"));
        }
        return json_response(200, scale);
    };
    auto live = store_.get(deployments, r.ns, r.name);
    if (!live) co_return status_response(live.error());
    auto current = scale_from_deployment(*live);
    if (!current) co_return status_response(current.error());
    if (r.verb == "get") {
        co_return respond(*current);
    }
    json::object wanted;
    if (r.verb == "update") {
        // The Scale subresource decodes autoscaling/v1 Scale (JSON, YAML or protobuf).
        auto b = is_protobuf(req.header("content-type"))
                     ? [&]() -> result<json::object> {
                           auto d = decode_protobuf_body(req.body, "autoscaling", "v1", "Scale");
                           if (!d) return d.error();
                           for (const auto& s : d->skipped) {
                               ctx.warnings->push_back("kcoro-apiserver does not decode this protobuf field, dropped: " + s);
                           }
                           return std::move(d->object);
                       }()
                     : parse_body(req.body, req.header("content-type"));
        if (!b) co_return status_response(b.error());
        const endpoint_kind ep{"autoscaling", "v1", "Scale", false};
        if (auto k = check_body_kind(ep, *b, store_.registry()); !k) co_return status_response(k.error());
        // handlers/update.go checkName.
        if (name_of(*b) != r.name) {
            co_return status_response(errors::bad_request("the name of the object (" + std::string(name_of(*b)) +
                                                          ") does not match the name on the URL (" + r.name + ")"));
        }
        wanted = std::move(*b);
    } else {
        // The patch applies to the current Scale (a Scale has no lists, so a
        // strategic merge patch is a merge patch; an apply patch merges its
        // fields).
        auto type = patch_type_from_content_type(req.header("content-type"));
        json::value patched;
        if (*type == patch_type::json) {
            boost::system::error_code ec;
            auto p = json::parse(req.body, ec);
            if (ec) co_return status_response(errors::bad_request("error decoding patch: " + ec.message()));
            auto j = apply_json_patch(json::value(*current), p);
            if (!j) co_return status_response(j.error());
            patched = std::move(*j);
        } else {
            auto p = *type == patch_type::apply ? parse_yaml(req.body) : result<json::value>(json::value{});
            if (*type != patch_type::apply) {
                boost::system::error_code ec;
                auto v = json::parse(req.body, ec);
                if (ec || !v.is_object()) {
                    co_return status_response(errors::bad_request("error decoding patch: invalid JSON"));
                }
                p = std::move(v);
            }
            if (!p || !p->is_object()) co_return status_response(errors::bad_request("error decoding patch"));
            patched = apply_merge_patch(json::value(*current), *p);
        }
        if (!patched.is_object()) co_return status_response(errors::bad_request("the patched document is not an object"));
        wanted = std::move(patched.get_object());
    }
    auto next = apply_scale(*live, wanted, r.gvr());
    if (!next) co_return status_response(next.error());
    auto o = store_.update(ctx, deployments, r.ns, r.name, std::move(*next), subresource::none, nullptr);
    if (!o) co_return status_response(o.error());
    auto s = scale_from_deployment(*o);
    if (!s) co_return status_response(s.error());
    co_return respond(*s);
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
    // KEP-5866: only with the ShardedListAndWatch gate on; a bad selector is
    // refused before the stream starts, as the list refuses it.
    if (store_.sharded_list_and_watch()) {
        if (auto s = filter->set_shard_selector(r.query.shard_selector); !s) return status_response(s.error());
    }
    watch_params p;
    p.filter = std::move(*filter);
    p.kind = def->kind;
    p.api_version = def->api_version();
    p.bucket = object_store::storage_bucket(def->gvr);
    p.custom = !def->crd_name.empty();
    p.media = media;
    p.resource_version = r.query.resource_version;
    // cacher.Watch parses it before any stream: an HTTP 500, not an event.
    if (auto rv = errors::parse_resource_version_param(p.resource_version); !rv) return status_response(rv.error());
    p.bookmarks = r.query.allow_watch_bookmarks;
    p.send_initial_events = r.query.send_initial_events;
    // validateWatchOptions (apimachinery internalversion/validation, v0.32;
    // WatchList is on in 1.32): every error together. 1.32 does not require
    // allowWatchBookmarks with sendInitialEvents; without it the initial
    // events come with no end bookmark (cacher.go isListWatchRequest).
    {
        const auto& match = r.query.resource_version_match;
        std::vector<status_cause> invalid;
        if (p.send_initial_events && match != "NotOlderThan") {
            invalid.push_back(errors::field_forbidden(
                "resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
        }
        if (!match.empty()) {
            if (!p.send_initial_events) {
                invalid.push_back(errors::field_forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
            }
            if (match != "NotOlderThan") {
                invalid.push_back(errors::field_not_supported("resourceVersionMatch", "\"" + match + "\"", {"NotOlderThan"}));
            }
            if (!r.query.continue_token.empty()) {
                invalid.push_back(errors::field_forbidden("resourceVersionMatch",
                                                          "resourceVersionMatch is forbidden when continue is provided"));
            }
        }
        if (!invalid.empty()) return status_response(errors::invalid("meta.k8s.io", "ListOptions", "", std::move(invalid)));
    }
    if (is_table(media)) {
        p.columns = columns_for(*def, r.version);
        p.table.api_version = meta_api_version(media);
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
    // The object of an event as the request negotiated it: PartialObjectMetadata
    // (events and bookmarks alike, response.go doTransformObject), a one-row
    // Table, or the object.
    auto bookmark = [&](revision_t rev, bool initial_end) {
        json::object o = bookmark_object(p.filter.gvr.group, p.kind, p.api_version, p.custom, rev);
        if (initial_end) {
            o["metadata"].as_object()["annotations"] = json::object{{"k8s.io/initial-events-end", "true"}};
        }
        if (is_partial(p.media)) o = as_partial_object_metadata(o, meta_api_version(p.media));
        return event_line("BOOKMARK", o);
    };
    auto append = [&](std::string& batch, const char* type, const object_ptr& obj) {
        if (is_partial(p.media)) {
            batch += event_line(type, as_partial_object_metadata(*obj, meta_api_version(p.media)));
            return;
        }
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
    // as=PartialObjectMetadataList cannot transform an event's object; the
    // real encoder then fails and the stream ends at the first event.
    const bool end_at_first_event = is_partial_list(p.media);

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
        if (end_at_first_event && !evs.empty()) co_return;
        std::string batch;
        for (const auto& ev : evs) {
            append(batch, "ADDED", ev.object);
        }
        if (p.send_initial_events.value_or(false) && p.bookmarks) {
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
        // The watch cache's window (watch_window.hpp): older is 410.
        if (auto c = window_.check(p.bucket, last); !c) {
            std::string line = event_line("ERROR", encode_status(*c.error().api_status()));
            co_await w.write(std::move(line));
            co_return;
        }
    }
    // Bookmarks go only with resourceVersions newer than the watch's start.
    const revision_t start_rv = last;
    std::optional<steady_time> next_bookmark;
    if (p.bookmarks) next_bookmark = next_bookmark_time(clk_.now(), deadline, options_.bookmark_interval);
    for (;;) {
        if (!faults_.watch_stalled()) {
            auto evs = store_.events_since(last, p.filter);
            if (!evs) {
                // 410 and friends travel as an ERROR event on a 200 stream.
                co_await w.write(event_line("ERROR", encode_status(*evs.error().api_status())));
                co_return;
            }
            const revision_t caught_up = store_.current_revision();
            if (end_at_first_event && !evs->empty()) co_return;
            std::string batch;
            for (const auto& ev : *evs) {
                append(batch, to_string(ev.type), ev.object);
            }
            last = std::max(last, caught_up);
            if (!batch.empty() && !co_await w.write(std::move(batch))) {
                co_return;
            }
            auto now = clk_.now();
            if (next_bookmark && now >= *next_bookmark) {
                const revision_t brv = window_.last_revision(p.bucket);
                if (should_send_bookmark(brv, start_rv)) {
                    std::string line = bookmark(brv, false);
                    if (!co_await w.write(std::move(line))) co_return;
                }
                next_bookmark = next_bookmark_time(now, deadline, options_.bookmark_interval);
                // The cacher pops due watchers once a second; here time does
                // not move inside the loop, so one due at `now` is done.
                if (next_bookmark && *next_bookmark <= now) next_bookmark.reset();
            }
        }
        if (clk_.now() >= deadline) {
            co_return;
        }
        if (store_.current_revision() > last && !faults_.watch_stalled()) {
            continue;  // committed while we were writing
        }
        auto until = next_bookmark ? std::min(deadline, *next_bookmark) : deadline;
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
