// The schema's rules, checked on a decoded object: what the annotations
// publish in the CRD (required, minimum/maximum, min/max length, pattern,
// one_of, min/max items and properties) is also what a reconciler checks,
// so the bounds are written once, beside the type, and hold even on a
// cluster whose CRD was loaded without validation (or by an older
// generator). The API server's words (apiextensions' schema validation, as
// kcoro-apiserver's store/schema_validation.cpp writes them):
//
//   spec.replicas: should be less than or equal to 50
//   spec.port: should be greater than or equal to 1
//   spec.image: Required value
//   spec.image: should match '^[^\x00-\x20\x7f:@/][^\x00-\x20\x7f]*$'
//   spec.image: may not be more than 512 bytes
//   spec.env: must have at most 64 items
//   spec.mode: Unsupported value: "slow": supported values: "fast", "safe"
//
// Rules of the walk: a string member that is empty was absent (encoding
// omits it), so only `required` applies to it; bounds on a list or a map
// apply to its items / values (min/max_items and min/max_properties to the
// list or map itself); nested structs are checked with their own
// annotations; object_meta is the API server's (not checked); enums are
// checked by the decoder. Patterns are ECMAScript (std::regex), compiled
// once per annotated member; a string past 4096 bytes is not matched
// (libstdc++'s matcher recurses per character) and is reported instead.
//
// Pure; thread-safe (the compiled patterns are immutable statics).
#pragma once

#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/field_error.hpp>
#include <kcoro/typed/object_meta.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace kcoro::typed {

namespace detail {

inline constexpr std::size_t max_pattern_input = 4096;

/// A pattern compiled once (std::regex, ECMAScript), behind a pointer so
/// that this header does not pull in <regex>.
class compiled_pattern {
public:
    explicit compiled_pattern(std::string_view pattern);
    ~compiled_pattern();
    compiled_pattern(const compiled_pattern&) = delete;
    compiled_pattern& operator=(const compiled_pattern&) = delete;
    /// False when std::regex refuses the pattern (nothing is then matched).
    bool valid() const noexcept { return impl_ != nullptr; }
    /// regex_search, as the API server matches a schema pattern.
    bool search(std::string_view s) const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

void check_number(std::int64_t v, const field_info& a, const path& p, field_errors& out);
void check_string(const std::string& s, const field_info& a, const compiled_pattern* re, bool member,
                  const path& p, field_errors& out);
void check_count(std::size_t n, const field_info& a, bool is_list, const path& p, field_errors& out);

template <class T> void check_struct(const T& v, const path& p, field_errors& out);

/// The compiled pattern of member D of T, or null (no pattern, or one std::regex refuses).
template <class T, class D> const compiled_pattern* pattern_of() {
    if constexpr (member_meta<T, D>::annotation.pattern.empty()) {
        return nullptr;
    } else {
        static const compiled_pattern re(member_meta<T, D>::annotation.pattern);
        return re.valid() ? &re : nullptr;
    }
}

// An item of a list or a value of a map: the member's scalar bounds, or
// its own annotations for a struct.
template <class M>
void check_element(const M& m, const field_info& a, const compiled_pattern* re, const path& p, field_errors& out) {
    if constexpr (is_optional<M>::value) {
        if (m)
            check_element(*m, a, re, p, out);
    } else if constexpr (std::is_same_v<M, bool> || described_enum<M>) {
        return;
    } else if constexpr (std::is_integral_v<M>) {
        check_number(static_cast<std::int64_t>(m), a, p, out);
    } else if constexpr (std::is_same_v<M, std::string>) {
        check_string(m, a, re, false, p, out);
    } else if constexpr (described_struct<M> && !std::is_same_v<M, object_meta>) {
        check_struct(m, p, out);
    }
}

template <class M>
void check_member(const M& m, const field_info& a, const compiled_pattern* re, const path& p, field_errors& out) {
    if constexpr (is_optional<M>::value) {
        if (m)
            check_member(*m, a, re, p, out);
    } else if constexpr (std::is_same_v<M, std::string>) {
        check_string(m, a, re, true, p, out);
    } else if constexpr (is_vector<M>::value) {
        check_count(m.size(), a, true, p, out);
        for (std::size_t i = 0; i < m.size(); ++i) {
            path child{&p, {}, i, path::kind::index};
            check_element(m[i], a, re, child, out);
        }
    } else if constexpr (is_string_map<M>::value) {
        check_count(m.size(), a, false, p, out);
        for (const auto& [k, item] : m) {
            path child{&p, k, 0, path::kind::key};
            check_element(item, a, re, child, out);
        }
    } else {
        check_element(m, a, re, p, out);
    }
}

template <class T> void check_struct(const T& v, const path& p, field_errors& out) {
    boost::mp11::mp_for_each<members_of<T>>([&](auto d) {
        using D = decltype(d);
        using meta = member_meta<T, D>;
        path child{&p, meta::json_name, 0, path::kind::field};
        check_member(v.*D::pointer, meta::annotation, pattern_of<T, D>(), child, out);
    });
}

} // namespace detail

/// Every violation of the schema's rules in `v` (see the file comment), in
/// declaration order; empty when it satisfies them.
template <detail::described_struct T> field_errors check_schema(const T& v) {
    field_errors out;
    detail::check_struct(v, detail::path{}, out);
    return out;
}

} // namespace kcoro::typed
