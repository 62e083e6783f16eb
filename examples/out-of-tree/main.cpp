// configmap-stamper: a controller built outside kcoro's tree, against the
// installed library (pkg-config or CMake) or kcoro as a meson subproject.
// The controller is in stamper.cpp; stamper_test.cpp tests it on
// kcoro::testing. The manager brings the flags (--kubeconfig,
// --metrics-bind-address, --health-probe-bind-address, --leader-elect...),
// metrics, probes and a graceful SIGTERM.
//
//   configmap-stamper --kubeconfig ~/.kube/config --metrics-bind-address 0
#include "stamper.hpp"

#include <kcoro/server/manager.hpp>

#include <utility>

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "configmap-stamper";
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) return start.exit_code;
    stamper::add_controller(*start.mgr);
    return start.mgr->run();
}
