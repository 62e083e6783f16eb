// The object store of kcoro-apiserver: every object of every resource, one
// global strictly increasing revision (metadata.resourceVersion), the
// retained event history that watches read, and the server-side semantics of
// create/update/patch/delete, garbage collection, namespace and CRD
// finalization, and the workload simulation.
//
// Pure: no I/O, no clock reads, no global randomness. Wall time comes in the
// request_context / step arguments; uids and generateName suffixes come from a
// generator seeded by store_config::random_seed (deterministic tests).
//
// Errors are kcoro::error values carrying the exact metav1.Status the real
// server answers (see status_errors.hpp); the HTTP layer encodes
// `e.api_status()` as the body and `e.http_code()` as the status code.
//
// Lifetime: the store owns its objects. Objects it hands out (object_ptr in
// watch events) are immutable and shared; they stay valid as long as the
// holder keeps the pointer. Thread safety: none. One thread (the server's
// io_context) calls it; the commit hook runs synchronously inside the write.
#pragma once

#include "store/field_selector.hpp"
#include "store/resource_registry.hpp"
#include "store/shard_selector.hpp"

#include <kcoro/core/error.hpp>
#include <kcoro/core/label_selector.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver {

using revision_t = std::uint64_t;

/// The ConfigMap the root-CA publisher keeps in every namespace.
inline constexpr std::string_view root_ca_configmap_name = "kube-root-ca.crt";

/// Who asks, and when. Built by the HTTP layer for each request.
struct request_context {
    wall_time now{};
    std::string user;           // authenticated user name ("" = anonymous / auth off)
    bool dry_run = false;       // dryRun=All: validate and answer, commit nothing
    std::string field_manager;  // fieldManager, or derived from the User-Agent by the caller
    /// fieldValidation: "Strict", "Warn" ("" and unknown texts: the default Warn), "Ignore".
    std::string field_validation;
    /// Where the store appends the request's warnings (a `Warning: 299 - "..."`
    /// header each); nullptr: dropped.
    std::vector<std::string>* warnings = nullptr;
};

enum class subresource { none, status };

enum class patch_type { merge, json, strategic, apply };
/// From the request Content-Type (parameters ignored); nullopt → answer 415.
std::optional<patch_type> patch_type_from_content_type(std::string_view content_type);

enum class propagation { background, foreground, orphan };

/// metav1.DeleteOptions (body) merged with the query parameters by the caller.
struct delete_options {
    std::optional<std::string> precondition_uid;
    std::optional<std::string> precondition_resource_version;
    std::optional<propagation> propagation_policy;
    std::optional<std::int64_t> grace_period_seconds;
    std::optional<bool> orphan_dependents;  // deprecated form of propagationPolicy
    /// Decode a DeleteOptions body; 400 on a bad propagationPolicy or type.
    static result<delete_options> from_json(const boost::json::object& body);
    /// "Background" / "Foreground" / "Orphan"; 400 otherwise.
    static result<propagation> parse_propagation(std::string_view text);
};

/// What DELETE answers.
struct delete_result {
    /// The object (still present with deletionTimestamp, or the final state when
    /// the resource returns deleted objects), or a Success Status with details.
    boost::json::object body;
    /// Removed from storage by this call (false: waits for finalizers).
    bool deleted = false;
};

/// Prints the body (JSON) and the flag, for test failure messages.
std::ostream& operator<<(std::ostream& os, const delete_result& r);

/// List query options, as the HTTP layer decoded them from the query string.
struct list_options {
    std::string label_selector;
    std::string field_selector;
    std::int64_t limit = 0;  // 0 = no limit
    std::string continue_token;
    std::string resource_version;        // "" / "0" / "<n>"
    std::string resource_version_match;  // "" / "Exact" / "NotOlderThan"
    bool send_initial_events = false;    // given (any value): 422 for a list
    /// KEP-5866 shardSelector (shard_selector.hpp); read only when
    /// store_config::sharded_list_and_watch is on, "" = not given.
    std::string shard_selector;
};

enum class event_type { added, modified, deleted };
/// "ADDED", "MODIFIED", "DELETED".
const char* to_string(event_type t) noexcept;

/// One change as a watcher sees it.
struct watch_event {
    event_type type = event_type::added;
    revision_t revision = 0;
    /// The object with apiVersion/kind set and metadata.resourceVersion equal to
    /// `revision` (for DELETED: the final object at the deletion's revision).
    object_ptr object;
};

std::ostream& operator<<(std::ostream& os, const watch_event& e);

/// What a watch selects. Build with make() so the selectors are parsed once.
struct watch_filter {
    group_version_resource gvr;
    std::string ns;  // "" = all namespaces (or a cluster-scoped resource)
    label_selector labels;
    field_selector fields;
    /// KEP-5866: only objects whose uid (or namespace) hash is in range.
    std::optional<shard_selector> shards;
    static result<watch_filter> make(group_version_resource gvr, std::string ns,
                                     std::string_view label_selector_text,
                                     std::string_view field_selector_text);
    /// Parses a non-empty shardSelector into `shards`; a bad one is a 400
    /// "invalid shard selector: <parser.go's text>". "" leaves `shards` unset
    /// (Go's ListOptions.ShardSelector == "": not given).
    result<void> set_shard_selector(std::string_view text);
    bool matches_shard(const boost::json::object& obj) const noexcept { return !shards || shards->matches(obj); }
};

struct store_config {
    /// Events kept for watches and continue tokens; older revisions answer 410.
    std::size_t history_size = 10000;
    /// Seeds uids and generateName suffixes.
    std::uint64_t random_seed = 1;
    /// Deployments get a status after `simulate_delay` (simulate_step).
    bool simulate_workloads = false;
    /// With simulate_workloads: Deployments get ReplicaSets and those get
    /// Pods, which run and turn Ready after `simulate_delay`
    /// (store/workload_simulation.cpp).
    bool simulate_pods = false;
    std::chrono::milliseconds simulate_delay{1000};
    /// Namespaces present at start.
    std::vector<std::string> initial_namespaces{"default", "kube-system", "kube-public",
                                                "kube-node-lease", "kcoro-system"};
    /// kube-apiserver's --watch-cache (on by default there too): a list at
    /// resourceVersion "0" without a continue token is answered from the
    /// watch cache, whole, whatever `limit` says (1.32's cacher.go
    /// shouldDelegateList). Off: paged like a list served by etcd.
    bool watch_cache = true;
    /// kube-apiserver's alpha feature gate ShardedListAndWatch (KEP-5866,
    /// 1.36; off by default there too). On: list and watch honour the
    /// shardSelector parameter and a list answers metadata.shardInfo
    /// {"selector": "<the selector applied>"}. Off: the parameter is ignored,
    /// whatever it says, and no shardInfo is written.
    bool sharded_list_and_watch = false;
};

class object_store {
public:
    /// Creates the initial namespaces at time `start`.
    explicit object_store(store_config config = {}, wall_time start = {});
    ~object_store();
    object_store(const object_store&) = delete;
    object_store& operator=(const object_store&) = delete;

    // --- resources ---------------------------------------------------------
    const resource_registry& registry() const noexcept { return registry_; }
    /// store_config::sharded_list_and_watch (the watch handler reads it).
    bool sharded_list_and_watch() const noexcept;

    // --- CRUD (gvr must be served; ns is "" for cluster-scoped resources) ----
    result<boost::json::object> create(const request_context& ctx, const group_version_resource& gvr,
                                       std::string_view ns, boost::json::object body);
    result<boost::json::object> get(const group_version_resource& gvr, std::string_view ns,
                                    std::string_view name) const;
    /// A `<Kind>List` with apiVersion, metadata.resourceVersion (and continue /
    /// remainingItemCount when limited) and items with apiVersion/kind set.
    result<boost::json::object> list(const group_version_resource& gvr, std::string_view ns,
                                     const list_options& options) const;
    /// PUT. A missing object is created when the resource allows it
    /// (AllowCreateOnUpdate); `*created` (when given) is set then (answer 201).
    result<boost::json::object> update(const request_context& ctx, const group_version_resource& gvr,
                                       std::string_view ns, std::string_view name,
                                       boost::json::object body, subresource sub = subresource::none,
                                       bool* created = nullptr);
    /// `force` only for apply. An apply patch on a missing object creates it.
    /// `*created` (when given) tells the caller to answer 201 instead of 200.
    result<boost::json::object> patch(const request_context& ctx, const group_version_resource& gvr,
                                      std::string_view ns, std::string_view name, patch_type type,
                                      std::string_view patch_body, subresource sub = subresource::none,
                                      bool force = false, bool* created = nullptr);
    result<delete_result> remove(const request_context& ctx, const group_version_resource& gvr,
                                 std::string_view ns, std::string_view name,
                                 const delete_options& options = {});
    /// DELETE on a collection: deletes each object the selectors match; answers
    /// the `<Kind>List` of what was deleted (or marked for deletion).
    result<boost::json::object> delete_collection(const request_context& ctx,
                                                  const group_version_resource& gvr, std::string_view ns,
                                                  const list_options& selectors,
                                                  const delete_options& options = {});

    // --- watch ---------------------------------------------------------------
    revision_t current_revision() const noexcept { return revision_; }
    /// The oldest revision a watch may start from (events after it are retained).
    revision_t oldest_revision() const noexcept;
    /// Events with revision > `after` that the filter selects, in order: an
    /// update that stops matching the selectors comes as DELETED (previous
    /// content, the update's revision), one that starts matching as ADDED.
    /// 410 Expired `too old resource version: X (Y)` when `after` is older than
    /// the retained history. At most `max_events` (0 = all).
    result<std::vector<watch_event>> events_since(revision_t after, const watch_filter& filter,
                                                  std::size_t max_events = 0) const;
    /// The current state as ADDED events (watch from "0"/"" and
    /// sendInitialEvents), taken at current_revision().
    std::vector<watch_event> initial_events(const watch_filter& filter) const;
    /// Called after every committed write with the new revision, so the HTTP
    /// driver wakes its watchers. Runs inside the write: it must not call back
    /// into the store.
    void set_commit_hook(std::function<void(revision_t)> hook) { commit_hook_ = std::move(hook); }
    /// The storage ("group/resource") the newest retained commit wrote to,
    /// empty when the history is empty: the HTTP layer's per-resource watch
    /// windows (the watch cache is per resource) read it from the commit hook.
    std::string last_commit_bucket() const;
    /// The storage ("group/resource") objects of `gvr` live in.
    static std::string storage_bucket(const group_version_resource& gvr);
    /// Drops the retained history up to the current revision (fault injection):
    /// every watch or continue token from before now gets 410.
    void compact();

    // --- background controllers (the HTTP driver calls these on timers) -----
    /// One pass of the garbage collector, the namespace controller and the CRD
    /// finalizer. Returns true when it changed anything (call again soon).
    bool gc_step(wall_time now);
    /// One pass of the workload simulation (no-op unless enabled). Returns
    /// true when it changed anything.
    bool simulate_step(wall_time now);
    void set_simulation(bool enabled, std::chrono::milliseconds delay);

    // --- the root-CA publisher (store/root_ca_publisher.cpp) ------------------
    /// kube-controller-manager's root-CA publisher: ConfigMap `kube-root-ca.crt`
    /// (data `ca.crt` = `ca_pem`) in every namespace, written now into the
    /// existing ones, at once into each namespace created later, and
    /// re-created or repaired by gc_step when deleted or changed; never
    /// created in a terminating namespace. "" turns it off (the default).
    void set_root_ca(std::string ca_pem, wall_time now);
    /// The CA being published ("" when the publisher is off).
    const std::string& root_ca() const noexcept;

    // --- service accounts (store/service_accounts.cpp) ------------------------
    /// kube-controller-manager's serviceaccounts controller: ServiceAccount
    /// `default` in every Active namespace (now, at each namespace's create,
    /// and again by gc_step when deleted). Off by default. The ServiceAccount
    /// admission plugin runs on every pod create either way, as on a real
    /// server: without the controller a pod needs its account created first.
    void set_service_account_controller(bool on, wall_time now);

    /// Number of objects stored for a resource (all namespaces); for tests and metrics.
    std::size_t count(const group_version_resource& gvr) const;
    /// The stored objects of a resource in `ns` ("" for every namespace), in
    /// key order, shared rather than copied: for readers inside the server
    /// that run on every request (the RBAC authorizer). Storage form (no
    /// version conversion); nothing may be written while iterating.
    void for_each(const group_version_resource& gvr, std::string_view ns,
                  const std::function<void(const object_ptr&)>& f) const;
    /// One stored object, shared (nullptr when absent); as for_each.
    object_ptr find(const group_version_resource& gvr, std::string_view ns, std::string_view name) const;

    /// Implementation detail (store_impl.hpp).
    class impl;

private:
    friend class impl;

    resource_registry registry_;
    revision_t revision_ = 0;
    std::function<void(revision_t)> commit_hook_;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::apiserver
