// JSON merge patch (RFC 7386): apply, and compute the minimal patch between
// two documents. kube-apiserver serves it as application/merge-patch+json
// for every resource, custom resources included.
//
// Pure functions on values; thread-safe as long as the arguments are not
// mutated concurrently. Never throws on any JSON input.
#pragma once

#include <boost/json/value.hpp>

namespace kcoro {

/// RFC 7386 MergePatch(target, patch): a non-object patch replaces the
/// target; an object patch merges key by key, `null` deletes a key, nested
/// objects merge recursively, everything else (arrays included) replaces.
/// Nulls inside values that are added are dropped too, as the RFC says.
boost::json::value apply_merge_patch(const boost::json::value& target,
                                     const boost::json::value& patch);

/// In-place variant (the target is modified; it is never left half-patched
/// because merge patching cannot fail).
void apply_merge_patch_in_place(boost::json::value& target, const boost::json::value& patch);

/// The minimal merge patch that turns `from` into `to`: keys missing from
/// `to` become null, changed objects recurse, arrays and scalars are sent
/// whole. An empty object when two objects are equal; when `to` is not an
/// object the patch is `to` itself, equal or not (a non-object patch
/// replaces the target; `{}` would make it an object). Note that RFC 7386
/// cannot express a null *value* in `to`: such keys are deleted by the patch.
boost::json::value create_merge_patch(const boost::json::value& from, const boost::json::value& to);

/// The merge patch that repairs drift: makes `live` hold every field of
/// `desired` (a partial object: what the controller cares about) and leaves
/// every other field alone, unlike create_merge_patch which would delete
/// them. Objects recurse, everything else is sent whole when it differs; an
/// empty object when `live` already matches (no write needed). A `null` in
/// `desired` asks for the field to be absent. A non-object `desired` is
/// returned whole (as in create_merge_patch).
boost::json::value create_repair_merge_patch(const boost::json::value& live, const boost::json::value& desired);

/// JSON equality with numbers compared by value (1 == 1.0 == 1u), as
/// RFC 6902 `test` requires.
bool json_equal(const boost::json::value& a, const boost::json::value& b) noexcept;

} // namespace kcoro
