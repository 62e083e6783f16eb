// The low-level controller builder (controller-runtime's
// builder.ControllerManagedBy without a manager; the manager's own,
// server/controller_builder.hpp, is the short way and sits on this one):
// sugar over controller.hpp + event_sources.hpp + informer_factory.hpp. It
// asks the factory for the informers it needs, registers the handlers that
// map their events to keys, makes the controller wait for those informers'
// sync, and hands the controller back. Everything it does can be written by
// hand (see test/integration/controller_test.cpp).
//
//   auto ctl = runtime::builder(factory, clock, ex)
//                  .named("configmap-mirror")
//                  .for_({.gvr = resources::configmaps(), .label_selector = "app.example.io/managed=true"},
//                        {"", "ConfigMap"})
//                  .owns({.gvr = resources::configmaps(), .label_selector = "app.example.io/child=true"})
//                  .with_options({.max_concurrent_reconciles = 2})
//                  .complete(reconcile_fn);           // std::unique_ptr<controller>
//
// (test/integration/header_examples_test.cpp runs it.)
//
//  - for_(key, kind, predicates...): the primary; its events enqueue the
//    object's key. `kind` is the primary's group and kind: owns() maps
//    children through controller owner references of that group and kind.
//  - owns(key, predicates...): children; events enqueue the controller
//    owner's key when the owner is of the primary's group/kind.
//  - watches(key, map_fn, predicates...): any resource; events enqueue what
//    map_fn returns.
//  - with_event_filter(p): applied to every source, before its own predicates.
//  - with_options(o): controller options; the builder fills `name`,
//    group/kind (when empty) and `wait_for_sync`.
//  - complete(reconciler) -> std::unique_ptr<controller>; throws
//    std::invalid_argument for a missing name or for_() (start-up
//    configuration errors are exceptions, ADR 0002).
//
// Lifetime: the factory, clock and executor must outlive the controller;
// the builder may be discarded after complete(). Thread safety: none.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/event_sources.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/predicates.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::runtime {

class builder {
public:
    builder(informer_factory& factory, io::clock& clk, boost::asio::any_io_executor ex);

    builder& named(std::string name);
    /// The primary resource (one per controller).
    builder& for_(informer_key key, group_kind kind, std::vector<predicate> predicates = {});
    builder& for_(const group_version_resource& gvr, group_kind kind, std::vector<predicate> predicates = {});
    /// Children controlled by the primary (mapped through the controller owner reference).
    builder& owns(informer_key key, std::vector<predicate> predicates = {});
    builder& owns(const group_version_resource& gvr, std::vector<predicate> predicates = {});
    /// Any resource, mapped by `fn`.
    builder& watches(informer_key key, map_func fn, std::vector<predicate> predicates = {});
    /// As watches(); the map names each key's primary uid (event_sources.hpp: mapped_key).
    builder& watches(informer_key key, uid_map_func fn, std::vector<predicate> predicates = {});
    builder& with_event_filter(predicate p);
    builder& with_options(controller_options opts);

    std::unique_ptr<controller> complete(reconcile_func r);
    std::unique_ptr<controller> complete(reconcile_context_func r);

private:
    enum class source_kind { primary, owned, mapped };
    struct source {
        source_kind kind;
        informer_key key;
        std::vector<predicate> predicates;
        uid_map_func map;  // mapped: a map_func's keys carry no uid
    };
    void check() const;
    void wire(controller& c);

    informer_factory& factory_;
    io::clock& clock_;
    boost::asio::any_io_executor ex_;
    std::string name_;
    std::optional<group_kind> primary_kind_;
    std::vector<source> sources_;
    std::vector<predicate> global_;
    controller_options opts_;
};

} // namespace kcoro::runtime
