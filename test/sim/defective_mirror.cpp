#include "defective_mirror.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/server/manager.hpp>

#include <utility>

namespace kcoro::sim {

namespace asio = boost::asio;
using runtime::reconcile_result;

defective_mirror::defective_mirror(client::client& client, unsigned defects) : client_(client), defects_(defects) {}

// The parent is read and checked as mirror::reconciler::reconcile does (the
// same log line), so a defect changes only how the child is written.
asio::awaitable<result<reconcile_result>> defective_mirror::reconcile(runtime::reconcile_context ctx) {
    auto parent = ctx.read_primary(ctx.key);
    if (!parent) {
        ctx.log.debug("parent not found; nothing to do");
        co_return runtime::success();
    }
    if (is_being_deleted(*parent)) {
        co_return runtime::success();
    }
    co_return co_await write_child(std::move(ctx), std::move(parent));
}

// The broken passes the simulator must catch; each stands for a mistake
// controllers make, in place of apply_owned's checks.
asio::awaitable<result<reconcile_result>> defective_mirror::write_child(runtime::reconcile_context ctx,
                                                                        object_ptr parent) {
    const auto gvr = resources::configmaps();
    auto desired = mirror::desired_child(*parent);
    const auto key = key_of(desired);
    if (defects_ & mirror_defect_adopt_on_already_exists) {
        const auto cached = ctx.read_owned ? ctx.read_owned(gvr, key) : std::optional<object_ptr>();
        if (cached && !*cached) {
            create_options copts;
            copts.field_manager = ctx.field_manager;
            auto created = co_await client_.create(gvr, key.ns, desired, copts);
            if (created || !is_already_exists(created.error())) {
                if (!created) co_return created.error();
                co_return runtime::success();
            }
            // The defect: "it exists, so make it ours".
        } else {
            auto written =
                co_await runtime::apply_owned(client_, std::move(ctx), gvr, std::move(desired), std::move(parent));
            if (!written) co_return written.error().with_context("ensure child " + key.name);
            co_return runtime::success();
        }
    }
    // write_every_pass, and the adoption above: a forced apply, unconditionally.
    auto applied = co_await client_.apply(gvr, std::move(desired), ctx.field_manager, true);
    if (!applied) co_return applied.error().with_context("apply child " + key.name);
    co_return runtime::success();
}

runtime::controller& add_to(server::manager& mgr, defective_mirror& rec) {
    return mgr.controller(std::string(mirror::controller_name))
        .for_(mirror::parents_key())
        .owns(mirror::children_key())
        .complete([&rec](const runtime::reconcile_context& ctx) { return rec.reconcile(ctx); });
}

} // namespace kcoro::sim
