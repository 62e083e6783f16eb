#include <kcoro/typed/crd.hpp>

namespace kcoro::typed::detail {
namespace json = boost::json;

json::object make_crd(const resource_info& info, const std::string& name, const std::string& singular,
                      const std::string& list_kind, json::object schema) {
    json::object names;
    names["kind"] = info.kind;
    names["listKind"] = list_kind;
    names["plural"] = info.plural;
    names["singular"] = singular;
    if (info.short_name_count > 0) {
        json::array a;
        for (std::size_t i = 0; i < info.short_name_count; ++i)
            a.emplace_back(info.short_names[i]);
        names["shortNames"] = std::move(a);
    }
    if (info.category_count > 0) {
        json::array a;
        for (std::size_t i = 0; i < info.category_count; ++i)
            a.emplace_back(info.categories[i]);
        names["categories"] = std::move(a);
    }

    json::object version;
    version["name"] = info.version;
    version["served"] = true;
    version["storage"] = true;
    if (info.status_subresource) {
        version["subresources"] = json::object{{"status", json::object{}}};
    }
    if (info.column_count > 0) {
        json::array cols;
        for (std::size_t i = 0; i < info.column_count; ++i) {
            const auto& c = info.columns[i];
            json::object col;
            col["name"] = c.name;
            col["type"] = c.type;
            if (!c.format.empty())
                col["format"] = c.format;
            if (!c.description.empty())
                col["description"] = c.description;
            if (c.priority != 0)
                col["priority"] = c.priority;
            col["jsonPath"] = c.json_path;
            cols.emplace_back(std::move(col));
        }
        version["additionalPrinterColumns"] = std::move(cols);
    }
    version["schema"] = json::object{{"openAPIV3Schema", std::move(schema)}};

    json::object spec;
    spec["group"] = info.group;
    spec["names"] = std::move(names);
    spec["scope"] = info.scope == scope::namespaced ? "Namespaced" : "Cluster";
    spec["versions"] = json::array{std::move(version)};

    json::object crd;
    crd["apiVersion"] = "apiextensions.k8s.io/v1";
    crd["kind"] = "CustomResourceDefinition";
    crd["metadata"] = json::object{{"name", name}};
    crd["spec"] = std::move(spec);
    return crd;
}

} // namespace kcoro::typed::detail
