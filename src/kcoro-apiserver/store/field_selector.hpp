// Field selectors as kube-apiserver supports them for every resource:
// `metadata.name` and `metadata.namespace` with `=`, `==`, `!=`,
// comma-separated and all required. Other fields are rejected with 400, as the
// real server does for fields a resource does not index
// ("field label not supported: spec.x").
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
    std::string field;  // "metadata.name" or "metadata.namespace"
    bool equals = true; // false: !=
    std::string value;
    friend bool operator==(const field_requirement&, const field_requirement&) = default;
};

class field_selector {
public:
    field_selector() = default;
    static result<field_selector> parse(std::string_view text);

    bool matches(const boost::json::object& obj) const noexcept;
    bool empty() const noexcept { return requirements_.empty(); }
    const std::vector<field_requirement>& requirements() const noexcept { return requirements_; }
    /// The value a `metadata.name=x` requirement pins, if any (a fast path).
    const std::string* exact_name() const noexcept;

private:
    std::vector<field_requirement> requirements_;
};

} // namespace kcoro::apiserver
