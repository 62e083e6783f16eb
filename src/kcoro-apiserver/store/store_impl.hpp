// Private state of object_store, shared by its implementation files
// (object_store.cpp: writes; store_read.cpp: list and watch;
// store_controllers.cpp: GC, namespace/CRD finalization, simulation).
#pragma once

#include "store/object_store.hpp"

#include <cstddef>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <unordered_map>

namespace kcoro::apiserver {

/// The pod-template-hash kcoro's workload simulation names ReplicaSets by
/// (workload_simulation.cpp).
std::string pod_template_hash(const boost::json::value& pod_template);

/// One committed change, kept for watches and for reading older revisions.
struct history_record {
    revision_t revision = 0;
    event_type type = event_type::added;
    std::string bucket;  // "group/resource"
    object_key key;
    object_ptr object;    // state after (DELETED: final state at this revision)
    object_ptr previous;  // state before (nullptr for ADDED)
    // metadata.labels of both states, looked up once at commit: watch
    // filtering reads them for every watcher (the objects are immutable).
    const boost::json::object* labels = nullptr;
    const boost::json::object* previous_labels = nullptr;
};

using bucket_map = std::map<object_key, object_ptr>;

class object_store::impl {
public:
    impl(object_store& owner, store_config config);

    object_store& owner;
    store_config config;
    std::map<std::string, bucket_map> buckets;  // "group/resource" -> objects
    std::deque<history_record> history;
    revision_t compacted = 0;  // events <= compacted are gone
    // gc_step found nothing to do at this revision: its decisions read only
    // stored state, so until the next commit another pass would find the
    // same (a pass walks every object: 100k objects every 100 ms otherwise).
    std::optional<revision_t> gc_idle_at;
    std::mt19937_64 rng;
    std::set<std::uint32_t> allocated_ips;      // service clusterIPs in use (host order)
    std::uint32_t next_ip_offset = 1;
    std::map<std::string, wall_time> spec_changed_at;  // deployment uid -> last generation change
    std::string root_ca_pem;  // the root-CA publisher's CA; "" = off

    /// The root-CA publisher's sync of one namespace (root_ca_publisher.cpp);
    /// true when it wrote.
    bool publish_root_ca(std::string_view ns, wall_time now);
    /// publish_root_ca for every namespace.
    bool root_ca_step(wall_time now);
    /// The names of the namespaces stored now (a copy: the syncs write).
    std::vector<std::string> namespace_names() const;
    /// The ReplicaSets and Pods of Deployments (workload_simulation.cpp).
    bool simulate_pods_step(wall_time now);

    // The serviceaccounts controller and admission plugin (service_accounts.cpp).
    bool service_account_controller = false;
    /// The controller's sync of one namespace: `default` created when missing.
    bool ensure_default_service_account(std::string_view ns, wall_time now);
    /// ensure_default_service_account for every namespace.
    bool service_account_step(wall_time now);
    /// The admission plugin on a pod being created in `ns`: 403 when its
    /// account does not exist, else `pod` mutated.
    std::optional<error> admit_service_account(std::string_view ns, std::string_view name, boost::json::object& pod);

    static std::string bucket_of(const group_version_resource& gvr) {
        // events.k8s.io/v1 events are a view of the core events' storage.
        if (is_events_v1(gvr)) return "/events";
        return gvr.group + "/" + gvr.resource;
    }
    static bool is_events_v1(const group_version_resource& gvr) {
        return gvr.group == "events.k8s.io" && gvr.resource == "events";
    }
    static std::string bucket_of(const resource_def& def) { return bucket_of(def.gvr); }

    bucket_map& bucket(const resource_def& def) { return buckets[bucket_of(def)]; }
    const bucket_map* find_bucket(const resource_def& def) const;
    object_ptr find(const resource_def& def, std::string_view ns, std::string_view name) const;

    std::string new_uid();
    std::string random_suffix(std::size_t n);

    /// Commits a new state for key (nullptr obj = delete); sets
    /// metadata.resourceVersion; records history; runs the hook.
    object_ptr commit(const resource_def& def, event_type type, boost::json::object obj, object_ptr previous);
    /// Deletes now: DELETED event carrying `last` at the deletion revision.
    object_ptr commit_delete(const resource_def& def, const object_ptr& last);
    void trim_history();

    /// The object as served at def's version (apiVersion rewritten for other
    /// versions of a multi-version CRD).
    static object_ptr present(const object_ptr& obj, const resource_def& def);

    const resource_def* def_or_null(const group_version_resource& gvr) const;
    /// The storage definition sharing def's bucket (for apiVersion on write).
    const resource_def& storage_def(const resource_def& def) const;

    // Writes shared by the API and the controllers. `managed_done`: the
    // caller (server-side apply) already set metadata.managedFields.
    result<boost::json::object> do_create(const request_context& ctx, const resource_def& def, std::string_view ns,
                                          boost::json::object body, bool managed_done);
    result<boost::json::object> do_update(const request_context& ctx, const resource_def& def,
                                          std::string_view ns, std::string_view name,
                                          boost::json::object body, subresource sub, bool* created,
                                          bool managed_done = false);
    result<delete_result> do_delete(const request_context& ctx, const resource_def& def, std::string_view ns,
                                    std::string_view name, const delete_options& options);
    /// Writes a controller's change to an existing object (no validation of
    /// the user kind): bumps the revision, handles "last finalizer removed".
    /// Returns false when `obj` equals `previous` (nothing written).
    bool controller_write(const resource_def& def, boost::json::object obj, const object_ptr& previous);

    /// The decoder's part of a write (builtin_decoder.hpp): unknown fields
    /// dropped (warned, or refused under Strict), time fields parsed. For a
    /// request body (`patch_value` null) errors are 400 as
    /// transformDecodeError words them; for a patched object 422 on field
    /// `patch` with `*patch_value` as the value (handlers/patch.go).
    std::optional<error> decode(const request_context& ctx, const resource_def& def, boost::json::object& obj,
                                const std::string* patch_value) const;

    // Service cluster IPs.
    std::string allocate_ip();
    bool reserve_ip(std::string_view ip);
    void release_ip(std::string_view ip);
};

// --- helpers shared by the implementation files ----------------------------
std::string resource_version_string(revision_t r);
/// nullopt for anything but a decimal revision.
std::optional<revision_t> parse_revision(std::string_view s);
/// Writes the namespace deletion conditions the namespace controller keeps
/// (status_condition_utils.go) into `ns`: returns true when they changed.
/// Keys of `remaining_by_resource` are "<resource>.<group>" ("configmaps.").
bool set_namespace_deletion_conditions(boost::json::object& ns,
                                       const std::map<std::string, std::size_t>& remaining_by_resource,
                                       const std::map<std::string, std::size_t>& remaining_by_finalizer,
                                       std::string_view now_rfc3339);
bool json_equal_ignoring(const boost::json::object& a, const boost::json::object& b,
                         std::initializer_list<std::string_view> skip_top_level);

} // namespace kcoro::apiserver
