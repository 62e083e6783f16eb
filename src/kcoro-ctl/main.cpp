// kcoro-ctl: a small kubectl built on the kcoro client; the client's smoke
// test against kcoro-apiserver or a real cluster.
#include "commands.hpp"

#include <kcoro/client/config.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
        std::cout << kcoro::ctl::usage();
        return args.empty() ? 1 : 0;
    }
    auto parsed = kcoro::ctl::parse_args(args);
    if (!parsed) {
        std::cerr << "error: " << parsed.error().message() << "\n" << kcoro::ctl::usage();
        return 1;
    }
    auto env = kcoro::client::environment::process();
    auto cfg = kcoro::client::load_config({parsed->kubeconfig, parsed->context}, env);
    if (!cfg) {
        std::cerr << "error: " << cfg.error().message() << "\n";
        return 1;
    }
    boost::asio::io_context ioc;
    kcoro::io::system_clock clk;
    auto c = kcoro::client::client::create(*cfg, clk);
    if (!c) {
        std::cerr << "error: " << c.error().message() << "\n";
        return 1;
    }
    int rc = 1;
    auto done = [&rc](std::exception_ptr e, int code) {
        if (e) std::rethrow_exception(e);
        rc = code;
    };
    boost::asio::co_spawn(ioc, kcoro::ctl::run_command(*parsed, **c, std::cout, std::cerr), done);
    ioc.run();
    return rc;
}
