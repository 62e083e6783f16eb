#include "mirror.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/server/manager.hpp>

#include <utility>

namespace mirror {

namespace asio = boost::asio;
namespace json = boost::json;
using kcoro::result;
using kcoro::runtime::reconcile_result;

std::string child_name(std::string_view parent) { return std::string(parent) + "-observed"; }

json::object desired_child(const json::object& parent) {
    json::object child;
    child["apiVersion"] = "v1";
    child["kind"] = "ConfigMap";
    kcoro::set_name(child, child_name(kcoro::name_of(parent)));
    kcoro::set_namespace(child, kcoro::namespace_of(parent));
    kcoro::set_label(child, child_label, "true");
    json::object data;
    data[parent_uid_key] = kcoro::uid_of(parent);
    child["data"] = std::move(data);
    (void)kcoro::runtime::set_controller_reference(child, parent);  // a fresh child has no other controller
    return child;
}

reconciler::reconciler(kcoro::client::client& client) : client_(client) {}

asio::awaitable<result<reconcile_result>> reconciler::reconcile(kcoro::runtime::reconcile_context ctx) {
    if (!ctx.read_primary) {
        co_return kcoro::error(kcoro::kcoro_errc::terminal,
                               "configmap-mirror: the controller has no primary cache (controller_options::read_primary)");
    }
    auto parent = ctx.read_primary(ctx.key);
    if (!parent) {
        // Gone: the garbage collector removes the child. No longer managed
        // (its label removed): the child stays as it was, no longer kept,
        // and goes with the parent (the cache cannot tell the two apart).
        ctx.log.debug("parent not found; nothing to do");
        co_return kcoro::runtime::success();
    }
    if (kcoro::is_being_deleted(*parent)) {
        co_return kcoro::runtime::success();
    }
    auto written =
        co_await kcoro::runtime::apply_owned(client_, ctx, kcoro::resources::configmaps(), desired_child(*parent), parent);
    if (!written) {
        co_return written.error().with_context("ensure child " + child_name(ctx.key.name));
    }
    if (written->op != kcoro::runtime::write_op::none) {
        ctx.log.info("child written", {{"child", child_name(ctx.key.name)},
                                       {"op", kcoro::runtime::to_string(written->op)},
                                       {"drift", written->drift}});
    }
    co_return kcoro::runtime::success();
}

kcoro::runtime::informer_key parents_key() {
    kcoro::runtime::informer_key k;
    k.gvr = kcoro::resources::configmaps();
    k.label_selector = std::string(managed_selector);
    return k;
}

kcoro::runtime::informer_key children_key() {
    kcoro::runtime::informer_key k;
    k.gvr = kcoro::resources::configmaps();
    k.label_selector = std::string(child_selector);
    return k;
}

kcoro::runtime::controller& add_to(kcoro::server::manager& mgr, reconciler& rec) {
    return mgr.controller(std::string(controller_name))
        .for_(parents_key())
        .owns(children_key())
        // Sharded: the server sends each replica its own children
        // (apply_owned stamps their owner-bucket label).
        .shard_children_by_label()
        .complete([&rec](const kcoro::runtime::reconcile_context& ctx) { return rec.reconcile(ctx); });
}

std::unique_ptr<kcoro::runtime::controller> make_controller(kcoro::runtime::informer_factory& factory,
                                                            kcoro::io::clock& clk, asio::any_io_executor ex,
                                                            reconciler& rec,
                                                            kcoro::runtime::controller_options opts) {
    if (opts.name.empty()) {
        opts.name = std::string(controller_name);
    }
    return kcoro::runtime::builder(factory, clk, std::move(ex))
        .named(opts.name)
        .for_(parents_key(), {"", "ConfigMap"})
        .owns(children_key())
        .with_options(std::move(opts))
        .complete([&rec](const kcoro::runtime::reconcile_context& ctx) { return rec.reconcile(ctx); });
}

} // namespace mirror
