// Strategic merge patch (application/strategic-merge-patch+json) for the
// built-in kinds kcoro-apiserver serves, as apimachinery's strategicpatch
// applies it on the server (MergeParallelList and IgnoreUnmatchedNulls on),
// plus the list schema (merge keys) that server-side apply shares.
//
// The Go implementation reads patch strategies from struct tags; we have no
// Go types, so a table maps a field path to its list strategy. Paths are
// field names joined by '.', list items add nothing: the ports of a
// Deployment's containers are "spec.template.spec.containers.ports".
//
// Pure functions on values; the tables are immutable statics, safe to read
// from any thread. Never throws on any input.
//
// The merge follows staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/
// patch.go (mergeMap, mergeSlice, mergePatchIntoOriginal, ...) function by
// function, including what surprises: a value whose key the original lacks
// is taken as the patch has it, directives included (so
// `env: [{"$patch":"replace"}, ...]` on a container without env stays a
// literal element, which the decoder and validation then judge); merged
// lists are ordered as normalizeElementOrder orders them (the patch's items
// in the patch's order, live-only items in theirs, an item new to the live
// list before the live-only items it meets); `$setElementOrder` orders too.
//
// Errors (mergepatch/errors.go, mapped as handlers/patch.go
// interpretStrategicMergePatchError does): the body is not a JSON object →
// 400 with encoding/json's text; a malformed `$retainKeys`,
// `$deleteFromPrimitiveList`, `$setElementOrder` directive, or a patch key
// outside `$retainKeys` → 400 BadRequest ("invalid patch format of ...");
// lists of lists → 422 Invalid (generic message); any other merge error
// (missing merge key, unknown `$patch`, mixed element types, a
// `$setElementOrder` not matching the patch) is a plain Go error, which the
// handler answers as 500 with no reason and the error's text as the message.
// Custom resources → 415 (below).
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

/// How a list field merges.
enum class list_type {
    atomic,  // replaced whole (no patch strategy; SSA: one owner for the list)
    map,     // associative: items matched by their keys
    set,     // primitives merged as a set (metadata.finalizers)
};

struct list_strategy {
    list_type type = list_type::atomic;
    /// Strategic merge patch's patchMergeKey (one field), for `map`.
    std::string merge_key;
    /// Server-side apply's x-kubernetes-list-map-keys (may be several, e.g.
    /// containerPort + protocol); defaults to {merge_key}.
    std::vector<std::string> map_keys;
};

/// Field path → list strategy; lists that are absent are atomic.
using list_strategies = std::map<std::string, list_strategy, std::less<>>;

/// True for kinds served from Go types (the core group, groups without a dot
/// such as apps/batch/policy, and *.k8s.io groups): those accept strategic
/// merge. Custom resources do not.
bool supports_strategic_merge(std::string_view api_version);

/// The list strategies of a built-in kind (Pod, Deployment, ReplicaSet,
/// StatefulSet, DaemonSet, Job, CronJob, Service, ServiceAccount and the
/// metadata lists shared by every kind). Unknown kinds get the metadata
/// lists only. Custom resources use the metadata lists too (SSA), their
/// other lists being atomic unless a schema says otherwise.
const list_strategies& builtin_list_strategies(std::string_view kind);

/// The 415 UnsupportedMediaType the real server answers for a strategic
/// merge patch to a custom resource: "the body of the request was in an
/// unknown format - accepted media types include:
/// application/json-patch+json, application/merge-patch+json,
/// application/apply-patch+yaml".
error strategic_merge_unsupported();

/// Apply a strategic merge patch to `original` (an object) with the given
/// list strategies. Directives: `$patch: replace|delete` on maps,
/// `$patch: replace|delete` items in merging lists, `$retainKeys`,
/// `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` (ordering
/// enforced as patch.go does). `null` deletes; lists without a strategy are
/// replaced. Values new to the original are taken verbatim (see above). The
/// input is unchanged.
result<boost::json::value> apply_strategic_merge_patch(const boost::json::value& original,
                                                      const boost::json::value& patch,
                                                      const list_strategies& strategies);

/// Convenience for the server: parses the body, picks the table from the
/// object's kind, and answers 415 for custom resources.
result<boost::json::value> apply_strategic_merge_patch(const boost::json::object& original,
                                                      std::string_view patch_text);

/// The patch as Go's fmt prints a map[string]interface{} (`%+v`): how the
/// real server shows a strategic merge patch in a 422 on field `patch`.
/// (The real map has lost the directives the merge consumed; this one has
/// not.) Text that is not JSON is returned unchanged.
std::string strategic_patch_as_go_map(std::string_view patch_text);

} // namespace kcoro
