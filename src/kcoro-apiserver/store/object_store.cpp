// object_store: construction, the commit path, and create/get/update.
// Delete and patch are in store_delete.cpp, reads in store_read.cpp, the
// controllers in store_controllers.cpp.
#include "store/object_store.hpp"
#include "store/builtin_decoder.hpp"
#include "store/builtin_rules.hpp"
#include "store/event_conversion.hpp"
#include "store/schema_validation.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"
#include "server_side_apply.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace kcoro::apiserver {
namespace json = boost::json;

// --- helpers ------------------------------------------------------------------

std::string resource_version_string(revision_t r) { return std::to_string(r); }

std::optional<revision_t> parse_revision(std::string_view s) {
    if (s.empty() || s.size() > 19) return std::nullopt;
    revision_t r = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        r = r * 10 + static_cast<revision_t>(c - '0');
    }
    return r;
}

bool json_equal_ignoring(const json::object& a, const json::object& b,
                         std::initializer_list<std::string_view> skip) {
    auto skipped = [&](std::string_view k) { return std::find(skip.begin(), skip.end(), k) != skip.end(); };
    for (const auto& kv : a) {
        if (skipped(kv.key())) continue;
        const auto* other = b.if_contains(kv.key());
        if (!other || *other != kv.value()) return false;
    }
    for (const auto& kv : b) {
        if (skipped(kv.key())) continue;
        if (!a.contains(kv.key())) return false;
    }
    return true;
}

const char* to_string(event_type t) noexcept {
    switch (t) {
    case event_type::added: return "ADDED";
    case event_type::modified: return "MODIFIED";
    case event_type::deleted: return "DELETED";
    }
    return "ERROR";
}

std::ostream& operator<<(std::ostream& os, const delete_result& r) {
    return os << "{deleted: " << (r.deleted ? "true" : "false") << ", body: " << json::serialize(r.body) << "}";
}

std::ostream& operator<<(std::ostream& os, const watch_event& e) {
    os << to_string(e.type) << "@" << e.revision;
    if (e.object) os << " " << json::serialize(*e.object);
    return os;
}

std::optional<patch_type> patch_type_from_content_type(std::string_view ct) {
    if (auto semi = ct.find(';'); semi != std::string_view::npos) ct = ct.substr(0, semi);
    while (!ct.empty() && ct.back() == ' ') ct.remove_suffix(1);
    if (ct == "application/merge-patch+json") return patch_type::merge;
    if (ct == "application/json-patch+json") return patch_type::json;
    if (ct == "application/strategic-merge-patch+json") return patch_type::strategic;
    if (ct == "application/apply-patch+yaml" || ct == "application/apply-patch+json") return patch_type::apply;
    return std::nullopt;
}

result<watch_filter> watch_filter::make(group_version_resource gvr, std::string ns,
                                        std::string_view label_text, std::string_view field_text) {
    watch_filter f;
    f.gvr = std::move(gvr);
    f.ns = std::move(ns);
    auto labels = label_selector::parse(label_text);
    if (!labels) return labels.error();
    f.labels = std::move(*labels);
    auto fields = field_selector::parse(field_text, f.gvr.group, f.gvr.resource);
    if (!fields) return fields.error();
    f.fields = std::move(*fields);
    return f;
}

result<void> watch_filter::set_shard_selector(std::string_view text) {
    if (text.empty()) return {};
    auto parsed = shard_selector::parse(text);
    // The parse error as a 400 BadRequest: the request's options could not
    // be decoded (endpoints/handlers/get.go answers a ListOptions decoding
    // error with errors.NewBadRequest; the "invalid shard selector: " prefix
    // is apimachinery's ListOptions conversion, see docs/apiserver.md).
    if (parsed.index() == 1) return errors::bad_request("invalid shard selector: " + std::get<1>(parsed));
    shards = std::get<0>(std::move(parsed));
    return {};
}

bool object_store::sharded_list_and_watch() const noexcept { return impl_->config.sharded_list_and_watch; }

// --- impl ---------------------------------------------------------------------

void object_store::for_each(const group_version_resource& gvr, std::string_view ns,
                            const std::function<void(const object_ptr&)>& f) const {
    const auto* def = registry_.find(gvr);
    const auto* b = def ? impl_->find_bucket(*def) : nullptr;
    if (!b) return;
    if (ns.empty()) {
        for (const auto& [key, obj] : *b) f(obj);
        return;
    }
    // Keys order by namespace first: the namespace's objects are one run.
    for (auto it = b->lower_bound(object_key{std::string(ns), std::string{}}); it != b->end() && it->first.ns == ns; ++it) {
        f(it->second);
    }
}

object_ptr object_store::find(const group_version_resource& gvr, std::string_view ns, std::string_view name) const {
    const auto* def = registry_.find(gvr);
    return def ? impl_->find(*def, ns, name) : nullptr;
}

namespace {

// Boost.JSON 1.81 parses a number beyond the double range (1e999) as an
// infinity, and would serialize it back as `Infinity`, which is not JSON; Go's
// decoder refuses such a number (found by libFuzzer, strategic_merge_patch).
bool has_non_finite(const json::value& v) {
    if (v.is_double()) return !std::isfinite(v.get_double());
    if (const auto* o = v.if_object()) {
        return std::any_of(o->begin(), o->end(), [](const json::key_value_pair& kv) { return has_non_finite(kv.value()); });
    }
    if (const auto* a = v.if_array()) return std::any_of(a->begin(), a->end(), [](const json::value& x) { return has_non_finite(x); });
    return false;
}

} // namespace

std::optional<error> object_store::impl::decode(const request_context& ctx, const resource_def& def,
                                                json::object& obj, const std::string* patch_value) const {
    auto r = decode_builtin(def, obj);
    auto mode = field_validation_from(ctx.field_validation);
    std::optional<std::string> failure = r.error;
    if (!failure && has_non_finite(obj)) {
        // Go names the number's text, which the parse has lost.
        failure = "json: cannot unmarshal number into Go value of type float64: out of range";
    }
    if (!failure && !r.unknown_fields.empty()) {
        if (mode == field_validation::strict) {
            failure = strict_decoding_error(r.unknown_fields);
        } else if (mode == field_validation::warn && ctx.warnings) {
            // addStrictDecodingWarnings: one warning per unknown field.
            for (const auto& f : r.unknown_fields) ctx.warnings->push_back("unknown field \"" + f + "\"");
        }
    }
    if (!failure) return std::nullopt;
    if (patch_value) {
        return errors::invalid("", "", "", {errors::field_invalid("patch", json::serialize(json::value(*patch_value)), *failure)});
    }
    // handlers/rest.go transformDecodeError: the body's version (or the endpoint's).
    std::string version = def.gvr.version;
    if (auto av = api_version_of(obj); !av.empty()) version = group_version::parse(av).version;
    return errors::bad_request(def.kind + " in version \"" + version + "\" cannot be handled as a " + def.kind + ": " +
                               *failure);
}

object_store::impl::impl(object_store& o, store_config c) : owner(o), config(std::move(c)), rng(config.random_seed) {}

const bucket_map* object_store::impl::find_bucket(const resource_def& def) const {
    auto it = buckets.find(bucket_of(def));
    return it == buckets.end() ? nullptr : &it->second;
}

object_ptr object_store::impl::find(const resource_def& def, std::string_view ns, std::string_view name) const {
    const auto* b = find_bucket(def);
    if (!b) return nullptr;
    auto it = b->find(object_key{def.namespaced ? std::string(ns) : std::string{}, std::string(name)});
    return it == b->end() ? nullptr : it->second;
}

std::string object_store::impl::new_uid() {
    // A version-4 UUID from the seeded generator.
    std::uint64_t hi = rng();
    std::uint64_t lo = rng();
    hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
    lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    char buf[37];
    std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                  static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                  static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
    return buf;
}

std::string object_store::impl::random_suffix(std::size_t n) {
    // utilrand.String's alphabet: no vowels (no words) and no confusable characters.
    static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        out += alphabet[rng() % alphabet.size()];
    }
    return out;
}

object_ptr object_store::impl::present(const object_ptr& obj, const resource_def& def) {
    if (obj && is_events_v1(def.gvr)) return std::make_shared<json::object>(core_event_to_events_v1(*obj));
    if (!obj || api_version_of(*obj) == def.api_version()) return obj;
    auto copy = std::make_shared<json::object>(*obj);
    (*copy)["apiVersion"] = def.api_version();
    return copy;
}

const resource_def* object_store::impl::def_or_null(const group_version_resource& gvr) const {
    return owner.registry_.find(gvr);
}

const resource_def& object_store::impl::storage_def(const resource_def& def) const {
    if (is_events_v1(def.gvr)) {
        if (const auto* core = owner.registry_.find({"", "v1", "events"})) return *core;
    }
    if (def.storage) return def;
    for (const auto* d : owner.registry_.all()) {
        if (d->gvr.group == def.gvr.group && d->gvr.resource == def.gvr.resource && d->storage) return *d;
    }
    return def;
}

object_ptr object_store::impl::commit(const resource_def& def, event_type type, json::object obj,
                                      object_ptr previous) {
    revision_t rev = ++owner.revision_;
    mutable_metadata(obj)["resourceVersion"] = resource_version_string(rev);
    const auto& sdef = storage_def(def);
    obj["apiVersion"] = sdef.api_version();
    obj["kind"] = sdef.kind;
    auto ptr = std::make_shared<const json::object>(std::move(obj));
    auto key = key_of(*ptr);
    bucket(def)[key] = ptr;
    const auto* prev_labels = previous ? labels_of(*previous) : nullptr;
    history.push_back({rev, type, bucket_of(def), key, ptr, std::move(previous), labels_of(*ptr), prev_labels});
    trim_history();
    if (owner.commit_hook_) owner.commit_hook_(rev);
    return ptr;
}

object_ptr object_store::impl::commit_delete(const resource_def& def, const object_ptr& last) {
    revision_t rev = ++owner.revision_;
    json::object final_state = *last;
    mutable_metadata(final_state)["resourceVersion"] = resource_version_string(rev);
    auto ptr = std::make_shared<const json::object>(std::move(final_state));
    auto key = key_of(*last);
    bucket(def).erase(key);
    if (def.gvr.resource == "services" && def.gvr.group.empty()) {
        if (const auto* ip = find_path(*last, {"spec", "clusterIP"}); ip && ip->is_string()) {
            release_ip(ip->get_string());
        }
    }
    spec_changed_at.erase(std::string(uid_of(*last)));
    history.push_back({rev, event_type::deleted, bucket_of(def), key, ptr, last, labels_of(*ptr), labels_of(*last)});
    trim_history();
    if (owner.commit_hook_) owner.commit_hook_(rev);
    return ptr;
}

void object_store::impl::trim_history() {
    while (history.size() > config.history_size && !history.empty()) {
        compacted = history.front().revision;
        history.pop_front();
    }
}

// --- object_store -------------------------------------------------------------

object_store::object_store(store_config config, wall_time start)
    : registry_(resource_registry::with_builtins()), impl_(std::make_unique<impl>(*this, std::move(config))) {
    request_context ctx;
    ctx.now = start;
    ctx.field_manager = "kcoro-apiserver";
    for (const auto& ns : impl_->config.initial_namespaces) {
        json::object obj{{"metadata", json::object{{"name", ns}}}};
        (void)create(ctx, resources::namespaces(), "", std::move(obj));
    }
}

object_store::~object_store() = default;

revision_t object_store::oldest_revision() const noexcept { return impl_->compacted; }

std::string object_store::last_commit_bucket() const {
    return impl_->history.empty() ? std::string{} : impl_->history.back().bucket;
}

std::string object_store::storage_bucket(const group_version_resource& gvr) { return impl::bucket_of(gvr); }

void object_store::compact() {
    impl_->history.clear();
    impl_->compacted = revision_;
}

void object_store::set_simulation(bool enabled, std::chrono::milliseconds delay) {
    impl_->config.simulate_workloads = enabled;
    impl_->config.simulate_delay = delay;
}

std::size_t object_store::count(const group_version_resource& gvr) const {
    const auto* def = registry_.find(gvr);
    if (!def) return 0;
    const auto* b = impl_->find_bucket(*def);
    return b ? b->size() : 0;
}

namespace {

error not_served(const group_version_resource& gvr) {
    status s;
    s.outcome = "Failure";
    s.code = 404;
    s.reason = "NotFound";
    s.message = "the server could not find the requested resource";
    s.details = status_details{};
    s.details->group = gvr.group;
    s.details->kind = gvr.resource;
    return error::from_status(std::move(s));
}

std::string ns_for(const resource_def& def, std::string_view ns) {
    return def.namespaced ? std::string(ns) : std::string{};
}

// The namespace checks of create: 404 when missing, 403 when terminating.
std::optional<error> check_namespace(const object_store::impl& im, const resource_def& def,
                                     std::string_view ns, std::string_view name) {
    if (!def.namespaced) return std::nullopt;
    const auto* nsdef = im.owner.registry().find(resources::namespaces());
    auto nsobj = im.find(*nsdef, "", ns);
    if (!nsobj) return errors::not_found(resources::namespaces(), ns);
    if (is_being_deleted(*nsobj)) return errors::namespace_terminating(def.gvr, name, ns);
    return std::nullopt;
}

bool finalized(const resource_def& def, const json::object& obj);

bool tracks_generation(const resource_def& def) { return def.tracks_generation; }

// The part of an object whose change bumps generation.
bool spec_changed(const resource_def& def, const json::object& a, const json::object& b) {
    if (def.has_status) return !json_equal_ignoring(a, b, {"metadata", "status", "apiVersion", "kind"});
    return !json_equal_ignoring(a, b, {"metadata", "apiVersion", "kind"});
}

bool is_event(const resource_def& def) {
    return def.gvr.resource == "events" && (def.gvr.group.empty() || def.gvr.group == "events.k8s.io");
}

std::vector<status_cause> validate_for(const resource_def& def, json::object& obj, const json::object* old) {
    auto causes = validate_object_meta(def, obj);
    if (is_event(def)) {
        auto ev = validate_event(obj, old, !def.gvr.group.empty());
        causes.insert(causes.end(), ev.begin(), ev.end());
    }
    auto more = def.schema ? validate_custom_resource(obj, *def.schema) : default_and_validate_builtin(def, obj, old);
    causes.insert(causes.end(), more.begin(), more.end());
    return causes;
}

// Which fields a write may own (managedFields), by endpoint.
field_scope scope_of(const resource_def& def, subresource sub) {
    if (!def.has_status) return field_scope::all;
    return sub == subresource::status ? field_scope::status_subresource : field_scope::main_without_status;
}

// managedFields for a non-apply write; untracked when no manager is known.
json::object track_update(const request_context& ctx, const resource_def& def, subresource sub,
                          const json::object& old, json::object next) {
    if (ctx.field_manager.empty()) return next;
    update_options o;
    o.manager = ctx.field_manager;
    o.now = ctx.now;
    o.scope = scope_of(def, sub);
    return update_managed_fields(old, std::move(next), o);
}

std::string go_string_slice(const std::vector<std::string>& v) {
    std::string out = "[]string{";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        out += "\"" + v[i] + "\"";
    }
    return out + "}";
}

} // namespace

result<json::object> object_store::create(const request_context& ctx, const group_version_resource& gvr,
                                          std::string_view ns_in, json::object body) {
    const auto* def = impl_->def_or_null(gvr);
    if (!def) return not_served(gvr);
    if (auto e = impl_->decode(ctx, *def, body, nullptr)) return *e;
    return impl_->do_create(ctx, *def, ns_in, std::move(body), false);
}

result<json::object> object_store::impl::do_create(const request_context& ctx, const resource_def& def_ref,
                                                   std::string_view ns_in, json::object body, bool managed_done) {
    auto& im = *this;
    const auto* def = &def_ref;
    const auto& gvr = def->gvr;
    std::string ns = ns_for(*def, ns_in);
    // Events are stored in their core/v1 form, whichever API wrote them.
    if (is_events_v1(gvr)) body = events_v1_to_core_event(body);
    if (is_event(*def)) normalize_core_event(body);
    if (!def->crd_name.empty()) {
        const auto* crddef = owner.registry_.find(resources::customresourcedefinitions());
        if (auto crd = im.find(*crddef, "", def->crd_name); crd && is_being_deleted(*crd)) {
            return errors::method_not_allowed(gvr, "create not allowed while custom resource definition is terminating");
        }
    }
    // apiVersion/kind first: inserting keys later would move `meta` (boost::json
    // relocates an object's elements when it grows).
    const auto& sdef = im.storage_def(*def);
    body["apiVersion"] = sdef.api_version();
    body["kind"] = sdef.kind;
    auto& meta = mutable_metadata(body);
    if (def->namespaced) {
        auto body_ns = namespace_of(body);
        if (!body_ns.empty() && body_ns != ns) {
            return errors::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request");
        }
        meta["namespace"] = ns;
    } else {
        meta.erase("namespace");
    }
    if (!resource_version_of(body).empty()) {
        // What etcd3's store answers; kube-apiserver passes it through as 500.
        return errors::internal("resourceVersion should not be set on objects to be created");
    }
    std::string name(name_of(body));
    if (name.empty()) {
        auto gen = generate_name_of(body);
        if (gen.empty()) {
            return errors::invalid(def->gvr.group, def->kind, "",
                                   {errors::field_required("metadata.name", "name or generateName is required")});
        }
        name = std::string(gen) + im.random_suffix(5);
        meta["name"] = name;
    }
    if (auto e = check_namespace(im, *def, ns, name)) return *e;
    if (def->gvr.group.empty() && def->gvr.resource == "pods") {
        // Mutating admission (after NamespaceLifecycle): the ServiceAccount
        // plugin. (Priority and DefaultTolerationSeconds: pod_rules.)
        if (auto e = im.admit_service_account(ns, name, body)) return *e;
    }
    // (admission changes only what is under `spec`: `meta` stays valid)

    // System fields: the server's, whatever the client sent.
    meta["uid"] = im.new_uid();
    meta["creationTimestamp"] = format_rfc3339(ctx.now);
    meta.erase("deletionTimestamp");
    meta.erase("deletionGracePeriodSeconds");
    meta.erase("selfLink");
    if (tracks_generation(*def)) {
        meta["generation"] = 1;
    }
    // Otherwise a client's generation stays: rest.BeforeCreate leaves it to
    // the strategy, and the strategies of these kinds do not touch it
    // (BeforeUpdate then carries the stored one over).
    if (def->has_status && def->gvr.resource != "namespaces") {
        body.erase("status");  // PrepareForCreate: status is the status subresource's
    }
    auto causes = validate_for(*def, body, nullptr);
    if (!causes.empty()) return errors::invalid(def->gvr.group, def->kind, name, std::move(causes));
    if (def->gvr.resource == "customresourcedefinitions") {
        for (const auto& rd : resource_defs_of_crd(body)) {
            if (const auto* existing = owner.registry_.find(rd.gvr); existing && existing->crd_name.empty()) {
                return errors::invalid(def->gvr.group, def->kind, name,
                                       {errors::field_invalid("spec.names.plural", "\"" + rd.gvr.resource + "\"",
                                                              "conflicts with a built-in resource")});
            }
        }
    }
    if (im.find(*def, ns, name)) return errors::already_exists(def->gvr, name);

    // ExternalName services get no cluster IP (service/storage/alloc.go
    // allocServiceClusterIPs skips them); a headless one keeps "None" in
    // clusterIPs too (checked against v1.32.13).
    const bool external_name = def->gvr.resource == "services" && def->gvr.group.empty() &&
                               find_path(body, {"spec", "type"}) && *find_path(body, {"spec", "type"}) == "ExternalName";
    if (def->gvr.resource == "services" && def->gvr.group.empty() && !ctx.dry_run && !external_name) {
        auto& spec = body["spec"].as_object();
        auto* ip = spec.if_contains("clusterIP");
        if (!ip || !ip->is_string() || ip->get_string().empty()) {
            auto allocated = im.allocate_ip();
            if (allocated.empty()) return errors::internal("failed to allocate a serviceIP: range is full");
            spec["clusterIP"] = allocated;
        } else if (ip->get_string() != "None" && !im.reserve_ip(ip->get_string())) {
            return errors::invalid("", "Service", name,
                                   {errors::field_invalid("spec.clusterIPs", json::serialize(*ip),
                                                          "failed to allocate IP " + std::string(ip->get_string()) +
                                                              ": provided IP is already allocated")});
        }
        if (auto* cip = spec.if_contains("clusterIP"); cip && cip->is_string()) {
            spec["clusterIPs"] = json::array{*cip};
        }
    }
    if (def->gvr.resource == "customresourcedefinitions") {
        set_crd_established(body, format_rfc3339(ctx.now));
    }
    if (!managed_done) body = track_update(ctx, *def, subresource::none, json::object{}, std::move(body));
    if (ctx.dry_run) {
        return body;  // a dry-run create has no resourceVersion
    }
    if (def->gvr.resource == "deployments") im.spec_changed_at[std::string(uid_of(body))] = ctx.now;
    auto stored = im.commit(*def, event_type::added, std::move(body), nullptr);
    if (def->gvr.resource == "customresourcedefinitions") {
        for (auto& rd : resource_defs_of_crd(*stored)) owner.registry_.add(std::move(rd));
    }
    // The root-CA publisher reacts to a namespace's creation at once.
    if (def->gvr.resource == "namespaces" && def->gvr.group.empty()) {
        im.publish_root_ca(name, ctx.now);
        im.ensure_default_service_account(name, ctx.now);  // the serviceaccounts controller, likewise
    }
    return *impl::present(stored, *def);
}

result<json::object> object_store::get(const group_version_resource& gvr, std::string_view ns,
                                       std::string_view name) const {
    const auto* def = impl_->def_or_null(gvr);
    if (!def) return not_served(gvr);
    auto obj = impl_->find(*def, ns, name);
    if (!obj) return errors::not_found(def->gvr, name);
    return *impl::present(obj, *def);
}

result<json::object> object_store::update(const request_context& ctx, const group_version_resource& gvr,
                                          std::string_view ns, std::string_view name, json::object body,
                                          subresource sub, bool* created) {
    const auto* def = impl_->def_or_null(gvr);
    if (!def) return not_served(gvr);
    if (auto e = impl_->decode(ctx, *def, body, nullptr)) return *e;
    return impl_->do_update(ctx, *def, ns, name, std::move(body), sub, created);
}

result<json::object> object_store::impl::do_update(const request_context& ctx, const resource_def& def,
                                                   std::string_view ns_in, std::string_view name, json::object body,
                                                   subresource sub, bool* created, bool managed_done) {
    if (created) *created = false;
    std::string ns = ns_for(def, ns_in);
    if (sub == subresource::status && !def.has_status) return not_served(def.gvr);
    if (is_events_v1(def.gvr)) body = events_v1_to_core_event(body);
    if (is_event(def)) normalize_core_event(body);
    auto body_name = name_of(body);
    if (!body_name.empty() && body_name != name) {
        return errors::bad_request("the name of the object (" + std::string(body_name) +
                                   ") does not match the name on the URL (" + std::string(name) + ")");
    }
    if (def.namespaced) {
        auto body_ns = namespace_of(body);
        if (!body_ns.empty() && body_ns != ns) {
            return errors::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request");
        }
    }
    auto old = find(def, ns, name);
    if (!old) {
        if (def.allow_create_on_update && sub == subresource::none) {
            mutable_metadata(body)["name"] = std::string(name);
            mutable_metadata(body).erase("resourceVersion");
            auto r = owner.create(ctx, def.gvr, ns, std::move(body));
            if (r && created) *created = true;
            return r;
        }
        return errors::not_found(def.gvr, name);
    }
    // Optimistic concurrency (generic registry Store.Update).
    auto rv = resource_version_of(body);
    if (rv.empty()) {
        if (!def.allow_unconditional_update) {
            return errors::invalid(def.gvr.group, def.gvr.resource, name,
                                   // store.go passes the uint64 0, which field.Error
                                   // prints with %#v (apimachinery v0.32 errors.go).
                                   {errors::field_invalid("metadata.resourceVersion", "0x0",
                                                          "must be specified for an update")});
        }
    } else if (rv != resource_version_of(*old)) {
        return errors::conflict(def.gvr, name, errors::optimistic_lock_detail);
    }
    const auto& old_meta = *metadata_of(*old);
    json::object next;
    if (sub == subresource::status) {
        // Status strategy: only status changes (ResetObjectMetaForStatus and
        // the spec reset of every status strategy).
        next = *old;
        if (const auto* st = body.if_contains("status")) {
            next["status"] = *st;
        } else {
            next.erase("status");
        }
    } else {
        next = std::move(body);
        if (def.has_status) {
            if (const auto* st = old->if_contains("status")) {
                next["status"] = *st;
            } else {
                next.erase("status");
            }
        }
    }
    auto& meta = mutable_metadata(next);
    if (auto uid = uid_of(next); !uid.empty() && uid != uid_of(*old)) {
        return errors::invalid(def.gvr.group, def.kind, name,
                               {errors::field_invalid("metadata.uid", "\"" + std::string(uid) + "\"",
                                                      "field is immutable")});
    }
    // Fields only the server sets are carried over from the stored object.
    for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                          "generation", "name", "namespace"}) {
        if (const auto* v = old_meta.if_contains(k)) {
            meta[k] = *v;
        } else {
            meta.erase(k);
        }
    }
    meta["resourceVersion"] = resource_version_of(*old);
    meta.erase("selfLink");
    const auto& sdef = storage_def(def);
    next["apiVersion"] = sdef.api_version();  // may move `meta`: not used below
    next["kind"] = sdef.kind;
    if (def.gvr.resource == "namespaces" && def.gvr.group.empty() && sub == subresource::none) {
        // Namespace spec.finalizers change only through /finalize.
        if (const auto* spec = old->if_contains("spec")) {
            next["spec"] = *spec;
        }
    }

    std::vector<status_cause> causes;
    if (is_being_deleted(*old)) {
        auto was = finalizers_of(*old);
        std::vector<std::string> added;
        for (const auto& f : finalizers_of(next)) {
            if (std::find(was.begin(), was.end(), f) == was.end()) added.push_back(f);
        }
        if (!added.empty()) {
            std::sort(added.begin(), added.end());
            causes.push_back(errors::field_forbidden(
                "metadata.finalizers",
                "no new finalizers can be added if the object is being deleted, found new finalizers " +
                    go_string_slice(added)));
        }
    }
    if (sub == subresource::none) {
        auto more = validate_for(def, next, old.get());
        causes.insert(causes.end(), more.begin(), more.end());
    } else if (!def.schema) {
        auto more = validate_builtin_status(def, next);
        causes.insert(causes.end(), more.begin(), more.end());
    } else {
        // A custom resource's status strategy validates the whole object
        // against the schema too, after pruning unknown fields (also under
        // status) and defaulting.
        auto more = validate_custom_resource(next, *def.schema);
        causes.insert(causes.end(), more.begin(), more.end());
    }
    if (!causes.empty()) return errors::invalid(def.gvr.group, def.kind, name, std::move(causes));
    if (def.gvr.resource == "services" && def.gvr.group.empty() && sub == subresource::none) {
        auto& spec = next["spec"].as_object();
        const auto* old_ip = find_path(*old, {"spec", "clusterIP"});
        auto* new_ip = spec.if_contains("clusterIP");
        if (old_ip && (!new_ip || (new_ip->is_string() && new_ip->get_string().empty()))) {
            spec["clusterIP"] = *old_ip;
            if (const auto* ips = find_path(*old, {"spec", "clusterIPs"})) spec["clusterIPs"] = *ips;
        } else if (old_ip && new_ip && *new_ip != *old_ip) {
            return errors::invalid("", "Service", name,
                                   {errors::field_invalid("spec.clusterIPs[0]", json::serialize(*new_ip),
                                                          "may not change once set")});
        }
    }
    if (tracks_generation(def) && spec_changed(def, *old, next)) {
        mutable_metadata(next)["generation"] = generation_of(*old) + 1;
        if (def.gvr.resource == "deployments") spec_changed_at[std::string(uid_of(*old))] = ctx.now;
    }
    if (!managed_done) next = track_update(ctx, def, sub, *old, std::move(next));
    // A write that changes nothing is not a write: no new revision, no event
    // (etcd3 GuaranteedUpdate skips identical bytes).
    if (next == *old) return *present(old, def);
    if (ctx.dry_run) return next;
    // Removing the last finalizer of a deleting object deletes it
    // (shouldDeleteDuringUpdate): the DELETED event carries the stored state.
    if (finalized(def, next)) {
        auto gone = commit_delete(def, old);
        return *present(gone, def);
    }
    auto stored = commit(def, event_type::modified, std::move(next), old);
    if (def.gvr.resource == "customresourcedefinitions" && !is_being_deleted(*stored)) {
        for (auto& rd : resource_defs_of_crd(*stored)) owner.registry_.add(std::move(rd));
    }
    return *present(stored, def);
}

namespace {
// Deleting and no finalizer left (for a namespace: none in spec either).
bool finalized(const resource_def& def, const json::object& obj) {
    if (!is_being_deleted(obj) || !finalizers_of(obj).empty()) return false;
    if (def.gvr.resource == "namespaces" && def.gvr.group.empty()) {
        const auto* spec_fin = find_path(obj, {"spec", "finalizers"});
        return !spec_fin || !spec_fin->is_array() || spec_fin->as_array().empty();
    }
    return true;
}
} // namespace

bool object_store::impl::controller_write(const resource_def& def, json::object obj, const object_ptr& previous) {
    if (finalized(def, obj)) {
        commit_delete(def, previous);
        return true;
    }
    if (obj == *previous) return false;
    commit(def, event_type::modified, std::move(obj), previous);
    return true;
}

} // namespace kcoro::apiserver
