// expose: a Service for every Deployment annotated expose.example.io/port
// (expose.hpp); docs/getting-started.md walks through it.
#include "expose.hpp"

#include <kcoro/server/manager.hpp>

int main(int argc, char** argv) {
    kcoro::server::manager_setup setup;
    setup.name = "expose";
    auto start = kcoro::server::manager::from_flags(argc, argv, std::move(setup));
    if (!start.mgr) {
        return start.exit_code;  // --help, or a bad flag
    }
    expose::add_to(*start.mgr);
    return start.mgr->run();
}
