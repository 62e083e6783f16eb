// JSON patch (RFC 6902) over JSON Pointer (RFC 6901), as kube-apiserver
// applies application/json-patch+json (evanphx/json-patch v4), and builders
// for the patches kcoro's runtime sends (finalizers guarded by a `test` op).
//
// Pure functions on values; thread-safe as long as the arguments are not
// mutated concurrently. Never throws on any input.
//
// Errors, as kube-apiserver answers them (k8s.io/apiserver handlers/patch.go,
// verified against the source):
//  - the body is not JSON or not an array of objects: 400 BadRequest whose
//    message is the decoder's error;
//  - more than 10000 operations: 413 RequestEntityTooLarge,
//    "The allowed maximum operations in a JSON patch is 10000, got N";
//  - any failure while applying (a failed `test`, a missing path, a bad
//    index, an unknown op, a missing `value`): 422 with reason Invalid and the
//    *generic* message "the server rejected our request due to an error in
//    our request" and `details: {}` (NewGenericServerResponse(422, ...): the
//    jsonpatch error text is not sent to the client). kubectl prints it as
//    "The request is invalid: the server rejected our request ...".
// The returned kcoro::error carries that exact Status (error::api_status(),
// ready to encode) and a message() that names the operation index, op and
// path first, for logs and tests.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

/// The most operations kube-apiserver accepts in one JSON patch.
inline constexpr std::size_t max_json_patch_operations = 10000;

/// The message kube-apiserver sends for every JSON patch that fails to apply.
inline constexpr std::string_view json_patch_rejected_message =
    "the server rejected our request due to an error in our request";

/// RFC 6901: split "/a/b~1c/~0d" into {"a", "b/c", "~d"}. "" is the whole
/// document. kcoro_errc::decode_error when the pointer
/// does not start with '/' or has a bad escape.
result<std::vector<std::string>> parse_json_pointer(std::string_view pointer);
/// Escape one reference token ("~" -> "~0", "/" -> "~1").
std::string escape_json_pointer_token(std::string_view token);
/// Build a pointer from unescaped tokens: {"metadata","labels","a/b"} ->
/// "/metadata/labels/a~1b".
std::string make_json_pointer(std::initializer_list<std::string_view> tokens);

/// The value a pointer designates, nullptr when absent or malformed (RFC 6901
/// as Boost.JSON's find_pointer reads it: no negative or leading-zero indices).
const boost::json::value* find_json_pointer(const boost::json::value& doc, std::string_view pointer);

/// Apply a patch (an array of operations) to a copy of `doc`, atomically: on
/// failure `doc` is untouched and no partial result is returned.
///
/// Kubernetes-compatible details (evanphx/json-patch v4 as the server uses
/// it): a negative array index counts from the end (-1 is the last element);
/// `test` with `"value": null` on a missing member of an existing object
/// succeeds (so a patch can assert a field is absent); `move` into its own
/// child is rejected; `add` on an existing member replaces it.
result<boost::json::value> apply_json_patch(const boost::json::value& doc, const boost::json::value& patch);
/// Same, from the request body text (400 when it is not a JSON array).
result<boost::json::value> apply_json_patch(const boost::json::value& doc, std::string_view patch_text);

// --- builders ----------------------------------------------------------------

/// {"op":"test","path":p,"value":v}
boost::json::object json_patch_test(std::string_view path, boost::json::value value);
boost::json::object json_patch_add(std::string_view path, boost::json::value value);
boost::json::object json_patch_replace(std::string_view path, boost::json::value value);
boost::json::object json_patch_remove(std::string_view path);

/// What a finalizer patch asserts before it writes, so that it never clobbers
/// another writer's change.
enum class finalizer_guard {
    /// `test` that /metadata/finalizers is exactly what we read (or absent):
    /// fails only if someone changed the finalizers, not on any other write.
    finalizers,
    /// `test` /metadata/resourceVersion: fails on any concurrent write.
    resource_version,
};

/// A patch that adds `finalizer` to `obj` as read; nullopt when it is
/// already there. Either guard makes the server answer 422 if the
/// finalizers changed since `obj` was read: re-read and retry.
std::optional<boost::json::array> make_add_finalizer_patch(
    const boost::json::object& obj, std::string_view finalizer,
    finalizer_guard guard = finalizer_guard::finalizers);

/// A patch that removes `finalizer` from `obj` as read (by index, guarded by
/// the test so the index is right); nullopt when it is absent.
std::optional<boost::json::array> make_remove_finalizer_patch(
    const boost::json::object& obj, std::string_view finalizer,
    finalizer_guard guard = finalizer_guard::finalizers);

} // namespace kcoro
