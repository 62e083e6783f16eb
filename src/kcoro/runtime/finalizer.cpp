#include <kcoro/runtime/finalizer.hpp>

#include <kcoro/runtime/controller_helpers.hpp>

#include <ostream>

namespace kcoro::runtime {

namespace asio = boost::asio;

std::string_view to_string(finalizer_event e) noexcept {
    return e == finalizer_event::apply ? "apply" : "cleanup";
}

finalizer_step decide_finalizer_step(const boost::json::object& obj, std::string_view finalizer_name) noexcept {
    const bool ours = has_finalizer(obj, finalizer_name);
    if (is_being_deleted(obj)) {
        return ours ? finalizer_step::cleanup_then_remove : finalizer_step::nothing;
    }
    return ours ? finalizer_step::apply : finalizer_step::add_then_apply;
}

std::ostream& operator<<(std::ostream& os, finalizer_step s) {
    switch (s) {
    case finalizer_step::add_then_apply: return os << "add_then_apply";
    case finalizer_step::apply: return os << "apply";
    case finalizer_step::cleanup_then_remove: return os << "cleanup_then_remove";
    case finalizer_step::nothing: return os << "nothing";
    }
    return os << "?";
}

asio::awaitable<result<reconcile_result>> finalizer(client::client& c, group_version_resource gvr, object_ptr obj,
                                                    std::string finalizer_name, finalizer_reconcile reconcile,
                                                    helper_options opts) {
    if (!obj || !reconcile) {
        co_return error(kcoro_errc::invalid_argument, "finalizer: no object or no reconcile function");
    }
    switch (decide_finalizer_step(*obj, finalizer_name)) {
    case finalizer_step::nothing:
        // Our cleanup is done (or never started): never re-add the finalizer.
        co_return success();
    case finalizer_step::add_then_apply: {
        // Persisted before the apply step can create anything external.
        auto added = co_await ensure_finalizer(c, gvr, obj, finalizer_name, opts);
        if (!added) {
            co_return added.error().with_context("add finalizer");
        }
        obj = *added;
        if (decide_finalizer_step(*obj, finalizer_name) != finalizer_step::apply) {
            // Deleted meanwhile (the re-read after a conflict says so): the
            // next pass decides from that state.
            co_return success();
        }
        [[fallthrough]];
    }
    case finalizer_step::apply: {
        auto r = co_await reconcile(finalizer_event::apply, obj);
        if (!r) {
            co_return r.error().with_context("apply");
        }
        co_return *r;
    }
    case finalizer_step::cleanup_then_remove: {
        auto r = co_await reconcile(finalizer_event::cleanup, obj);
        if (!r) {
            co_return r.error().with_context("cleanup");  // the finalizer stays
        }
        auto removed = co_await remove_finalizer(c, gvr, obj, finalizer_name, opts);
        if (!removed) {
            co_return removed.error().with_context("remove finalizer");
        }
        co_return *r;
    }
    }
    co_return success();
}

} // namespace kcoro::runtime
