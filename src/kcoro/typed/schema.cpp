#include <kcoro/typed/schema.hpp>

#include <boost/json/parse.hpp>

#include <stdexcept>

namespace kcoro::typed::detail {
namespace json = boost::json;

void annotate_scalar(json::object& s, const field_info& f) {
    if (!f.format.empty())
        s["format"] = f.format;
    if (f.one_of_count > 0 && !s.contains("enum")) {
        json::array values;
        for (std::size_t i = 0; i < f.one_of_count; ++i)
            values.emplace_back(f.one_of[i]);
        s["enum"] = std::move(values);
    }
    if (f.minimum) {
        s["minimum"] = *f.minimum;
        if (f.exclusive_minimum)
            s["exclusiveMinimum"] = true;
    }
    if (f.maximum) {
        s["maximum"] = *f.maximum;
        if (f.exclusive_maximum)
            s["exclusiveMaximum"] = true;
    }
    if (f.min_length)
        s["minLength"] = *f.min_length;
    if (f.max_length)
        s["maxLength"] = *f.max_length;
    if (!f.pattern.empty())
        s["pattern"] = f.pattern;
}

void annotate_common(json::object& s, const field_info& f, const json::value* default_value) {
    // description and default first after the type, as controller-gen orders them
    json::object out;
    if (auto* t = s.if_contains("type"))
        out["type"] = *t;
    if (auto* t = s.if_contains("format"))
        out["format"] = *t;
    if (!f.description.empty())
        out["description"] = f.description;
    if (!f.default_json.empty()) {
        boost::system::error_code ec;
        auto v = json::parse(f.default_json, ec);
        if (ec) {
            throw std::invalid_argument("kcoro::typed: default_json of " + std::string(f.member) +
                                        " is not JSON: " + std::string(f.default_json));
        }
        out["default"] = std::move(v);
    } else if (default_value) {
        out["default"] = *default_value;
    }
    for (auto& kv : s) {
        if (!out.contains(kv.key()))
            out[kv.key()] = std::move(kv.value());
    }
    if (f.preserve_unknown_fields)
        out["x-kubernetes-preserve-unknown-fields"] = true;
    s = std::move(out);
}

void annotate_list(json::object& s, const field_info& f) {
    if (f.min_items)
        s["minItems"] = *f.min_items;
    if (f.max_items)
        s["maxItems"] = *f.max_items;
    if (!f.list_type.empty())
        s["x-kubernetes-list-type"] = f.list_type;
    if (f.list_map_key_count > 0) {
        json::array keys;
        for (std::size_t i = 0; i < f.list_map_key_count; ++i)
            keys.emplace_back(f.list_map_keys[i]);
        s["x-kubernetes-list-map-keys"] = std::move(keys);
    }
}

void annotate_map(json::object& s, const field_info& f) {
    if (f.min_properties)
        s["minProperties"] = *f.min_properties;
    if (f.max_properties)
        s["maxProperties"] = *f.max_properties;
}

} // namespace kcoro::typed::detail
