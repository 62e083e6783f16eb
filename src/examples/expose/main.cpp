// expose: a Service for every Deployment annotated expose.example.io/port,
// written the short way (docs/getting-started.md walks through it).
#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/server/manager.hpp>

#include <charconv>
#include <optional>
#include <string>

namespace json = boost::json;
namespace runtime = kcoro::runtime;
using kcoro::resources::deployments;
using kcoro::resources::services;

constexpr std::string_view port_annotation = "expose.example.io/port";

// The Service `d` asks for: its applied configuration, or nothing (pure).
std::optional<json::object> desired_service(const json::object& d) {
    auto port = kcoro::annotation_of(d, port_annotation);
    const auto* labels = kcoro::find_path(d, {"spec", "selector", "matchLabels"});
    int n = 0;
    if (!port || !labels || std::from_chars(port->data(), port->data() + port->size(), n).ec != std::errc{} ||
        n < 1 || n > 65535) {
        return std::nullopt;
    }
    json::object svc{{"apiVersion", "v1"}, {"kind", "Service"}};
    kcoro::set_name(svc, kcoro::name_of(d));
    kcoro::set_namespace(svc, kcoro::namespace_of(d));
    svc["spec"] = json::object{{"selector", *labels},
                               {"ports", json::array{json::object{{"name", "http"}, {"port", n}, {"protocol", "TCP"}}}}};
    return svc;
}

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "expose";
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) {
        return start.exit_code;
    }
    auto& mgr = *start.mgr;
    mgr.controller("expose")
        .for_(deployments())
        .owns(services())
        .complete([&mgr](const runtime::reconcile_context& ctx)
                      -> boost::asio::awaitable<kcoro::result<runtime::reconcile_result>> {
            auto d = mgr.cache().get(deployments(), ctx.key);
            if (!d || kcoro::is_being_deleted(*d)) {
                co_return runtime::success();  // the garbage collector removes our Service
            }
            auto svc = desired_service(*d);
            if (!svc) {
                // Not (or no longer) annotated: remove our Service, if there is one.
                auto ours = ctx.read_owned(services(), ctx.key).value_or(nullptr);
                if (ours && kcoro::is_controlled_by(*ours, kcoro::uid_of(*d))) {
                    const kcoro::delete_options only_that_one{kcoro::delete_preconditions{std::string(kcoro::uid_of(*ours)), ""}};
                    auto gone = co_await mgr.client().remove(services(), ctx.key, only_that_one);
                    if (!gone && !kcoro::is_not_found(gone.error())) {
                        co_return gone.error();
                    }
                    ctx.note_write({services(), ctx.key, runtime::write_op::deleted, "", false});
                }
                co_return runtime::success();
            }
            auto written = co_await runtime::apply_owned(mgr.client(), ctx, services(), std::move(*svc), d);
            if (!written) {
                co_return written.error();  // logged as "Reconciler error", retried with backoff
            }
            co_return runtime::success();
        });
    return mgr.run();
}
