#include "store/schema_validation.hpp"
#include "store/status_errors.hpp"

#include <boost/json/serialize.hpp>

#include <cmath>
#include <regex>
#include <set>
#include <unordered_map>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

const json::object* sub(const json::object& s, std::string_view key) {
    if (const auto* v = s.if_contains(key)) return v->if_object();
    return nullptr;
}

bool flag(const json::object& s, std::string_view key) {
    const auto* v = s.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

std::string type_of(const json::object& s) {
    if (const auto* t = s.if_contains("type"); t && t->is_string()) return std::string(t->get_string());
    return {};
}

std::optional<double> num(const json::value& v) {
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    if (v.is_double()) return v.get_double();
    return std::nullopt;
}

std::string json_type_name(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return std::floor(v.get_double()) == v.get_double() ? "integer" : "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
    }
    return "unknown";
}

constexpr std::size_t max_pattern_input = 4096;

// Compiling a std::regex costs far more than matching: keep the patterns
// seen (per thread, bounded; schemas have few distinct patterns). Throws
// std::regex_error for a bad pattern, as the constructor does.
const std::regex& compiled(std::string_view pattern) {
    thread_local std::unordered_map<std::string, std::regex> cache;
    auto it = cache.find(std::string(pattern));
    if (it != cache.end()) return it->second;
    if (cache.size() >= 256) cache.clear();
    std::regex re(std::string(pattern), std::regex::ECMAScript);
    return cache.emplace(std::string(pattern), std::move(re)).first->second;
}

std::string fmt_num(double d) {
    if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
    return json::serialize(json::value(d));
}

// Pruning and defaulting, in place (structural schema semantics).
void prune_and_default(json::value& v, const json::object& s, bool root) {
    if (v.is_object()) {
        auto& o = v.as_object();
        const auto* props = sub(s, "properties");
        const auto* additional = s.if_contains("additionalProperties");
        bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
        bool embedded = flag(s, "x-kubernetes-embedded-resource");
        if (props) {
            // Defaults for absent fields and for nulls of non-nullable fields.
            for (const auto& p : *props) {
                if (!p.value().is_object()) continue;
                const auto& ps = p.value().as_object();
                const auto* def = ps.if_contains("default");
                auto* cur = o.if_contains(p.key());
                if (def && (!cur || (cur->is_null() && !flag(ps, "nullable")))) o[p.key()] = *def;
            }
        }
        for (auto it = o.begin(); it != o.end();) {
            std::string_view key = it->key();
            if ((root || embedded) && (key == "apiVersion" || key == "kind" || key == "metadata")) {
                ++it;
                continue;
            }
            const json::object* child = nullptr;
            if (props) {
                if (const auto* p = props->if_contains(key)) child = p->if_object();
            }
            if (!child && additional && additional->is_object()) child = &additional->as_object();
            if (child) {
                prune_and_default(it->value(), *child, false);
                ++it;
            } else if (preserve || (additional && additional->is_bool() && additional->get_bool())) {
                ++it;  // no schema for it: kept only when unknown fields are preserved
            } else {
                it = o.erase(it);
            }
        }
    } else if (v.is_array()) {
        if (const auto* items = sub(s, "items")) {
            for (auto& e : v.as_array()) prune_and_default(e, *items, false);
        }
    }
}

class validator {
public:
    explicit validator(std::vector<status_cause>& out) : out_(out) {}

    void run(const json::value& v, const json::object& s, const std::string& path, bool root) {
        if (v.is_null()) {
            if (flag(s, "nullable")) return;
            if (!type_of(s).empty()) type_error(path, v, type_of(s));
            return;
        }
        if (flag(s, "x-kubernetes-int-or-string")) {
            if (!(v.is_string() || v.is_int64() || v.is_uint64())) {
                invalid(path, "\"" + json_type_name(v) + "\"",
                        path + " in body must be of type integer,string: \"" + json_type_name(v) + "\"");
                return;
            }
        } else if (auto t = type_of(s); !t.empty() && !type_matches(v, t)) {
            type_error(path, v, t);
            return;
        }
        if (const auto* e = s.if_contains("enum"); e && e->is_array()) {
            bool found = false;
            for (const auto& ev : e->as_array()) found = found || ev == v;
            if (!found) {
                std::vector<std::string> allowed;
                for (const auto& ev : e->as_array()) allowed.push_back(ev.is_string() ? std::string(ev.get_string()) : json::serialize(ev));
                out_.push_back(errors::field_not_supported(path, json::serialize(v), allowed));
            }
        }
        if (auto n = num(v)) numeric(*n, v, s, path);
        if (v.is_string()) string_rules(v.get_string(), s, path);
        if (v.is_array()) array_rules(v.as_array(), s, path);
        if (v.is_object()) object_rules(v.as_object(), s, path, root);
    }

private:
    static bool type_matches(const json::value& v, const std::string& t) {
        if (t == "object") return v.is_object();
        if (t == "array") return v.is_array();
        if (t == "string") return v.is_string();
        if (t == "boolean") return v.is_bool();
        if (t == "integer") return v.is_int64() || v.is_uint64() || (v.is_double() && std::floor(v.get_double()) == v.get_double());
        if (t == "number") return v.is_int64() || v.is_uint64() || v.is_double();
        return true;
    }

    void type_error(const std::string& path, const json::value& v, const std::string& t) {
        auto actual = json_type_name(v);
        invalid(path, "\"" + actual + "\"", path + " in body must be of type " + t + ": \"" + actual + "\"");
    }

    void invalid(const std::string& path, const std::string& value_json, const std::string& detail) {
        out_.push_back(errors::field_invalid(path, value_json, detail));
    }

    void numeric(double n, const json::value& v, const json::object& s, const std::string& path) {
        auto shown = json::serialize(v);
        if (const auto* m = s.if_contains("maximum")) {
            if (auto max = num(*m)) {
                bool excl = flag(s, "exclusiveMaximum");
                if (excl ? n >= *max : n > *max) {
                    invalid(path, shown, path + " in body should be less than " + std::string(excl ? "" : "or equal to ") + fmt_num(*max));
                }
            }
        }
        if (const auto* m = s.if_contains("minimum")) {
            if (auto min = num(*m)) {
                bool excl = flag(s, "exclusiveMinimum");
                if (excl ? n <= *min : n < *min) {
                    invalid(path, shown, path + " in body should be greater than " + std::string(excl ? "" : "or equal to ") + fmt_num(*min));
                }
            }
        }
        if (const auto* m = s.if_contains("multipleOf")) {
            if (auto mul = num(*m); mul && *mul > 0) {
                double q = n / *mul;
                if (std::fabs(q - std::round(q)) > 1e-9) invalid(path, shown, path + " in body should be a multiple of " + fmt_num(*mul));
            }
        }
    }

    void string_rules(std::string_view str, const json::object& s, const std::string& path) {
        auto shown = json::serialize(json::value(str));
        if (const auto* m = s.if_contains("maxLength"); m && num(*m)) {
            auto max = static_cast<std::size_t>(*num(*m));
            if (str.size() > max) {
                out_.push_back({"FieldValueTooLong", "Too long: may not be more than " + std::to_string(max) +
                                                         (max == 1 ? " byte" : " bytes"), path});
            }
        }
        if (const auto* m = s.if_contains("minLength"); m && num(*m)) {
            auto min = static_cast<std::size_t>(*num(*m));
            if (str.size() < min) invalid(path, shown, path + " in body should be at least " + std::to_string(min) + " chars long");
        }
        if (const auto* p = s.if_contains("pattern"); p && p->is_string()) {
            // libstdc++'s std::regex recurses per character and overflows the
            // stack on long inputs (RE2 on the real server does not): refuse
            // to match strings beyond a bound rather than crash.
            if (str.size() > max_pattern_input) {
                invalid(path, "\"...\"", path + " in body is too long to be matched against pattern '" +
                                             std::string(p->get_string()) + "' (kcoro-apiserver limit " +
                                             std::to_string(max_pattern_input) + " bytes)");
                return;
            }
            try {
                const auto& re = compiled(p->get_string());
                if (!std::regex_search(str.begin(), str.end(), re)) {
                    invalid(path, shown, path + " in body should match '" + std::string(p->get_string()) + "'");
                }
            } catch (const std::regex_error&) {
                invalid(path, shown, "invalid pattern in schema: " + std::string(p->get_string()));
            }
        }
    }

    void array_rules(const json::array& a, const json::object& s, const std::string& path) {
        if (const auto* m = s.if_contains("maxItems"); m && num(*m)) {
            auto max = static_cast<std::size_t>(*num(*m));
            if (a.size() > max) {
                out_.push_back({"FieldValueTooMany", "Too many: " + std::to_string(a.size()) + ": must have at most " +
                                                         std::to_string(max) + " items", path});
            }
        }
        if (const auto* m = s.if_contains("minItems"); m && num(*m)) {
            auto min = static_cast<std::size_t>(*num(*m));
            if (a.size() < min) invalid(path, std::to_string(a.size()), path + " in body should have at least " + std::to_string(min) + " items");
        }
        if (flag(s, "uniqueItems")) {
            for (std::size_t i = 1; i < a.size(); ++i) {
                for (std::size_t j = 0; j < i; ++j) {
                    if (a[i] == a[j]) {
                        out_.push_back({"FieldValueDuplicate", "Duplicate value: " + json::serialize(a[i]),
                                        path + "[" + std::to_string(i) + "]"});
                        break;
                    }
                }
            }
        }
        if (const auto* items = sub(s, "items")) {
            for (std::size_t i = 0; i < a.size(); ++i) run(a[i], *items, path + "[" + std::to_string(i) + "]", false);
        }
    }

    void object_rules(const json::object& o, const json::object& s, const std::string& path, bool root) {
        auto child_path = [&](std::string_view k) { return path.empty() ? std::string(k) : path + "." + std::string(k); };
        if (const auto* req = s.if_contains("required"); req && req->is_array()) {
            for (const auto& r : req->as_array()) {
                if (r.is_string() && !o.contains(r.get_string())) out_.push_back(errors::field_required(child_path(r.get_string())));
            }
        }
        if (const auto* m = s.if_contains("maxProperties"); m && num(*m)) {
            auto max = static_cast<std::size_t>(*num(*m));
            if (o.size() > max) out_.push_back({"FieldValueTooMany", "Too many: " + std::to_string(o.size()) + ": must have at most " + std::to_string(max) + " items", path});
        }
        if (const auto* m = s.if_contains("minProperties"); m && num(*m)) {
            auto min = static_cast<std::size_t>(*num(*m));
            if (o.size() < min) invalid(path, std::to_string(o.size()), path + " in body should have at least " + std::to_string(min) + " properties");
        }
        const auto* props = sub(s, "properties");
        const auto* additional = sub(s, "additionalProperties");
        std::set<std::string> keys;
        for (const auto& kv : o) keys.insert(std::string(kv.key()));
        for (const auto& k : keys) {
            if (root && (k == "apiVersion" || k == "kind" || k == "metadata")) continue;
            const json::object* child = nullptr;
            if (props) {
                if (const auto* p = props->if_contains(k)) child = p->if_object();
            }
            if (!child) child = additional;
            if (child) run(o.at(k), *child, child_path(k), false);
        }
    }

    std::vector<status_cause>& out_;
};

} // namespace

std::vector<status_cause> validate_custom_resource(json::object& obj, const json::object& schema) {
    std::vector<status_cause> causes;
    json::value v(std::move(obj));
    prune_and_default(v, schema, true);
    validator(causes).run(v, schema, "", true);
    obj = std::move(v.as_object());
    return causes;
}

} // namespace kcoro::apiserver
