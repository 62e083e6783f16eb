#include <kcoro/runtime/apply_owned.hpp>

#include <kcoro/runtime/shard_bucket.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/apply_drift.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/runtime/owned_event.hpp>

#include <boost/json/serialize.hpp>

namespace kcoro::runtime {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

void report(const apply_options& opts, const group_version_resource& gvr, const object_key& key, write_op op,
            bool noop) {
    if (opts.helpers.on_write) {
        opts.helpers.on_write(write_record(gvr, key, op, "", noop));
    }
}

} // namespace

asio::awaitable<result<write_result>> apply_owned(client::client& c, group_version_resource gvr, json::object desired,
                                                  object_ptr owner, std::string field_manager, apply_options opts) {
    if (!owner) {
        co_return error(kcoro_errc::invalid_argument, "apply_owned: no owner");
    }
    if (field_manager.empty()) {
        co_return error(kcoro_errc::invalid_argument, "apply_owned: a field manager is required");
    }
    if (auto set = set_controller_reference(desired, *owner); !set) {
        co_return set.error();
    }
    if (opts.helpers.stamp_shard_bucket) stamp_shard_bucket(desired, uid_of(*owner));
    // managedFields may not be applied (the server answers 400).
    if (auto* meta = desired.if_contains("metadata"); meta && meta->is_object()) {
        meta->as_object().erase("managedFields");
    }
    const object_key key = key_of(desired);

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
        create_options copts;
        copts.field_manager = field_manager;
        auto created = co_await c.create(gvr, key.ns, desired, copts);
        if (created) {
            report(opts, gvr, key, write_op::created, false);
            if (opts.events) {
                opts.events->record(owned_event(*owner, **created, write_op::created, {}));
            }
            co_return write_result{*created, write_op::created, {}};
        }
        if (!is_already_exists(created.error())) {
            co_return created.error();
        }
        // Created meanwhile (by us with the response lost, or by someone
        // else): read it back from the API and verify it like any other.
        auto got = co_await c.get(gvr, key);
        if (!got) {
            co_return got.error().with_context("read back after AlreadyExists");
        }
        live = *got;
    }

    if (!is_controlled_by(*live, uid_of(*owner))) {
        co_return name_conflict(*live, *owner);
    }
    auto drift = apply_drift(desired, *live, field_manager);
    if (!drift) {
        co_return write_result{live, write_op::none, {}};
    }
    if (auto replace = colliding_items_patch(desired, *live)) {
        // Someone edited a key field of one of our items (a port number): an
        // apply cannot remove their item and ours would collide with it.
        auto patched = co_await c.patch(gvr, key, json::serialize(*replace), patch_options{patch_type::json});
        if (!patched) {
            co_return patched.error().with_context("put back the items that were replaced");
        }
        report(opts, gvr, key, write_op::patched, is_noop_write(*live, **patched));
        live = *patched;
        auto rest = apply_drift(desired, *live, field_manager);
        if (!rest) {
            if (opts.events) {
                opts.events->record(owned_event(*owner, *live, write_op::patched, *drift));
            }
            co_return write_result{live, write_op::patched, std::move(*drift)};
        }
        drift = std::move(rest);
    }
    auto applied = co_await c.apply(gvr, std::move(desired), field_manager, true);
    if (!applied) {
        co_return applied.error();
    }
    const bool noop = is_noop_write(*live, **applied);
    report(opts, gvr, key, write_op::applied, noop);
    if (opts.events && !noop) {
        opts.events->record(owned_event(*owner, **applied, write_op::applied, *drift));
    }
    co_return write_result{*applied, write_op::applied, std::move(*drift)};
}

asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx, group_version_resource gvr,
                                                  json::object desired, object_ptr owner, owned_events events) {
    apply_options opts;
    opts.helpers = std::move(ctx.helpers);
    if (ctx.read_owned) {
        opts.cached = ctx.read_owned(gvr, key_of(desired));
    }
    if (events == owned_events::record) {
        opts.events = ctx.events;
    }
    co_return co_await apply_owned(c, std::move(gvr), std::move(desired), std::move(owner),
                                   std::move(ctx.field_manager), std::move(opts));
}

asio::awaitable<result<write_result>> apply_owned(client::client& c, reconcile_context ctx, group_version_resource gvr,
                                                  json::object desired, object_ptr owner) {
    return apply_owned(c, std::move(ctx), std::move(gvr), std::move(desired), std::move(owner), owned_events::none);
}

} // namespace kcoro::runtime
