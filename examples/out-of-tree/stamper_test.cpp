// configmap-stamper's test on kcoro::testing: the controller runs in process
// against kcoro-apiserver on this io_context (no binaries, no cluster, a
// manual clock), in milliseconds. A plain program (exit 0 = pass), so the
// example needs no test framework.
#include "stamper.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/testing/test_server.hpp>

#include <boost/json/parse.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>

namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::testing::match;

namespace {

void expect(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error(what);
}

// The keys annotation of default/<name> as the server stores it ("" if
// none), read without a request.
std::string keys_of(kcoro::testing::test_server& srv, const std::string& name) {
    auto cm = srv.get(kcoro::resources::configmaps(), {"default", name});
    expect(cm != nullptr, "configmap " + name + " exists");
    auto a = kcoro::annotation_of(*cm, stamper::keys_annotation);
    return a ? std::string(*a) : std::string{};
}

void create(kcoro::testing::test_server& srv, std::string_view text) {
    auto obj = json::parse(text).as_object();
    auto r = srv.run(srv.client().create(kcoro::resources::configmaps(), "default", obj));
    expect(r && *r, "create configmap");
}

void run_test() {
    expect(stamper::data_keys(json::parse(R"({"data":{"b":"1","a":"2"}})").as_object()) == "a,b", "data_keys");

    boost::asio::io_context ioc;
    auto srv = kcoro::testing::test_server::start(ioc).value();
    auto mgr = kcoro::server::manager::create(srv->manager_options(), srv->manager_setup("configmap-stamper")).value();
    stamper::add_controller(*mgr);
    kcoro::testing::running_manager run(*srv, *mgr);
    expect(run.wait_synced(), "the manager's informers synced");

    // A labelled ConfigMap gets its keys; an unlabelled one is left alone.
    create(*srv, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings",
        "labels":{"example.kcoro.dev/stamp":"true"}},"data":{"zeta":"1","alpha":"2"}})");
    create(*srv, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"},"data":{"x":"1"}})");
    expect(srv->run_until([&] { return keys_of(*srv, "settings") == "alpha,zeta"; }), "settings stamped");
    // Settled: one write by the controller, no GET (it reads its cache).
    auto log = srv->requests();
    expect(log.count(match().user("configmap-stamper").writes()) == 1, "one write:\n" + log.describe());
    expect(log.count(match().user("configmap-stamper").verb("get")) == 0, "no GET:\n" + log.describe());
    expect(keys_of(*srv, "other").empty(), "unlabelled ConfigMap untouched");

    // A conflict on the next stamp (the injected rule matches the
    // controller's patch, not the test's create) is retried after the work
    // queue's backoff, which waits on the manual clock.
    srv->inject(kcoro::testing::fault::fail("patch", "configmaps", 409));
    create(*srv, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"more",
        "labels":{"example.kcoro.dev/stamp":"true"}},"data":{"beta":"3"}})");
    expect(srv->advance_until([&] { return keys_of(*srv, "more") == "beta"; }, 1ms), "stamped after the conflict");
    log = srv->requests();
    expect(log.count(match().user("configmap-stamper").verb("patch").code(409)) == 1, "one 409:\n" + log.describe());
    expect(log.count(match().user("configmap-stamper").verb("patch").code(200)) == 2, "two stamps:\n" + log.describe());

    expect(run.stop() == 0, "the manager stops with exit code 0");
}

} // namespace

int main() {
    try {
        run_test();
    } catch (const std::exception& e) {
        std::cerr << "stamper_test: FAILED: " << e.what() << "\n";
        return 1;
    }
    std::cerr << "stamper_test: passed\n";
    return 0;
}
