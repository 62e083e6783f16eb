#include "store/field_selector.hpp"
#include "store/event_conversion.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

namespace kcoro::apiserver {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

bool is_events(std::string_view group, std::string_view resource) {
    return resource == "events" && (group.empty() || group == "events.k8s.io");
}

std::string_view string_at(const boost::json::object& obj, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(obj, path);
    return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

/// The value of a selectable field of a stored (core/v1) object
/// (pkg/registry/core/event/strategy.go ToSelectableFields for events).
std::string_view field_value(const boost::json::object& obj, std::string_view field) {
    if (field == "metadata.name") return name_of(obj);
    if (field == "metadata.namespace") return namespace_of(obj);
    if (field.starts_with("involvedObject.")) {
        auto member = field.substr(std::string_view("involvedObject.").size());
        return string_at(obj, {"involvedObject", member});
    }
    if (field == "source") {
        auto s = string_at(obj, {"source", "component"});
        return s.empty() ? string_at(obj, {"reportingComponent"}) : s;
    }
    if (field == "status.phase") return string_at(obj, {"status", "phase"});
    if (field == "spec.clusterIP") return string_at(obj, {"spec", "clusterIP"});
    if (field == "spec.type") return string_at(obj, {"spec", "type"});
    return string_at(obj, {field});  // type, reason, reportingComponent
}

} // namespace

namespace {

// The groups kcoro-apiserver serves built-in kinds from; any other group is a
// custom resource's.
bool builtin_group(std::string_view group) {
    return group.empty() || group == "apps" || group == "coordination.k8s.io" || group == "events.k8s.io" ||
           group == "apiextensions.k8s.io";
}

// Kinds whose scheme registers a field label conversion function
// (pkg/apis/core/v1/conversion.go: Event, Namespace, Secret, Service; events.k8s.io
// Event); the others take runtime.DefaultMetaV1FieldSelectorConversion.
bool has_conversion_func(std::string_view group, std::string_view resource) {
    if (group == "events.k8s.io") return resource == "events";
    return group.empty() &&
           (resource == "events" || resource == "namespaces" || resource == "secrets" || resource == "services");
}

} // namespace

bool field_selector::supported(std::string_view field, std::string_view group, std::string_view resource) noexcept {
    if (group == "events.k8s.io" && resource == "events") return events_v1_field_label(field).has_value();
    if (is_events(group, resource)) {
        for (std::string_view f : {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                                   "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                                   "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
                                   "metadata.namespace", "metadata.name"}) {
            if (field == f) return true;
        }
        return false;
    }
    // AddFieldLabelConversionsForNamespace: no metadata.namespace.
    if (group.empty() && resource == "namespaces") return field == "status.phase" || field == "metadata.name";
    if (field == "metadata.name" || field == "metadata.namespace") return true;
    if (group.empty() && resource == "secrets") return field == "type";
    if (group.empty() && resource == "services") return field == "spec.clusterIP" || field == "spec.type";
    return false;
}

std::string field_selector::unsupported_message(std::string_view field, std::string_view group,
                                                std::string_view resource) {
    // A kind's own conversion function and apiextensions' crConverter
    // (custom resources) say this; DefaultMetaV1FieldSelectorConversion
    // (staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go) the other.
    if (has_conversion_func(group, resource) || !builtin_group(group)) {
        return "field label not supported: " + std::string(field);
    }
    return "\"" + std::string(field) + "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
}

result<field_selector> field_selector::parse(std::string_view text) { return parse(text, "", ""); }

result<field_selector> field_selector::parse(std::string_view text, std::string_view group, std::string_view resource) {
    field_selector sel;
    if (trim(text).empty()) {
        return sel;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        auto comma = text.find(',', start);
        auto part = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        field_requirement r;
        std::size_t op_pos;
        std::size_t op_len;
        if ((op_pos = part.find("!=")) != std::string_view::npos) {
            r.equals = false;
            op_len = 2;
        } else if ((op_pos = part.find("==")) != std::string_view::npos) {
            op_len = 2;
        } else if ((op_pos = part.find('=')) != std::string_view::npos) {
            op_len = 1;
        } else {
            return errors::bad_request("invalid selector: '" + std::string(text) +
                                       "'; can't understand '" + std::string(part) + "'");
        }
        r.field = std::string(trim(part.substr(0, op_pos)));
        r.value = std::string(trim(part.substr(op_pos + op_len)));
        sel.requirements_.push_back(std::move(r));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    // The handler parses the whole selector, then converts each term in
    // order (fields.Selector.Transform with the kind's conversion function):
    // the first unsupported label is the 400.
    for (auto& r : sel.requirements_) {
        if (!supported(r.field, group, resource)) return errors::bad_request(unsupported_message(r.field, group, resource));
        if (group == "events.k8s.io" && resource == "events") {
            // Selected on the stored core/v1 form, by the core names.
            r.field = *events_v1_field_label(r.field);
        }
    }
    return sel;
}

bool field_selector::matches(const boost::json::object& obj) const noexcept {
    for (const auto& r : requirements_) {
        std::string_view actual = field_value(obj, r.field);
        if ((actual == r.value) != r.equals) {
            return false;
        }
    }
    return true;
}

const std::string* field_selector::exact_name() const noexcept {
    for (const auto& r : requirements_) {
        if (r.equals && r.field == "metadata.name") return &r.value;
    }
    return nullptr;
}

} // namespace kcoro::apiserver
