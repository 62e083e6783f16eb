// Label selectors as the API server and client-go parse them
// (k8s.io/apimachinery/pkg/labels): `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
// `a notin (x,y)`, `a` (exists), `!a` (does not exist), comma-separated and
// all required. Pure; parsing never throws: bad input is an `invalid` error.
//
// Thread safety: an immutable value once parsed; share freely.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

enum class selector_op { equals, not_equals, in, not_in, exists, does_not_exist, greater_than, less_than };

struct label_requirement {
    std::string key;
    selector_op op = selector_op::exists;
    /// One value for equals/not_equals, a set (sorted, unique) for in/not_in.
    std::vector<std::string> values;
    friend bool operator==(const label_requirement&, const label_requirement&) = default;
};

class label_selector {
public:
    /// The empty selector: matches everything.
    label_selector() = default;

    /// Parse the query-string form. Errors carry a 400 BadRequest Status whose
    /// message starts like the real server's ("unable to parse requirement: ...").
    static result<label_selector> parse(std::string_view text);

    /// True when every requirement holds for `labels` (nullptr = no labels).
    /// `notin` and `!=` hold for a missing key, as in apimachinery.
    bool matches(const boost::json::object* labels) const noexcept;
    /// Matches the labels of an object (metadata.labels).
    bool matches_object(const boost::json::object& obj) const noexcept;

    bool empty() const noexcept { return requirements_.empty(); }
    const std::vector<label_requirement>& requirements() const noexcept { return requirements_; }
    /// Canonical text (requirements in the order given), parseable again.
    std::string str() const;

    friend bool operator==(const label_selector&, const label_selector&) = default;

private:
    std::vector<label_requirement> requirements_;
};

std::ostream& operator<<(std::ostream& os, const label_selector& s);

} // namespace kcoro
