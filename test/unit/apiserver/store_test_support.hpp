// Helpers shared by the object_store tests: a store at a fixed time, JSON
// literals, and request contexts.
#pragma once

#include "store/object_store.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <ostream>
#include <vector>
#include <string>

namespace kcoro::apiserver {
// Printers so doctest can show results of these types (found by ADL).
inline std::ostream& operator<<(std::ostream& os, const delete_options&) { return os << "delete_options"; }
inline std::ostream& operator<<(std::ostream& os, const watch_filter&) { return os << "watch_filter"; }
inline std::ostream& operator<<(std::ostream& os, const std::vector<watch_event>& v) {
    os << "[";
    for (const auto& e : v) os << e << "; ";
    return os << "]";
}
} // namespace kcoro::apiserver

namespace kcoro::apiserver::test {

inline wall_time t0() { return wall_time{std::chrono::seconds(1'800'000'000)}; }

inline boost::json::object obj(std::string_view json) { return boost::json::parse(json).as_object(); }

inline request_context ctx_at(wall_time now = t0()) {
    request_context c;
    c.now = now;
    c.user = "tester";
    c.field_manager = "test";
    return c;
}

inline boost::json::object configmap(std::string_view name, std::string_view data_value = "v") {
    boost::json::object o{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                          {"metadata", boost::json::object{{"name", name}}},
                          {"data", boost::json::object{{"k", data_value}}}};
    return o;
}

inline std::string status_message(const kcoro::error& e) {
    return e.api_status() ? e.api_status()->message : std::string{};
}

inline std::string str_at(const boost::json::object& o, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(o, path);
    return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

inline std::uint64_t rv_of(const boost::json::object& o) { return std::stoull(std::string(resource_version_of(o))); }

} // namespace kcoro::apiserver::test
