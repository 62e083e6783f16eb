// What the controller helpers report about the writes they send, and the
// options that carry the hooks. A reconcile's context (reconcile_context.hpp)
// carries hooks bound to that reconcile: every write is counted for the
// hot-loop alarm and no-op writes in kcoro_noop_writes_total{controller,
// resource}; pass `ctx.helpers` to the helpers and nothing else is needed.
//
// A no-op write is one the server answered with the resourceVersion it was
// sent against: it changed nothing (and cost a request).
//
// Values; thread safety: values (the hooks are called on the caller's thread).
#pragma once

#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/resource.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace kcoro::runtime {

enum class write_op { none, created, patched, applied, updated, deleted };
std::string_view to_string(write_op op) noexcept;

/// One write a helper sent (and the server answered).
struct write_record {
    write_record() = default;
    write_record(group_version_resource g, object_key k, write_op o, std::string sub, bool n)
        : gvr(std::move(g)), key(std::move(k)), op(o), subresource(std::move(sub)), noop(n) {}
    group_version_resource gvr;
    object_key key;
    write_op op = write_op::none;
    /// "status" for a status write; empty for the object itself.
    std::string subresource;
    /// Answered with the resourceVersion it was sent against: changed nothing.
    bool noop = false;
};

/// "patched deployments default/web", "updated status of widgets default/w" (+ " (no-op)").
std::string describe(const write_record& w);
std::ostream& operator<<(std::ostream& os, const write_record& w);

struct helper_options {
    helper_options() = default;  // not an aggregate (resource.hpp says why)
    /// Told of every write a helper sent, once answered (may be empty).
    std::function<void(const write_record&)> on_write;
    finalizer_guard guard = finalizer_guard::finalizers;
    /// A sharded controller's reconcile (set by the controller): apply_owned
    /// and create_or_patch stamp the owner-bucket label on the children
    /// they write (shard_bucket.hpp), so that the server can select a
    /// replica's children.
    bool stamp_shard_bucket = false;
};

} // namespace kcoro::runtime
