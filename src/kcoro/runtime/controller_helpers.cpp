#include <kcoro/runtime/controller_helpers.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/runtime/shard_bucket.hpp>

#include <boost/json/serialize.hpp>

#include <ostream>
#include <utility>

namespace kcoro::runtime {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view already_owned_prefix = "already owned: ";
constexpr std::string_view name_conflict_prefix = "name conflict: ";

std::string describe(const json::object& obj) {
    return std::string(kind_of(obj)) + " " + key_of(obj).str();
}

// The owner references of `current` with those of `desired` upserted by uid.
json::array merged_owner_references(const json::object& current, const json::object& desired) {
    json::array out;
    if (const auto* v = find_path(current, {"metadata", "ownerReferences"}); v && v->is_array()) {
        out = v->as_array();
    }
    const auto* d = find_path(desired, {"metadata", "ownerReferences"});
    if (!d || !d->is_array()) {
        return out;
    }
    for (const auto& ref : d->as_array()) {
        const auto uid = owner_reference_from(ref).uid;
        bool found = false;
        for (auto& existing : out) {
            if (owner_reference_from(existing).uid == uid) {
                existing = ref;
                found = true;
            }
        }
        if (!found) {
            out.push_back(ref);
        }
    }
    return out;
}

void report(const helper_options& opts, const group_version_resource& gvr, const object_key& key, write_op op,
            std::string subresource, bool noop) {
    if (opts.on_write) {
        opts.on_write(write_record(gvr, key, op, std::move(subresource), noop));
    }
}

// What of `desired` the controller asserts: everything but identity and
// status, plus labels, annotations and (merged) owner references.
json::object desired_fields(const json::object& current, const json::object& desired) {
    json::object out;
    for (const auto& [k, v] : desired) {
        if (k == "metadata" || k == "status" || k == "apiVersion" || k == "kind") {
            continue;
        }
        out[k] = v;
    }
    json::object meta;
    if (const auto* l = labels_of(desired); l && !l->empty()) {
        meta["labels"] = *l;
    }
    if (const auto* a = annotations_of(desired); a && !a->empty()) {
        meta["annotations"] = *a;
    }
    if (const auto* d = find_path(desired, {"metadata", "ownerReferences"}); d && d->is_array() && !d->as_array().empty()) {
        meta["ownerReferences"] = merged_owner_references(current, desired);
    }
    if (!meta.empty()) {
        out["metadata"] = std::move(meta);
    }
    return out;
}

} // namespace

// --- pure ----------------------------------------------------------------

result<bool> set_controller_reference(json::object& child, const json::object& owner) {
    const auto ref = make_controller_reference(owner);
    if (auto existing = controller_of(child); existing && existing->uid != ref.uid) {
        return result<bool>(boost::system::in_place_error,
                            error(kcoro_errc::invalid_argument,
                                  std::string(already_owned_prefix) + describe(child) +
                                      " is already owned by another " + existing->kind + " controller " +
                                      existing->name));
    }
    auto& meta = mutable_metadata(child);
    auto it = meta.find("ownerReferences");
    if (it == meta.end() || !it->value().is_array()) {
        meta["ownerReferences"] = json::array{to_json(ref)};
        return true;
    }
    auto& refs = it->value().as_array();
    const json::value wanted = to_json(ref);
    for (auto& r : refs) {
        if (owner_reference_from(r).uid == ref.uid) {
            if (json_equal(r, wanted)) {
                return false;
            }
            r = wanted;
            return true;
        }
    }
    refs.push_back(wanted);
    return true;
}

bool is_already_owned(const error& e) noexcept {
    return e.code() == make_error_code(kcoro_errc::invalid_argument) &&
           e.message().rfind(already_owned_prefix, 0) == 0;
}

bool is_name_conflict(const error& e) noexcept {
    return is_already_exists(e) && e.message().rfind(name_conflict_prefix, 0) == 0;
}

error name_conflict(const json::object& existing, const json::object& owner) {
    return error(api_errc::already_exists, std::string(name_conflict_prefix) + describe(existing) +
                                               " exists and is not controlled by " + describe(owner));
}

bool json_subset(const json::value& sub, const json::value& super) noexcept {
    if (sub.is_object() && super.is_object()) {
        const auto& sup = super.as_object();
        for (const auto& [k, v] : sub.as_object()) {
            auto it = sup.find(k);
            if (v.is_null()) {
                if (it != sup.end() && !it->value().is_null()) return false;
                continue;
            }
            if (it == sup.end() || !json_subset(v, it->value())) {
                return false;
            }
        }
        return true;
    }
    if (sub.is_array() && super.is_array()) {
        // Lists are replaced whole by a merge patch: ours, in order, but the
        // server may fill defaults into the items.
        const auto& a = sub.as_array();
        const auto& b = super.as_array();
        if (a.size() != b.size()) {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!json_subset(a[i], b[i])) return false;
        }
        return true;
    }
    return json_equal(sub, super);
}

bool matches_desired(const json::object& current, const json::object& desired) {
    return json_subset(desired_fields(current, desired), current);
}

json::object make_drift_patch(const json::object& current, const json::object& desired) {
    auto patch = create_repair_merge_patch(current, desired_fields(current, desired));
    json::object out = patch.is_object() ? std::move(patch.as_object()) : json::object{};
    auto& meta = out["metadata"];
    if (!meta.is_object()) {
        meta = json::object{};
    }
    meta.as_object()["resourceVersion"] = resource_version_of(current);
    return out;
}

bool set_status_condition(json::object& obj, condition c, wall_time now) {
    if (c.observed_generation == 0) {
        c.observed_generation = generation_of(obj);
    }
    bool changed = set_condition(obj, c, now);
    auto& status = obj["status"];
    if (!status.is_object()) {
        status = json::object{};
        changed = true;
    }
    auto& st = status.as_object();
    const json::value gen = generation_of(obj);
    if (auto it = st.find("observedGeneration"); it == st.end() || !json_equal(it->value(), gen)) {
        st["observedGeneration"] = gen;
        changed = true;
    }
    return changed;
}

bool status_equal(const json::object& obj, const json::value& desired) {
    auto it = obj.find("status");
    if (it == obj.end()) {
        return desired.is_null() || (desired.is_object() && desired.as_object().empty());
    }
    return json_equal(it->value(), desired);
}

bool is_noop_write(const json::object& before, const json::object& after) noexcept {
    auto rv = resource_version_of(before);
    return !rv.empty() && rv == resource_version_of(after);
}

std::ostream& operator<<(std::ostream& os, const write_result& r) {
    os << to_string(r.op);
    if (r.object) {
        os << ' ' << key_of(*r.object).str() << "@rv " << resource_version_of(*r.object);
    }
    return os;
}

// --- coroutines ------------------------------------------------------------

asio::awaitable<result<write_result>> create_or_patch(client::client& c, group_version_resource gvr,
                                                      json::object desired, object_ptr owner, mutate_func mutate,
                                                      helper_options opts) {
    if (owner) {
        auto set = set_controller_reference(desired, *owner);
        if (!set) {
            co_return set.error();
        }
        if (opts.stamp_shard_bucket) stamp_shard_bucket(desired, uid_of(*owner));
    }
    const object_key key = key_of(desired);
    auto current = co_await c.get(gvr, key);
    if (!current && is_not_found(current.error())) {
        auto created = co_await c.create(gvr, key.ns, desired);
        if (created) {
            report(opts, gvr, key, write_op::created, "", false);
            co_return write_result{*created, write_op::created};
        }
        if (!is_already_exists(created.error())) {
            co_return created.error();
        }
        // Created meanwhile (by us, with the response lost, or by someone
        // else): read it and verify it like any existing object.
        current = co_await c.get(gvr, key);
    }
    if (!current) {
        co_return current.error();
    }
    const object_ptr cur = *current;
    if (owner && !is_controlled_by(*cur, uid_of(*owner))) {
        co_return name_conflict(*cur, *owner);
    }
    if (mutate) {
        mutate(desired, *cur);
    }
    if (matches_desired(*cur, desired)) {
        co_return write_result{cur, write_op::none};
    }
    auto patched = co_await c.patch(gvr, key, json::serialize(make_drift_patch(*cur, desired)));
    if (!patched) {
        co_return patched.error();
    }
    report(opts, gvr, key, write_op::patched, "", is_noop_write(*cur, **patched));
    co_return write_result{*patched, write_op::patched};
}

namespace {

enum class finalizer_change { add, remove };

asio::awaitable<result<object_ptr>> change_finalizer(client::client& c, group_version_resource gvr, object_ptr obj,
                                                     std::string finalizer, helper_options opts,
                                                     finalizer_change what) {
    for (int attempt = 0;; ++attempt) {
        auto patch = what == finalizer_change::add ? make_add_finalizer_patch(*obj, finalizer, opts.guard)
                                                   : make_remove_finalizer_patch(*obj, finalizer, opts.guard);
        if (!patch) {
            co_return obj;
        }
        const object_key key = key_of(*obj);
        auto r = co_await c.patch(gvr, key, json::serialize(*patch), patch_options{patch_type::json});
        if (r) {
            report(opts, gvr, key, write_op::patched, "", is_noop_write(*obj, **r));
            co_return *r;
        }
        if (what == finalizer_change::remove && is_not_found(r.error())) {
            co_return object_ptr{};
        }
        if (attempt > 0 || !(is_invalid(r.error()) || is_conflict(r.error()))) {
            co_return r.error();
        }
        // Someone changed the finalizers (or the object) since it was read:
        // read again and decide again, once.
        auto fresh = co_await c.get(gvr, key);
        if (!fresh) {
            if (what == finalizer_change::remove && is_not_found(fresh.error())) {
                co_return object_ptr{};
            }
            co_return fresh.error();
        }
        obj = *fresh;
    }
}

} // namespace

asio::awaitable<result<object_ptr>> ensure_finalizer(client::client& c, group_version_resource gvr, object_ptr obj,
                                                     std::string finalizer, helper_options opts) {
    co_return co_await change_finalizer(c, std::move(gvr), std::move(obj), std::move(finalizer), std::move(opts),
                                        finalizer_change::add);
}

asio::awaitable<result<object_ptr>> remove_finalizer(client::client& c, group_version_resource gvr, object_ptr obj,
                                                     std::string finalizer, helper_options opts) {
    co_return co_await change_finalizer(c, std::move(gvr), std::move(obj), std::move(finalizer), std::move(opts),
                                        finalizer_change::remove);
}

asio::awaitable<result<write_result>> update_status_if_changed(client::client& c, group_version_resource gvr,
                                                               object_ptr current, json::value desired_status,
                                                               helper_options opts) {
    if (status_equal(*current, desired_status)) {
        co_return write_result{current, write_op::none};
    }
    json::object copy = *current;
    copy["status"] = std::move(desired_status);
    auto r = co_await c.update_status(gvr, std::move(copy));
    if (!r) {
        co_return r.error();
    }
    report(opts, gvr, key_of(*current), write_op::updated, "status", is_noop_write(*current, **r));
    co_return write_result{*r, write_op::updated};
}

} // namespace kcoro::runtime
