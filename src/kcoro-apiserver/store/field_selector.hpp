// Field selectors as kube-apiserver supports them: `metadata.name` and
// `metadata.namespace` for every resource, plus the fields a resource's
// strategy makes selectable (its field label conversion function):
//   core/v1 and events.k8s.io/v1 events: involvedObject.{kind,namespace,name,
//     uid,apiVersion,resourceVersion,fieldPath}, reason, reportingComponent,
//     source, type (events.k8s.io objects are read through `regarding`,
//     `reportingController` and `deprecatedSource`, as they are stored as
//     core Events)
//   secrets: type; services: spec.clusterIP, spec.type; namespaces:
//     status.phase and metadata.name only (no metadata.namespace)
// with `=`, `==`, `!=`, comma-separated and all required. Other fields are
// rejected with 400 as the real server does: "field label not supported:
// spec.x" for the kinds above and custom resources, `"spec.x" is not a known
// field selector: only "metadata.name", "metadata.namespace"` for the other
// built-ins (unsupported_message). A field absent from an object reads as ""
// (Go's zero value).
//
// Thread safety: an immutable value once parsed.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver {

struct field_requirement {
    std::string field;  // "metadata.name", "involvedObject.uid", ...
    bool equals = true; // false: !=
    std::string value;
    friend bool operator==(const field_requirement&, const field_requirement&) = default;
};

class field_selector {
public:
    field_selector() = default;
    /// Only `metadata.name` / `metadata.namespace`.
    static result<field_selector> parse(std::string_view text);
    /// The fields `resource` of `group` supports (see the file comment).
    static result<field_selector> parse(std::string_view text, std::string_view group, std::string_view resource);
    /// Whether `field` is selectable on `resource` of `group`.
    static bool supported(std::string_view field, std::string_view group, std::string_view resource) noexcept;
    /// The 400's message for an unsupported `field` (see the file comment).
    static std::string unsupported_message(std::string_view field, std::string_view group, std::string_view resource);

    bool matches(const boost::json::object& obj) const noexcept;
    bool empty() const noexcept { return requirements_.empty(); }
    const std::vector<field_requirement>& requirements() const noexcept { return requirements_; }
    /// The value a `metadata.name=x` requirement pins, if any (a fast path).
    const std::string* exact_name() const noexcept;

private:
    std::vector<field_requirement> requirements_;
};

} // namespace kcoro::apiserver
