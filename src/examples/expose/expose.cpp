#include "expose.hpp"

#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/delete_owned.hpp>
#include <kcoro/runtime/event_recorder.hpp>
#include <kcoro/server/manager.hpp>

#include <charconv>
#include <cstdint>
#include <utility>

namespace expose {

namespace k8s = kcoro::k8s;
namespace runtime = kcoro::runtime;

namespace {

// "8080" -> 8080; anything but a whole number in 1..65535 -> nullopt.
std::optional<std::int32_t> port_number(std::string_view s) {
    std::int32_t n = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc{} || end != s.data() + s.size() || n < 1 || n > 65535) {
        return std::nullopt;
    }
    return n;
}

bool declares_port(const k8s::deployment& d, std::string_view name) {
    for (const auto& c : d.spec.template_.spec.containers) {
        for (const auto& p : c.ports) {
            if (p.name == name) return true;
        }
    }
    return false;
}

} // namespace

wanted desired_service(const k8s::deployment& d) {
    auto annotation = d.metadata.annotations.find(std::string(port_annotation));
    if (annotation == d.metadata.annotations.end()) {
        return {};
    }
    const std::string_view value = annotation->second;
    auto invalid = [&](std::string_view why) {
        return wanted{std::nullopt,
                      std::string(port_annotation) + " \"" + std::string(value) + "\": " + std::string(why)};
    };
    const auto colon = value.find(':');
    const auto port = port_number(value.substr(0, colon));
    if (!port) {
        return invalid("not a port (1-65535) or port:targetPort");
    }
    // Kubernetes' own default, written out so that it is ours: an edit of
    // the targetPort is put back like any other.
    kcoro::typed::int_or_string target = *port;
    if (colon != std::string_view::npos) {
        const auto t = value.substr(colon + 1);
        if (auto n = port_number(t)) {
            target = *n;
        } else if (declares_port(d, t)) {
            target = std::string(t);
        } else {
            return invalid("the targetPort is neither a port (1-65535) nor the name of a container port");
        }
    }
    if (d.spec.selector.match_labels.empty()) {
        return invalid("the Deployment's selector has no matchLabels, which a Service selector needs");
    }
    k8s::service svc;
    svc.metadata.name = d.metadata.name;
    svc.metadata.namespace_ = d.metadata.namespace_;
    svc.spec.selector = d.spec.selector.match_labels;
    k8s::service_port p;
    p.name = "http";
    // TCP is the default, but the protocol is a key of the ports list:
    // kcoro-apiserver, unlike a real server, does not fill it in an applied item.
    p.protocol = "TCP";
    p.port = *port;
    p.target_port = std::move(target);
    svc.spec.ports.push_back(std::move(p));
    return {std::move(svc), {}};
}

boost::asio::awaitable<kcoro::result<runtime::reconcile_result>> reconcile(
    kcoro::client::client& c, runtime::reconcile_context ctx, std::shared_ptr<const k8s::deployment> d) {
    if (d->metadata.is_being_deleted()) {
        co_return runtime::success();  // the garbage collector removes our Service with it
    }
    auto want = desired_service(*d);
    if (!want.invalid.empty()) {
        // Where the user looks (kubectl describe deployment); repeats fold
        // into one Event series. ctx.events is never null on a manager.
        ctx.events->record(*runtime::owner_identity(*d), runtime::event_type::warning, "InvalidAnnotation",
                           "Reconcile", want.invalid);
    }
    if (!want.service) {
        // Not (or no longer) asked for: our Service goes, if there is one.
        auto gone =
            co_await runtime::delete_owned<k8s::service>(c, ctx, ctx.key, d, runtime::owned_events::record);
        if (!gone) {
            co_return gone.error();
        }
        co_return runtime::success();
    }
    auto written =
        co_await runtime::apply_owned(c, ctx, std::move(*want.service), d, runtime::owned_events::record);
    if (!written) {
        co_return written.error();  // logged as "Reconciler error", retried with backoff
    }
    co_return runtime::success();
}

runtime::controller& add_to(kcoro::server::manager& mgr) {
    auto& c = mgr.client();
    return mgr.controller("expose")
        .for_<k8s::deployment>()
        .owns<k8s::service>()
        .complete<k8s::deployment>(
            [&c](runtime::reconcile_context ctx, std::shared_ptr<const k8s::deployment> d) {
                return reconcile(c, std::move(ctx), std::move(d));
            });
}

} // namespace expose
