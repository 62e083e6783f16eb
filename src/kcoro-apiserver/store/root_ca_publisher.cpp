// object_store: the root-CA publisher kube-controller-manager runs
// (kubernetes/kubernetes pkg/controller/certificates/rootcacertpublisher/
// publisher.go): ConfigMap `kube-root-ca.crt` in every namespace, data
// `ca.crt` = the cluster CA (PEM), annotation kubernetes.io/description.
//
// The real controller is event-driven: a namespace added (or updated while
// Active) and a kube-root-ca.crt deleted or updated queue the namespace; the
// sync creates the ConfigMap when it is missing (a create refused because
// the namespace is gone or terminating is dropped, not retried) and, when it
// exists, rewrites `data` to exactly {ca.crt} and sets the annotation unless
// both already hold (other annotations, labels and binaryData stay).
// Here: a namespace's create publishes at once (the store's create path calls
// publish_root_ca), and every gc_step checks every namespace (level-based:
// the same outcome as reacting to each delete and update).
#include "store/object_store.hpp"
#include "store/store_impl.hpp"

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

constexpr std::string_view description_annotation = "kubernetes.io/description";
// publisher.go's Description, word for word.
constexpr std::string_view description =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";

request_context publisher_ctx(wall_time now) {
    request_context ctx;
    ctx.now = now;
    // kube-controller-manager's client for this controller; managedFields
    // name the binary (its User-Agent's first word).
    ctx.user = "system:serviceaccount:kube-system:root-ca-cert-publisher";
    ctx.field_manager = "kube-controller-manager";
    return ctx;
}

// reflect.DeepEqual(cm.Data, {"ca.crt": rootCA}) && the annotation non-empty.
bool up_to_date(const json::object& cm, std::string_view ca) {
    const auto* data = cm.if_contains("data");
    if (!data || !data->is_object() || data->as_object().size() != 1) return false;
    const auto* crt = data->as_object().if_contains("ca.crt");
    if (!crt || !crt->is_string() || crt->get_string() != ca) return false;
    auto a = annotation_of(cm, description_annotation);
    return a && !a->empty();
}

} // namespace

bool object_store::impl::publish_root_ca(std::string_view ns, wall_time now) {
    if (root_ca_pem.empty()) return false;
    const auto* def = owner.registry_.find(resources::configmaps());
    if (!def) return false;
    auto ctx = publisher_ctx(now);
    auto cm = find(*def, ns, root_ca_configmap_name);
    if (!cm) {
        json::object body{
            {"metadata", json::object{{"name", root_ca_configmap_name},
                                      {"annotations", json::object{{description_annotation, description}}}}},
            {"data", json::object{{"ca.crt", root_ca_pem}}}};
        // 404 (namespace gone) and 403 NamespaceTerminating: dropped, as the
        // real sync drops them.
        return static_cast<bool>(do_create(ctx, *def, ns, std::move(body), false));
    }
    if (up_to_date(*cm, root_ca_pem)) return false;
    json::object next = *cm;
    next["data"] = json::object{{"ca.crt", root_ca_pem}};
    auto& meta = mutable_metadata(next);
    auto& ann = meta["annotations"];
    if (!ann.is_object()) ann = json::object{};
    ann.as_object()[description_annotation] = description;
    return static_cast<bool>(do_update(ctx, *def, ns, root_ca_configmap_name, std::move(next), subresource::none,
                                       nullptr));
}

std::vector<std::string> object_store::impl::namespace_names() const {
    std::vector<std::string> names;
    const auto* nsdef = owner.registry_.find(resources::namespaces());
    if (const auto* b = nsdef ? find_bucket(*nsdef) : nullptr) {
        for (const auto& [key, obj] : *b) names.push_back(key.name);
    }
    return names;
}

bool object_store::impl::root_ca_step(wall_time now) {
    if (root_ca_pem.empty()) return false;
    bool changed = false;
    for (const auto& ns : namespace_names()) changed |= publish_root_ca(ns, now);
    return changed;
}

void object_store::set_root_ca(std::string ca_pem, wall_time now) {
    impl_->root_ca_pem = std::move(ca_pem);
    impl_->root_ca_step(now);
}

const std::string& object_store::root_ca() const noexcept { return impl_->root_ca_pem; }

} // namespace kcoro::apiserver
