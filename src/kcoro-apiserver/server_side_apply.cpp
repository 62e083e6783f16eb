#include "server_side_apply.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>
#include <cctype>
#include <optional>
#include <set>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

constexpr std::size_t max_update_managers = 10;
constexpr std::string_view ancient_changes_manager = "ancient-changes";
constexpr std::string_view before_first_apply_manager = "before-first-apply";

json::object without_managed_fields(json::object o) {
    strip_managed_fields(o);
    return o;
}

// Null in an applied configuration means "not set by me".
void strip_nulls(json::object& o) {
    for (auto it = o.begin(); it != o.end();) {
        if (it->value().is_null()) {
            it = o.erase(it);
            continue;
        }
        if (auto* c = it->value().if_object()) strip_nulls(*c);
        if (auto* a = it->value().if_array()) {
            for (auto& x : *a) {
                if (auto* xo = x.if_object()) strip_nulls(*xo);
            }
        }
        ++it;
    }
}

field_set in_scope(field_set s, field_scope scope) {
    if (scope == field_scope::all) return s;
    std::erase_if(s, [&](const field_path& p) {
        static const field_path status_path{"f:status"};
        bool status = status_path.is_prefix_of(p);
        return scope == field_scope::main_without_status ? status : !status;
    });
    return s;
}

std::string_view subresource_of(field_scope scope) { return scope == field_scope::status_subresource ? "status" : ""; }

// The "k:" element of a list-map item (keys sorted, as managed_fields.cpp).
std::optional<std::string> key_of_item(const json::value& item, const list_strategy& s) {
    const auto* o = item.if_object();
    if (!o) return std::nullopt;
    std::vector<std::string> keys = s.map_keys;
    std::sort(keys.begin(), keys.end());
    json::object k;
    for (const auto& name : keys) {
        if (const auto* v = o->if_contains(name)) k[name] = *v;
    }
    if (k.empty()) return std::nullopt;
    return "k:" + json::serialize(k);
}

// structured-merge-diff's merge of a configuration into the live object.
struct merger {
    const list_strategies& lists;

    void object(json::object& live, const json::object& cfg, const std::string& schema) {
        for (const auto& [k, cv] : cfg) {
            std::string cs = schema.empty() ? std::string(k) : schema + "." + std::string(k);
            auto* lv = live.if_contains(k);
            if (!lv) {
                live[k] = cv;
            } else if (lv->is_object() && cv.is_object()) {
                object(lv->get_object(), cv.get_object(), cs);
            } else if (lv->is_array() && cv.is_array()) {
                list(lv->get_array(), cv.get_array(), cs);
            } else {
                *lv = cv;
            }
        }
    }

    void list(json::array& live, const json::array& cfg, const std::string& schema) {
        auto it = lists.find(schema);
        if (it == lists.end() || it->second.type == list_type::atomic) {
            live = cfg;
            return;
        }
        if (it->second.type == list_type::set) {
            for (const auto& v : cfg) {
                if (std::none_of(live.begin(), live.end(), [&](const json::value& l) { return json_equal(l, v); })) {
                    live.push_back(v);
                }
            }
            return;
        }
        for (const auto& item : cfg) {
            auto key = key_of_item(item, it->second);
            if (!key) {  // not addressable: the configuration's list wins whole
                live = cfg;
                return;
            }
        }
        // Key each live item once: lists of containers or env vars are long.
        std::map<std::string, std::size_t> live_index;
        for (std::size_t i = 0; i < live.size(); ++i) {
            if (auto k = key_of_item(live[i], it->second); k && live[i].is_object()) live_index.emplace(std::move(*k), i);
        }
        for (const auto& item : cfg) {
            auto key = key_of_item(item, it->second);
            auto match = live_index.find(*key);
            if (match != live_index.end()) {
                object(live[match->second].get_object(), item.get_object(), schema);
            } else {
                live_index.emplace(*key, live.size());
                live.push_back(item);
            }
        }
    }
};

// The applied configuration as structured-merge-diff types it
// (structuredmerge.go: "Don't allow duplicates in the applied object"): two
// items of one list-map with the same key, or one value twice in a set, are
// "duplicate entries for key [...]" at the list's path.
struct duplicate_finder {
    const list_strategies& lists;
    std::vector<std::string>& errors;

    void object(const json::object& o, field_path& p, const std::string& schema) {
        for (const auto& [k, v] : o) {
            p.push("f:" + std::string(k));
            value(v, p, schema.empty() ? std::string(k) : schema + "." + std::string(k));
            p.pop();
        }
    }

    void value(const json::value& v, field_path& p, const std::string& schema) {
        if (const auto* o = v.if_object()) return object(*o, p, schema);
        const auto* a = v.if_array();
        if (!a) return;
        auto it = lists.find(schema);
        if (it == lists.end() || it->second.type == list_type::atomic) return;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < a->size(); ++i) {
            const json::value& item = (*a)[i];
            std::optional<std::string> element;
            if (it->second.type == list_type::set) {
                element = "v:" + json::serialize(item);
            } else {
                element = key_of_item(item, it->second);
            }
            if (!element) continue;  // not addressable: the merge takes the list whole
            if (!seen.insert(*element).second) {
                field_path e;
                e.push(*element);
                errors.push_back(to_string(p) + ": duplicate entries for key " + to_string(e));
            }
            if (it->second.type == list_type::map && item.is_object()) {
                p.push(*element);
                object(item.get_object(), p, schema);
                p.pop();
            }
        }
    }
};

// Whether a list-map path element ("k:" body) addresses `item`: the item's
// whole key (its key fields present, sorted) equals it, as
// structured-merge-diff compares path elements. A partial or empty key
// addresses nothing (found by libFuzzer: a client-written "k:{}" in
// managedFields matched every item, so an apply pruned the item it had just
// added).
bool item_matches(const json::value& item, std::string_view key_json, const list_strategy& s) {
    auto item_key = key_of_item(item, s);
    if (!item_key) return false;
    boost::system::error_code ec;
    auto k = json::parse(key_json, ec);
    if (ec || !k.is_object() || k.get_object().empty()) return false;
    std::vector<std::string_view> names;
    for (const auto& kv : k.get_object()) names.push_back(kv.key());
    std::sort(names.begin(), names.end());
    json::object sorted;
    for (auto n : names) sorted[n] = k.get_object().at(n);
    return std::string_view(*item_key).substr(2) == json::serialize(sorted);
}

// One step down a field path. Items are addressed as their list addresses
// them (structured-merge-diff's listItemToPathElement): a list-map's by
// "k:", a set's values by "v:"; an element of the other kind, or any inside
// an atomic list, addresses nothing. `schema` follows the field names.
json::value* child_of(json::value& cur, std::string_view e, std::string& schema, const list_strategies& lists) {
    // Paths may come from client-supplied managedFields: never trust their shape.
    if (e.size() < 2) return nullptr;
    std::string_view body = e.substr(2);
    if (e.starts_with("f:")) {
        auto* o = cur.if_object();
        if (!o) return nullptr;
        schema = schema.empty() ? std::string(body) : schema + "." + std::string(body);
        return o->if_contains(body);
    }
    if (e.starts_with("k:")) {
        auto* a = cur.if_array();
        auto st = lists.find(schema);
        if (!a || st == lists.end() || st->second.type != list_type::map) return nullptr;
        auto it = std::find_if(a->begin(), a->end(), [&](const json::value& x) { return item_matches(x, body, st->second); });
        return it == a->end() ? nullptr : &*it;
    }
    return nullptr;
}

// Remove the value at a field path (a key, a list-map item or a set value),
// as structured-merge-diff's removing walker (typed/remove.go: each item's
// own path element, listItemToPathElement, looked up exactly; nothing inside
// an atomic list): an item is removed only when
// the path addresses it the way its list does (found by libFuzzer: a "v:"
// element a client wrote into managedFields for a list-map removed the item
// an apply had just added, so re-applying changed the object).
void remove_path(json::value& root, const field_path& p, const list_strategies& lists) {
    auto els = p.elements();
    if (els.empty()) return;
    json::value* cur = &root;
    std::string schema;
    for (std::size_t i = 0; i + 1 < els.size() && cur; ++i) cur = child_of(*cur, els[i], schema, lists);
    if (!cur) return;
    std::string_view last = els.back();
    if (last.size() < 2) return;
    std::string_view body = last.substr(2);
    if (last.starts_with("f:")) {
        if (auto* o = cur->if_object()) o->erase(body);
    } else if (auto* a = cur->if_array()) {
        auto st = lists.find(schema);
        const auto type = st == lists.end() ? list_type::atomic : st->second.type;
        boost::system::error_code ec;
        json::value v = last.starts_with("v:") ? json::parse(body, ec) : json::value();
        for (auto it = a->begin(); it != a->end();) {
            bool hit = last.starts_with("k:") ? type == list_type::map && item_matches(*it, body, st->second)
                                              : type == list_type::set && !ec && last.starts_with("v:") && json_equal(*it, v);
            it = hit ? a->erase(it) : it + 1;
        }
    }
}

// A list-map item's key field (".containers[name=\"a\"].name"): it goes with
// the item, never alone, or the item could no longer be addressed.
bool is_item_key_field(const field_path& p) {
    auto els = p.elements();
    if (els.size() < 2 || !els.back().starts_with("f:") || !els[els.size() - 2].starts_with("k:")) return false;
    boost::system::error_code ec;
    auto k = json::parse(els[els.size() - 2].substr(2), ec);
    return !ec && k.is_object() && k.get_object().contains(els.back().substr(2));
}

struct comparison {
    field_set changed;  // added or modified
    field_set removed;
};

// What changed between two objects (structured-merge-diff's Compare).
comparison compare(const json::object& old_obj, const json::object& new_obj, const list_strategies& lists) {
    std::string_view api_version = api_version_of(new_obj).empty() ? api_version_of(old_obj) : api_version_of(new_obj);
    bool typed = supports_strategic_merge(api_version);
    auto a = field_values_of(old_obj, lists, true, typed);
    auto b = field_values_of(new_obj, lists, true, typed);
    comparison c;
    for (const auto& [p, v] : b) {
        auto it = a.find(p);
        if (it == a.end()) {
            c.changed.insert(p);
        } else if (v && it->second && !json_equal(*v, *it->second)) {
            c.changed.insert(p);
        }
    }
    for (const auto& entry : a) {
        if (!b.contains(entry.first)) c.removed.insert(entry.first);
    }
    return c;
}

std::vector<managed_fields_entry> entries_of(const json::object& obj) {
    auto d = decode_managed_fields(obj);
    return d ? std::move(*d) : std::vector<managed_fields_entry>{};
}

// Keep at most 10 Update entries (capmanagers.go): the oldest are merged
// into one "ancient-changes" entry.
void cap_update_managers(std::vector<managed_fields_entry>& entries) {
    auto count = [&] {
        return std::count_if(entries.begin(), entries.end(),
                             [](const managed_fields_entry& e) { return e.operation == managed_operation::update; });
    };
    while (static_cast<std::size_t>(count()) > max_update_managers) {
        auto oldest = entries.end();
        for (auto it = entries.begin(); it != entries.end(); ++it) {
            if (it->operation != managed_operation::update || it->manager == ancient_changes_manager) continue;
            if (oldest == entries.end() || it->time < oldest->time) oldest = it;
        }
        if (oldest == entries.end()) return;
        managed_fields_entry moved = std::move(*oldest);
        entries.erase(oldest);
        auto ancient = std::find_if(entries.begin(), entries.end(), [&](const managed_fields_entry& e) {
            return e.manager == ancient_changes_manager && e.operation == managed_operation::update;
        });
        if (ancient == entries.end()) {
            managed_fields_entry a;
            a.manager = std::string(ancient_changes_manager);
            a.operation = managed_operation::update;
            a.api_version = moved.api_version;
            a.time = moved.time;
            a.fields = std::move(moved.fields);
            entries.push_back(std::move(a));
        } else {
            ancient->fields = set_union(ancient->fields, moved.fields);
        }
    }
}

void write_entries(json::object& obj, std::vector<managed_fields_entry> entries) {
    json::array encoded = encode_managed_fields(std::move(entries));
    if (encoded.empty()) {
        strip_managed_fields(obj);
    } else {
        mutable_metadata(obj)["managedFields"] = std::move(encoded);
    }
}

// The Update bookkeeping shared by update_managed_fields and the
// before-first-apply attribution.
void record_update(std::vector<managed_fields_entry>& entries, const comparison& c, managed_fields_entry self,
                   const std::string& now) {
    for (auto& e : entries) {
        if (e.same_manager(self)) continue;
        e.fields = set_difference(set_difference(e.fields, c.changed), c.removed);
    }
    auto it = std::find_if(entries.begin(), entries.end(), [&](const managed_fields_entry& e) { return e.same_manager(self); });
    if (it == entries.end()) {
        entries.push_back(std::move(self));
        it = entries.end() - 1;
    }
    it->fields = set_union(set_difference(it->fields, c.removed), c.changed);
    if (!c.changed.empty() || it->time.empty()) it->time = now;
}

error bad_request(std::string message) {
    status s;
    s.outcome = "Failure";
    s.reason = "BadRequest";
    s.code = 400;
    s.message = std::move(message);
    return error::from_status(std::move(s));
}

error conflict_error(const std::vector<std::pair<const managed_fields_entry*, field_set>>& conflicts) {
    status s;
    s.outcome = "Failure";
    s.reason = "Conflict";
    s.code = 409;
    status_details d;
    std::size_t total = 0;
    for (const auto& [e, fields] : conflicts) {
        for (const auto& p : fields) {
            d.causes.push_back(status_cause{"FieldManagerConflict", "conflict with " + e->printable(), to_string(p)});
            ++total;
        }
    }
    if (total == 1) {
        s.message = "Apply failed with 1 conflict: " + d.causes[0].message + ": " + d.causes[0].field;
    } else {
        std::string m = "Apply failed with " + std::to_string(total) + " conflicts: ";
        bool first = true;
        for (const auto& [e, fields] : conflicts) {
            if (!first) m += "\n";
            first = false;
            m += "conflicts with " + e->printable() + ":";
            for (const auto& p : fields) m += "\n- " + to_string(p);
        }
        s.message = std::move(m);
    }
    s.details = std::move(d);
    return error::from_status(std::move(s));
}

} // namespace

std::string field_manager_or_user_agent(std::string_view field_manager, std::string_view user_agent) {
    if (!field_manager.empty()) return std::string(field_manager);
    std::string_view prefix = user_agent.substr(0, user_agent.find('/'));
    std::string out;
    for (char c : prefix) {
        // Printable ASCII and any UTF-8 byte; control characters are dropped.
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) continue;
        if (out.size() + 1 > 128) break;
        out += c;
    }
    return out;
}

error field_manager_required() {
    status s;
    s.outcome = "Failure";
    s.reason = "Invalid";
    s.code = 422;
    s.message = "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch";
    status_details d;
    d.group = "meta.k8s.io";
    d.kind = "PatchOptions";
    d.causes.push_back(status_cause{"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"});
    s.details = std::move(d);
    return error::from_status(std::move(s));
}

result<json::object> server_side_apply(const json::object& live, const json::object& applied,
                                       const apply_options& options, const list_strategies& lists) {
    if (options.manager.empty()) return field_manager_required();
    // Both checks as structuredmerge.go makes them, with its texts.
    if (applied.contains("metadata") && managed_fields_of(applied)) {
        return bad_request("metadata.managedFields must be nil");
    }
    if (auto want = api_version_of(live), got = api_version_of(applied); !want.empty() && want != got) {
        return bad_request("Incorrect version specified in apply patch. Specified patch version: " + std::string(got) +
                           ", expected: " + std::string(want));
    }
    const std::string now = format_rfc3339(options.now);
    json::object live_clean = without_managed_fields(live);
    json::object config = without_managed_fields(applied);
    strip_nulls(config);
    {
        std::vector<std::string> dups;
        field_path root;
        duplicate_finder{lists, dups}.object(config, root, "");
        if (!dups.empty()) {
            // A plain Go error: the handler answers 500 with the text.
            std::string gv(api_version_of(applied));
            if (gv.find('/') == std::string::npos) gv = "/" + gv;
            std::string msg = "failed to create typed patch object (" + std::string(namespace_of(applied)) + "/" +
                              std::string(name_of(applied)) + "; " + gv + ", Kind=" + std::string(kind_of(applied)) + "): ";
            if (dups.size() == 1) {
                msg += dups[0];
            } else {
                msg += "errors:";
                for (const auto& d : dups) msg += "\n  " + d;
            }
            status s;
            s.outcome = "Failure";
            s.code = 500;
            s.message = std::move(msg);
            return error::from_status(std::move(s));
        }
    }

    auto entries = entries_of(live);
    if (entries.empty() && !uid_of(live).empty()) {
        // An existing untracked object: its fields become someone's before the apply.
        managed_fields_entry first;
        first.manager = std::string(before_first_apply_manager);
        first.api_version = std::string(api_version_of(live));
        first.subresource = std::string(subresource_of(options.scope));
        comparison c = compare(json::object{}, live_clean, lists);
        c.changed = in_scope(std::move(c.changed), options.scope);
        record_update(entries, c, std::move(first), now);
    }

    managed_fields_entry self;
    self.manager = options.manager;
    self.operation = managed_operation::apply;
    self.api_version = std::string(api_version_of(applied));
    self.subresource = std::string(subresource_of(options.scope));
    self.fields = in_scope(fields_of(config, lists), options.scope);

    auto self_it = std::find_if(entries.begin(), entries.end(), [&](const managed_fields_entry& e) { return e.same_manager(self); });
    field_set last = self_it == entries.end() ? field_set{} : self_it->fields;

    json::value merged_v = live_clean;
    merger{lists}.object(merged_v.get_object(), config, "");

    // Fields this manager stopped applying go away unless someone else still owns them.
    field_set owned_elsewhere = self.fields;
    for (const auto& e : entries) {
        if (!e.same_manager(self)) owned_elsewhere.insert(e.fields.begin(), e.fields.end());
    }
    for (const auto& p : set_difference(last, self.fields)) {
        // apiVersion, kind and the server's metadata are never in a set the
        // server writes, only in managedFields a client wrote itself: the
        // real configuration's set has them (stripped only afterwards), so
        // they are never pruned (found by libFuzzer: kind vanished).
        if (is_stripped_meta_field(p)) continue;
        // Inside what this apply now owns as a whole (a list that became
        // atomic, a map that became a leaf): not a separate field any more,
        // so not pruned; structured-merge-diff cannot even address it
        // (found by libFuzzer: a keyed item pruned out of the atomic list
        // just applied, so re-applying changed the object).
        if (owns_above(self.fields, p)) continue;
        if (!owns_at_or_below(owned_elsewhere, p) && !is_item_key_field(p)) remove_path(merged_v, p, lists);
    }
    json::object merged = std::move(merged_v.get_object());

    comparison c = compare(live_clean, merged, lists);
    c.changed = in_scope(std::move(c.changed), options.scope);
    std::vector<std::pair<const managed_fields_entry*, field_set>> conflicts;
    for (const auto& e : entries) {
        if (e.same_manager(self)) continue;
        field_set hit = set_intersection(e.fields, c.changed);
        if (!hit.empty()) conflicts.emplace_back(&e, std::move(hit));
    }
    if (!conflicts.empty() && !options.force) {
        std::sort(conflicts.begin(), conflicts.end(), [](const auto& a, const auto& b) {
            return std::tie(a.first->manager, a.first->operation) < std::tie(b.first->manager, b.first->operation);
        });
        return conflict_error(conflicts);
    }
    for (auto& e : entries) {
        if (e.same_manager(self)) continue;
        // force takes conflicting fields over; removed fields leave every set
        e.fields = set_difference(set_difference(e.fields, c.changed), c.removed);
    }
    bool changed = !c.changed.empty() || !c.removed.empty();
    if (self_it != entries.end()) {
        self.time = (changed || self_it->time.empty()) ? now : self_it->time;
        *self_it = std::move(self);
    } else {
        self.time = now;
        entries.push_back(std::move(self));
    }
    cap_update_managers(entries);
    write_entries(merged, std::move(entries));
    return merged;
}

result<json::object> server_side_apply(const json::object& live, const json::object& applied,
                                       const apply_options& options) {
    // The endpoint's type (the live object's kind) decides how lists merge;
    // a configuration of another kind must not reinterpret the live lists
    // (found by libFuzzer: a keyed list read as atomic lost its items).
    std::string_view kind = kind_of(live).empty() ? kind_of(applied) : kind_of(live);
    return server_side_apply(live, applied, options, builtin_list_strategies(kind));
}

json::object update_managed_fields(const json::object& old_obj, json::object new_obj, const update_options& options,
                                   const list_strategies& lists) {
    auto entries = entries_of(new_obj);
    if (entries.empty()) entries = entries_of(old_obj);
    if (entries.empty() && !uid_of(old_obj).empty()) {
        // skipNonApplied: an existing object nobody tracks stays untracked.
        strip_managed_fields(new_obj);
        return new_obj;
    }
    json::object old_clean = without_managed_fields(old_obj);
    strip_managed_fields(new_obj);
    comparison c = compare(old_clean, new_obj, lists);
    c.changed = in_scope(std::move(c.changed), options.scope);
    c.removed = in_scope(std::move(c.removed), options.scope);

    managed_fields_entry self;
    self.manager = options.manager;
    self.operation = options.operation;
    self.api_version = std::string(api_version_of(new_obj));
    self.subresource = std::string(subresource_of(options.scope));
    record_update(entries, c, std::move(self), format_rfc3339(options.now));
    cap_update_managers(entries);
    write_entries(new_obj, std::move(entries));
    return new_obj;
}

json::object update_managed_fields(const json::object& old_obj, json::object new_obj, const update_options& options) {
    std::string_view kind = kind_of(new_obj).empty() ? kind_of(old_obj) : kind_of(new_obj);
    const auto& lists = builtin_list_strategies(kind);
    return update_managed_fields(old_obj, std::move(new_obj), options, lists);
}

} // namespace kcoro::apiserver
