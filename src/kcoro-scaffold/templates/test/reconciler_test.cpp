// The @@kind@@ controller against kcoro-apiserver in process
// (kcoro::testing): the CRD from the typed struct, the manager and the
// controller on this io_context, a manual clock. Runs in milliseconds, needs
// no cluster. A plain program: exit 0 = pass.
#include "reconciler.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/testing/test_server.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/crd.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <boost/json/parse.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>

namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::testing::match;
using @@namespace@@::@@version@@::@@kind_snake@@;
using traits = kcoro::typed::resource_traits<@@kind_snake@@>;

namespace {

void expect(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error(what);
}

// Reads go straight to the store (srv.get): the request log keeps only what was sent.
kcoro::object_ptr get(kcoro::testing::test_server& srv, const kcoro::group_version_resource& gvr,
                      const std::string& name) {
    return srv.get(gvr, {"default", name});
}

std::string message_of(kcoro::testing::test_server& srv, const std::string& name) {
    auto cm = get(srv, kcoro::resources::configmaps(), name);
    if (!cm) return "";
    const auto* data = cm->if_contains("data");
    const auto* m = data && data->is_object() ? data->get_object().if_contains("message") : nullptr;
    return m && m->is_string() ? std::string(m->get_string()) : std::string("");
}

void run_test() {
    boost::asio::io_context ioc;
    auto srv = kcoro::testing::test_server::start(ioc).value();
    expect(srv->load(kcoro::typed::crd<@@kind_snake@@>()).has_value(), "load the CRD");
    auto mgr = kcoro::server::manager::create(srv->manager_options(), srv->manager_setup("@@name@@")).value();
    @@namespace@@::setup(*mgr);
    kcoro::testing::running_manager run(*srv, *mgr);
    expect(run.wait_synced(), "informers synced");

    // A @@kind@@ gets its ConfigMap, a finalizer and Ready.
    @@kind_snake@@ obj;
    obj.metadata.name = "sample";
    obj.spec.message = "hello";
    obj.spec.copies = 2;
    auto body = kcoro::typed::to_object(obj);
    auto gvr = traits::gvr();
    auto created = srv->run(srv->client().create(gvr, "default", body));
    expect(created && *created, "create the @@kind@@");
    // advance_until: a status write that raced the cache gets a 409 and is
    // retried after the work queue's backoff, on the manual clock.
    expect(srv->advance_until([&] { return message_of(*srv, "sample") == "hellohello"; }, 1ms),
           "the ConfigMap holds the message");
    auto ready = [&] {
        auto o = get(*srv, gvr, "sample");
        if (!o) return false;
        auto t = kcoro::typed::from_json<@@kind_snake@@>(*o);
        return t && t->status.observed_generation == t->metadata.generation &&
               kcoro::typed::is_condition_true(t->status.conditions, "Ready");
    };
    expect(srv->advance_until(ready, 1ms), "Ready for this generation");
    auto live = kcoro::typed::from_json<@@kind_snake@@>(*get(*srv, gvr, "sample")).value();
    expect(live.metadata.finalizers.size() == 1 && live.metadata.finalizers[0] == @@namespace@@::finalizer_name,
           "the finalizer is on");
    auto cm = get(*srv, kcoro::resources::configmaps(), "sample");
    expect(kcoro::is_controlled_by(*cm, live.metadata.uid), "the ConfigMap is owned by the @@kind@@");

    // A new spec: the ConfigMap applied and one status written. A reconcile
    // woken by the ConfigMap's event may still see the old status in the
    // cache: its PUT is refused (409, the resourceVersion guards it) and
    // its apply is a no-op; once the cache caught up nothing is written.
    srv->clear_requests();
    kcoro::object_key key("default", "sample");
    std::string change = R"({"spec":{"message":"bye","copies":1}})";
    auto changed = srv->run(srv->client().patch(gvr, key, change));
    expect(changed && *changed, "change the spec");
    auto ready_for = [&](std::int64_t generation) {
        auto o = get(*srv, gvr, "sample");
        if (!o) return false;
        auto t = kcoro::typed::from_json<@@kind_snake@@>(*o);
        return t && t->status.observed_generation == generation &&
               kcoro::typed::is_condition_true(t->status.conditions, "Ready");
    };
    expect(srv->advance_until([&] { return message_of(*srv, "sample") == "bye" && ready_for(2); }, 1ms),
           "converged on the new spec");
    auto log = srv->requests();
    const auto cm_writes = log.count(match().user("@@name@@").resource("configmaps").writes());
    expect(cm_writes == 1 || cm_writes == 2, "one ConfigMap apply (and a no-op):\n" + log.describe());
    expect(log.count(match().user("@@name@@").subresource("status").writes().code(200)) == 1,
           "one status write:\n" + log.describe());

    // Deleted: the cleanup step runs and the finalizer goes, so the object goes.
    auto removed = srv->run(srv->client().remove(gvr, key));
    expect(removed && *removed, "delete the @@kind@@");
    expect(srv->advance_until([&] { return get(*srv, gvr, "sample") == nullptr; }, 1ms), "the @@kind@@ is gone");

    expect(run.stop() == 0, "the manager stops with exit code 0");
}

} // namespace

int main() {
    try {
        run_test();
    } catch (const std::exception& e) {
        std::cerr << "reconciler_test: FAILED: " << e.what() << "\n";
        return 1;
    }
    std::cerr << "reconciler_test: passed\n";
    return 0;
}
