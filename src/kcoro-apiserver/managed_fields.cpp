#include "managed_fields.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <iterator>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

int rank(std::string_view e) noexcept {
    switch (e.empty() ? ' ' : e[0]) {
    case 'f': return 0;
    case 'k': return 1;
    case 'v': return 2;
    case 'i': return 3;
    default: return 4;
    }
}

bool element_less(const std::string& a, const std::string& b) noexcept {
    int ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
}

// Fields the stripMeta manager removes from every set (fieldmanager/internal/stripmeta.go).
bool stripped(const field_path& p) {
    static const std::vector<field_path> strip = {
        {"f:apiVersion"}, {"f:kind"}, {"f:metadata"},
        {"f:metadata", "f:name"}, {"f:metadata", "f:namespace"}, {"f:metadata", "f:creationTimestamp"},
        {"f:metadata", "f:selfLink"}, {"f:metadata", "f:uid"}, {"f:metadata", "f:clusterName"},
        {"f:metadata", "f:generation"}, {"f:metadata", "f:managedFields"}, {"f:metadata", "f:resourceVersion"},
    };
    static const field_path managed_fields{"f:metadata", "f:managedFields"};
    if (managed_fields.is_prefix_of(p)) return true;
    return std::find(strip.begin(), strip.end(), p) != strip.end();
}

// The "k:" element of a list-map item, or nullopt when it lacks every key.
std::optional<std::string> key_element(const json::object& item, const std::vector<std::string>& keys) {
    std::vector<std::string> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    json::object k;
    for (const auto& name : sorted) {
        if (const auto* v = item.if_contains(name)) k[name] = *v;
    }
    if (k.empty()) return std::nullopt;
    return "k:" + json::serialize(k);
}

// Structs every Go object of a built-in kind has even when empty, so an
// Update never "adds" them.
bool always_present_struct(std::string_view schema) {
    static constexpr std::string_view paths[] = {
        "spec", "status", "spec.template", "spec.template.metadata", "spec.template.spec", "spec.strategy",
        "spec.jobTemplate", "spec.jobTemplate.spec", "spec.jobTemplate.spec.template",
        "spec.jobTemplate.spec.template.spec", "spec.jobTemplate.spec.template.metadata"};
    return std::find(std::begin(paths), std::end(paths), schema) != std::end(paths);
}

struct collector {
    const list_strategies& lists;
    field_values& out;
    bool with_maps = false;
    bool typed = false;

    void member(const field_path& p, const json::value* v) {
        if (!stripped(p)) out[p] = v;
    }

    void object(const json::object& o, field_path& p, const std::string& schema) {
        for (const auto& [k, child] : o) {
            p.push("f:" + std::string(k));
            std::string cs = schema.empty() ? std::string(k) : schema + "." + std::string(k);
            value(child, p, cs);
            p.pop();
        }
    }

    void value(const json::value& v, field_path& p, const std::string& schema) {
        if (const auto* o = v.if_object()) {
            if (o->empty()) {
                member(p, &v);
                return;
            }
            if (with_maps && !p.empty() && !(typed && always_present_struct(schema))) member(p, nullptr);
            object(*o, p, schema);
        } else if (const auto* a = v.if_array()) {
            list(*a, v, p, schema);
        } else {
            member(p, &v);
        }
    }

    void list(const json::array& a, const json::value& whole, field_path& p, const std::string& schema) {
        auto it = lists.find(schema);
        list_type type = it == lists.end() ? list_type::atomic : it->second.type;
        if (type == list_type::set) {
            if (std::any_of(a.begin(), a.end(), [](const json::value& x) { return x.is_object() || x.is_array(); })) {
                member(p, &whole);
                return;
            }
            for (const auto& x : a) {
                p.push("v:" + json::serialize(x));
                member(p, &x);
                p.pop();
            }
            return;
        }
        if (type == list_type::map) {
            std::vector<std::string> elems;
            for (const auto& x : a) {
                const auto* xo = x.if_object();
                auto e = xo ? key_element(*xo, it->second.map_keys) : std::nullopt;
                if (!e) {
                    // An item without its keys: SSA cannot address it; own the list whole.
                    member(p, &whole);
                    return;
                }
                elems.push_back(std::move(*e));
            }
            for (std::size_t i = 0; i < a.size(); ++i) {
                p.push(elems[i]);
                member(p, nullptr);
                object(a[i].get_object(), p, schema);
                p.pop();
            }
            return;
        }
        member(p, &whole);  // atomic
    }
};

void decode_into(const json::object& o, field_path& p, field_set& out) {
    for (const auto& [k, v] : o) {
        if (k == ".") {
            if (!p.empty()) out.insert(p);
            continue;
        }
        const auto* child = v.if_object();
        if (!child) continue;
        p.push(k);
        if (child->empty()) out.insert(p);
        else decode_into(*child, p, out);
        p.pop();
    }
}

std::string_view str(const json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

} // namespace

std::vector<std::string_view> field_path::elements() const {
    std::vector<std::string_view> out;
    std::string_view rest = s_;
    while (!rest.empty()) {
        auto end = rest.find('\0');
        out.push_back(rest.substr(0, end));
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
    return out;
}

bool is_stripped_meta_field(const field_path& p) { return stripped(p); }

std::string to_string(const field_path& p) {
    std::string out;
    for (std::string_view e : p.elements()) {
        std::string_view body = e.substr(std::min<std::size_t>(2, e.size()));
        switch (e.empty() ? ' ' : e[0]) {
        case 'f': out += "."; out += body; break;
        case 'v': out += "[="; out += body; out += "]"; break;
        case 'i': out += "["; out += body; out += "]"; break;
        case 'k': {
            boost::system::error_code ec;
            auto k = json::parse(body, ec);
            out += "[";
            if (!ec && k.is_object()) {
                bool first = true;
                for (const auto& [name, val] : k.get_object()) {
                    if (!first) out += ",";
                    first = false;
                    out += std::string(name) + "=" + json::serialize(val);
                }
            }
            out += "]";
            break;
        }
        default: out += std::string(e);
        }
    }
    return out;
}

field_values field_values_of(const json::object& obj, const list_strategies& lists, bool with_maps, bool typed) {
    field_values out;
    collector c{lists, out, with_maps, typed};
    field_path p;
    c.object(obj, p, "");
    return out;
}

field_set fields_of(const json::object& obj, const list_strategies& lists) {
    field_set s;
    for (const auto& entry : field_values_of(obj, lists)) s.insert(entry.first);
    return s;
}

json::object to_fields_v1(const field_set& s) {
    // Build a trie then emit it; std::map keeps the server's element order.
    struct node {
        bool member = false;
        std::map<std::string, node, decltype(&element_less)> children{&element_less};
    };
    node root;
    for (const auto& p : s) {
        node* n = &root;
        for (std::string_view e : p.elements()) n = &n->children[std::string(e)];
        n->member = true;
    }
    struct emit {
        static json::object run(const node& n) {
            json::object o;
            if (n.member && !n.children.empty()) o["."] = json::object{};
            for (const auto& [e, c] : n.children) o[e] = run(c);
            return o;
        }
    };
    return emit::run(root);
}

field_set from_fields_v1(const json::value& v) {
    field_set out;
    if (const auto* o = v.if_object()) {
        field_path p;
        decode_into(*o, p, out);
    }
    return out;
}

bool owns_at_or_below(const field_set& s, const field_path& p) {
    auto it = s.lower_bound(p);  // descendants sort right after their ancestor
    return it != s.end() && p.is_prefix_of(*it);
}

bool owns_above(const field_set& s, const field_path& p) {
    return std::any_of(s.begin(), s.end(), [&](const field_path& e) { return e != p && e.is_prefix_of(p); });
}

field_set set_union(const field_set& a, const field_set& b) {
    field_set out = a;
    out.insert(b.begin(), b.end());
    return out;
}
field_set set_difference(const field_set& a, const field_set& b) {
    field_set out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}
field_set set_intersection(const field_set& a, const field_set& b) {
    field_set out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}

bool managed_fields_entry::same_manager(const managed_fields_entry& o) const noexcept {
    if (manager != o.manager || operation != o.operation || subresource != o.subresource) return false;
    return operation == managed_operation::apply || api_version == o.api_version;
}

std::string managed_fields_entry::printable() const {
    std::string s = json::serialize(json::value(manager));
    if (!subresource.empty()) s += " with subresource " + json::serialize(json::value(subresource));
    // fieldmanager/internal/conflict.go printManager prints the manager
    // identifier (BuildManagerIdentifier), which never holds the time: no
    // "at <time>" in practice.
    if (operation == managed_operation::update) s += " using " + api_version;
    return s;
}

std::optional<std::vector<managed_fields_entry>> decode_managed_fields(const json::object& obj) {
    const json::value* mf = managed_fields_of(obj);
    const auto* arr = mf ? mf->if_array() : nullptr;
    if (!arr || arr->empty()) return std::nullopt;
    std::vector<managed_fields_entry> out;
    for (const auto& ev : *arr) {
        const auto* e = ev.if_object();
        if (!e) return std::nullopt;
        managed_fields_entry m;
        m.manager = str(*e, "manager");
        auto op = str(*e, "operation");
        if (op == "Apply") m.operation = managed_operation::apply;
        else if (op == "Update") m.operation = managed_operation::update;
        else return std::nullopt;
        m.api_version = str(*e, "apiVersion");
        m.time = str(*e, "time");
        m.subresource = str(*e, "subresource");
        if (const auto* f = e->if_contains("fieldsV1")) m.fields = from_fields_v1(*f);
        out.push_back(std::move(m));
    }
    return out;
}

json::array encode_managed_fields(std::vector<managed_fields_entry> entries) {
    std::erase_if(entries, [](const managed_fields_entry& e) { return e.fields.empty(); });
    std::sort(entries.begin(), entries.end(), [](const managed_fields_entry& p, const managed_fields_entry& q) {
        // "Apply" sorts before "Update"; RFC 3339 UTC strings sort by time.
        if (p.operation != q.operation) return p.operation == managed_operation::apply;
        if (p.time != q.time) return p.time < q.time;
        if (p.manager != q.manager) return p.manager < q.manager;
        if (p.api_version != q.api_version) return p.api_version < q.api_version;
        return p.subresource < q.subresource;
    });
    json::array out;
    for (const auto& e : entries) {
        json::object o;
        o["manager"] = e.manager;
        o["operation"] = e.operation == managed_operation::apply ? "Apply" : "Update";
        o["apiVersion"] = e.api_version;
        if (!e.time.empty()) o["time"] = e.time;
        o["fieldsType"] = "FieldsV1";
        o["fieldsV1"] = to_fields_v1(e.fields);
        if (!e.subresource.empty()) o["subresource"] = e.subresource;
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace kcoro::apiserver
