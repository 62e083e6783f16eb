// object_store: the two halves of "every pod runs as a service account" on a
// real cluster.
//
// The serviceaccounts controller kube-controller-manager runs
// (pkg/controller/serviceaccount/serviceaccounts_controller.go): a namespace
// added or updated while Active, or its `default` ServiceAccount deleted,
// queues the namespace; the sync creates `default` when it is missing
// (AlreadyExists and a namespace gone or terminating are dropped). Here, as
// for the root-CA publisher: a namespace's create runs the sync at once, and
// every gc_step checks every namespace.
//
// The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/
// admission.go), on pod create: serviceAccountName defaults to `default`;
// the account must exist (else 403 `error looking up service account
// <ns>/<name>: serviceaccount "<name>" not found`); unless the pod or the
// account turns automountServiceAccountToken off, every container and init
// container without a mount at /var/run/secrets/kubernetes.io/serviceaccount
// gets the projected `kube-api-access-<5>` volume (token, kube-root-ca.crt's
// ca.crt, the namespace); the account's imagePullSecrets when the pod names
// none. The deprecated `serviceAccount` field mirrors serviceAccountName
// (the v1 conversion).
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

#include <kcoro/core/object.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

constexpr std::string_view default_account = "default";
constexpr std::string_view token_mount_path = "/var/run/secrets/kubernetes.io/serviceaccount";

request_context controller_ctx(wall_time now) {
    request_context ctx;
    ctx.now = now;
    ctx.user = "system:serviceaccount:kube-system:service-account-controller";
    ctx.field_manager = "kube-controller-manager";
    return ctx;
}

// TokenVolumeSource() (admission.go), as the v1 JSON of the projected source.
json::object token_volume(std::string_view name) {
    return json::object{
        {"name", name},
        {"projected",
         json::object{
             {"sources",
              json::array{
                  json::object{{"serviceAccountToken", json::object{{"expirationSeconds", 3607}, {"path", "token"}}}},
                  json::object{{"configMap",
                                json::object{{"name", root_ca_configmap_name},
                                             {"items", json::array{json::object{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
                  json::object{{"downwardAPI",
                                json::object{{"items", json::array{json::object{
                                                           {"path", "namespace"},
                                                           {"fieldRef", json::object{{"apiVersion", "v1"},
                                                                                     {"fieldPath", "metadata.namespace"}}}}}}}}},
              }},
             {"defaultMode", 420}}}};
}

bool mounts_token_path(const json::object& container) {
    const auto* mounts = container.if_contains("volumeMounts");
    if (!mounts || !mounts->is_array()) return false;
    for (const auto& m : mounts->as_array()) {
        const auto* p = m.is_object() ? m.as_object().if_contains("mountPath") : nullptr;
        if (p && p->is_string() && p->get_string() == token_mount_path) return true;
    }
    return false;
}

// shouldAutomount: the pod's setting wins, then the account's; default on.
bool should_automount(const json::object& account, const json::object& spec) {
    if (const auto* p = spec.if_contains("automountServiceAccountToken"); p && p->is_bool()) return p->get_bool();
    if (const auto* a = account.if_contains("automountServiceAccountToken"); a && a->is_bool()) return a->get_bool();
    return true;
}

} // namespace

bool object_store::impl::ensure_default_service_account(std::string_view ns, wall_time now) {
    if (!service_account_controller) return false;
    const auto* nsdef = owner.registry_.find(resources::namespaces());
    const auto* def = owner.registry_.find(resources::serviceaccounts());
    if (!nsdef || !def) return false;
    auto n = find(*nsdef, "", ns);
    if (!n || is_being_deleted(*n)) return false;  // only Active namespaces are synced
    if (find(*def, ns, default_account)) return false;
    json::object body{{"metadata", json::object{{"name", default_account}}}};
    return static_cast<bool>(do_create(controller_ctx(now), *def, ns, std::move(body), false));
}

bool object_store::impl::service_account_step(wall_time now) {
    if (!service_account_controller) return false;
    bool changed = false;
    for (const auto& ns : namespace_names()) changed |= ensure_default_service_account(ns, now);
    return changed;
}

std::optional<error> object_store::impl::admit_service_account(std::string_view ns, std::string_view name,
                                                              json::object& pod) {
    // Never a new top-level key: the caller holds a reference to metadata.
    json::object none;
    auto* spec_value = pod.if_contains("spec");
    auto& spec = spec_value && spec_value->is_object() ? spec_value->as_object() : none;
    // The v1 conversion: the deprecated field names the account when the new one does not.
    auto account_name = std::string(spec.contains("serviceAccountName") && spec.at("serviceAccountName").is_string()
                                        ? spec.at("serviceAccountName").get_string()
                                        : "");
    if (account_name.empty() && spec.contains("serviceAccount") && spec.at("serviceAccount").is_string()) {
        account_name = std::string(spec.at("serviceAccount").get_string());
    }
    if (account_name.empty()) account_name = default_account;
    const auto* def = owner.registry_.find(resources::serviceaccounts());
    auto account = def ? find(*def, ns, account_name) : nullptr;
    if (!account) {
        return errors::forbidden({"", "v1", "pods"}, name,
                                 "error looking up service account " + std::string(ns) + "/" + account_name +
                                     ": serviceaccount \"" + account_name + "\" not found");
    }
    spec["serviceAccountName"] = account_name;
    spec["serviceAccount"] = account_name;
    if (should_automount(*account, spec)) {
        // mountServiceAccountToken: an existing kube-api-access-* volume is reused.
        std::string volume_name;
        bool has_volume = false;
        if (const auto* vols = spec.if_contains("volumes"); vols && vols->is_array()) {
            for (const auto& v : vols->as_array()) {
                const auto* n = v.is_object() ? v.as_object().if_contains("name") : nullptr;
                if (n && n->is_string() && n->get_string().starts_with("kube-api-access-")) {
                    volume_name = std::string(n->get_string());
                    has_volume = true;
                    break;
                }
            }
        }
        if (volume_name.empty()) volume_name = "kube-api-access-" + random_suffix(5);
        bool needed = false;
        for (const char* list : {"initContainers", "containers"}) {
            auto* cs = spec.if_contains(list);
            if (!cs || !cs->is_array()) continue;
            for (auto& c : cs->as_array()) {
                if (!c.is_object() || mounts_token_path(c.as_object())) continue;
                auto& mounts = c.as_object()["volumeMounts"];
                if (!mounts.is_array()) mounts = json::array{};
                mounts.as_array().push_back(json::object{{"name", volume_name}, {"readOnly", true},
                                                         {"mountPath", token_mount_path}});
                needed = true;
            }
        }
        if (needed && !has_volume) {
            auto& vols = spec["volumes"];
            if (!vols.is_array()) vols = json::array{};
            vols.as_array().push_back(token_volume(volume_name));
        }
    }
    const auto* pulls = spec.if_contains("imagePullSecrets");
    if (!pulls || !pulls->is_array() || pulls->as_array().empty()) {
        if (const auto* from = account->if_contains("imagePullSecrets"); from && from->is_array() && !from->as_array().empty()) {
            json::array copy;
            for (const auto& s : from->as_array()) {
                const auto* n = s.is_object() ? s.as_object().if_contains("name") : nullptr;
                copy.push_back(json::object{{"name", n && n->is_string() ? n->get_string() : ""}});
            }
            spec["imagePullSecrets"] = std::move(copy);
        }
    }
    return std::nullopt;
}

void object_store::set_service_account_controller(bool on, wall_time now) {
    impl_->service_account_controller = on;
    impl_->service_account_step(now);
}

} // namespace kcoro::apiserver
