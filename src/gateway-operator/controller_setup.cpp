#include "controller_setup.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/server/manager.hpp>

namespace gateway {
namespace json = boost::json;
namespace runtime = kcoro::runtime;

std::vector<std::string> index_by_uid(const json::object& obj) {
    auto uid = kcoro::uid_of(obj);
    if (uid.empty()) {
        return {};
    }
    return {std::string(uid)};
}

std::vector<kcoro::object_key> registration_to_instances(runtime::informer_factory& cache, const json::object& cm) {
    auto uid = kcoro::label_of(cm, uid_label);
    if (!uid || uid->empty()) {
        return {};
    }
    std::vector<kcoro::object_key> keys;
    for (const auto& gi : cache.by_index(gateway_instances(), uid_index, *uid)) {
        keys.push_back(kcoro::key_of(*gi));
    }
    return keys;
}

operator_handle setup(kcoro::server::manager& mgr, reconciler_options opts) {
    operator_handle h;
    const std::string name(controller_name);
    h.rec = std::make_shared<reconciler>(mgr.client(), mgr.clock(), std::move(opts),
                                         mgr.log().with_name(name));

    // Reconciler events -> Kubernetes Events on the instance.
    auto& recorder = mgr.events(event_source);
    h.rec->on_event([&recorder](const json::object& instance, const gateway_event& e) {
        const auto type = e.type == "Warning" ? runtime::event_type::warning : runtime::event_type::normal;
        recorder.record(instance, type, e.reason, e.action, e.note);
    });

    // The primary's informer carries the uid index the registration mapping uses.
    auto& cache = mgr.cache();
    runtime::informer_key primary;
    primary.gvr = gateway_instances();
    cache.get_or_create(primary).add_index(std::string(uid_index), index_by_uid);

    // Registrations live in the registry namespace and carry the uid label.
    runtime::informer_key registrations;
    registrations.gvr = kcoro::resources::configmaps();
    registrations.namespace_ = h.rec->options().registry_namespace;
    registrations.label_selector = std::string(uid_label);

    runtime::controller_options copts;
    copts.max_concurrent_reconciles = static_cast<std::size_t>(mgr.options().max_concurrent_reconciles);
    copts.metrics = mgr.metrics().make_controller_metrics(name);
    copts.queue_metrics = mgr.metrics().make_workqueue_metrics(name, name);
    copts.log = mgr.log().with_name(name);

    auto rec = h.rec;
    runtime::reconcile_func fn = [rec](const kcoro::object_key& key) { return rec->reconcile(key); };
    auto ctl = runtime::builder(cache, mgr.clock(), mgr.executor())
                   .named(name)
                   .for_(primary, runtime::group_kind{std::string(group), std::string(kind)})
                   .owns(kcoro::resources::deployments())
                   .owns(kcoro::resources::services())
                   .watches(registrations,
                            [&cache](const json::object& cm) { return registration_to_instances(cache, cm); })
                   .with_options(std::move(copts))
                   .complete(std::move(fn));
    h.ctl = ctl.get();
    mgr.add(std::move(ctl));
    return h;
}

} // namespace gateway
