// expose: a Service for every Deployment annotated
//
//   expose.example.io/port: "<port>"               targetPort = port
//   expose.example.io/port: "<port>:<targetPort>"  targetPort a number, or
//                                                  the name of a container
//                                                  port of the Deployment
//
// The Service has the Deployment's name, selects its Pods (its matchLabels)
// and is controlled by it (a controller owner reference): apply_owned
// creates it, leaves it alone while it is right and puts it back with one
// write when someone edits it; delete_owned removes it when the annotation
// goes or turns invalid. Every write is an Event on the Deployment
// (Created, Updated, Deleted), and an invalid annotation a Warning Event
// (InvalidAnnotation) saying why. A Service of that name that is not ours
// is never touched.
//
// docs/getting-started.md walks through it; test/integration/expose_test.cpp
// tests it.
#pragma once

#include <kcoro/client/client.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/typed/k8s/deployment.hpp>
#include <kcoro/typed/k8s/service.hpp>

#include <boost/asio/awaitable.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::server {
class manager;
}

namespace expose {

inline constexpr std::string_view port_annotation = "expose.example.io/port";

/// What a Deployment asks for.
struct wanted {
    /// The Service (only the fields we manage); nullopt: none.
    std::optional<kcoro::k8s::service> service;
    /// Why the annotation is invalid; empty when it is valid or absent.
    std::string invalid;
};

/// The Service `d` asks for (pure).
wanted desired_service(const kcoro::k8s::deployment& d);

/// One pass for the Deployment `d`, as decoded from the cache.
boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> reconcile(
    kcoro::client::client& c, kcoro::runtime::reconcile_context ctx,
    std::shared_ptr<const kcoro::k8s::deployment> d);

/// The controller on a manager: Deployments as primary, the Services they
/// control as owned objects (read from the cache).
kcoro::runtime::controller& add_to(kcoro::server::manager& mgr);

} // namespace expose
