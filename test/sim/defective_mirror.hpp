// configmap-mirror with deliberate defects, for the simulator's proof that it
// catches them (`kcoro-sim --world mirror --defect NAME`, docs/testing.md,
// "The mirror world"). They live here, not in the example, so that
// src/examples/configmap-mirror is the plain controller a newcomer copies.
//
// Without defects the mirror world runs mirror::reconciler itself; with one,
// this reconciler, which reads the parent as mirror::reconciler does and then
// writes the child the broken way instead of through apply_owned's checks.
//
// Lifetime: borrows the client, which must outlive it. Thread safety: one
// io_context, as mirror::reconciler.
#pragma once

#include "mirror.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>

#include <boost/asio/awaitable.hpp>

namespace kcoro::server {
class manager;
}

namespace kcoro::sim {

/// The defects, one bit each (sim_options::defects in the mirror world).
enum mirror_defect : unsigned {
    /// The child is applied on every pass, without comparing it first.
    mirror_defect_write_every_pass = 1u << 0,
    /// A create answered AlreadyExists is followed by a forced apply, without
    /// reading the object back or checking who controls it.
    mirror_defect_adopt_on_already_exists = 1u << 1,
};

class defective_mirror {
public:
    /// `defects`: mirror_defect bits, at least one.
    defective_mirror(client::client& client, unsigned defects);

    /// One pass for the parent `ctx.key`, with the defects switched on.
    boost::asio::awaitable<result<runtime::reconcile_result>> reconcile(runtime::reconcile_context ctx);

private:
    boost::asio::awaitable<result<runtime::reconcile_result>> write_child(runtime::reconcile_context ctx,
                                                                          object_ptr parent);

    client::client& client_;
    unsigned defects_;
};

/// mirror::add_to for the defective reconciler: the same controller (name,
/// sources), this reconciler. `rec` must outlive the manager's run().
runtime::controller& add_to(server::manager& mgr, defective_mirror& rec);

} // namespace kcoro::sim
