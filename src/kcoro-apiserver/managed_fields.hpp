// Field sets and metadata.managedFields, as structured-merge-diff and
// apimachinery's fieldmanager encode them (FieldsV1).
//
// A field set is the set of leaf paths a manager owns. Path elements are
// kept in their FieldsV1 spelling: "f:<field>", "k:<json of the list-map
// keys>" (keys sorted by name), "v:<json value>" (a set of primitives),
// "i:<index>". FieldsV1 nests them and marks an element that is itself owned
// and has owned children with ".": {}. Example:
//   {"f:metadata":{"f:labels":{"f:app":{}}},
//    "f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}
//
// Pure values; thread-safe when not shared mutably. Never throws on bad input
// (undecodable managedFields read as empty, as the real server resets them).
#pragma once

#include <kcoro/core/strategic_merge_patch.hpp>
#include <kcoro/core/time.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <compare>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver {

/// A path of elements, stored flat ("f:spec\0f:replicas\0") so that sets of
/// paths compare with one memcmp: ordering is element-wise lexicographic and
/// every path sorts right before its descendants. (Index elements "i:",
/// which kcoro never produces, sort before keys here; FieldsV1 output still
/// uses structured-merge-diff's order.)
class field_path {
public:
    field_path() = default;
    field_path(std::initializer_list<std::string_view> elements) {
        for (auto e : elements) push(e);
    }
    void push(std::string_view element) {
        s_.append(element);
        s_.push_back('\0');
    }
    void pop() {
        if (s_.empty()) return;
        s_.pop_back();
        auto at = s_.rfind('\0');
        s_.resize(at == std::string::npos ? 0 : at + 1);
    }
    bool empty() const noexcept { return s_.empty(); }
    std::vector<std::string_view> elements() const;
    /// True when this path is `other` or one of its ancestors.
    bool is_prefix_of(const field_path& other) const noexcept { return std::string_view(other.s_).starts_with(s_); }
    const std::string& encoded() const noexcept { return s_; }
    friend auto operator<=>(const field_path&, const field_path&) = default;
    friend bool operator==(const field_path&, const field_path&) = default;

private:
    std::string s_;
};
using field_set = std::set<field_path>;

/// ".spec.containers[name=\"web\"].image" (fieldpath.Path.String()).
std::string to_string(const field_path& p);

/// The fields an object (or an applied configuration) sets, given the list
/// strategies of its kind. Leaves, atomic lists, empty maps and nulls are
/// members; list-map items are members and so are their fields; set values
/// are members. Metadata the server manages (name, namespace, uid,
/// resourceVersion, generation, creationTimestamp, managedFields, ...) and
/// apiVersion/kind are left out, as the stripMeta manager does.
field_set fields_of(const boost::json::object& obj, const list_strategies& lists);

using field_values = std::map<field_path, const boost::json::value*>;

/// Leaf values by path (list-map items map to nullptr: their presence is
/// what counts); used to find what an update changed. With `with_maps`,
/// non-empty maps are entries too (presence only): an Update that adds a map
/// owns the map itself ("." in FieldsV1), as structured-merge-diff's compare
/// reports it. For built-in kinds (`typed`), the structs a Go object always
/// has (spec, status, spec.template, spec.template.spec, ...) are not.
field_values field_values_of(const boost::json::object& obj, const list_strategies& lists,
                             bool with_maps = false, bool typed = false);

boost::json::object to_fields_v1(const field_set& s);
field_set from_fields_v1(const boost::json::value& v);

/// True for the fields the stripMeta manager removes from every set
/// (apiVersion, kind, metadata.name, .uid, .managedFields, ...).
bool is_stripped_meta_field(const field_path& p);

/// True when `s` holds `p` or anything below it.
bool owns_at_or_below(const field_set& s, const field_path& p);
/// True when `s` holds a strict ancestor of `p` (owns it as a whole: an
/// atomic list or a leaf there).
bool owns_above(const field_set& s, const field_path& p);

field_set set_union(const field_set& a, const field_set& b);
field_set set_difference(const field_set& a, const field_set& b);
field_set set_intersection(const field_set& a, const field_set& b);

enum class managed_operation { apply, update };

/// One metadata.managedFields entry.
struct managed_fields_entry {
    std::string manager;
    managed_operation operation = managed_operation::update;
    std::string api_version;
    std::string time;         // RFC 3339, seconds
    std::string subresource;  // "" or "status"
    field_set fields;

    /// The identity the server merges entries by: manager, operation,
    /// subresource, and the apiVersion for Update only (an applier keeps
    /// one entry across versions).
    bool same_manager(const managed_fields_entry& o) const noexcept;
    /// How conflict messages name it: "\"kubectl\"" for Apply,
    /// "\"m\" using v1" for Update (conflict.go printManager on the manager
    /// identifier, which has no time).
    std::string printable() const;
};

/// Decode metadata.managedFields; nullopt when it is absent, empty or not
/// decodable.
std::optional<std::vector<managed_fields_entry>> decode_managed_fields(const boost::json::object& obj);
/// Encode sorted as the server does (operation, time, manager, apiVersion,
/// subresource); entries with empty field sets are dropped.
boost::json::array encode_managed_fields(std::vector<managed_fields_entry> entries);

} // namespace kcoro::apiserver
