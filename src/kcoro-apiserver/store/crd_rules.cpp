// CustomResourceDefinition rules: validation, the resources a CRD serves,
// and the status the CRD controllers set (NamesAccepted, Established).
#include "store/builtin_rules.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

std::string str_at(const json::object& o, std::string_view key) {
    if (const auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->get_string());
    return {};
}

const json::object* obj_in(const json::object& o, std::string_view key) {
    if (const auto* v = o.if_contains(key)) return v->if_object();
    return nullptr;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::vector<std::string> strings_in(const json::object& o, std::string_view key) {
    std::vector<std::string> out;
    if (const auto* v = o.if_contains(key); v && v->is_array()) {
        for (const auto& e : v->as_array()) {
            if (e.is_string()) out.emplace_back(e.get_string());
        }
    }
    return out;
}

} // namespace

std::vector<status_cause> validate_crd(const json::object& crd) {
    std::vector<status_cause> causes;
    const auto* spec = obj_in(crd, "spec");
    if (!spec) {
        causes.push_back(errors::field_required("spec"));
        return causes;
    }
    auto group = str_at(*spec, "group");
    if (group.empty()) causes.push_back(errors::field_required("spec.group"));
    const auto* names = obj_in(*spec, "names");
    auto plural = names ? str_at(*names, "plural") : std::string{};
    auto kind = names ? str_at(*names, "kind") : std::string{};
    if (plural.empty()) causes.push_back(errors::field_required("spec.names.plural"));
    if (kind.empty()) causes.push_back(errors::field_required("spec.names.kind"));
    auto scope = str_at(*spec, "scope");
    if (scope != "Namespaced" && scope != "Cluster") {
        causes.push_back(errors::field_not_supported("spec.scope", json::serialize(json::value(scope)),
                                                     {"Cluster", "Namespaced"}));
    }
    if (!plural.empty() && !group.empty() && name_of(crd) != plural + "." + group) {
        causes.push_back(errors::field_invalid("metadata.name", json::serialize(json::value(name_of(crd))),
                                               "must be spec.names.plural+\".\"+spec.group"));
    }
    const auto* versions = spec->if_contains("versions");
    if (!versions || !versions->is_array() || versions->as_array().empty()) {
        causes.push_back(errors::field_invalid("spec.versions", "null", "must have exactly one version marked as storage version"));
        return causes;
    }
    int storage = 0;
    const auto& arr = versions->as_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const auto* v = arr[i].if_object();
        std::string path = "spec.versions[" + std::to_string(i) + "]";
        if (!v || str_at(*v, "name").empty()) {
            causes.push_back(errors::field_required(path + ".name"));
            continue;
        }
        if (const auto* s = v->if_contains("storage"); s && s->is_bool() && s->get_bool()) ++storage;
        const auto* schema = obj_in(*v, "schema");
        const auto* oas = schema ? obj_in(*schema, "openAPIV3Schema") : nullptr;
        if (!oas) {
            causes.push_back(errors::field_required(path + ".schema.openAPIV3Schema", "schemas are required"));
        }
    }
    if (storage != 1) {
        causes.push_back(errors::field_invalid("spec.versions", json::serialize(*versions),
                                               "must have exactly one version marked as storage version"));
    }
    return causes;
}

std::vector<resource_def> resource_defs_of_crd(const json::object& crd) {
    std::vector<resource_def> out;
    const auto* spec = obj_in(crd, "spec");
    if (!spec) return out;
    const auto* names = obj_in(*spec, "names");
    const auto* versions = spec->if_contains("versions");
    if (!names || !versions || !versions->is_array()) return out;
    auto kind = str_at(*names, "kind");
    for (const auto& vv : versions->as_array()) {
        const auto* v = vv.if_object();
        if (!v) continue;
        const auto* served = v->if_contains("served");
        if (served && served->is_bool() && !served->get_bool()) continue;
        resource_def d;
        d.gvr = {str_at(*spec, "group"), str_at(*v, "name"), str_at(*names, "plural")};
        d.kind = kind;
        d.list_kind = str_at(*names, "listKind");
        if (d.list_kind.empty()) d.list_kind = kind + "List";
        d.singular = str_at(*names, "singular");
        if (d.singular.empty()) d.singular = lower(kind);
        d.namespaced = str_at(*spec, "scope") != "Cluster";
        d.short_names = strings_in(*names, "shortNames");
        d.categories = strings_in(*names, "categories");
        d.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
        const auto* sub = obj_in(*v, "subresources");
        d.has_status = sub && sub->contains("status");
        d.tracks_generation = true;  // customresource strategy.go
        // customresource strategy: no unconditional update, no create on update.
        d.allow_unconditional_update = false;
        d.allow_create_on_update = false;
        d.return_deleted_object = true;
        d.strategic_merge = false;
        if (const auto* schema = obj_in(*v, "schema")) {
            if (const auto* oas = obj_in(*schema, "openAPIV3Schema")) d.schema = *oas;
        }
        d.crd_name = std::string(name_of(crd));
        const auto* st = v->if_contains("storage");
        d.storage = st && st->is_bool() && st->get_bool();
        out.push_back(std::move(d));
    }
    return out;
}

void set_crd_established(json::object& crd, std::string_view now) {
    auto& status = crd["status"];
    if (!status.is_object()) status = json::object{};
    auto& st = status.as_object();
    json::object accepted;
    if (const auto* spec = obj_in(crd, "spec")) {
        if (const auto* names = obj_in(*spec, "names")) accepted = *names;
        auto kind = str_at(accepted, "kind");
        if (!accepted.contains("singular")) accepted["singular"] = lower(kind);
        if (!accepted.contains("listKind")) accepted["listKind"] = kind + "List";
        if (const auto* versions = spec->if_contains("versions"); versions && versions->is_array()) {
            json::array stored;
            for (const auto& v : versions->as_array()) {
                const auto* vo = v.if_object();
                if (!vo) continue;
                if (const auto* s = vo->if_contains("storage"); s && s->is_bool() && s->get_bool()) {
                    stored.push_back(vo->at("name"));
                }
            }
            st["storedVersions"] = std::move(stored);
        }
    }
    st["acceptedNames"] = std::move(accepted);
    st["conditions"] = json::array{
        json::object{{"type", "NamesAccepted"}, {"status", "True"}, {"lastTransitionTime", now},
                     {"reason", "NoConflicts"}, {"message", "no conflicts found"}},
        json::object{{"type", "Established"}, {"status", "True"}, {"lastTransitionTime", now},
                     {"reason", "InitialNamesAccepted"}, {"message", "the initial names have been accepted"}},
    };
}

} // namespace kcoro::apiserver
