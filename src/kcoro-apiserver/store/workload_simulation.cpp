// object_store: the Deployment and ReplicaSet controllers, the scheduler and
// the kubelet, as far as a controller's tests need them (store_config::
// simulate_pods): a Deployment gets a ReplicaSet for its pod template
// (`<deployment>-<pod-template-hash>`, owned by it, the hash label in its
// selector and template), older ReplicaSets of the Deployment are scaled to
// 0, and each ReplicaSet gets its pods (`<replicaset>-<5 characters>`,
// owned by it), which turn Running and Ready `simulate_delay` after their
// creation, on node `kcoro-node`. Deleting goes through the garbage
// collector (owner references), as on a real cluster.
//
// Names and hashes are kcoro's: the real pod-template-hash is a hash of the
// Go struct (k8s.io/kubernetes/pkg/util/hash.DeepHashObject), which this
// server does not model; it is stable per template and made of the same
// alphabet (rand.SafeEncodeString).
#include "store/object_store.hpp"
#include "store/store_impl.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <map>
#include <unordered_map>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

request_context sim_ctx(wall_time now, std::string_view controller) {
    request_context ctx;
    ctx.now = now;
    ctx.user = "system:serviceaccount:kube-system:" + std::string(controller);
    ctx.field_manager = "kube-controller-manager";
    return ctx;
}

} // namespace

// FNV-32a of the template's JSON, written as rand.SafeEncodeString writes a number.
std::string pod_template_hash(const json::value& tmpl) {
    std::uint32_t h = 2166136261u;
    for (char c : json::serialize(tmpl)) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    static constexpr std::string_view alphanums = "bcdfghjklmnpqrstvwxz2456789";
    std::string digits = std::to_string(h), out;
    for (char d : digits) out += alphanums[static_cast<std::size_t>(d - '0') % alphanums.size()];
    return out;
}

namespace {

json::object owner_ref(const json::object& owner, std::string_view api_version, std::string_view kind) {
    return json::object{{"apiVersion", api_version}, {"kind", kind},     {"name", name_of(owner)},
                        {"uid", uid_of(owner)},      {"controller", true}, {"blockOwnerDeletion", true}};
}

// The objects of a bucket by their controller owner's uid, in key order:
// one pass, where each owner would otherwise scan the whole bucket.
std::unordered_map<std::string, std::vector<object_ptr>> by_controller(const std::vector<object_ptr>& objects) {
    std::unordered_map<std::string, std::vector<object_ptr>> out;
    for (const auto& o : objects) {
        for (const auto& r : owner_references_of(*o)) {
            if (r.controller) out[r.uid].push_back(o);
        }
    }
    return out;
}

std::int64_t replicas_of(const json::object& o) {
    const auto* r = find_path(o, {"spec", "replicas"});
    return r && r->is_number() ? r->to_number<std::int64_t>() : 1;
}

} // namespace

bool object_store::impl::simulate_pods_step(wall_time now) {
    if (!config.simulate_pods) return false;
    const auto* deps = owner.registry_.find(resources::deployments());
    const auto* rss = owner.registry_.find({"apps", "v1", "replicasets"});
    const auto* pods = owner.registry_.find({"", "v1", "pods"});
    if (!deps || !rss || !pods) return false;
    bool changed = false;
    auto snapshot = [&](const resource_def& d) {
        std::vector<object_ptr> out;
        if (const auto* b = find_bucket(d)) {
            for (const auto& [k, o] : *b) out.push_back(o);
        }
        return out;
    };

    // The Deployment controller: one ReplicaSet per template, the others at 0.
    const auto sets_of = by_controller(snapshot(*rss));
    for (const auto& d : snapshot(*deps)) {
        if (is_being_deleted(*d)) continue;
        const auto* tmpl = find_path(*d, {"spec", "template"});
        const auto* sel = find_path(*d, {"spec", "selector"});
        if (!tmpl || !tmpl->is_object() || !sel || !sel->is_object()) continue;
        const std::string hash = pod_template_hash(*tmpl);
        const std::string ns(namespace_of(*d));
        const std::string rs_name = std::string(name_of(*d)) + "-" + hash;
        const auto owned = sets_of.find(std::string(uid_of(*d)));
        static const std::vector<object_ptr> none;
        for (const auto& rs : owned == sets_of.end() ? none : owned->second) {
            if (name_of(*rs) == rs_name) continue;
            if (replicas_of(*rs) == 0 || is_being_deleted(*rs)) continue;
            json::object next = *rs;
            next["spec"].as_object()["replicas"] = 0;
            changed |= controller_write(*rss, std::move(next), rs);
        }
        auto current = find(*rss, ns, rs_name);
        if (!current) {
            json::object t = tmpl->as_object();
            auto& tmeta = t["metadata"];
            if (!tmeta.is_object()) tmeta = json::object{};
            auto& tlabels = tmeta.as_object()["labels"];
            if (!tlabels.is_object()) tlabels = json::object{};
            tlabels.as_object()["pod-template-hash"] = hash;
            json::object s = sel->as_object();
            auto& ml = s["matchLabels"];
            if (!ml.is_object()) ml = json::object{};
            ml.as_object()["pod-template-hash"] = hash;
            json::object meta{{"name", rs_name},
                              {"labels", tlabels},
                              {"annotations", json::object{{"deployment.kubernetes.io/desired-replicas", std::to_string(replicas_of(*d))},
                                                           {"deployment.kubernetes.io/max-replicas", std::to_string(replicas_of(*d))},
                                                           {"deployment.kubernetes.io/revision", "1"}}},
                              {"ownerReferences", json::array{owner_ref(*d, "apps/v1", "Deployment")}}};
            json::object body{{"apiVersion", "apps/v1"},
                              {"kind", "ReplicaSet"},
                              {"metadata", std::move(meta)},
                              {"spec", json::object{{"replicas", replicas_of(*d)}, {"selector", std::move(s)}, {"template", std::move(t)}}}};
            changed |= static_cast<bool>(do_create(sim_ctx(now, "deployment-controller"), *rss, ns, std::move(body), false));
        } else if (replicas_of(*current) != replicas_of(*d)) {
            json::object next = *current;
            next["spec"].as_object()["replicas"] = replicas_of(*d);
            changed |= controller_write(*rss, std::move(next), current);
        }
    }

    // The ReplicaSet controller: as many pods as replicas; and its status.
    const auto all_pods = snapshot(*pods);
    const auto pods_of = by_controller(all_pods);
    for (const auto& rs : snapshot(*rss)) {
        if (is_being_deleted(*rs)) continue;
        const std::string ns(namespace_of(*rs));
        std::vector<object_ptr> mine;
        if (const auto it = pods_of.find(std::string(uid_of(*rs))); it != pods_of.end()) {
            for (const auto& p : it->second) {
                if (!is_being_deleted(*p)) mine.push_back(p);
            }
        }
        const auto want = replicas_of(*rs);
        for (auto i = static_cast<std::int64_t>(mine.size()); i < want; ++i) {
            const auto* t = find_path(*rs, {"spec", "template"});
            if (!t || !t->is_object()) break;
            json::object pod = t->as_object();
            auto& meta = pod["metadata"];
            if (!meta.is_object()) meta = json::object{};
            meta.as_object()["name"] = std::string(name_of(*rs)) + "-" + random_suffix(5);
            meta.as_object()["ownerReferences"] = json::array{owner_ref(*rs, "apps/v1", "ReplicaSet")};
            pod["apiVersion"] = "v1";
            pod["kind"] = "Pod";
            // No account (the controller off): 403 from admission, as on a real cluster; retried next pass.
            if (do_create(sim_ctx(now, "replicaset-controller"), *pods, ns, std::move(pod), false)) changed = true;
        }
        // Scale down: the newest pods go first (kcoro's order; the real
        // controller ranks pods by readiness and age).
        for (auto i = static_cast<std::int64_t>(mine.size()); i > want; --i) {
            const auto& p = mine[static_cast<std::size_t>(i - 1)];
            if (do_delete(sim_ctx(now, "replicaset-controller"), *pods, ns, name_of(*p), delete_options{})) changed = true;
        }
        std::int64_t ready = 0;
        for (const auto& p : mine) {
            if (const auto* ph = find_path(*p, {"status", "phase"}); ph && *ph == "Running") ++ready;
        }
        const auto count = std::min<std::int64_t>(static_cast<std::int64_t>(mine.size()), want);
        ready = std::min(ready, count);
        json::object status{{"replicas", count}};
        if (count > 0) status["fullyLabeledReplicas"] = count;
        if (ready > 0) {
            status["readyReplicas"] = ready;
            status["availableReplicas"] = ready;
        }
        status["observedGeneration"] = generation_of(*rs);
        if (const auto* old = rs->if_contains("status"); !old || *old != json::value(status)) {
            json::object next = *rs;
            next["status"] = std::move(status);
            changed |= controller_write(*rss, std::move(next), rs);
        }
    }

    // The scheduler and the kubelet: a pending pod runs, ready, after the delay.
    std::uint32_t ip = 0;
    for (const auto& p : all_pods) {
        ++ip;
        if (is_being_deleted(*p) || owner_references_of(*p).empty()) continue;
        if (const auto* ph = find_path(*p, {"status", "phase"}); ph && *ph != "Pending") continue;
        auto created = parse_rfc3339(creation_timestamp_of(*p)).value_or(now);
        if (now - created < config.simulate_delay) continue;
        const auto ts = format_rfc3339(now);
        const auto start = format_rfc3339(created);
        const std::string pod_ip = "10.244.0." + std::to_string(2 + ip % 250);
        json::array conditions;
        for (const char* type : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
            conditions.push_back(json::object{{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", std::string_view(type) == "PodScheduled" ? start : ts}});
        }
        json::array statuses;
        if (const auto* cs = find_path(*p, {"spec", "containers"}); cs && cs->is_array()) {
            for (const auto& c : cs->as_array()) {
                if (!c.is_object()) continue;
                const auto* n = c.as_object().if_contains("name");
                const auto* img = c.as_object().if_contains("image");
                statuses.push_back(json::object{
                    {"name", n ? *n : json::value("")},
                    {"state", json::object{{"running", json::object{{"startedAt", ts}}}}},
                    {"lastState", json::object{}},
                    {"ready", true},
                    {"restartCount", 0},
                    {"image", img ? *img : json::value("")},
                    {"imageID", ""},
                    {"containerID", "containerd://kcoro-" + std::string(uid_of(*p)).substr(0, 8) + "-" +
                                        (n && n->is_string() ? std::string(n->get_string()) : std::string{})},
                    {"started", true}});
            }
        }
        json::object next = *p;
        next["spec"].as_object()["nodeName"] = "kcoro-node";
        auto qos = find_path(*p, {"status", "qosClass"});
        json::object status{{"phase", "Running"},
                            {"conditions", std::move(conditions)},
                            {"hostIP", "192.168.0.2"},
                            {"hostIPs", json::array{json::object{{"ip", "192.168.0.2"}}}},
                            {"podIP", pod_ip},
                            {"podIPs", json::array{json::object{{"ip", pod_ip}}}},
                            {"startTime", start},
                            {"containerStatuses", std::move(statuses)}};
        if (qos) status["qosClass"] = *qos;
        next["status"] = std::move(status);
        changed |= controller_write(*pods, std::move(next), p);
    }
    return changed;
}

} // namespace kcoro::apiserver
