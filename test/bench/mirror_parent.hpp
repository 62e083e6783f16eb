// The parent ConfigMaps the mirror benchmarks seed: labelled
// app.example.io/managed=true, ten 100-byte data values, about 1.4 KB of JSON.
#pragma once

#include <kcoro/core/object.hpp>

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace mirror_objects {

inline boost::json::object mirror_parent(int i, std::string_view ns) {
    boost::json::object o{{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
    kcoro::set_name(o, "parent-" + std::to_string(i));
    kcoro::set_namespace(o, ns);
    kcoro::set_label(o, "app.example.io/managed", "true");
    boost::json::object data;
    for (int k = 0; k < 10; ++k) {
        std::string v = "setting-" + std::to_string(k) + "-" + std::to_string(i) + "-";
        while (v.size() < 100) v += "0123456789abcdef";
        data["key-" + std::to_string(k)] = v;
    }
    o["data"] = std::move(data);
    return o;
}

} // namespace mirror_objects
