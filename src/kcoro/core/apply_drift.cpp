#include <kcoro/core/apply_drift.hpp>

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/strategic_merge_patch.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <vector>

namespace kcoro {

namespace json = boost::json;

namespace {

using drift = std::optional<std::string>;

std::string join(const std::string& dotted, std::string_view field) {
    return dotted.empty() ? std::string(field) : dotted + "." + std::string(field);
}

std::string text(const json::value& v) {
    auto s = json::serialize(v);
    constexpr std::size_t max = 60;
    return s.size() > max ? s.substr(0, max) + "..." : s;
}

// `[name="web"]`, `[port=80,protocol="TCP"]`, as fieldpath.Path.String() prints keys.
std::string key_text(const json::object& keys) {
    std::string out = "[";
    bool first = true;
    for (const auto& [k, v] : keys) {
        out += (first ? "" : ",") + std::string(k) + "=" + json::serialize(v);
        first = false;
    }
    return out + "]";
}

// Does `item` carry these key fields with these values?
bool has_keys(const json::value& item, const json::object& keys) {
    const auto* o = item.if_object();
    if (!o) return false;
    for (const auto& [k, v] : keys) {
        const auto* f = o->if_contains(k);
        if (!f || !json_equal(*f, v)) return false;
    }
    return true;
}

// The key fields of an item of a list-map, as far as the item carries them
// (a port without `protocol` matches on `port`: the server defaults the rest).
json::object keys_of(const json::object& item, const list_strategy& s) {
    json::object keys;
    for (const auto& k : s.map_keys) {
        if (const auto* v = item.if_contains(k)) keys[k] = *v;
    }
    return keys;
}

// Rule 1: `live` holds every field of `applied`.
struct matcher {
    const list_strategies& lists;

    drift value(const json::value& applied, const json::value* live, const std::string& dotted,
                const std::string& shown) const {
        if (applied.is_null()) return std::nullopt;  // "not set by me"
        if (!live || live->is_null()) return shown + ": missing";
        if (const auto* a = applied.if_object()) {
            const auto* l = live->if_object();
            if (!l) return shown + ": " + text(*live) + ", want an object";
            for (const auto& [k, v] : *a) {
                if (auto d = value(v, l->if_contains(k), join(dotted, k), shown + "." + std::string(k))) return d;
            }
            return std::nullopt;
        }
        if (const auto* a = applied.if_array()) {
            const auto* l = live->if_array();
            if (!l) return shown + ": " + text(*live) + ", want a list";
            return list(*a, *l, dotted, shown);
        }
        if (!json_equal(applied, *live)) return shown + ": " + text(*live) + ", want " + text(applied);
        return std::nullopt;
    }

    drift list(const json::array& applied, const json::array& live, const std::string& dotted,
               const std::string& shown) const {
        auto it = lists.find(dotted);
        const auto type = it == lists.end() ? list_type::atomic : it->second.type;
        if (type == list_type::map) {
            for (const auto& item : applied) {
                const auto* io = item.if_object();
                if (!io) return shown + ": an item that is not an object";
                auto keys = keys_of(*io, it->second);
                const json::value* match = nullptr;
                for (const auto& l : live) {
                    if (has_keys(l, keys)) {
                        match = &l;
                        break;
                    }
                }
                const auto where = shown + key_text(keys);
                if (!match) return where + ": missing";
                if (auto d = value(item, match, dotted, where)) return d;
            }
            return std::nullopt;
        }
        if (type == list_type::set) {
            for (const auto& v : applied) {
                bool found = false;
                for (const auto& l : live) found = found || json_equal(v, l);
                if (!found) return shown + ": " + text(v) + " missing";
            }
            return std::nullopt;
        }
        // Atomic: ours, whole and in order; defaults inside items are the server's.
        if (applied.size() != live.size()) {
            return shown + ": " + std::to_string(live.size()) + " items, want " + std::to_string(applied.size());
        }
        for (std::size_t i = 0; i < applied.size(); ++i) {
            if (auto d = value(applied[i], &live[i], dotted, shown + "[" + std::to_string(i) + "]")) return d;
        }
        return std::nullopt;
    }
};

// Rule 2: what the manager's Apply entry owns is still applied.
struct owned_walker {
    drift walk(const json::object& owned, const json::value* applied, const std::string& shown) const {
        for (const auto& [element, sub] : owned) {
            const std::string_view e = element;
            if (e == "." || e.size() < 2 || e[1] != ':') continue;
            const auto name = e.substr(2);
            const json::value* next = nullptr;
            std::string where;
            if (e[0] == 'f') {
                const auto* o = applied ? applied->if_object() : nullptr;
                next = o ? o->if_contains(name) : nullptr;
                where = shown + "." + std::string(name);
            } else if (e[0] == 'k' || e[0] == 'v') {
                boost::system::error_code ec;
                auto parsed = json::parse(name, ec);
                if (ec) continue;  // undecodable: the server would reset such an entry
                const auto* a = applied ? applied->if_array() : nullptr;
                if (a) {
                    for (const auto& item : *a) {
                        const bool same = e[0] == 'k' ? parsed.is_object() && has_keys(item, parsed.as_object())
                                                      : json_equal(item, parsed);
                        if (same) {
                            next = &item;
                            break;
                        }
                    }
                }
                where = shown + (e[0] == 'k' && parsed.is_object() ? key_text(parsed.as_object())
                                                                    : "[" + json::serialize(parsed) + "]");
            } else {
                continue;  // "i:": positions in an atomic list, owned with the list
            }
            if (!next || next->is_null()) return where + ": applied before, no longer";
            if (const auto* so = sub.if_object(); so && !so->empty()) {
                if (auto d = walk(*so, next, where)) return d;
            }
        }
        return std::nullopt;
    }
};

const json::object* own_apply_entry(const json::object& live, std::string_view manager) {
    const auto* mf = managed_fields_of(live);
    if (!mf || !mf->is_array()) return nullptr;
    for (const auto& e : mf->get_array()) {
        const auto* eo = e.if_object();
        if (!eo) continue;
        const auto* m = eo->if_contains("manager");
        const auto* op = eo->if_contains("operation");
        const auto* sub = eo->if_contains("subresource");
        if (!m || !m->is_string() || m->get_string() != manager) continue;
        if (!op || !op->is_string() || op->get_string() != "Apply") continue;
        if (sub && sub->is_string() && !sub->get_string().empty()) continue;
        const auto* f = eo->if_contains("fieldsV1");
        return f ? f->if_object() : nullptr;
    }
    return nullptr;
}

// Collects the JSON patch removing live list-map items that replaced ours.
struct collider {
    const list_strategies& lists;
    json::array ops;

    static std::string escape(std::string_view k) {
        std::string out;
        for (char c : k) {
            if (c == '~') out += "~0";
            else if (c == '/') out += "~1";
            else out += c;
        }
        return out;
    }

    void value(const json::value& applied, const json::value* live, const std::string& dotted,
               const std::string& pointer) {
        if (!live) return;
        if (const auto* a = applied.if_object()) {
            const auto* l = live->if_object();
            if (!l) return;
            for (const auto& [k, v] : *a) {
                value(v, l->if_contains(k), join(dotted, k), pointer + "/" + escape(k));
            }
            return;
        }
        const auto* a = applied.if_array();
        const auto* l = live->if_array();
        if (!a || !l) return;
        auto it = lists.find(dotted);
        if (it == lists.end() || it->second.type != list_type::map) return;
        // Recurse into the items that are ours first (containers hold port lists).
        for (const auto& item : *a) {
            const auto* io = item.if_object();
            if (!io) continue;
            const auto keys = keys_of(*io, it->second);
            for (std::size_t i = 0; i < l->size(); ++i) {
                if (has_keys((*l)[i], keys)) {
                    value(item, &(*l)[i], dotted, pointer + "/" + std::to_string(i));
                    break;
                }
            }
        }
        // Then the items that took the place of one of ours (our item is
        // missing, theirs carries its name): replaced by ours in place.
        for (const auto& item : *a) {
            const auto* io = item.if_object();
            const auto* name = io ? io->if_contains("name") : nullptr;
            if (!name) continue;
            const auto keys = keys_of(*io, it->second);
            bool present = false;
            for (const auto& l_item : *l) present = present || has_keys(l_item, keys);
            if (present) continue;
            for (std::size_t i = 0; i < l->size(); ++i) {
                const auto* lo = (*l)[i].if_object();
                const auto* lname = lo ? lo->if_contains("name") : nullptr;
                if (!lname || !json_equal(*lname, *name)) continue;
                bool is_ours = false;
                for (const auto& other : *a) {
                    if (const auto* oo = other.if_object()) is_ours = is_ours || has_keys((*l)[i], keys_of(*oo, it->second));
                }
                if (is_ours) continue;
                const auto at = pointer + "/" + std::to_string(i);
                ops.push_back(json::object{{"op", "test"}, {"path", at}, {"value", (*l)[i]}});
                ops.push_back(json::object{{"op", "replace"}, {"path", at}, {"value", item}});
                break;
            }
        }
    }
};

} // namespace

std::optional<json::array> colliding_items_patch(const json::object& applied, const json::object& live) {
    collider c{builtin_list_strategies(kind_of(applied)), {}};
    for (const auto& [k, v] : applied) {
        if (k == "apiVersion" || k == "kind" || k == "status" || k == "metadata") continue;
        c.value(v, live.if_contains(k), std::string(k), "/" + collider::escape(k));
    }
    if (c.ops.empty()) return std::nullopt;
    return std::move(c.ops);
}

std::optional<std::string> apply_drift(const json::object& applied, const json::object& live,
                                       std::string_view field_manager) {
    const matcher m{builtin_list_strategies(kind_of(applied))};
    for (const auto& [k, v] : applied) {
        if (k == "apiVersion" || k == "kind" || k == "status") continue;
        if (k == "metadata") {
            const auto* am = v.if_object();
            const auto* lm = metadata_of(live);
            if (!am) continue;
            for (const char* f : {"labels", "annotations", "ownerReferences", "finalizers"}) {
                const auto* av = am->if_contains(f);
                if (!av) continue;
                const auto* lv = lm ? lm->if_contains(f) : nullptr;
                if (auto d = m.value(*av, lv, std::string("metadata.") + f, std::string(".metadata.") + f)) return d;
            }
            continue;
        }
        if (auto d = m.value(v, live.if_contains(k), std::string(k), "." + std::string(k))) return d;
    }
    if (const auto* owned = own_apply_entry(live, field_manager)) {
        // Only what the main resource tracks: metadata and spec-like fields.
        json::object scoped = *owned;
        scoped.erase("f:status");
        const json::value applied_value(applied);
        if (auto d = owned_walker{}.walk(scoped, &applied_value, "")) return d;
    }
    return std::nullopt;
}

} // namespace kcoro
