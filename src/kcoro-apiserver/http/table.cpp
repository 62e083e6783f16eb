#include "http/table.hpp"

#include "http/builtin_printers.hpp"
#include "http/scale.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/serialize.hpp>

#include <cctype>
#include <charconv>

namespace kcoro::apiserver::http {

namespace json = boost::json;

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

constexpr std::string_view name_description =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr std::string_view age_description =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It "
    "is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More "
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

table_column name_column() { return {"Name", "string", "name", std::string(name_description), 0, ""}; }
// A CRD's default Age column is a "date" column on creationTimestamp
// (apiextensions tableconvertor); the built-in printers' Age is a "string"
// column the printer fills (printers.go; checked against v1.32.13).
table_column age_column() { return {"Age", "date", "", std::string(age_description), 0, ".metadata.creationTimestamp"}; }
table_column builtin_age_column() { return {"Age", "string", "", std::string(age_description), 0, ""}; }

/// A dotted JSONPath (".a.b[0].c", also "{.a.b}") on `obj`; nullptr when absent.
const json::value* eval_path(const json::object& obj, std::string_view path) {
    path = trim(path);
    if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
    const json::value* cur = nullptr;
    const json::object* o = &obj;
    std::size_t i = 0;
    if (!path.empty() && path[0] == '.') i = 1;
    while (i <= path.size()) {
        std::size_t j = i;
        while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
        auto key = path.substr(i, j - i);
        if (!key.empty()) {
            if (o == nullptr) return nullptr;
            cur = o->if_contains(key);
            if (cur == nullptr) return nullptr;
            o = cur->if_object();
        }
        while (j < path.size() && path[j] == '[') {
            auto close = path.find(']', j);
            if (close == std::string_view::npos || cur == nullptr || !cur->is_array()) return nullptr;
            std::int64_t idx = 0;
            auto num = path.substr(j + 1, close - j - 1);
            auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), idx);
            if (ec != std::errc{} || p != num.data() + num.size()) return nullptr;
            const auto& arr = cur->as_array();
            if (idx < 0) idx += static_cast<std::int64_t>(arr.size());
            if (idx < 0 || idx >= static_cast<std::int64_t>(arr.size())) return nullptr;
            cur = &arr[static_cast<std::size_t>(idx)];
            o = cur->if_object();
            j = close + 1;
        }
        if (j >= path.size()) break;
        i = j + 1;
    }
    return cur;
}

std::string age_of(const json::object& obj, wall_time now) {
    auto ts = parse_rfc3339(creation_timestamp_of(obj));
    if (!ts) return "<unknown>";
    return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *ts));
}

std::int64_t int_at(const json::object& obj, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(obj, path);
    if (v == nullptr) return 0;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_double()) return static_cast<std::int64_t>(v->get_double());
    return 0;
}

std::string string_at(const json::object& obj, std::initializer_list<std::string_view> path) {
    const auto* v = find_path(obj, path);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string{};
}

std::size_t size_at(const json::object& obj, std::string_view key) {
    const auto* v = obj.if_contains(key);
    return v != nullptr && v->is_object() ? v->get_object().size() : 0;
}

/// The value of one computed (built-in) column.
json::value builtin_cell(std::string_view group, std::string_view resource, std::string_view column,
                         const json::object& obj, wall_time now) {
    if (column == "Age") return json::string(age_of(obj, now));
    if (group.empty() && resource == "configmaps" && column == "Data") {
        return static_cast<std::int64_t>(size_at(obj, "data") + size_at(obj, "binaryData"));
    }
    if (group.empty() && resource == "secrets") {
        if (column == "Type") return json::string(string_at(obj, {"type"}));
        if (column == "Data") return static_cast<std::int64_t>(size_at(obj, "data"));
    }
    if (group.empty() && resource == "namespaces" && column == "Status") {
        return json::string(string_at(obj, {"status", "phase"}));
    }
    if (group == "apps" && resource == "deployments") {
        if (column == "Containers" || column == "Images") {
            // printDeployment: the template's container names and images, comma separated.
            std::string out;
            if (const auto* cs = find_path(obj, {"spec", "template", "spec", "containers"}); cs && cs->is_array()) {
                for (const auto& c : cs->as_array()) {
                    if (!c.is_object()) continue;
                    const auto* v = c.as_object().if_contains(column == "Containers" ? "name" : "image");
                    out += (out.empty() ? "" : ",") + std::string(v && v->is_string() ? std::string_view(v->get_string()) : "");
                }
            }
            return json::string(out);
        }
        if (column == "Selector") {
            auto sel = label_selector_string(find_path(obj, {"spec", "selector"}));
            return json::string(!sel ? std::string("<error>") : sel->empty() ? std::string("<none>") : *sel);
        }
        if (column == "Ready") {
            return json::string(std::to_string(int_at(obj, {"status", "readyReplicas"})) + "/" +
                                std::to_string(int_at(obj, {"spec", "replicas"})));
        }
        if (column == "Up-to-date") return int_at(obj, {"status", "updatedReplicas"});
        if (column == "Available") return int_at(obj, {"status", "availableReplicas"});
    }
    if (group == "coordination.k8s.io" && resource == "leases" && column == "Holder") {
        return json::string(string_at(obj, {"spec", "holderIdentity"}));
    }
    return builtin_printer_cell(group, resource, column, obj, now);  // the other kinds (builtin_printers.cpp)
}

bool is_events(std::string_view group, std::string_view resource) {
    return resource == "events" && (group.empty() || group == "events.k8s.io");
}

/// translateTimestampSince / translateMicroTimestampSince.
std::string since(const json::object& obj, std::initializer_list<std::string_view> path, wall_time now) {
    auto ts = parse_rfc3339(string_at(obj, path));
    if (!ts) return "<unknown>";
    return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *ts));
}

/// The cells of kube-apiserver's event printer (printEvent), for core/v1 and
/// events.k8s.io/v1 field names.
json::value event_cell(std::string_view column, const json::object& obj, wall_time now) {
    const bool v1 = obj.contains("involvedObject") || !obj.contains("regarding");
    const std::string_view ref = v1 ? "involvedObject" : "regarding";
    auto first = [&] {
        auto f = string_at(obj, {v1 ? "firstTimestamp" : "deprecatedFirstTimestamp"});
        return f.empty() ? since(obj, {"eventTime"}, now) : since(obj, {v1 ? "firstTimestamp" : "deprecatedFirstTimestamp"}, now);
    };
    if (column == "Last Seen") {
        if (find_path(obj, {"series", "lastObservedTime"})) return json::string(since(obj, {"series", "lastObservedTime"}, now));
        auto l = string_at(obj, {v1 ? "lastTimestamp" : "deprecatedLastTimestamp"});
        return json::string(l.empty() ? first() : since(obj, {v1 ? "lastTimestamp" : "deprecatedLastTimestamp"}, now));
    }
    if (column == "First Seen") return json::string(first());
    if (column == "Type") return json::string(string_at(obj, {"type"}));
    if (column == "Reason") return json::string(string_at(obj, {"reason"}));
    if (column == "Object") {
        return json::string(lower(string_at(obj, {ref, "kind"})) + "/" + string_at(obj, {ref, "name"}));
    }
    if (column == "Subobject") return json::string(string_at(obj, {ref, "fieldPath"}));
    if (column == "Source") {
        auto component = string_at(obj, {v1 ? "source" : "deprecatedSource", "component"});
        auto host = string_at(obj, {v1 ? "source" : "deprecatedSource", "host"});
        if (component.empty()) {
            component = string_at(obj, {v1 ? "reportingComponent" : "reportingController"});
            host = string_at(obj, {"reportingInstance"});
        }
        return json::string(host.empty() ? component : component + ", " + host);
    }
    if (column == "Message") {
        auto m = string_at(obj, {v1 ? "message" : "note"});
        return json::string(std::string(trim(m)));
    }
    if (column == "Count") {
        if (find_path(obj, {"series", "count"})) return int_at(obj, {"series", "count"});
        auto n = int_at(obj, {v1 ? "count" : "deprecatedCount"});
        return n == 0 ? 1 : n;
    }
    return nullptr;
}

json::value cell(const table_column& c, std::string_view group, std::string_view resource, const json::object& obj,
                 wall_time now) {
    if (c.format == "name" && c.json_path.empty()) return json::string(name_of(obj));
    if (c.json_path.empty()) {
        if (is_events(group, resource)) return event_cell(c.name, obj, now);
        return builtin_cell(group, resource, c.name, obj, now);
    }
    const auto* v = eval_path(obj, c.json_path);
    if (v == nullptr) return nullptr;
    if (c.type == "date") {
        if (!v->is_string()) return nullptr;
        auto ts = parse_rfc3339(v->get_string());
        if (!ts) return nullptr;
        return json::string(human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *ts)));
    }
    if (c.type == "integer") {
        if (v->is_int64() || v->is_uint64()) return *v;
        if (v->is_double()) return static_cast<std::int64_t>(v->get_double());
        return nullptr;
    }
    if (c.type == "number") return v->is_number() ? *v : json::value(nullptr);
    if (c.type == "boolean") return v->is_bool() ? *v : json::value(nullptr);
    if (v->is_string()) return *v;
    if (v->is_null()) return nullptr;
    return json::string(json::serialize(*v));  // objects/arrays printed as JSON
}

} // namespace

std::string human_duration(std::chrono::seconds d) {
    auto secs = d.count();
    if (secs < -1) return "<invalid>";
    if (secs < 0) return "0s";
    if (secs < 60 * 2) return std::to_string(secs) + "s";
    auto minutes = secs / 60;
    if (minutes < 10) {
        auto s = secs % 60;
        return s == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(s) + "s";
    }
    if (minutes < 60 * 3) return std::to_string(minutes) + "m";
    auto hours = secs / 3600;
    if (hours < 8) {
        auto m = minutes % 60;
        return m == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(m) + "m";
    }
    if (hours < 48) return std::to_string(hours) + "h";
    if (hours < 24 * 8) {
        auto h = hours % 24;
        return h == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
    }
    if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
    if (hours < 24 * 365 * 8) {
        auto dy = (hours / 24) % 365;
        return dy == 0 ? std::to_string(hours / 24 / 365) + "y"
                       : std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
    }
    return std::to_string(hours / 24 / 365) + "y";
}

std::vector<table_column> table_columns(std::string_view group, std::string_view resource,
                                        const json::array* printer_columns, bool is_custom) {
    std::vector<table_column> cols{name_column()};
    if (is_custom) {
        if (printer_columns == nullptr || printer_columns->empty()) {
            cols.push_back(age_column());
            return cols;
        }
        for (const auto& pc : *printer_columns) {
            const auto* o = pc.if_object();
            if (o == nullptr) continue;
            table_column c;
            c.name = string_at(*o, {"name"});
            c.type = string_at(*o, {"type"});
            c.format = string_at(*o, {"format"});
            c.description = string_at(*o, {"description"});
            c.priority = static_cast<int>(int_at(*o, {"priority"}));
            c.json_path = string_at(*o, {"jsonPath"});
            if (c.format == "name") c.format.clear();  // only the Name column is the name
            cols.push_back(std::move(c));
        }
        return cols;
    }
    auto computed = [&](std::string name, std::string type, std::string description, int priority = 0) {
        cols.push_back({std::move(name), std::move(type), "", std::move(description), priority, ""});
    };
    if (is_events(group, resource)) {
        // printEvent's columns: Name comes last, at priority 1.
        cols.clear();
        computed("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded.");
        computed("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future");
        computed("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.");
        computed("Object", "string", "The object that this event is about.");
        computed("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", 1);
        computed("Source", "string", "The component reporting this event. Should be a short machine understandable string.", 1);
        computed("Message", "string", "A human-readable description of the status of this operation.");
        computed("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1);
        computed("Count", "string", "The number of times this event has occurred.", 1);
        auto name = name_column();
        name.priority = 1;
        cols.push_back(std::move(name));
        return cols;
    }
    if (group.empty() && resource == "configmaps") {
        computed("Data", "string", "Data contains the configuration data.");
    } else if (group.empty() && resource == "secrets") {
        computed("Type", "string", "Used to facilitate programmatic handling of secret data.");
        computed("Data", "string", "Data contains the secret data.");
    } else if (group.empty() && resource == "namespaces") {
        computed("Status", "string", "The status of the namespace");
    } else if (group == "apps" && resource == "deployments") {
        computed("Ready", "string", "Number of the pod with ready state");
        computed("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.");
        computed("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.");
        cols.push_back(builtin_age_column());
        computed("Containers", "string", "Names of each container in the template.", 1);
        computed("Images", "string", "Images referenced by each container in the template.", 1);
        computed("Selector", "string",
                 "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected "
                 "by this deployment.",
                 1);
        return cols;
    } else if (group == "coordination.k8s.io" && resource == "leases") {
        computed("Holder", "string", "The holder of the lease.");
    } else if (auto printed = builtin_printer_columns(group, resource); !printed.empty()) {
        return printed;  // the other kinds' printers (builtin_printers.cpp)
    }
    cols.push_back(builtin_age_column());
    return cols;
}

json::object make_table(const std::vector<table_column>& columns, std::string_view group, std::string_view resource,
                        const std::vector<const json::object*>& items, json::object list_meta,
                        const table_options& opts) {
    json::object t{{"kind", "Table"}, {"apiVersion", opts.api_version}, {"metadata", std::move(list_meta)}};
    json::array defs;
    if (!opts.no_headers) {
        for (const auto& c : columns) {
            defs.push_back(json::object{{"name", c.name},
                                        {"type", c.type},
                                        {"format", c.format},
                                        {"description", c.description},
                                        {"priority", c.priority}});
        }
    }
    t["columnDefinitions"] = std::move(defs);
    json::array rows;
    for (const auto* item : items) {
        json::array cells;
        for (const auto& c : columns) {
            if (c.name == "Age" && c.json_path == ".metadata.creationTimestamp" && c.type == "date") {
                cells.push_back(json::string(age_of(*item, opts.now)));
            } else {
                cells.push_back(cell(c, group, resource, *item, opts.now));
            }
        }
        json::object row{{"cells", std::move(cells)}};
        if (opts.include_object == "Object") {
            row["object"] = *item;
        } else if (opts.include_object != "None") {
            json::object meta;
            if (const auto* m = metadata_of(*item)) meta = *m;
            row["object"] = json::object{{"kind", "PartialObjectMetadata"},
                                         {"apiVersion", opts.api_version},
                                         {"metadata", std::move(meta)}};
        }
        rows.push_back(std::move(row));
    }
    t["rows"] = std::move(rows);
    return t;
}

} // namespace kcoro::apiserver::http
