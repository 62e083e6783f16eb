// object_store: the controllers kube-controller-manager would run, as pure
// steps the HTTP driver calls on timers: the namespace controller, the CRD
// cleanup finalizer, the garbage collector, the root-CA publisher's repairs
// (root_ca_publisher.cpp) and the workload simulation; and
// the service cluster-IP allocator.
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

#include <kcoro/core/time.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

constexpr std::string_view orphan_finalizer = "orphan";
constexpr std::string_view foreground_finalizer = "foregroundDeletion";
constexpr std::string_view crd_cleanup_finalizer = "customresourcecleanup.apiextensions.k8s.io";

struct located {
    const resource_def* def;
    object_ptr obj;
};

request_context controller_ctx(wall_time now) {
    request_context ctx;
    ctx.now = now;
    ctx.user = "system:serviceaccount:kube-system:generic-garbage-collector";
    ctx.field_manager = "kube-controller-manager";
    return ctx;
}

json::object without_owner_refs(const json::object& obj, const std::vector<std::string>& uids) {
    json::object next = obj;
    auto& meta = mutable_metadata(next);
    json::array kept;
    if (const auto* refs = meta.if_contains("ownerReferences"); refs && refs->is_array()) {
        for (const auto& r : refs->as_array()) {
            auto ref = owner_reference_from(r);
            if (std::find(uids.begin(), uids.end(), ref.uid) == uids.end()) kept.push_back(r);
        }
    }
    if (kept.empty()) {
        meta.erase("ownerReferences");
    } else {
        meta["ownerReferences"] = std::move(kept);
    }
    return next;
}

} // namespace

bool set_namespace_deletion_conditions(json::object& ns, const std::map<std::string, std::size_t>& remaining_by_resource,
                                       const std::map<std::string, std::size_t>& remaining_by_finalizer,
                                       std::string_view now) {
    // status_condition_utils.go (the texts of 1.32, and of 1.23 already):
    // every type is present, the "ok" form (False) unless the deleter found a
    // problem; lastTransitionTime moves only when the status does.
    struct cond {
        const char* type;
        const char* ok_reason;
        const char* ok_message;
    };
    static constexpr cond types[] = {
        {"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
        {"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
        {"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
        {"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
        {"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
    };
    auto join = [](const std::map<std::string, std::size_t>& m, const char* fmt_mid) {
        // sorted already (std::map), as sort.Strings sorts the phrases
        std::vector<std::string> parts;
        for (const auto& [k, n] : m) {
            if (n == 0) continue;
            parts.push_back(k + fmt_mid + std::to_string(n) + " resource instances");
        }
        std::sort(parts.begin(), parts.end());
        std::string out;
        for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
        return out;
    };
    auto& st = ns["status"];
    if (!st.is_object()) st = json::object{};
    auto& conds = st.as_object()["conditions"];
    if (!conds.is_array()) conds = json::array{};
    bool changed = false;
    for (const auto& t : types) {
        std::string status = "False", reason = t.ok_reason, message = t.ok_message;
        if (std::string_view(t.type) == "NamespaceContentRemaining" && !remaining_by_resource.empty()) {
            status = "True";
            reason = "SomeResourcesRemain";
            message = "Some resources are remaining: " + join(remaining_by_resource, " has ");
        } else if (std::string_view(t.type) == "NamespaceFinalizersRemaining" && !remaining_by_finalizer.empty()) {
            status = "True";
            reason = "SomeFinalizersRemain";
            message = "Some content in the namespace has finalizers remaining: " + join(remaining_by_finalizer, " in ");
        }
        json::object* old = nullptr;
        for (auto& c : conds.as_array()) {
            if (c.is_object() && c.as_object().contains("type") && c.as_object().at("type") == json::value(t.type)) {
                old = &c.as_object();
            }
        }
        if (!old) {
            conds.as_array().push_back(json::object{{"type", t.type}, {"status", status}, {"lastTransitionTime", now},
                                                    {"reason", reason}, {"message", message}});
            changed = true;
            continue;
        }
        auto str = [&](const char* k) {
            const auto* v = old->if_contains(k);
            return v && v->is_string() ? std::string(v->get_string()) : std::string{};
        };
        if (str("status") != status || str("reason") != reason || str("message") != message) {
            if (str("status") != status) (*old)["lastTransitionTime"] = now;
            (*old)["status"] = status;
            (*old)["reason"] = reason;
            (*old)["message"] = message;
            changed = true;
        }
    }
    return changed;
}

bool object_store::gc_step(wall_time now) {
    auto& im = *impl_;
    if (im.gc_idle_at == revision_) return false;
    const revision_t start_revision = revision_;
    auto ctx = controller_ctx(now);
    bool changed = false;

    // Storage definitions, one per bucket.
    std::vector<const resource_def*> defs;
    for (const auto* d : registry_.all()) {
        // events.k8s.io/v1 events are a view of the core events' bucket.
        if (d->storage && !impl::is_events_v1(d->gvr)) defs.push_back(d);
    }
    // A snapshot of everything: the steps below write as they go.
    std::vector<located> all;
    std::unordered_map<std::string, located> by_uid;
    for (const auto* d : defs) {
        if (const auto* b = im.find_bucket(*d)) {
            for (const auto& [key, obj] : *b) {
                all.push_back({d, obj});
                by_uid[std::string(uid_of(*obj))] = {d, obj};
            }
        }
    }
    // Re-reads an object and applies `write` only if it did not change since the snapshot.
    auto still_same = [&](const located& l) -> object_ptr {
        auto cur = im.find(*l.def, namespace_of(*l.obj), name_of(*l.obj));
        return cur == l.obj ? cur : nullptr;
    };
    auto delete_now = [&](const located& l, std::optional<propagation> policy) {
        delete_options o;
        o.propagation_policy = policy;
        if (im.do_delete(ctx, *l.def, namespace_of(*l.obj), name_of(*l.obj), o)) changed = true;
    };

    // 1. Namespace controller (pkg/controller/namespace/deletion
    //    namespaced_resources_deleter.go): delete the contents of a
    //    terminating namespace, count what remains (held by finalizers),
    //    write the deleter's status conditions, and once nothing remains drop
    //    the `kubernetes` spec finalizer (the namespace goes when no finalizer
    //    is left).
    for (const auto& l : all) {
        if (l.def->gvr.resource != "namespaces" || !l.def->gvr.group.empty() || !is_being_deleted(*l.obj)) continue;
        std::string ns(name_of(*l.obj));
        for (const auto& c : all) {
            if (!c.def->namespaced || namespace_of(*c.obj) != ns) continue;
            if (!is_being_deleted(*c.obj)) delete_now(c, std::nullopt);
        }
        // What a list per resource finds after the deletions.
        std::map<std::string, std::size_t> by_resource;   // "configmaps." -> n
        std::map<std::string, std::size_t> by_finalizer;  // finalizer -> n
        std::size_t remaining = 0;
        for (const auto* d : defs) {
            if (!d->namespaced) continue;
            const auto* b = im.find_bucket(*d);
            if (!b) continue;
            for (const auto& [key, obj] : *b) {
                if (key.ns != ns) continue;
                ++remaining;
                ++by_resource[d->gvr.resource + "." + d->gvr.group];
                for (const auto& f : finalizers_of(*obj)) ++by_finalizer[f];
            }
        }
        auto cur = im.find(*l.def, "", ns);
        if (!cur) continue;
        json::object next = *cur;
        if (set_namespace_deletion_conditions(next, by_resource, by_finalizer, format_rfc3339(now))) {
            changed |= im.controller_write(*l.def, next, cur);
            cur = im.find(*l.def, "", ns);
            if (!cur) continue;
        }
        if (remaining == 0) {
            json::object fin = *cur;
            if (auto* spec = fin.if_contains("spec"); spec && spec->is_object()) {
                spec->as_object().erase("finalizers");
            }
            changed |= im.controller_write(*l.def, std::move(fin), cur);
        }
    }

    // 2. CRD cleanup: delete the custom resources, then stop serving and
    //    release the CRD.
    for (const auto& l : all) {
        if (l.def->gvr.resource != "customresourcedefinitions" || !is_being_deleted(*l.obj) ||
            !has_finalizer(*l.obj, crd_cleanup_finalizer)) {
            continue;
        }
        std::string crd(name_of(*l.obj));
        std::size_t remaining = 0;
        for (const auto& c : all) {
            if (c.def->crd_name != crd) continue;
            ++remaining;
            if (!is_being_deleted(*c.obj)) delete_now(c, std::nullopt);
        }
        if (remaining == 0 && still_same(l)) {
            registry_.remove_crd(crd);
            json::object next = *l.obj;
            remove_finalizer(next, crd_cleanup_finalizer);
            changed |= im.controller_write(*l.def, std::move(next), l.obj);
        }
    }

    // 3. Garbage collector, by owner uid.
    std::unordered_map<std::string, std::size_t> dependents;           // owner uid -> dependents
    std::unordered_map<std::string, std::size_t> blocking_dependents;  // with blockOwnerDeletion
    for (const auto& l : all) {
        auto refs = owner_references_of(*l.obj);
        if (refs.empty()) continue;
        std::vector<std::string> orphaned;
        std::vector<std::string> dangling;
        bool owner_foreground = false;
        for (const auto& r : refs) {
            auto it = by_uid.find(r.uid);
            if (it == by_uid.end()) {
                dangling.push_back(r.uid);
                continue;
            }
            ++dependents[r.uid];
            if (r.block_owner_deletion) ++blocking_dependents[r.uid];
            const auto& owner = *it->second.obj;
            if (is_being_deleted(owner) && has_finalizer(owner, orphan_finalizer)) orphaned.push_back(r.uid);
            if (is_being_deleted(owner) && has_finalizer(owner, foreground_finalizer)) owner_foreground = true;
        }
        if (!orphaned.empty()) {
            if (still_same(l)) {
                changed |= im.controller_write(*l.def, without_owner_refs(*l.obj, orphaned), l.obj);
            }
        } else if (dangling.size() == refs.size()) {
            if (!is_being_deleted(*l.obj)) delete_now(l, std::nullopt);
        } else if (!dangling.empty()) {
            if (still_same(l)) {
                changed |= im.controller_write(*l.def, without_owner_refs(*l.obj, dangling), l.obj);
            }
        } else if (owner_foreground && !is_being_deleted(*l.obj)) {
            delete_now(l, propagation::foreground);
        }
    }
    // Owners waiting on their dependents: orphan and foreground finalizers.
    for (const auto& l : all) {
        if (!is_being_deleted(*l.obj)) continue;
        std::string uid(uid_of(*l.obj));
        json::object next = *l.obj;
        bool edit = false;
        if (has_finalizer(next, orphan_finalizer) && dependents[uid] == 0) edit |= remove_finalizer(next, orphan_finalizer);
        if (has_finalizer(next, foreground_finalizer) && blocking_dependents[uid] == 0) {
            edit |= remove_finalizer(next, foreground_finalizer);
        }
        if (edit && still_same(l)) {
            changed |= im.controller_write(*l.def, std::move(next), l.obj);
        }
    }
    // 4. The PVC protection controller (pkg/controller/volume/pvcprotection):
    //    a claim being deleted loses `kubernetes.io/pvc-protection` once no
    //    pod of its namespace names it in a volume (the admission plugin
    //    adds the finalizer on create). kcoro runs no kubelet, so a pod's
    //    phase does not matter here: only whether it still exists.
    for (const auto& l : all) {
        if (!l.def->gvr.group.empty() || l.def->gvr.resource != "persistentvolumeclaims") continue;
        if (!is_being_deleted(*l.obj) || !has_finalizer(*l.obj, "kubernetes.io/pvc-protection")) continue;
        const auto ns = namespace_of(*l.obj);
        const auto claim = name_of(*l.obj);
        bool in_use = false;
        for (const auto& p : all) {
            if (in_use) break;
            if (!p.def->gvr.group.empty() || p.def->gvr.resource != "pods" || namespace_of(*p.obj) != ns) continue;
            const auto* vols = find_path(*p.obj, {"spec", "volumes"});
            if (!vols || !vols->is_array()) continue;
            for (const auto& v : vols->as_array()) {
                const auto* c = v.is_object() ? find_path(v.as_object(), {"persistentVolumeClaim", "claimName"}) : nullptr;
                if (c && c->is_string() && c->get_string() == claim) in_use = true;
            }
        }
        if (in_use) continue;
        json::object next = *l.obj;
        if (remove_finalizer(next, "kubernetes.io/pvc-protection") && still_same(l)) {
            changed |= im.controller_write(*l.def, std::move(next), l.obj);
        }
    }
    // 5. The root-CA publisher (root_ca_publisher.cpp): re-creates or repairs
    //    kube-root-ca.crt.
    changed |= im.root_ca_step(now);
    // 6. The serviceaccounts controller (service_accounts.cpp): `default` in
    //    every Active namespace.
    changed |= im.service_account_step(now);
    if (!changed && revision_ == start_revision) im.gc_idle_at = revision_;
    return changed;
}

bool object_store::simulate_step(wall_time now) {
    auto& im = *impl_;
    if (!im.config.simulate_workloads) return false;
    const bool pods_changed = im.simulate_pods_step(now);
    const auto* def = registry_.find(resources::deployments());
    const auto* b = def ? im.find_bucket(*def) : nullptr;
    if (!b) return false;
    std::vector<object_ptr> snapshot;
    for (const auto& [key, obj] : *b) snapshot.push_back(obj);
    bool changed = false;
    for (const auto& obj : snapshot) {
        if (is_being_deleted(*obj)) continue;
        auto gen = generation_of(*obj);
        std::int64_t replicas = 1;
        if (const auto* r = find_path(*obj, {"spec", "replicas"}); r && r->is_int64()) replicas = r->get_int64();
        const auto* observed = find_path(*obj, {"status", "observedGeneration"});
        if (observed && observed->is_int64() && observed->get_int64() == gen) continue;
        wall_time since = parse_rfc3339(creation_timestamp_of(*obj)).value_or(now);
        if (auto it = im.spec_changed_at.find(std::string(uid_of(*obj))); it != im.spec_changed_at.end()) {
            since = it->second;
        }
        if (now - since < im.config.simulate_delay) continue;
        auto ts = format_rfc3339(now);
        // The ReplicaSet of the current template (the one simulate_pods makes).
        const auto* tmpl = find_path(*obj, {"spec", "template"});
        std::string rs = std::string(name_of(*obj)) + "-" + pod_template_hash(tmpl ? *tmpl : json::value{});
        json::object status{{"observedGeneration", gen}};
        if (replicas > 0) {
            status["replicas"] = replicas;
            status["updatedReplicas"] = replicas;
            status["readyReplicas"] = replicas;
            status["availableReplicas"] = replicas;
        }
        status["conditions"] = json::array{
            json::object{{"type", "Available"}, {"status", "True"}, {"lastUpdateTime", ts},
                         {"lastTransitionTime", ts}, {"reason", "MinimumReplicasAvailable"},
                         {"message", "Deployment has minimum availability."}},
            json::object{{"type", "Progressing"}, {"status", "True"}, {"lastUpdateTime", ts},
                         {"lastTransitionTime", ts}, {"reason", "NewReplicaSetAvailable"},
                         {"message", "ReplicaSet \"" + rs + "\" has successfully progressed."}},
        };
        // Keep lastTransitionTime of conditions whose status did not change.
        if (const auto* old_conds = find_path(*obj, {"status", "conditions"}); old_conds && old_conds->is_array()) {
            for (auto& c : status["conditions"].as_array()) {
                for (const auto& oc : old_conds->as_array()) {
                    const auto* o = oc.if_object();
                    if (o && o->contains("type") && o->at("type") == c.as_object().at("type") &&
                        o->contains("status") && o->at("status") == c.as_object().at("status") &&
                        o->contains("lastTransitionTime")) {
                        c.as_object()["lastTransitionTime"] = o->at("lastTransitionTime");
                    }
                }
            }
        }
        json::object next = *obj;
        next["status"] = std::move(status);
        changed |= im.controller_write(*def, std::move(next), obj);
    }
    return changed || pods_changed;
}

// --- service cluster IPs: 10.96.0.0/12 ----------------------------------------

namespace {
constexpr std::uint32_t service_base = (10u << 24) | (96u << 16);
constexpr std::uint32_t service_size = 1u << 20;

std::string ip_string(std::uint32_t ip) {
    return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." + std::to_string((ip >> 8) & 255) +
           "." + std::to_string(ip & 255);
}

std::optional<std::uint32_t> parse_ip(std::string_view s) {
    std::uint32_t out = 0;
    int parts = 0;
    std::size_t i = 0;
    while (parts < 4) {
        std::uint32_t v = 0;
        std::size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 3) v = v * 10 + static_cast<std::uint32_t>(s[i++] - '0');
        if (i == start || v > 255) return std::nullopt;
        out = (out << 8) | v;
        ++parts;
        if (parts < 4) {
            if (i >= s.size() || s[i] != '.') return std::nullopt;
            ++i;
        }
    }
    if (i != s.size()) return std::nullopt;
    return out;
}
} // namespace

std::string object_store::impl::allocate_ip() {
    // Sequential from .10 (10.96.0.1 is the kubernetes service's), skipping
    // addresses in use; the network and broadcast addresses are never used.
    if (next_ip_offset < 10) next_ip_offset = 10;
    for (std::uint32_t tries = 0; tries < service_size; ++tries) {
        std::uint32_t off = next_ip_offset;
        next_ip_offset = next_ip_offset + 1 >= service_size - 1 ? 10 : next_ip_offset + 1;
        if (allocated_ips.insert(service_base + off).second) return ip_string(service_base + off);
    }
    return {};
}

bool object_store::impl::reserve_ip(std::string_view ip) {
    auto v = parse_ip(ip);
    if (!v || *v <= service_base || *v >= service_base + service_size - 1) return false;
    return allocated_ips.insert(*v).second;
}

void object_store::impl::release_ip(std::string_view ip) {
    if (auto v = parse_ip(ip)) allocated_ips.erase(*v);
}

} // namespace kcoro::apiserver
