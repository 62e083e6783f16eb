// Annotations beside a described struct: JSON names and the schema facts a
// CRD carries (required, defaults, bounds, enum values, patterns,
// descriptions), and a resource's identity (group, version, kind, plural,
// scope) with its CRD-level facts (short names, categories, printer columns,
// the status subresource).
//
// Everything here is constexpr: the tables are read at compile time by the
// codec (JSON names, emission rules) and at generation time by the schema
// writer. A table that names a member BOOST_DESCRIBE_STRUCT does not list is
// a compile error.
//
//   struct env_var { std::string name; std::string value; kcoro::typed::unknown_fields unknown; };
//   BOOST_DESCRIBE_STRUCT(env_var, (), (name, value))
//   KCORO_FIELDS(env_var,
//       field("name").required().min_length(1).max_length(253),
//       field("value").description("The value."))
//
// The macros go in the struct's namespace (they define functions found by
// argument-dependent lookup, as Boost.Describe's macros do).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kcoro::typed {

inline constexpr std::size_t max_enum_values = 32;
inline constexpr std::size_t max_list_map_keys = 4;

/// What one member's annotations say.
struct field_info {
    std::string_view member; // the C++ member name, as described
    std::string_view name;   // JSON name; empty: camelCase of the member
    std::string_view description;
    bool required = false;         // listed in the parent's `required`; always written
    bool defaulted = false;        // the member initializer is the schema default
    std::string_view default_json; // an explicit schema default, as JSON text
    bool omit_empty = false;       // numbers, bools: omitted when zero / false
    bool emit_empty = false;       // strings, lists, maps, structs: written even when empty
    std::optional<std::int64_t> minimum;
    std::optional<std::int64_t> maximum;
    bool exclusive_minimum = false;
    bool exclusive_maximum = false;
    std::optional<std::uint64_t> min_length;
    std::optional<std::uint64_t> max_length;
    std::string_view pattern; // ECMA-262 / RE2 common subset
    std::string_view format;  // overrides the type's format
    std::optional<std::uint64_t> min_items;
    std::optional<std::uint64_t> max_items;
    std::optional<std::uint64_t> min_properties;
    std::optional<std::uint64_t> max_properties;
    std::array<std::string_view, max_enum_values> one_of{}; // allowed string values
    std::size_t one_of_count = 0;
    std::string_view list_type; // x-kubernetes-list-type: atomic, set, map
    std::array<std::string_view, max_list_map_keys> list_map_keys{};
    std::size_t list_map_key_count = 0;
    bool preserve_unknown_fields = false; // x-kubernetes-preserve-unknown-fields on this field
};

/// A member's annotations, built by chaining: `field("port").defaulted().minimum(1)`.
/// Bounds on a list's or a map's field apply to its items' values, except
/// min_items/max_items/list_type (the list) and min/max_properties (the map).
class field {
    // Defined before its uses: clang 14 does not instantiate a member
    // template first defined after a constexpr caller in time for constant
    // evaluation ("undefined function 'with<...>' cannot be used in a
    // constant expression").
    template <class F> constexpr field with(F f) const noexcept {
        field copy = *this;
        f(copy.info);
        return copy;
    }

public:
    constexpr explicit field(std::string_view member) noexcept { info.member = member; }

    constexpr field name(std::string_view n) const noexcept {
        return with([&](auto& i) { i.name = n; });
    }
    constexpr field description(std::string_view d) const noexcept {
        return with([&](auto& i) { i.description = d; });
    }
    constexpr field required() const noexcept {
        return with([](auto& i) { i.required = true; });
    }
    constexpr field defaulted() const noexcept {
        return with([](auto& i) { i.defaulted = true; });
    }
    constexpr field default_json(std::string_view json) const noexcept {
        return with([&](auto& i) { i.default_json = json; });
    }
    constexpr field omit_empty() const noexcept {
        return with([](auto& i) { i.omit_empty = true; });
    }
    constexpr field emit_empty() const noexcept {
        return with([](auto& i) { i.emit_empty = true; });
    }
    constexpr field minimum(std::int64_t v) const noexcept {
        return with([&](auto& i) { i.minimum = v; });
    }
    constexpr field maximum(std::int64_t v) const noexcept {
        return with([&](auto& i) { i.maximum = v; });
    }
    constexpr field exclusive_minimum(std::int64_t v) const noexcept {
        return with([&](auto& i) {
            i.minimum = v;
            i.exclusive_minimum = true;
        });
    }
    constexpr field exclusive_maximum(std::int64_t v) const noexcept {
        return with([&](auto& i) {
            i.maximum = v;
            i.exclusive_maximum = true;
        });
    }
    constexpr field min_length(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.min_length = v; });
    }
    constexpr field max_length(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.max_length = v; });
    }
    constexpr field pattern(std::string_view p) const noexcept {
        return with([&](auto& i) { i.pattern = p; });
    }
    constexpr field format(std::string_view f) const noexcept {
        return with([&](auto& i) { i.format = f; });
    }
    constexpr field min_items(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.min_items = v; });
    }
    constexpr field max_items(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.max_items = v; });
    }
    constexpr field min_properties(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.min_properties = v; });
    }
    constexpr field max_properties(std::uint64_t v) const noexcept {
        return with([&](auto& i) { i.max_properties = v; });
    }
    /// The allowed values of a string field (enums list theirs by themselves).
    template <class... S> constexpr field one_of(S... values) const noexcept {
        static_assert(sizeof...(S) <= max_enum_values, "kcoro::typed::field::one_of: too many values");
        return with([&](auto& i) {
            i.one_of_count = 0;
            ((i.one_of[i.one_of_count++] = std::string_view(values)), ...);
        });
    }
    constexpr field list_type(std::string_view t) const noexcept {
        return with([&](auto& i) { i.list_type = t; });
    }
    /// x-kubernetes-list-type: map with these keys.
    template <class... S> constexpr field list_map(S... keys) const noexcept {
        static_assert(sizeof...(S) >= 1 && sizeof...(S) <= max_list_map_keys,
                      "kcoro::typed::field::list_map: 1 to 4 keys");
        return with([&](auto& i) {
            i.list_type = "map";
            i.list_map_key_count = 0;
            ((i.list_map_keys[i.list_map_key_count++] = std::string_view(keys)), ...);
        });
    }
    constexpr field preserve_unknown_fields() const noexcept {
        return with([](auto& i) { i.preserve_unknown_fields = true; });
    }

    field_info info;
};

/// An explicit wire name for a described enumerator.
struct rename {
    std::string_view from; // the enumerator
    std::string_view to;   // the JSON string
};

enum class scope { namespaced, cluster };

struct printer_column {
    std::string_view name;
    std::string_view type;      // string, integer, number, boolean, date
    std::string_view json_path; // ".status.readyReplicas"
    std::string_view description = {};
    std::string_view format = {};
    std::int32_t priority = 0;
};

inline constexpr std::size_t max_names = 8;
inline constexpr std::size_t max_printer_columns = 16;

struct resource_info {
    std::string_view group; // "" for the core group
    std::string_view version;
    std::string_view kind;
    std::string_view plural;
    std::string_view singular;  // empty: the kind in lower case
    std::string_view list_kind; // empty: kind + "List"
    kcoro::typed::scope scope = scope::namespaced;
    std::string_view description;
    std::array<std::string_view, max_names> short_names{};
    std::size_t short_name_count = 0;
    std::array<std::string_view, max_names> categories{};
    std::size_t category_count = 0;
    bool status_subresource = false;
    std::array<printer_column, max_printer_columns> columns{};
    std::size_t column_count = 0;
};

/// A resource's identity and CRD facts:
/// `resource("gateway.kcoro.dev", "v1alpha1", "GatewayInstance", "gatewayinstances").short_names("gi")`.
class resource {
    // Defined before its uses: clang 14 does not instantiate a member
    // template first defined after a constexpr caller in time for constant
    // evaluation ("undefined function 'with<...>' cannot be used in a
    // constant expression").
    template <class F> constexpr resource with(F f) const noexcept {
        resource copy = *this;
        f(copy.info);
        return copy;
    }

public:
    constexpr resource(std::string_view group, std::string_view version, std::string_view kind,
                       std::string_view plural) noexcept {
        info.group = group;
        info.version = version;
        info.kind = kind;
        info.plural = plural;
    }
    constexpr resource cluster_scoped() const noexcept {
        return with([](auto& i) { i.scope = scope::cluster; });
    }
    constexpr resource singular(std::string_view s) const noexcept {
        return with([&](auto& i) { i.singular = s; });
    }
    constexpr resource list_kind(std::string_view k) const noexcept {
        return with([&](auto& i) { i.list_kind = k; });
    }
    constexpr resource description(std::string_view d) const noexcept {
        return with([&](auto& i) { i.description = d; });
    }
    template <class... S> constexpr resource short_names(S... names) const noexcept {
        static_assert(sizeof...(S) <= max_names, "kcoro::typed::resource::short_names: too many");
        return with([&](auto& i) {
            i.short_name_count = 0;
            ((i.short_names[i.short_name_count++] = std::string_view(names)), ...);
        });
    }
    template <class... S> constexpr resource categories(S... names) const noexcept {
        static_assert(sizeof...(S) <= max_names, "kcoro::typed::resource::categories: too many");
        return with([&](auto& i) {
            i.category_count = 0;
            ((i.categories[i.category_count++] = std::string_view(names)), ...);
        });
    }
    constexpr resource status_subresource() const noexcept {
        return with([](auto& i) { i.status_subresource = true; });
    }
    /// additionalPrinterColumns, in order (kubectl shows NAME first, then these).
    constexpr resource column(std::string_view name, std::string_view type, std::string_view json_path,
                              std::string_view description = {}) const noexcept {
        return column(printer_column{name, type, json_path, description});
    }
    constexpr resource column(printer_column c) const noexcept {
        return with([&](auto& i) {
            if (i.column_count < max_printer_columns)
                i.columns[i.column_count++] = c;
        });
    }

    resource_info info;
};

} // namespace kcoro::typed

/// Annotations of a described struct's members; in the struct's namespace.
#define KCORO_FIELDS(T, ...)                                                                                 \
    constexpr auto kcoro_fields(T*) noexcept {                                                               \
        using ::kcoro::typed::field;                                                                         \
        return ::std::array{__VA_ARGS__};                                                                    \
    }

/// Wire names of a described enum's enumerators, where the default
/// (PascalCase of the enumerator: `rolling_update` -> "RollingUpdate") is not
/// right: `KCORO_ENUM_NAMES(service_type, {"cluster_ip", "ClusterIP"})`.
#define KCORO_ENUM_NAMES(E, ...)                                                                             \
    constexpr auto kcoro_enum_names(E*) noexcept {                                                           \
        return ::std::to_array<::kcoro::typed::rename>({__VA_ARGS__});                                       \
    }

/// Makes a described struct a resource:
/// `KCORO_RESOURCE(config_map, resource("", "v1", "ConfigMap", "configmaps"))`.
#define KCORO_RESOURCE(T, ...)                                                                               \
    constexpr ::kcoro::typed::resource_info kcoro_resource(T*) noexcept {                                    \
        using ::kcoro::typed::resource;                                                                      \
        return (__VA_ARGS__).info;                                                                           \
    }
