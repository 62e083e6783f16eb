#include "reconciler.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/finalizer.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/k8s/config_map.hpp>
#include <kcoro/typed/resource_traits.hpp>
#include <kcoro/typed/validation.hpp>

#include <memory>
#include <string>
#include <utility>

namespace @@namespace@@ {

namespace json = boost::json;
namespace runtime = kcoro::runtime;
using traits = kcoro::typed::resource_traits<@@version@@::@@kind_snake@@>;

// The child: a typed ConfigMap holding only what this controller manages
// (apply_owned adds the owner reference and compares field by field).
kcoro::k8s::config_map desired_configmap(const @@version@@::@@kind_snake@@& obj) {
    std::string text;
    for (std::int32_t i = 0; i < obj.spec.copies; ++i) text += obj.spec.message;
    kcoro::k8s::config_map cm;
    cm.metadata.name = obj.metadata.name;
    cm.metadata.namespace_ = obj.metadata.namespace_;
    cm.data["message"] = std::move(text);
    return cm;
}

reconciler::reconciler(kcoro::client::client& client, runtime::informer& primary, kcoro::io::clock& clock)
    : client_(client), primary_(primary), clock_(clock) {}

boost::asio::awaitable<kcoro::result<runtime::reconcile_result>> reconciler::reconcile(
    const runtime::reconcile_context& ctx) {
    auto obj = primary_.cache().get(ctx.key);
    if (!obj) co_return runtime::success();  // deleted: the garbage collector takes the ConfigMap
    runtime::finalizer_reconcile work = [this, &ctx](runtime::finalizer_event ev, kcoro::object_ptr o)
        -> boost::asio::awaitable<kcoro::result<runtime::reconcile_result>> {
        if (ev == runtime::finalizer_event::cleanup) {
            // Remove here what lives outside the cluster; the ConfigMap goes
            // with its owner reference.
            ctx.log.info("cleaned up");
            co_return runtime::success();
        }
        co_return co_await apply(ctx, std::move(o));
    };
    auto gvr = traits::gvr();
    std::string name(finalizer_name);
    co_return co_await runtime::finalizer(client_, gvr, obj, name, work, ctx.helpers);
}

boost::asio::awaitable<kcoro::result<runtime::reconcile_result>> reconciler::apply(
    const runtime::reconcile_context& ctx, kcoro::object_ptr obj) {
    auto decoded = kcoro::typed::decode_valid<@@version@@::@@kind_snake@@>(*obj);
    if (!decoded) {
        // A spec outside the type's schema bounds (a CRD installed without
        // them, or an older one) or refused by validate(): report it, do not
        // retry (nothing changes until the object does).
        co_return runtime::terminal_error(kcoro::typed::to_error(decoded.error(), "invalid " + ctx.key.str()));
    }
    auto& current = *decoded;

    // Created once, repaired on drift (an Event each time), no write when right.
    auto child = co_await runtime::apply_owned(client_, ctx, desired_configmap(current), obj,
                                               runtime::owned_events::record);
    if (!child) co_return child.error().with_context("configmap");

    // The status: Ready, for this generation; one PUT only when it changes.
    auto status = current.status;
    status.observed_generation = current.metadata.generation;
    kcoro::typed::condition ready;
    ready.type = "Ready";
    ready.status = "True";
    ready.reason = "ConfigMapReady";
    ready.message = "ConfigMap " + current.metadata.name + " holds the message";
    ready.observed_generation = current.metadata.generation;
    kcoro::typed::set_condition(status.conditions, ready, clock_.wall_now());
    if (!(status == current.status)) {
        current.status = std::move(status);
        auto body = kcoro::typed::to_object(current);
        auto sgvr = traits::gvr();
        auto written = co_await client_.update_status(sgvr, body);
        if (!written) co_return written.error().with_context("status");
    }
    co_return runtime::success();
}

void setup(kcoro::server::manager& mgr) {
    kcoro::resource_info info;
    info.gvr = traits::gvr();
    info.kind = std::string(traits::kind);
    info.namespaced = traits::namespaced;
    info.has_status = true;
    mgr.resources().add(std::move(info));

    runtime::informer_key primary;
    primary.gvr = traits::gvr();
    // The controller's own informer of the primary (with --sharding-ring,
    // the one that holds this replica's share), not a second one.
    auto& informer = mgr.cache().get_or_create(mgr.controller_key(primary, runtime::shard_by::uid));
    auto rec = std::make_shared<reconciler>(mgr.client(), informer, mgr.clock());
    mgr.controller("@@kind_snake@@")
        .for_(traits::gvr())
        .owns(kcoro::resources::configmaps())
        .complete([rec](const runtime::reconcile_context& ctx) { return rec->reconcile(ctx); });
}

} // namespace @@namespace@@
