#include <kcoro/core/object.hpp>

#include <algorithm>

namespace kcoro {
namespace json = boost::json;

namespace {

std::string_view str_of(const json::object* o, std::string_view key) noexcept {
    if (!o) {
        return {};
    }
    if (const auto* v = o->if_contains(key); v && v->is_string()) {
        return v->get_string();
    }
    return {};
}

const json::object* obj_of(const json::object* o, std::string_view key) noexcept {
    if (!o) {
        return nullptr;
    }
    if (const auto* v = o->if_contains(key)) {
        return v->if_object();
    }
    return nullptr;
}

bool bool_of(const json::object& o, std::string_view key) noexcept {
    if (const auto* v = o.if_contains(key); v && v->is_bool()) {
        return v->get_bool();
    }
    return false;
}

} // namespace

const json::object* metadata_of(const json::object& obj) noexcept { return obj_of(&obj, "metadata"); }
std::string_view api_version_of(const json::object& obj) noexcept { return str_of(&obj, "apiVersion"); }
std::string_view kind_of(const json::object& obj) noexcept { return str_of(&obj, "kind"); }
std::string_view name_of(const json::object& obj) noexcept { return str_of(metadata_of(obj), "name"); }
std::string_view generate_name_of(const json::object& obj) noexcept {
    return str_of(metadata_of(obj), "generateName");
}
std::string_view namespace_of(const json::object& obj) noexcept {
    return str_of(metadata_of(obj), "namespace");
}
std::string_view uid_of(const json::object& obj) noexcept { return str_of(metadata_of(obj), "uid"); }
std::string_view resource_version_of(const json::object& obj) noexcept {
    return str_of(metadata_of(obj), "resourceVersion");
}
std::int64_t generation_of(const json::object& obj) noexcept {
    if (const auto* m = metadata_of(obj)) {
        if (const auto* v = m->if_contains("generation")) {
            if (v->is_int64()) return v->get_int64();
            if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
        }
    }
    return 0;
}
std::string_view creation_timestamp_of(const json::object& obj) noexcept {
    return str_of(metadata_of(obj), "creationTimestamp");
}
std::string_view deletion_timestamp_of(const json::object& obj) noexcept {
    return str_of(metadata_of(obj), "deletionTimestamp");
}
bool is_being_deleted(const json::object& obj) noexcept { return !deletion_timestamp_of(obj).empty(); }
object_key key_of(const json::object& obj) {
    return {std::string(namespace_of(obj)), std::string(name_of(obj))};
}

const json::object* labels_of(const json::object& obj) noexcept { return obj_of(metadata_of(obj), "labels"); }
const json::object* annotations_of(const json::object& obj) noexcept {
    return obj_of(metadata_of(obj), "annotations");
}

std::optional<std::string_view> label_of(const json::object& obj, std::string_view key) noexcept {
    if (const auto* l = labels_of(obj)) {
        if (const auto* v = l->if_contains(key); v && v->is_string()) {
            return std::string_view(v->get_string());
        }
    }
    return std::nullopt;
}

std::optional<std::string_view> annotation_of(const json::object& obj, std::string_view key) noexcept {
    if (const auto* a = annotations_of(obj)) {
        if (const auto* v = a->if_contains(key); v && v->is_string()) {
            return std::string_view(v->get_string());
        }
    }
    return std::nullopt;
}

std::vector<std::string> finalizers_of(const json::object& obj) {
    std::vector<std::string> out;
    if (const auto* m = metadata_of(obj)) {
        if (const auto* f = m->if_contains("finalizers"); f && f->is_array()) {
            for (const auto& v : f->get_array()) {
                if (v.is_string()) {
                    out.emplace_back(v.get_string());
                }
            }
        }
    }
    return out;
}

bool has_finalizer(const json::object& obj, std::string_view finalizer) noexcept {
    if (const auto* m = metadata_of(obj)) {
        if (const auto* f = m->if_contains("finalizers"); f && f->is_array()) {
            for (const auto& v : f->get_array()) {
                if (v.is_string() && v.get_string() == finalizer) {
                    return true;
                }
            }
        }
    }
    return false;
}

owner_reference owner_reference_from(const json::value& v) {
    owner_reference r;
    if (const auto* o = v.if_object()) {
        r.api_version = std::string(str_of(o, "apiVersion"));
        r.kind = std::string(str_of(o, "kind"));
        r.name = std::string(str_of(o, "name"));
        r.uid = std::string(str_of(o, "uid"));
        r.controller = bool_of(*o, "controller");
        r.block_owner_deletion = bool_of(*o, "blockOwnerDeletion");
    }
    return r;
}

std::vector<owner_reference> owner_references_of(const json::object& obj) {
    std::vector<owner_reference> out;
    if (const auto* m = metadata_of(obj)) {
        if (const auto* refs = m->if_contains("ownerReferences"); refs && refs->is_array()) {
            for (const auto& v : refs->get_array()) {
                out.push_back(owner_reference_from(v));
            }
        }
    }
    return out;
}

std::optional<owner_reference> controller_of(const json::object& obj) {
    for (auto& r : owner_references_of(obj)) {
        if (r.controller) {
            return std::move(r);
        }
    }
    return std::nullopt;
}

bool is_controlled_by(const json::object& obj, std::string_view owner_uid) {
    auto c = controller_of(obj);
    return c && c->uid == owner_uid;
}

const json::value* managed_fields_of(const json::object& obj) noexcept {
    if (const auto* m = metadata_of(obj)) {
        return m->if_contains("managedFields");
    }
    return nullptr;
}

const json::value* find_path(const json::object& obj, std::initializer_list<std::string_view> path) noexcept {
    const json::object* cur = &obj;
    const json::value* v = nullptr;
    for (auto key : path) {
        if (!cur) {
            return nullptr;
        }
        v = cur->if_contains(key);
        if (!v) {
            return nullptr;
        }
        cur = v->if_object();
    }
    return v;
}

json::object& mutable_metadata(json::object& obj) {
    auto& m = obj["metadata"];
    if (!m.is_object()) {
        m = json::object{};
    }
    return m.get_object();
}

void set_name(json::object& obj, std::string_view name) {
    json::string v(name);
    mutable_metadata(obj)["name"] = std::move(v);
}
void set_namespace(json::object& obj, std::string_view ns) {
    json::string v(ns);
    mutable_metadata(obj)["namespace"] = std::move(v);
}

namespace {
json::object& mutable_map(json::object& obj, std::string_view which) {
    auto& v = mutable_metadata(obj)[which];
    if (!v.is_object()) {
        v = json::object{};
    }
    return v.get_object();
}
} // namespace

// Key and value may point into `obj` itself (set_label(o, k, name_of(o))):
// copy them before inserting, which can rehash the maps they live in.
void set_label(json::object& obj, std::string_view key, std::string_view value) {
    json::string k(key), v(value);
    mutable_map(obj, "labels")[k] = std::move(v);
}
void set_annotation(json::object& obj, std::string_view key, std::string_view value) {
    json::string k(key), v(value);
    mutable_map(obj, "annotations")[k] = std::move(v);
}

bool add_finalizer(json::object& obj, std::string_view finalizer) {
    if (has_finalizer(obj, finalizer)) {
        return false;
    }
    auto& f = mutable_metadata(obj)["finalizers"];
    if (!f.is_array()) {
        f = json::array{};
    }
    f.get_array().emplace_back(finalizer);
    return true;
}

bool remove_finalizer(json::object& obj, std::string_view finalizer) {
    auto& m = mutable_metadata(obj);
    auto* f = m.if_contains("finalizers");
    if (!f || !f->is_array()) {
        return false;
    }
    auto& arr = f->get_array();
    auto before = arr.size();
    for (auto it = arr.begin(); it != arr.end();) {
        if (it->is_string() && it->get_string() == finalizer) {
            it = arr.erase(it);
        } else {
            ++it;
        }
    }
    return arr.size() != before;
}

void strip_managed_fields(json::object& obj) {
    if (auto* m = obj.if_contains("metadata"); m && m->is_object()) {
        m->get_object().erase("managedFields");
    }
}

json::object to_json(const owner_reference& ref) {
    json::object o;
    o["apiVersion"] = ref.api_version;
    o["kind"] = ref.kind;
    o["name"] = ref.name;
    o["uid"] = ref.uid;
    if (ref.controller) {
        o["controller"] = true;
    }
    if (ref.block_owner_deletion) {
        o["blockOwnerDeletion"] = true;
    }
    return o;
}

owner_reference make_controller_reference(const json::object& owner) {
    return {std::string(api_version_of(owner)), std::string(kind_of(owner)), std::string(name_of(owner)),
            std::string(uid_of(owner)), true, true};
}

} // namespace kcoro
