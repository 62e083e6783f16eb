// The manager-aware controller builder: the short way to a controller that
// behaves like a controller-runtime one out of the box.
//
//   auto& ctl = mgr.controller("configmap-mirror")
//                   .for_(parents_key)                   // kind from mgr.resources()
//                   .owns(children_key)
//                   .complete(reconcile);                // added to the manager
//
// (test/integration/header_examples_test.cpp runs it.)
//
// complete() wires, from the manager:
//  - controller_runtime_* and workqueue_* metrics for the controller (the
//    manager's registry, exported on /metrics), plus kcoro_noop_writes_total
//    and kcoro_hot_loop_detected_total{controller};
//  - the manager's logger, so "Reconciler error" and the rest are logged
//    with controller, namespace, name and reconcileID (never silent);
//  - --max-concurrent-reconciles (max_concurrent_reconciles() overrides it);
//  - an event recorder for the controller (mgr.events(event source), the
//    controller name unless event_source() says otherwise) in every
//    reconcile_context, also used for the HotLoop Warning Event;
//  - the field manager of its server-side applies (the manager's name
//    unless field_manager() says otherwise), whose managedFields entries
//    the shared cache keeps, and cached reads of owned objects in every
//    reconcile_context (read_owned), so apply_owned sends no GET;
//  - the hot-loop alarm (hot_loop(); controller.hpp);
//  - and adds the controller to the manager (leader-gated), which owns it.
//
// `for_` takes the resource alone: its kind comes from the manager's
// resource table (built-in resources are there; add custom resources once
// with mgr.resources().add). An unknown resource, a missing for_() or a
// second for_() are start-up configuration errors: std::invalid_argument
// (ADR 0002). The low-level runtime::builder stays for tests and for code
// that wires a controller without a manager.
//
// Lifetime: use it before mgr.run(), on the manager's thread; the returned
// controller is owned by the manager. Thread safety: none.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/event_sources.hpp>
#include <kcoro/runtime/hot_loop_tracker.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/predicates.hpp>
#include <kcoro/runtime/rate_limiter.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kcoro::server {

class manager;

class controller_builder {
public:
    controller_builder(manager& mgr, std::string name);

    /// The primary resource (one per controller), every namespace the manager watches.
    controller_builder& for_(group_version_resource gvr, std::vector<runtime::predicate> predicates = {});
    /// The primary, with the informer's namespace and selectors.
    controller_builder& for_(runtime::informer_key key, std::vector<runtime::predicate> predicates = {});
    /// Children controlled by the primary (mapped through the controller owner reference).
    controller_builder& owns(group_version_resource gvr, std::vector<runtime::predicate> predicates = {});
    controller_builder& owns(runtime::informer_key key, std::vector<runtime::predicate> predicates = {});
    /// Any resource, mapped to keys by `fn`.
    controller_builder& watches(runtime::informer_key key, runtime::map_func fn,
                                std::vector<runtime::predicate> predicates = {});
    /// Applied to every source, before its own predicates.
    controller_builder& with_event_filter(runtime::predicate p);

    /// Overrides --max-concurrent-reconciles for this controller.
    controller_builder& max_concurrent_reconciles(std::size_t n);
    /// The server-side apply field manager (default: the manager's name).
    controller_builder& field_manager(std::string name);
    /// The reportingController of its Events (default: the controller's name).
    controller_builder& event_source(std::string name);
    controller_builder& hot_loop(runtime::hot_loop_options opts);
    controller_builder& rate_limiter(runtime::rate_limiter_options opts);

    /// Builds the controller, adds it to the manager, returns it.
    runtime::controller& complete(runtime::reconcile_context_func r);
    runtime::controller& complete(runtime::reconcile_func r);

private:
    struct source {
        enum class role { primary, owned, mapped } kind;
        runtime::informer_key key;
        std::vector<runtime::predicate> predicates;
        runtime::map_func map;
    };

    manager& mgr_;
    std::string name_;
    std::vector<source> sources_;
    std::vector<runtime::predicate> filters_;
    std::optional<std::size_t> max_concurrent_;
    std::string field_manager_;
    std::string event_source_;
    runtime::hot_loop_options hot_loop_{};
    runtime::rate_limiter_options rate_limiter_{};
};

} // namespace kcoro::server
