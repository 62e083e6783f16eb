#include "controller_setup.hpp"

#include "desired_state.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/k8s/deployment.hpp>
#include <kcoro/typed/k8s/service.hpp>

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

std::optional<kcoro::k8s::config_map> as_config_map(const json::object& obj) {
    kcoro::k8s::config_map cm;
    if (!kcoro::typed::decode(obj, cm).empty()) {
        return std::nullopt;  // not a ConfigMap the API would serve: no registration
    }
    return cm;
}

std::vector<std::string> index_by_instance(const json::object& obj) {
    auto cm = as_config_map(obj);
    auto key = cm ? registration_instance(*cm) : std::nullopt;
    if (!key) {
        return {};
    }
    return {key->str()};
}

std::vector<runtime::mapped_key> registration_to_instances(runtime::informer_factory& cache, const json::object& obj) {
    auto cm = as_config_map(obj);
    if (!cm) {
        return {};
    }
    auto uid = cm->metadata.labels.find(std::string(uid_label));
    if (uid == cm->metadata.labels.end() || uid->second.empty()) {
        return {};
    }
    std::vector<runtime::mapped_key> keys;
    for (const auto& gi : cache.by_index(gateway_instances(), uid_index, uid->second)) {
        keys.emplace_back(kcoro::key_of(*gi), uid->second);
    }
    if (keys.empty()) {
        // No cached instance has its uid (gone, or not seen yet): the pass of
        // the instance its data names deletes it if it is an orphan; sharded,
        // on the replica that owns the uid (no other holds the instance).
        if (auto key = registration_instance(*cm)) {
            keys.emplace_back(std::move(*key), uid->second);
        }
    }
    return keys;
}

void register_resources(kcoro::resource_table& table) {
    kcoro::resource_info gi;
    gi.gvr = gateway_instances();
    gi.kind = std::string(kind);
    gi.namespaced = true;
    gi.has_status = true;
    table.add(std::move(gi));
}

operator_handle setup(kcoro::server::manager& mgr, reconciler_options opts) {
    operator_handle h;
    h.rec = std::make_shared<reconciler>(mgr.client(), mgr.clock(), std::move(opts));
    register_resources(mgr.resources());

    // Reconciler events -> Kubernetes Events on the instance, through the
    // recorder the controller gets (reporting controller "gateway-operator").
    auto& recorder = mgr.events(event_source);
    h.rec->on_event([&recorder](const json::object& instance, const gateway_event& e) {
        const auto type = e.type == "Warning" ? runtime::event_type::warning : runtime::event_type::normal;
        recorder.record(instance, type, e.reason, e.action, e.note);
    });

    // The primary's informer carries the uid index the registration mapping uses.
    auto& cache = mgr.cache();
    runtime::informer_key primary;
    primary.gvr = gateway_instances();
    // The controller's own informer: with --sharding-ring it keeps only this
    // replica's share of the instances (docs/sharding.md).
    auto& instances = cache.get_or_create(mgr.controller_key(primary, runtime::shard_by::uid));
    instances.add_index(std::string(uid_index), index_by_uid);

    // Registrations live in the registry namespace and carry the uid label.
    runtime::informer_key registrations;
    registrations.gvr = kcoro::resources::configmaps();
    registrations.namespace_ = h.rec->options().registry_namespace;
    registrations.label_selector = std::string(uid_label);
    auto& registered = cache.get_or_create(registrations);
    registered.add_index(std::string(instance_index), index_by_instance);

    // The informers belong to the manager's factory, which outlives the controller.
    cached_reads reads;
    reads.registration = [&registered](const kcoro::object_key& key) -> std::optional<kcoro::k8s::config_map> {
        auto obj = registered.cache().get(key);
        return obj ? as_config_map(*obj) : std::nullopt;
    };
    reads.registrations_of = [&registered](const kcoro::object_key& key) {
        std::vector<kcoro::k8s::config_map> out;
        for (const auto& obj : registered.cache().by_index(instance_index, key.str())) {
            if (auto cm = as_config_map(*obj)) out.push_back(std::move(*cm));
        }
        return out;
    };
    reads.instance_cached = [&instances](std::string_view uid) {
        return !instances.cache().by_index(uid_index, uid).empty();
    };
    h.rec->use_cache(std::move(reads));

    auto rec = h.rec;
    // Typed sources: the resources from the types (the same informers as
    // the JSON keys: the primary's, with its index, is the default-scope one).
    h.ctl = &mgr.controller(std::string(controller_name))
                 .for_<gateway_instance>()
                 .owns<kcoro::k8s::deployment>()
                 .owns<kcoro::k8s::service>()
                 // Sharded: the server sends each replica its own children
                 // (apply_owned stamps their owner-bucket label).
                 .shard_children_by_label()
                 .watches(registrations,
                          [&cache](const json::object& cm) { return registration_to_instances(cache, cm); })
                 .event_source(std::string(event_source))
                 .field_manager(h.rec->options().field_manager)
                 .complete([rec](const runtime::reconcile_context& ctx) { return rec->reconcile(ctx); });
    return h;
}

} // namespace gateway
