// Checks the handlers make before the store sees a write, with the real
// server's answers:
//  - the options of each write (staging/src/k8s.io/apimachinery/pkg/apis/
//    meta/v1/validation/validation.go ValidateCreateOptions,
//    ValidateUpdateOptions, ValidatePatchOptions, ValidateDeleteOptions;
//    called from handlers/create.go, update.go, patch.go, delete.go): a bad
//    dryRun or fieldValidation, force on a non-apply patch, apply without
//    fieldManager, a fieldManager over 128 bytes → 422 Invalid on
//    `CreateOptions.meta.k8s.io ""` (Update/Patch/Delete likewise);
//  - the body's apiVersion and kind against the endpoint (handlers/create.go,
//    update.go: the decoder defaults a missing apiVersion/kind to the
//    endpoint's; a kind the scheme does not know → 400 `<K> in version "<v>"
//    cannot be handled as a <EndpointKind>: no kind "<K>" is registered for
//    version "<gv>" in scheme "pkg/api/legacyscheme/scheme.go:30"`; a known
//    kind of another type → `... converting (v1.<K>) to (<pkg>.<EndpointKind>):
//    unknown conversion` (transformDecodeError); the same type at another
//    group/version → 400 `the API version in the data (<gv>) does not match
//    the expected API version (<gv'>)`).
//
// Pure functions; thread safety: values.
#pragma once

#include "store/resource_registry.hpp"

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

/// The write options as the query gave them.
struct write_options {
    std::vector<std::string> dry_run;  // every dryRun value
    std::string field_validation;
    std::string field_manager;
    std::optional<bool> force;  // present when the query names it
};

/// `verb`: create, update, patch, delete, deletecollection. `apply`: the
/// patch is an apply patch.
result<void> validate_write_options(std::string_view verb, const write_options& o, bool apply);

/// The Go %#v of a []string (`[]string{"a", "b"}`), as field errors print it.
std::string go_string_slice(const std::vector<std::string>& v);

/// The endpoint kind a body must decode to.
struct endpoint_kind {
    std::string group;
    std::string version;
    std::string kind;
    bool custom = false;  // a CRD's kind: the unstructured decoder (not checked)
};

/// 400 when the body's apiVersion/kind cannot be decoded at the endpoint.
result<void> check_body_kind(const endpoint_kind& ep, const boost::json::object& body, const resource_registry& reg);

} // namespace kcoro::apiserver::http
