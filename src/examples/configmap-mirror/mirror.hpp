// configmap-mirror: the runtime's reference controller (seed 003, its
// client-go walkthrough redone on kcoro). For every ConfigMap labelled
// app.example.io/managed=true it keeps a child ConfigMap `<name>-observed`
// (label app.example.io/child=true, data.parentUID = the parent's uid,
// a controller owner reference to the parent), by server-side apply
// (runtime::apply_owned):
//
//  - the child is missing          -> create it (AlreadyExists: read back and verify)
//  - the child is right            -> no write at all
//  - the child drifted (mutated)   -> one server-side apply (force: the fields are ours)
//  - a ConfigMap with the child's name that the parent does not control
//                                  -> error "name conflict" (retried with backoff; never adopted)
//  - the parent is gone (cache NotFound) or being deleted
//                                  -> nothing: the garbage collector removes the
//                                     child through its owner reference
//  - the parent's label removed (or not "true")
//                                  -> nothing: the child stays as it was (no
//                                     longer kept) until the parent goes; the
//                                     label back on, and it is kept again
//
// The parent is read from the informer cache (it may lag: a stale parent
// only delays convergence, every write is checked by the server). The child
// is read from the children informer's cache when the controller has one
// (manager-built: add_to), else from the API. Every pass starts from current
// facts, so duplicate events, retries, restarts and lost responses all end
// in the same state (section 16 of the seed document,
// test/integration/section16_test.cpp).
//
// Lifetime: borrows the client, which must outlive it. Thread safety: one
// io_context; concurrent passes of different keys are fine.
#pragma once

#include <kcoro/client/client.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kcoro::server {
class manager;
}

namespace mirror {

inline constexpr std::string_view managed_label = "app.example.io/managed";
inline constexpr std::string_view child_label = "app.example.io/child";
inline constexpr std::string_view parent_uid_key = "parentUID";
inline constexpr std::string_view managed_selector = "app.example.io/managed=true";
inline constexpr std::string_view child_selector = "app.example.io/child=true";
inline constexpr std::string_view controller_name = "configmap-mirror";

/// "<parent>-observed"
std::string child_name(std::string_view parent);
/// The child as the controller wants it: its applied configuration (pure).
boost::json::object desired_child(const boost::json::object& parent);

/// Reads the parent from the controller's own cache (ctx.read_primary: the
/// informer the controller synced and, sharded, filtered to this replica's
/// share); writes through `client`.
class reconciler {
public:
    explicit reconciler(kcoro::client::client& client);

    /// One pass for the parent `ctx.key`; writes through ctx's hooks.
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> reconcile(
        kcoro::runtime::reconcile_context ctx);

private:
    kcoro::client::client& client_;
};

/// The informer keys of the parents and the children.
kcoro::runtime::informer_key parents_key();
kcoro::runtime::informer_key children_key();

/// The controller the short way, on a manager: the parents as primary, the
/// children as owned objects; metrics, logs, events and flags wired by the
/// manager. `rec` must outlive the manager's run().
kcoro::runtime::controller& add_to(kcoro::server::manager& mgr, reconciler& rec);

/// The same controller wired by hand on a bare informer factory (tests that
/// run no manager). `rec` must outlive the controller.
std::unique_ptr<kcoro::runtime::controller> make_controller(kcoro::runtime::informer_factory& factory,
                                                            kcoro::io::clock& clk,
                                                            boost::asio::any_io_executor ex, reconciler& rec,
                                                            kcoro::runtime::controller_options opts);

} // namespace mirror
