// object_store: delete (preconditions, finalizers, propagation policies),
// delete_collection, and DeleteOptions decoding.
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

#include <kcoro/core/time.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

constexpr std::string_view orphan_finalizer = "orphan";
constexpr std::string_view foreground_finalizer = "foregroundDeletion";
constexpr std::string_view crd_cleanup_finalizer = "customresourcecleanup.apiextensions.k8s.io";

bool is_namespace(const resource_def& def) { return def.gvr.group.empty() && def.gvr.resource == "namespaces"; }
bool is_crd(const resource_def& def) { return def.gvr.resource == "customresourcedefinitions"; }

json::object success_status(const resource_def& def, const json::object& obj) {
    json::object details{{"name", name_of(obj)}, {"group", def.gvr.group}, {"kind", def.gvr.resource},
                         {"uid", uid_of(obj)}};
    return json::object{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object{}},
                        {"status", "Success"}, {"details", std::move(details)}};
}

} // namespace

result<propagation> delete_options::parse_propagation(std::string_view text) {
    if (text == "Background") return propagation::background;
    if (text == "Foreground") return propagation::foreground;
    if (text == "Orphan") return propagation::orphan;
    return errors::bad_request("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"" +
                               std::string(text) +
                               "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
}

result<delete_options> delete_options::from_json(const json::object& body) {
    delete_options o;
    if (const auto* pre = body.if_contains("preconditions"); pre && pre->is_object()) {
        if (const auto* uid = pre->as_object().if_contains("uid"); uid && uid->is_string()) {
            o.precondition_uid = std::string(uid->get_string());
        }
        if (const auto* rv = pre->as_object().if_contains("resourceVersion"); rv && rv->is_string()) {
            o.precondition_resource_version = std::string(rv->get_string());
        }
    }
    if (const auto* p = body.if_contains("propagationPolicy"); p && !p->is_null()) {
        if (!p->is_string()) return errors::bad_request("propagationPolicy must be a string");
        auto r = parse_propagation(p->get_string());
        if (!r) return r.error();
        o.propagation_policy = *r;
    }
    if (const auto* g = body.if_contains("gracePeriodSeconds"); g && !g->is_null()) {
        if (g->is_int64()) {
            o.grace_period_seconds = g->get_int64();
        } else if (g->is_uint64()) {
            o.grace_period_seconds = static_cast<std::int64_t>(g->get_uint64());
        } else {
            return errors::bad_request("gracePeriodSeconds must be an integer");
        }
    }
    if (const auto* od = body.if_contains("orphanDependents"); od && od->is_bool()) {
        o.orphan_dependents = od->get_bool();
    }
    if (o.orphan_dependents && o.propagation_policy) {
        return errors::bad_request(
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"" +
            std::string(*o.propagation_policy == propagation::orphan         ? "Orphan"
                        : *o.propagation_policy == propagation::foreground ? "Foreground"
                                                                            : "Background") +
            "\": orphanDependents and deletionPropagation cannot be both set");
    }
    return o;
}

result<delete_result> object_store::remove(const request_context& ctx, const group_version_resource& gvr,
                                           std::string_view ns, std::string_view name,
                                           const delete_options& options) {
    const auto* def = impl_->def_or_null(gvr);
    if (!def) return errors::not_found(gvr, name);
    return impl_->do_delete(ctx, *def, ns, name, options);
}

result<delete_result> object_store::impl::do_delete(const request_context& ctx, const resource_def& def,
                                                    std::string_view ns_in, std::string_view name,
                                                    const delete_options& options) {
    std::string ns = def.namespaced ? std::string(ns_in) : std::string{};
    auto old = find(def, ns, name);
    if (!old) return errors::not_found(def.gvr, name);
    if (is_namespace(def)) {
        // The namespace registry checks its preconditions itself, with the
        // storage layer's wording (pkg/registry/core/namespace/storage/storage.go Delete).
        if (options.precondition_uid && *options.precondition_uid != uid_of(*old)) {
            return errors::conflict(def.gvr, name,
                                    "Precondition failed: UID in precondition: " + *options.precondition_uid +
                                        ", UID in object meta: " + std::string(uid_of(*old)));
        }
        if (options.precondition_resource_version &&
            *options.precondition_resource_version != resource_version_of(*old)) {
            return errors::conflict(def.gvr, name,
                                    "Precondition failed: ResourceVersion in precondition: " +
                                        *options.precondition_resource_version +
                                        ", ResourceVersion in object meta: " + std::string(resource_version_of(*old)));
        }
    } else {
        // Everything else goes through rest.BeforeDelete
        // (staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go), which
        // checks the preconditions early and names the object by its Kind.
        if (options.precondition_uid && *options.precondition_uid != uid_of(*old)) {
            return errors::conflict_kind(def.gvr.group, def.kind, name,
                                         "the UID in the precondition (" + *options.precondition_uid +
                                             ") does not match the UID in record (" + std::string(uid_of(*old)) +
                                             "). The object might have been deleted and then recreated");
        }
        if (options.precondition_resource_version &&
            *options.precondition_resource_version != resource_version_of(*old)) {
            return errors::conflict_kind(def.gvr.group, def.kind, name,
                                         "the ResourceVersion in the precondition (" +
                                             *options.precondition_resource_version +
                                             ") does not match the ResourceVersion in record (" +
                                             std::string(resource_version_of(*old)) +
                                             "). The object might have been modified");
        }
    }
    if (is_namespace(def) && (name == "default" || name == "kube-system" || name == "kube-public")) {
        // The namespace lifecycle admission plugin protects these.
        return errors::forbidden(def.gvr, name, "this namespace may not be deleted");
    }
    if (is_namespace(def) && is_being_deleted(*old)) {
        return errors::conflict(def.gvr, name,
                                "The system is ensuring all content is removed from this namespace.  Upon "
                                "completion, this namespace will automatically be purged by the system.");
    }
    // Which finalizer the propagation policy asks for (Background: none).
    std::optional<propagation> policy = options.propagation_policy;
    if (!policy && options.orphan_dependents) {
        policy = *options.orphan_dependents ? propagation::orphan : propagation::background;
    }
    json::object next = *old;
    if (policy == propagation::orphan) {
        add_finalizer(next, orphan_finalizer);
        remove_finalizer(next, foreground_finalizer);
    } else if (policy == propagation::foreground) {
        add_finalizer(next, foreground_finalizer);
        remove_finalizer(next, orphan_finalizer);
    } else if (policy == propagation::background) {
        remove_finalizer(next, orphan_finalizer);
        remove_finalizer(next, foreground_finalizer);
    }
    if (is_crd(def)) {
        add_finalizer(next, crd_cleanup_finalizer);
    }
    bool ns_pending = false;
    if (is_namespace(def)) {
        const auto* fin = find_path(next, {"spec", "finalizers"});
        ns_pending = fin && fin->is_array() && !fin->as_array().empty();
    }
    if (finalizers_of(next).empty() && !ns_pending) {
        // Delete now.
        if (ctx.dry_run) return delete_result{def.return_deleted_object ? *present(old, def) : success_status(def, *old), true};
        auto gone = commit_delete(def, old);
        return delete_result{def.return_deleted_object ? *present(gone, def) : success_status(def, *gone), true};
    }
    // Graceful: mark as deleting (markAsDeleting); the controllers and the
    // finalizers' owners finish the job.
    auto& meta = mutable_metadata(next);
    if (is_namespace(def)) {
        // The namespace registry's own Delete (pkg/registry/core/namespace/
        // storage): deletionTimestamp and phase Terminating, no grace period.
        if (!is_being_deleted(next)) meta["deletionTimestamp"] = format_rfc3339(ctx.now);
    } else {
        // store.go markAsDeleting.
        if (!is_being_deleted(next)) {
            if (generation_of(next) > 0) meta["generation"] = generation_of(next) + 1;
            meta["deletionTimestamp"] = format_rfc3339(ctx.now);
        }
        meta["deletionGracePeriodSeconds"] = 0;
    }
    if (is_namespace(def)) {
        auto& st = next["status"];
        if (!st.is_object()) st = json::object{};
        st.as_object()["phase"] = "Terminating";
    }
    if (is_crd(def)) {
        auto& st = next["status"];
        if (!st.is_object()) st = json::object{};
        auto& conds = st.as_object()["conditions"];
        if (!conds.is_array()) conds = json::array{};
        conds.as_array().push_back(json::object{{"type", "Terminating"},
                                                {"status", "True"},
                                                {"lastTransitionTime", format_rfc3339(ctx.now)},
                                                {"reason", "InstanceDeletionPending"},
                                                {"message", "CustomResourceDefinition marked for deletion; "
                                                            "CustomResource deletion will begin soon"}});
    }
    if (next == *old) return delete_result{*present(old, def), false};
    if (ctx.dry_run) return delete_result{next, false};
    auto stored = commit(def, event_type::modified, std::move(next), old);
    return delete_result{*present(stored, def), false};
}

result<json::object> object_store::delete_collection(const request_context& ctx, const group_version_resource& gvr,
                                                     std::string_view ns, const list_options& selectors,
                                                     const delete_options& options) {
    list_options lo;
    lo.label_selector = selectors.label_selector;
    lo.field_selector = selectors.field_selector;
    auto listed = list(gvr, ns, lo);
    if (!listed) return listed.error();
    const auto* def = impl_->def_or_null(gvr);
    json::array deleted;
    for (const auto& item : listed->at("items").as_array()) {
        const auto& obj = item.as_object();
        auto r = impl_->do_delete(ctx, *def, namespace_of(obj), name_of(obj), options);
        if (!r) {
            if (is_not_found(r.error())) continue;  // raced with the GC
            return r.error();
        }
        deleted.push_back(item);
    }
    (*listed)["items"] = std::move(deleted);
    (*listed)["metadata"].as_object()["resourceVersion"] = resource_version_string(revision_);
    return std::move(*listed);
}

} // namespace kcoro::apiserver
