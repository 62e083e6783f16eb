// The @@kind@@ controller: for every @@kind@@ it keeps a ConfigMap of the
// same name holding spec.message (spec.copies times), owned by the @@kind@@
// (the garbage collector deletes it with its owner), and reports Ready in
// the status.
//
// One pass (reconcile):
//  1. the @@kind@@ from the informer cache (gone: nothing to do);
//  2. the finalizer helper (kcoro/runtime/finalizer.hpp) adds the
//     finalizer before anything else is written, and on deletion runs the
//     cleanup step, then removes the finalizer;
//  3. apply: decode and validate the typed object, desired_configmap()
//     (pure), apply_owned (no write when nothing drifted), then the status
//     (written only when it changes).
#pragma once

#include "api/@@kind_snake@@_types.hpp"

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/typed/k8s/config_map.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <string_view>

namespace @@namespace@@ {

inline constexpr std::string_view finalizer_name = "@@group@@/cleanup";

/// The child ConfigMap the @@kind@@ wants: the applied configuration (pure).
kcoro::k8s::config_map desired_configmap(const @@version@@::@@kind_snake@@& obj);

class reconciler {
public:
    reconciler(kcoro::client::client& client, kcoro::runtime::informer& primary, kcoro::io::clock& clock);
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> reconcile(
        const kcoro::runtime::reconcile_context& ctx);

private:
    boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> apply(
        const kcoro::runtime::reconcile_context& ctx, kcoro::object_ptr obj);

    kcoro::client::client& client_;
    kcoro::runtime::informer& primary_;
    kcoro::io::clock& clock_;
};

/// Registers the resource and adds the controller to the manager.
void setup(kcoro::server::manager& mgr);

} // namespace @@namespace@@
