#include "http/bookmark.hpp"

#include <boost/json/parse.hpp>

namespace kcoro::apiserver::http {

namespace json = boost::json;

std::optional<steady_time> next_bookmark_time(steady_time now, steady_time deadline,
                                              std::chrono::milliseconds frequency) {
    auto heartbeat = now + frequency;
    const auto pretimeout = deadline - std::chrono::seconds(2);
    if (pretimeout < heartbeat) {
        heartbeat = pretimeout;
    }
    if (heartbeat < now) {
        return std::nullopt;
    }
    return heartbeat;
}

namespace {

/// The fields outside metadata that the zero value of each built-in type
/// serializes (k8s.io/api types, converted from the internal zero value):
/// non-pointer structs without omitempty effect, metav1.Time as null,
/// fields without omitempty.
const char* skeleton(std::string_view group, std::string_view kind) {
    if (group.empty()) {
        if (kind == "Namespace") return R"({"spec":{},"status":{}})";
        if (kind == "Service") return R"({"spec":{},"status":{"loadBalancer":{}}})";
        if (kind == "Event")
            return R"({"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,)"
                   R"("eventTime":null,"reportingComponent":"","reportingInstance":""})";
        return "{}";  // ConfigMap, Secret, ServiceAccount
    }
    if (group == "apps" && kind == "Deployment")
        return R"({"spec":{"replicas":0,"selector":null,"template":{"metadata":{"creationTimestamp":null},)"
               R"("spec":{"containers":null}},"strategy":{}},"status":{}})";
    if (group == "events.k8s.io" && kind == "Event")
        return R"({"eventTime":null,"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,)"
               R"("deprecatedLastTimestamp":null})";
    if (group == "coordination.k8s.io" && kind == "Lease") return R"({"spec":{}})";
    if (group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition")
        return R"({"spec":{"group":"","names":{"plural":"","kind":""},"scope":"","versions":null},)"
               R"("status":{"acceptedNames":{"plural":"","kind":""},"storedVersions":null}})";
    return "{}";
}

} // namespace

json::object bookmark_object(std::string_view group, std::string_view kind, std::string_view api_version,
                             bool custom, revision_t revision) {
    json::object o{{"kind", kind}, {"apiVersion", api_version}};
    json::object md{{"resourceVersion", std::to_string(revision)}};
    if (!custom) {
        md["creationTimestamp"] = nullptr;
    }
    o["metadata"] = std::move(md);
    if (!custom) {
        const json::value sk = json::parse(skeleton(group, kind));
        for (const auto& kv : sk.get_object()) {
            o[kv.key()] = kv.value();
        }
    }
    return o;
}

} // namespace kcoro::apiserver::http
