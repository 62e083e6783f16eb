#include <kcoro/runtime/delete_owned.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/runtime/owned_event.hpp>

namespace kcoro::runtime {

namespace asio = boost::asio;

asio::awaitable<result<write_result>> delete_owned(client::client& c, group_version_resource gvr, object_key key,
                                                   object_ptr owner, delete_owned_options opts) {
    if (!owner) {
        co_return error(kcoro_errc::invalid_argument, "delete_owned: no owner");
    }
    object_ptr live;
    if (opts.cached) {
        live = *opts.cached;
    } else {
        auto got = co_await c.get(gvr, key);
        if (got) {
            live = *got;
        } else if (!is_not_found(got.error())) {
            co_return got.error();
        }
    }
    if (!live) {
        co_return write_result{nullptr, write_op::none, {}};
    }
    if (!is_controlled_by(*live, uid_of(*owner)) || is_being_deleted(*live)) {
        // Someone else's (never ours to delete), or on its way out already.
        co_return write_result{live, write_op::none, {}};
    }
    // The uid precondition: only the object judged, never one made since.
    const delete_options dopts{delete_preconditions{std::string(uid_of(*live)), ""}};
    auto r = co_await c.remove(gvr, key, dopts);
    if (!r) {
        if (is_not_found(r.error()) || is_conflict(r.error())) {
            co_return write_result{live, write_op::none, {}};
        }
        co_return r.error().with_context("delete " + key.str());
    }
    if (opts.helpers.on_write) {
        opts.helpers.on_write(write_record(gvr, key, write_op::deleted, "", false));
    }
    if (opts.events) {
        opts.events->record(owned_event(*owner, *live, write_op::deleted, {}));
    }
    co_return write_result{live, write_op::deleted, {}};
}

asio::awaitable<result<write_result>> delete_owned(client::client& c, reconcile_context ctx, group_version_resource gvr,
                                                   object_key key, object_ptr owner, owned_events events) {
    delete_owned_options opts;
    opts.helpers = std::move(ctx.helpers);
    if (ctx.read_owned) {
        opts.cached = ctx.read_owned(gvr, key);
    }
    if (events == owned_events::record) {
        opts.events = ctx.events;
    }
    co_return co_await delete_owned(c, std::move(gvr), std::move(key), std::move(owner), std::move(opts));
}

} // namespace kcoro::runtime
