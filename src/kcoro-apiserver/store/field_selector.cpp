#include "store/field_selector.hpp"
#include "store/event_conversion.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace kcoro::apiserver {
namespace {

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

namespace {

// fields.splitTerms: split on commas not escaped by a backslash.
std::vector<std::string> split_terms(std::string_view s) {
    std::vector<std::string> terms;
    if (s.empty()) return terms;
    std::size_t start = 0;
    bool in_slash = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (in_slash) {
            in_slash = false;
        } else if (s[i] == '\\') {
            in_slash = true;
        } else if (s[i] == ',') {
            terms.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    terms.emplace_back(s.substr(start));
    return terms;
}

// fields.UnescapeValue: \\, \, and \= are escapes; a bare , or = or any
// other escape is an error with the real texts.
result<std::string> unescape_value(std::string_view s) {
    std::string out;
    bool in_slash = false;
    for (char c : s) {
        if (in_slash) {
            if (c != '\\' && c != ',' && c != '=') {
                return errors::bad_request("invalid field selector: invalid escape sequence: \\" + std::string(1, c));
            }
            out.push_back(c);
            in_slash = false;
        } else if (c == '\\') {
            in_slash = true;
        } else if (c == ',' || c == '=') {
            // UnescapedRune's %v of a rune prints its number.
            return errors::bad_request("invalid field selector: unescaped character in value: " +
                                       std::to_string(static_cast<int>(c)));
        } else {
            out.push_back(c);
        }
    }
    if (in_slash) return errors::bad_request("invalid field selector: invalid escape sequence: \\");
    return out;
}

} // namespace

result<field_selector> field_selector::parse(std::string_view text, std::string_view group, std::string_view resource) {
    // fields.parseSelector (apimachinery v0.32 fields/selector.go): terms
    // split on unescaped commas, sorted, empty ones skipped, no trimming; the
    // operator is the first of !=, ==, = at the earliest position.
    field_selector sel;
    auto parts = split_terms(text);
    std::sort(parts.begin(), parts.end());
    for (const auto& part : parts) {
        if (part.empty()) continue;
        field_requirement r;
        std::size_t op_pos = std::string::npos;
        std::size_t op_len = 0;
        for (std::size_t i = 0; i < part.size() && op_pos == std::string::npos; ++i) {
            std::string_view rest = std::string_view(part).substr(i);
            if (rest.starts_with("!=")) {
                op_pos = i, op_len = 2, r.equals = false;
            } else if (rest.starts_with("==")) {
                op_pos = i, op_len = 2;
            } else if (rest.starts_with("=")) {
                op_pos = i, op_len = 1;
            }
        }
        if (op_pos == std::string::npos) {
            return errors::bad_request("invalid selector: '" + std::string(text) + "'; can't understand '" + part + "'");
        }
        auto value = unescape_value(std::string_view(part).substr(op_pos + op_len));
        if (!value) return value.error();
        r.field = part.substr(0, op_pos);
        r.value = std::move(*value);
        sel.requirements_.push_back(std::move(r));
    }
    // The handler parses the whole selector, then converts each term in
    // sorted order (fields.Selector.Transform with the kind's conversion function):
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
