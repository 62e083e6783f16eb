// Compile-time names: a described member's JSON name, an enumerator's wire
// name, a resource's apiVersion. Computed once per type as constants, so the
// codec compares string_views and never builds a name at run time.
#pragma once

#include <kcoro/typed/annotations.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace kcoro::typed::detail {

template <std::size_t N> struct fixed_string {
    char data[N + 1]{};
    std::size_t size = 0;
    constexpr std::string_view view() const noexcept { return {data, size}; }
};

constexpr std::size_t length(const char* s) noexcept {
    std::size_t n = 0;
    while (s[n] != '\0')
        ++n;
    return n;
}

constexpr char upper(char c) noexcept {
    return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}

// "service_type" -> "serviceType"; a trailing '_' escapes a keyword
// ("namespace_" -> "namespace"); with `pascal`, the first letter is upper
// case too ("rolling_update" -> "RollingUpdate", "true_" -> "True").
template <std::size_t N> constexpr fixed_string<N> convert_case(const char* s, bool pascal) noexcept {
    fixed_string<N> out;
    std::size_t n = length(s);
    while (n > 0 && s[n - 1] == '_')
        --n;
    bool up = pascal;
    for (std::size_t i = 0; i < n; ++i) {
        char c = s[i];
        if (c == '_') {
            up = out.size > 0 || pascal;
            continue;
        }
        out.data[out.size++] = up ? upper(c) : c;
        up = false;
    }
    return out;
}

// --- annotation tables, found by ADL beside the type ---
template <class T> constexpr auto field_table() noexcept {
    if constexpr (requires { kcoro_fields(static_cast<T*>(nullptr)); }) {
        return kcoro_fields(static_cast<T*>(nullptr));
    } else {
        return std::array<field, 0>{};
    }
}

template <class T> constexpr auto enum_renames() noexcept {
    if constexpr (requires { kcoro_enum_names(static_cast<T*>(nullptr)); }) {
        return kcoro_enum_names(static_cast<T*>(nullptr));
    } else {
        return std::array<rename, 0>{};
    }
}

template <class T> constexpr field_info annotation_of(std::string_view member) noexcept {
    for (const auto& f : field_table<T>()) {
        if (f.info.member == member)
            return f.info;
    }
    field_info none;
    none.member = member;
    return none;
}

template <class T> using members_of = boost::describe::describe_members<T, boost::describe::mod_public>;

/// One described member: its annotation and its JSON name.
template <class T, class D> struct member_meta {
    static constexpr field_info annotation = annotation_of<T>(D::name);
    static constexpr auto generated = convert_case<length(D::name)>(D::name, false);
    static constexpr std::string_view json_name =
        annotation.name.empty() ? generated.view() : annotation.name;
};

/// The JSON names of T's members, in declaration order.
template <class T> struct member_names {
    static constexpr auto value = [] {
        std::array<std::string_view, boost::mp11::mp_size<members_of<T>>::value> out{};
        std::size_t i = 0;
        boost::mp11::mp_for_each<members_of<T>>(
            [&](auto d) { out[i++] = member_meta<T, decltype(d)>::json_name; });
        return out;
    }();
};

// Every annotation names a described member, and no two members share a JSON name.
template <class T> constexpr bool annotations_valid() noexcept {
    for (const auto& f : field_table<T>()) {
        bool found = false;
        boost::mp11::mp_for_each<members_of<T>>([&](auto d) { found = found || f.info.member == d.name; });
        if (!found)
            return false;
    }
    const auto& names = member_names<T>::value;
    for (std::size_t i = 0; i < names.size(); ++i) {
        for (std::size_t j = i + 1; j < names.size(); ++j) {
            if (names[i] == names[j])
                return false;
        }
    }
    return true;
}

/// One enumerator's wire name.
template <class E, class D> struct enumerator_meta {
    static constexpr std::string_view renamed = [] {
        for (const auto& r : enum_renames<E>()) {
            if (r.from == D::name)
                return r.to;
        }
        return std::string_view{};
    }();
    static constexpr auto generated = convert_case<length(D::name)>(D::name, true);
    static constexpr std::string_view wire_name = renamed.empty() ? generated.view() : renamed;
};

template <class E> struct enum_names {
    using list = boost::describe::describe_enumerators<E>;
    static constexpr std::size_t size = boost::mp11::mp_size<list>::value;
    static constexpr auto names = [] {
        std::array<std::string_view, size> out{};
        std::size_t i = 0;
        boost::mp11::mp_for_each<list>(
            [&](auto d) { out[i++] = enumerator_meta<E, decltype(d)>::wire_name; });
        return out;
    }();
    static constexpr auto values = [] {
        std::array<E, size> out{};
        std::size_t i = 0;
        boost::mp11::mp_for_each<list>([&](auto d) { out[i++] = d.value; });
        return out;
    }();
    static constexpr bool renames_valid = [] {
        for (const auto& r : enum_renames<E>()) {
            bool found = false;
            boost::mp11::mp_for_each<list>([&](auto d) { found = found || r.from == d.name; });
            if (!found)
                return false;
        }
        return true;
    }();
};

// "group/version", or "version" for the core group.
template <std::size_t N>
constexpr fixed_string<N> api_version_of(std::string_view group, std::string_view version) noexcept {
    fixed_string<N> out;
    for (char c : group)
        out.data[out.size++] = c;
    if (!group.empty())
        out.data[out.size++] = '/';
    for (char c : version)
        out.data[out.size++] = c;
    return out;
}

} // namespace kcoro::typed::detail
