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

reconciler::reconciler(kcoro::client::client& client, parent_reader read_parent)
    : client_(client), read_parent_(std::move(read_parent)) {}

reconciler::reconciler(kcoro::client::client& client, parent_reader read_parent, unsigned defects)
    : client_(client), read_parent_(std::move(read_parent)), defects_(defects) {}

asio::awaitable<result<reconcile_result>> reconciler::reconcile(kcoro::runtime::reconcile_context ctx) {
    auto parent = read_parent_(ctx.key);
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
    if (defects_) {
        co_return co_await reconcile_with_defect(std::move(ctx), std::move(parent));
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

// The broken passes the simulator must catch (mirror::defect); each stands
// for a mistake controllers make, in place of apply_owned's checks.
asio::awaitable<result<reconcile_result>> reconciler::reconcile_with_defect(kcoro::runtime::reconcile_context ctx,
                                                                            kcoro::object_ptr parent) {
    const auto gvr = kcoro::resources::configmaps();
    auto desired = desired_child(*parent);
    const auto key = kcoro::key_of(desired);
    if (defects_ & defect_adopt_on_already_exists) {
        const auto cached = ctx.read_owned ? ctx.read_owned(gvr, key) : std::optional<kcoro::object_ptr>();
        if (cached && !*cached) {
            kcoro::create_options copts;
            copts.field_manager = ctx.field_manager;
            auto created = co_await client_.create(gvr, key.ns, desired, copts);
            if (created || !kcoro::is_already_exists(created.error())) {
                if (!created) co_return created.error();
                co_return kcoro::runtime::success();
            }
            // The defect: "it exists, so make it ours".
        } else {
            auto written = co_await kcoro::runtime::apply_owned(client_, std::move(ctx), gvr, std::move(desired),
                                                                std::move(parent));
            if (!written) co_return written.error().with_context("ensure child " + key.name);
            co_return kcoro::runtime::success();
        }
    }
    // write_every_pass, and the adoption above: a forced apply, unconditionally.
    auto applied = co_await client_.apply(gvr, std::move(desired), ctx.field_manager, true);
    if (!applied) co_return applied.error().with_context("apply child " + key.name);
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

parent_reader cache_reader(kcoro::runtime::informer_factory& factory) {
    auto* inf = &factory.get_or_create(parents_key());
    return [inf](const kcoro::object_key& key) { return inf->cache().get(key); };
}

kcoro::runtime::controller& add_to(kcoro::server::manager& mgr, reconciler& rec) {
    return mgr.controller(std::string(controller_name))
        .for_(parents_key())
        .owns(children_key())
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
