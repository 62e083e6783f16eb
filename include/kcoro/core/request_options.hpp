// Options of the client verbs (metav1.GetOptions, ListOptions,
// CreateOptions, UpdateOptions, PatchOptions, DeleteOptions). The request
// builders (kcoro/core/requests.hpp) turn them into query parameters or a
// DeleteOptions body; the client API takes them as they are.
//
// Plain structs with public members, but not aggregates: each declares a
// constructor, so `delete_options{}` or `patch_options{patch_type::json}`
// written inside a co_await operand is a constructor call. g++ 12 destroys
// an aggregate-initialized temporary of a co_await operand twice (a double
// free; docs/toolchain.md), so designated initializers are not offered here:
// set the members of a named object, or use the constructors below.
//
// Pure values; default-constructed options mean "what kubectl/client-go send
// by default". Thread safety: values.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace kcoro {

/// How `resourceVersion` is interpreted on list and watch (metav1.ResourceVersionMatch).
enum class version_match {
    unset,           // not sent: legacy semantics of resourceVersion
    not_older_than,  // "NotOlderThan"
    exact,           // "Exact" (list only)
};

/// The four patch content types the API server accepts.
enum class patch_type {
    merge,            // application/merge-patch+json (RFC 7386)
    json,             // application/json-patch+json (RFC 6902, `test` ops allowed)
    strategic_merge,  // application/strategic-merge-patch+json (built-in types only)
    apply,            // application/apply-patch+yaml: server-side apply; field_manager required
};

/// DeleteOptions.propagationPolicy.
enum class deletion_propagation {
    unset,       // server default for the resource
    orphan,      // "Orphan"
    background,  // "Background"
    foreground,  // "Foreground"
};

struct get_options {
    get_options() = default;
    /// "" reads the latest (quorum read); "0" allows any cached version.
    std::string resource_version{};
    /// e.g. "status", "scale"; empty for the object itself.
    std::string subresource{};
    /// Per-request deadline; nullopt means the client's default.
    std::optional<std::chrono::milliseconds> timeout{};
};

struct list_options {
    list_options() = default;
    std::string label_selector{};  // "app=x,tier!=db,env in (a,b)"; encoded by the builder
    std::string field_selector{};  // "metadata.name=x"
    /// Page size; 0 = no limit.
    std::int64_t limit = 0;
    /// The `metadata.continue` of the previous page.
    std::string continue_token{};
    std::string resource_version{};
    /// Requires a non-empty resource_version (the server rejects it otherwise).
    version_match resource_version_match = version_match::unset;
    std::optional<std::chrono::milliseconds> timeout{};
    /// Ask for a PartialObjectMetadataList (meta.k8s.io/v1): the server sends
    /// only each item's apiVersion/kind (meta.k8s.io/v1 PartialObjectMetadata)
    /// and metadata, as client-go's metadata client does.
    bool metadata_only = false;
    /// KEP-5866 `shardSelector` (Kubernetes 1.36 alpha, gate
    /// ShardedListAndWatch): only objects whose hashed field falls in the
    /// ranges, e.g. "shardRange(object.metadata.uid, '0x0000000000000000',
    /// '0x8000000000000000')". A server without it ignores the parameter;
    /// one that applied it echoes it in list_result::shard_selector.
    std::string shard_selector{};
};

struct watch_options {
    watch_options() = default;
    std::string label_selector{};
    std::string field_selector{};
    /// Start after this version; "" = "start at the most recent" (with initial
    /// ADDED events for existing objects), "0" = any version.
    std::string resource_version{};
    bool allow_watch_bookmarks = true;
    /// Server-side end of the watch (client-go's reflector uses 5-10 minutes).
    std::optional<std::int64_t> timeout_seconds{};
    /// Stream the current state first, ended by a BOOKMARK with the
    /// `k8s.io/initial-events-end` annotation. Implies
    /// `resourceVersionMatch=NotOlderThan` and bookmarks.
    bool send_initial_events = false;
    /// Events carry PartialObjectMetadata (meta.k8s.io/v1) objects: metadata only.
    bool metadata_only = false;
    /// KEP-5866 `shardSelector`, as list_options::shard_selector.
    std::string shard_selector{};
};

struct create_options {
    create_options() = default;
    /// Sent as `fieldManager` (managedFields owner); empty = server default.
    std::string field_manager{};
    bool dry_run = false;  // dryRun=All
    /// Create on a subresource (e.g. "eviction", "token"); empty = the collection.
    std::string subresource{};
    std::optional<std::chrono::milliseconds> timeout{};
};

struct update_options {
    update_options() = default;
    std::string field_manager{};
    bool dry_run = false;
    /// "status" updates only the status (and ignores spec changes).
    std::string subresource{};
    std::optional<std::chrono::milliseconds> timeout{};
};

struct patch_options {
    patch_options() = default;
    explicit patch_options(patch_type t) : type(t) {}
    patch_type type = patch_type::merge;
    /// Required for patch_type::apply.
    std::string field_manager{};
    /// Server-side apply only: take ownership of conflicting fields.
    bool force = false;
    bool dry_run = false;
    std::string subresource{};
    std::optional<std::chrono::milliseconds> timeout{};
};

/// DeleteOptions.preconditions: the delete fails with 409 Conflict unless
/// the object still has this uid / resourceVersion.
struct delete_preconditions {
    delete_preconditions() = default;
    delete_preconditions(std::string u, std::string rv) : uid(std::move(u)), resource_version(std::move(rv)) {}
    std::string uid{};
    std::string resource_version{};
};

struct delete_options {
    delete_options() = default;
    explicit delete_options(deletion_propagation p) : propagation_policy(p) {}
    explicit delete_options(delete_preconditions p) : preconditions(std::move(p)) {}
    std::optional<delete_preconditions> preconditions{};
    deletion_propagation propagation_policy = deletion_propagation::unset;
    /// 0 = immediately; nullopt = the object's default.
    std::optional<std::int64_t> grace_period_seconds{};
    bool dry_run = false;
    std::optional<std::chrono::milliseconds> timeout{};
};

const char* to_string(version_match m) noexcept;         // "" for unset
const char* to_string(deletion_propagation p) noexcept;  // "" for unset
/// The Content-Type of a patch body.
const char* content_type_of(patch_type t) noexcept;

} // namespace kcoro
