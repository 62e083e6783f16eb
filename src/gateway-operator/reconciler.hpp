// The GatewayInstance reconciler: one pass from current facts (docs/operator.md).
//
//   0. orphans: a cached registration that names this instance but carries
//      the uid of an instance that is gone (a create that committed after
//      its client gave up, once the cleanup had run) is deleted
//   1. read the instance; NotFound ends the pass successfully
//   2. the rest runs inside runtime::finalizer (kube-rs's finalizer()):
//      not deleting: the finalizer is persisted first, then the apply step;
//      deleting: the cleanup step (delete the registration if it carries this
//      uid), then only our finalizer is removed; never re-added while
//      deleting, and children are never created or repaired then (the
//      garbage collector removes the Deployment and the Service)
//   3. apply step: ensure the registration ConfigMap (by uid-derived name +
//      uid label; read from the cache, created when absent there, read
//      back from the API when the create meets AlreadyExists); the Deployment and the Service by server-side apply
//      (runtime::apply_owned: no write when our fields hold our values, one
//      forced apply on drift); someone else's object is never adopted or
//      overwritten: NameConflict
//   4. write the status only when it differs; requeue while the Deployment
//      rolls out, recheck periodically once converged
//
// Every write is recognisable on the next pass, so a pass cut short at any
// point (crash, lost response, Forbidden) resumes without rollback. Every
// write is reported through the context's hooks (the hot-loop alarm).
//
// Lifetime: borrows the client and clock, which must outlive it.
// Thread safety: one io_context; concurrent passes for different keys are fine.
#pragma once

#include "gateway_instance.hpp"
#include "instance_status.hpp"

#include <kcoro/typed/k8s/config_map.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/core/log.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/reconcile_result.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gateway {

/// Deliberate defects, switched on one at a time by the simulator to prove
/// that it catches them (test/sim, docs/testing.md). Never set otherwise.
enum defect : unsigned {
    /// The registration is created before the finalizer is persisted.
    defect_registration_before_finalizer = 1u << 0,
    /// The status is written on every pass, changed or not.
    defect_status_every_pass = 1u << 1,
    /// Any ConfigMap at the registration's name is taken for the
    /// registration (repaired, deleted on cleanup): no uid check.
    defect_no_uid_check = 1u << 2,
    /// A registration create answered AlreadyExists fails the pass, without
    /// reading back what is there.
    defect_already_exists_is_failure = 1u << 3,
};

/// The operator's cached reads (controller_setup wires them to the
/// manager's informers). Without them every read goes to the API and no
/// orphan is swept (the scenario tests drive passes that way).
struct cached_reads {
    /// The registration of this key as the registrations informer holds it; nullopt: not cached.
    std::function<std::optional<kcoro::k8s::config_map>(const kcoro::object_key&)> registration;
    /// The cached registrations whose data names this instance key.
    std::function<std::vector<kcoro::k8s::config_map>(const kcoro::object_key&)> registrations_of;
    /// True when the GatewayInstance cache holds an instance with this uid.
    std::function<bool(std::string_view)> instance_cached;
};

struct reconciler_options {
    std::string registry_namespace = "kcoro-system";
    /// Requeue while the Deployment rolls out (never block waiting).
    std::chrono::nanoseconds rollout_poll = std::chrono::seconds(5);
    /// Periodic recheck once converged (children are also watched).
    std::chrono::nanoseconds recheck = std::chrono::minutes(10);
    /// Field manager of the registration and status writes (the children's
    /// server-side applies use the reconcile context's).
    std::string field_manager = "gateway-operator";
    /// `defect` bits (tests only).
    unsigned defects = 0;
};

/// Something worth an Event on the instance (reason, note, Normal/Warning).
struct gateway_event {
    std::string type;    // "Normal" | "Warning"
    std::string reason;  // "CreatedDeployment", "NameConflict", ...
    std::string action;  // "Create", "Patch", "Delete", "Reconcile"
    std::string note;
};

class reconciler {
public:
    reconciler(kcoro::client::client& client, kcoro::io::clock& clock, reconciler_options opts);

    /// Called for every event-worthy step; optional (the manager wires the recorder).
    void on_event(std::function<void(const boost::json::object& instance, const gateway_event&)> f) {
        on_event_ = std::move(f);
    }

    /// One pass for `ctx.key`. Errors: retryable ones are returned as errors
    /// (rate-limited requeue); an invalid spec is a terminal error
    /// (kcoro_errc::terminal). The children are applied as
    /// `ctx.field_manager`, read from `ctx.read_owned` when it has them.
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> reconcile(
        kcoro::runtime::reconcile_context ctx);

    const reconciler_options& options() const noexcept { return opts_; }

    /// Reads the registrations from these caches (before the first pass).
    void use_cache(cached_reads c) { cache_ = std::move(c); }

private:
    struct pass;
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> converge(pass& p);
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> cleanup(pass& p);
    bool is_ours(const kcoro::k8s::config_map& registration, std::string_view uid) const;
    boost::asio::awaitable<kcoro::result<void>> sweep(const kcoro::runtime::reconcile_context& ctx,
                                                      std::vector<kcoro::k8s::config_map> orphans);
    boost::asio::awaitable<kcoro::result<void>> ensure_registration(pass& p);
    boost::asio::awaitable<kcoro::result<void>> ensure_deployment(pass& p);
    boost::asio::awaitable<kcoro::result<void>> ensure_service(pass& p);
    /// What ensure_deployment and ensure_service do with apply_owned's answer.
    kcoro::result<void> applied(pass& p, std::string_view kind, const kcoro::result<kcoro::runtime::write_result>& w);
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> write_status(pass& p);
    void event(const pass& p, std::string_view type, std::string_view reason, std::string_view action,
               std::string note) const;

    kcoro::client::client& client_;
    kcoro::io::clock& clock_;
    reconciler_options opts_;
    cached_reads cache_;
    std::function<void(const boost::json::object&, const gateway_event&)> on_event_;
};

} // namespace gateway
