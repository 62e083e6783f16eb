// Each review follows its REST Create and the validation of
// pkg/apis/authorization/validation/validation.go (v1.32).
#include "http/reviews.hpp"
#include "store/core_validation.hpp"
#include "http/rbac.hpp"
#include "http/service_account_tokens.hpp"
#include "server_side_apply.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/time.hpp>

namespace kcoro::apiserver::http {
namespace json = boost::json;

namespace {

constexpr std::string_view authorization = "authorization.k8s.io";
constexpr std::string_view authentication = "authentication.k8s.io";

const json::object* obj(const json::object& o, std::string_view k) {
    const auto* v = o.if_contains(k);
    return v && v->is_object() ? &v->get_object() : nullptr;
}

// ResourceAttributesFrom / NonResourceAttributesFrom (authorizationutil).
authz_attributes attributes_of(const user_info& user, const json::object& spec) {
    authz_attributes a;
    a.user = user;
    if (const auto* ra = obj(spec, "resourceAttributes")) {
        a.verb = validation::str_at(*ra, "verb");
        a.group = validation::str_at(*ra, "group");
        a.resource = validation::str_at(*ra, "resource");
        a.subresource = validation::str_at(*ra, "subresource");
        a.ns = validation::str_at(*ra, "namespace");
        a.name = validation::str_at(*ra, "name");
    } else if (const auto* na = obj(spec, "nonResourceAttributes")) {
        a.resource_request = false;
        a.verb = validation::str_at(*na, "verb");
        a.path = validation::str_at(*na, "path");
    }
    return a;
}

// SubjectAccessReviewStatus: allowed always; denied and reason when set.
json::object status_of(const authz_decision& d) {
    json::object s{{"allowed", d.allowed}};
    if (!d.reason.empty()) s["reason"] = d.reason;
    return s;
}

// ValidateSelfSubjectAccessReviewSpec / ValidateSubjectAccessReviewSpec.
std::vector<status_cause> validate_spec(const json::object& spec, bool with_subject) {
    std::vector<status_cause> causes;
    const bool ra = obj(spec, "resourceAttributes") != nullptr;
    const bool na = obj(spec, "nonResourceAttributes") != nullptr;
    if (ra && na) {
        causes.push_back(errors::field_invalid("spec.nonResourceAttributes", "\"\"",
                                               "cannot be specified in combination with resourceAttributes"));
    }
    if (!ra && !na) {
        causes.push_back(errors::field_invalid("spec.resourceAttributes", "null",
                                               "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
    }
    if (with_subject) {
        const auto* groups = spec.if_contains("groups");
        const bool any_group = groups && groups->is_array() && !groups->get_array().empty();
        if (validation::str_at(spec, "user").empty() && !any_group) {
            causes.push_back(errors::field_invalid("spec.user", "\"\"", "at least one of user or group must be specified"));
        }
    }
    return causes;
}

// metadata as the reviews answer it: what was sent, creationTimestamp null (a zero metav1.Time).
void zero_metadata(json::object& body) {
    auto& md = body["metadata"];
    if (!md.is_object()) md = json::object{};
    if (md.as_object().contains("creationTimestamp")) return;
    json::object ordered{{"creationTimestamp", nullptr}};  // ObjectMeta's field order: before managedFields
    for (const auto& kv : md.as_object()) ordered[kv.key()] = kv.value();
    md = std::move(ordered);
}

// authentication/v1 UserInfo: username, uid, groups, extra (omitempty each).
json::object user_info_json(const user_info& u) {
    json::object info{{"username", u.name}};
    if (!u.uid.empty()) info["uid"] = u.uid;
    if (!u.groups.empty()) {
        json::array g;
        for (const auto& x : u.groups) g.push_back(json::string(x));
        info["groups"] = std::move(g);
    }
    if (!u.extra.empty()) {
        json::object e;
        for (const auto& [k, vs] : u.extra) {
            json::array a;
            for (const auto& v : vs) a.push_back(json::string(v));
            e[k] = std::move(a);
        }
        info["extra"] = std::move(e);
    }
    return info;
}

// The object a review answers, as the create handler leaves it: the
// managedFields its field manager records, then the zero metadata.
void as_created(json::object& body, std::string_view field_manager, wall_time now) {
    if (!field_manager.empty()) {
        update_options o;
        o.manager = std::string(field_manager);
        o.now = now;
        body = update_managed_fields(json::object{}, std::move(body), o);
    }
    zero_metadata(body);
}

} // namespace

bool is_review(const group_version_resource& gvr) {
    if (gvr.version != "v1") return false;
    if (gvr.group == authorization) {
        return gvr.resource == "selfsubjectaccessreviews" || gvr.resource == "subjectaccessreviews" ||
               gvr.resource == "localsubjectaccessreviews" || gvr.resource == "selfsubjectrulesreviews";
    }
    return gvr.group == authentication && (gvr.resource == "selfsubjectreviews" || gvr.resource == "tokenreviews");
}

result<json::object> answer_review(const access_control& access, const object_store& store,
                                   const group_version_resource& gvr, std::string_view ns, const user_info& user,
                                   json::object body, wall_time now, std::string_view field_manager) {
    const auto& r = gvr.resource;
    const json::object empty;
    const json::object& spec = obj(body, "spec") ? *obj(body, "spec") : empty;
    if (r == "selfsubjectreviews") {
        // selfsubjectreview/rest.go: a fresh object, the user as authenticated.
        return json::object{{"kind", "SelfSubjectReview"},
                            {"apiVersion", "authentication.k8s.io/v1"},
                            {"metadata", json::object{{"creationTimestamp", format_rfc3339(now)}}},
                            {"status", json::object{{"userInfo", user_info_json(user)}}}};
    }
    if (r == "tokenreviews") {
        // tokenreview/storage.go: the server's token authenticators judge
        // spec.token; the review is answered, with the managedFields of the
        // create, as the access reviews.
        const auto token = validation::str_at(spec, "token");
        json::object status;
        if (token.empty()) {
            return errors::invalid(std::string(authentication), "TokenReview", "",
                                   {errors::field_required("spec.token")});
        }
        if (auto u = access.authenticate_bearer(token)) {
            status["authenticated"] = true;
            status["user"] = user_info_json(*u);
            status["audiences"] = json::array{json::string(default_token_issuer)};
        } else {
            status["user"] = json::object{};
            status["error"] = "invalid bearer token";
        }
        as_created(body, field_manager, now);
        return json::object{{"kind", "TokenReview"},
                            {"apiVersion", "authentication.k8s.io/v1"},
                            {"metadata", body["metadata"]},
                            {"spec", body.contains("spec") ? body["spec"] : json::value(json::object{})},
                            {"status", std::move(status)}};
    }
    if (r == "selfsubjectrulesreviews") {
        // selfsubjectrulesreview/rest.go: only the status is answered.
        const auto target = validation::str_at(spec, "namespace");
        if (target.empty()) return errors::bad_request("no namespace on request");
        json::object status;
        json::array resource_rules, non_resource_rules;
        if (!access.enabled() || !access.rbac_enabled()) {
            // AlwaysAllow's RulesFor.
            resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"apiGroups", json::array{"*"}},
                                                  {"resources", json::array{"*"}}});
            non_resource_rules.push_back(json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}});
        } else {
            auto rules = rbac_rules_for(store, user, target);
            resource_rules = std::move(rules.resource_rules);
            non_resource_rules = std::move(rules.non_resource_rules);
        }
        status["resourceRules"] = std::move(resource_rules);
        status["nonResourceRules"] = std::move(non_resource_rules);
        status["incomplete"] = false;
        return json::object{{"kind", "SelfSubjectRulesReview"},
                            {"apiVersion", "authorization.k8s.io/v1"},
                            {"metadata", json::object{{"creationTimestamp", nullptr}}},
                            {"spec", json::object{}},
                            {"status", std::move(status)}};
    }
    const bool self = r == "selfsubjectaccessreviews";
    const std::string kind = self ? "SelfSubjectAccessReview"
                             : r == "subjectaccessreviews" ? "SubjectAccessReview"
                                                           : "LocalSubjectAccessReview";
    auto causes = validate_spec(spec, !self);
    if (r == "localsubjectaccessreviews") {
        if (const auto* ra = obj(spec, "resourceAttributes"); ra && validation::str_at(*ra, "namespace") != ns) {
            causes.push_back(errors::field_invalid("spec.resourceAttributes.namespace", "\"" + validation::str_at(*ra, "namespace") + "\"",
                                                   "must match metadata.namespace"));
        }
        if (obj(spec, "nonResourceAttributes")) {
            causes.push_back(errors::field_invalid("spec.nonResourceAttributes", "\"\"", "disallowed on this kind of request"));
        }
    }
    if (!causes.empty()) return errors::invalid(std::string(authorization), kind, "", std::move(causes));
    user_info subject = user;
    if (!self) {
        // SubjectAccessReview: the user and groups the spec names.
        subject = user_info{validation::str_at(spec, "user"), {}};
        if (const auto* g = spec.if_contains("groups"); g && g->is_array()) {
            for (const auto& x : g->get_array()) {
                if (x.is_string()) subject.groups.emplace_back(x.get_string());
            }
        }
    }
    auto decision = access.decide(attributes_of(subject, spec));
    as_created(body, field_manager, now);
    if (r == "localsubjectaccessreviews") body["metadata"].as_object()["namespace"] = ns;
    // The Go type's field order: kind, apiVersion, metadata, spec, status.
    return json::object{{"kind", kind},
                        {"apiVersion", "authorization.k8s.io/v1"},
                        {"metadata", body["metadata"]},
                        {"spec", body.contains("spec") ? body["spec"] : json::value(json::object{})},
                        {"status", status_of(decision)}};
}

} // namespace kcoro::apiserver::http
