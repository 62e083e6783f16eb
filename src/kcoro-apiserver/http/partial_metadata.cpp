#include "http/partial_metadata.hpp"

#include "store/status_errors.hpp"

#include <boost/json/array.hpp>

namespace kcoro::apiserver::http {

namespace json = boost::json;

std::string internal_type_name(std::string_view group, std::string_view kind, bool custom, bool list) {
    if (custom) {
        return list ? "*unstructured.UnstructuredList" : "*unstructured.Unstructured";
    }
    // The internal package of each served group (pkg/apis/<pkg>); events.k8s.io
    // events are stored and handled as core events.
    std::string pkg = "core";
    if (group == "apps") pkg = "apps";
    else if (group == "coordination.k8s.io") pkg = "coordination";
    else if (group == "apiextensions.k8s.io") pkg = "apiextensions";
    else if (group == "autoscaling") pkg = "autoscaling";
    else if (!group.empty() && group != "events.k8s.io") pkg = std::string(group.substr(0, group.find('.')));
    return "*" + pkg + "." + std::string(kind) + (list ? "List" : "");
}

json::object as_partial_object_metadata(const json::object& obj, std::string_view api_version) {
    json::object out{{"kind", "PartialObjectMetadata"}, {"apiVersion", api_version}};
    const auto* md = obj.if_contains("metadata");
    out["metadata"] = md && md->is_object() ? md->get_object() : json::object{};
    return out;
}

json::object as_partial_object_metadata_list(const json::object& list, std::string_view api_version) {
    json::object out{{"kind", "PartialObjectMetadataList"}, {"apiVersion", api_version}};
    json::object md;
    if (const auto* m = list.if_contains("metadata"); m && m->is_object()) {
        for (const char* k : {"resourceVersion", "continue", "remainingItemCount"}) {
            if (const auto* v = m->get_object().if_contains(k)) md[k] = *v;
        }
    }
    out["metadata"] = std::move(md);
    json::array items;
    if (const auto* it = list.if_contains("items"); it && it->is_array()) {
        for (const auto& i : it->get_array()) {
            if (i.is_object()) items.push_back(as_partial_object_metadata(i.get_object(), api_version));
        }
    }
    out["items"] = std::move(items);
    return out;
}

error partial_of_list_error(std::string_view type_name) {
    return errors::not_acceptable("you requested PartialObjectMetadata, but the requested object is a list (" +
                                  std::string(type_name) + ")");
}

error partial_list_of_object_error(std::string_view type_name) {
    return errors::not_acceptable("you requested PartialObjectMetadataList, but the requested object is not a list (" +
                                  std::string(type_name) + ")");
}

} // namespace kcoro::apiserver::http
