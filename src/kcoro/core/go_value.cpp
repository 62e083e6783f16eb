// Go's value semantics for decoded JSON (see go_value.hpp).
#include "go_value.hpp"

#include <kcoro/core/json_merge_patch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace kcoro::detail {
namespace json = boost::json;

go_kind kind_of_value(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return go_kind::nil;
    case json::kind::bool_: return go_kind::boolean;
    case json::kind::int64:
    case json::kind::uint64: return go_kind::integer;
    case json::kind::double_: return go_kind::floating;
    case json::kind::string: return go_kind::string;
    case json::kind::object: return go_kind::map;
    case json::kind::array: return go_kind::slice;
    }
    return go_kind::nil;
}

// Go's `==` on two interface{} values holding scalars (maps and slices are
// not comparable in Go; they compare unequal here).
bool go_equal(const json::value& a, const json::value& b) {
    auto ka = kind_of_value(a);
    if (ka != kind_of_value(b)) return false;
    switch (ka) {
    case go_kind::nil: return true;
    case go_kind::boolean: return a.get_bool() == b.get_bool();
    case go_kind::integer: return json_equal(a, b);
    case go_kind::floating: return a.get_double() == b.get_double();
    case go_kind::string: return a.get_string() == b.get_string();
    case go_kind::map:
    case go_kind::slice: return false;
    }
    return false;
}

static std::string go_float(double d) {
    // %v of a float64: strconv 'g' with the shortest representation.
    char buf[64];
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    std::string out = buf;
    // C prints e+06, Go prints e+06 too; C may print "inf"/"nan".
    if (out == "inf") return "+Inf";
    if (out == "-inf") return "-Inf";
    if (out == "nan" || out == "-nan") return "NaN";
    return out;
}

// fmt's %v of a decoded JSON value: map[k:v ...] with sorted keys, [a b].
static void go_print(std::string& out, const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: out += "<nil>"; return;
    case json::kind::bool_: out += v.get_bool() ? "true" : "false"; return;
    case json::kind::int64: out += std::to_string(v.get_int64()); return;
    case json::kind::uint64: out += std::to_string(v.get_uint64()); return;
    case json::kind::double_: out += go_float(v.get_double()); return;
    case json::kind::string: out += v.get_string(); return;
    case json::kind::array: {
        out += '[';
        bool first = true;
        for (const auto& e : v.get_array()) {
            if (!first) out += ' ';
            first = false;
            go_print(out, e);
        }
        out += ']';
        return;
    }
    case json::kind::object: {
        std::vector<const json::key_value_pair*> kvs;
        for (const auto& kv : v.get_object()) kvs.push_back(&kv);
        std::sort(kvs.begin(), kvs.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
        out += "map[";
        bool first = true;
        for (const auto* kv : kvs) {
            if (!first) out += ' ';
            first = false;
            out += kv->key();
            out += ':';
            go_print(out, kv->value());
        }
        out += ']';
        return;
    }
    }
}

std::string go_v(const json::value& v) {
    std::string out;
    go_print(out, v);
    return out;
}

// reflect.TypeOf(x).String() for decoded JSON.
std::string go_type(const json::value& v) {
    switch (kind_of_value(v)) {
    case go_kind::nil: return "<nil>";
    case go_kind::boolean: return "bool";
    case go_kind::integer: return "int64";
    case go_kind::floating: return "float64";
    case go_kind::string: return "string";
    case go_kind::map: return "map[string]interface {}";
    case go_kind::slice: return "[]interface {}";
    }
    return "<nil>";
}

// %s of an interface{}: strings as they are, other values as fmt's
// "%!s(T=v)".
std::string go_s(const json::value& v) {
    if (v.is_string()) return std::string(v.get_string());
    if (v.is_null()) return "%!s(<nil>)";
    return "%!s(" + go_type(v) + "=" + go_v(v) + ")";
}

} // namespace kcoro::detail
