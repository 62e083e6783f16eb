// The getting-started controller (src/examples/expose) on kcoro::testing:
// its pure desired_service, then the controller on a manager in process
// against the test server: the Service created, repaired with one write,
// nothing written on a converged pass, deleted when the annotation goes,
// the Events, an invalid annotation, and a Service that is not ours.
#include "expose.hpp"

#include <kcoro/client/typed_client.hpp>
#include <kcoro/server/manager.hpp>
#include <kcoro/testing/test_server.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace k8s = kcoro::k8s;
using kcoro::testing::match;

namespace {

const kcoro::object_key web_key{"default", "web"};

// A Deployment: Pods labelled app=<name>, a container port "http" (8080),
// and the port annotation unless it is empty.
k8s::deployment deployment(std::string name, std::string port_annotation) {
    k8s::deployment d;
    d.metadata.name = name;
    d.metadata.namespace_ = "default";
    if (!port_annotation.empty()) {
        d.metadata.annotations[std::string(expose::port_annotation)] = port_annotation;
    }
    d.spec.selector.match_labels = {{"app", name}};
    d.spec.template_.metadata.labels = {{"app", name}};
    k8s::container c;
    c.name = "web";
    c.image = "nginx:1.27";
    k8s::container_port http;
    http.name = "http";
    http.container_port_ = 8080;
    c.ports.push_back(http);
    d.spec.template_.spec.containers.push_back(c);
    return d;
}
k8s::deployment web(std::string port_annotation) { return deployment("web", std::move(port_annotation)); }

// The test server and the expose controller on a manager, running (members
// are destroyed in reverse order: the manager before the server).
struct fixture {
    boost::asio::io_context ioc;
    std::unique_ptr<kcoro::testing::test_server> srv = kcoro::testing::test_server::start(ioc).value();
    std::unique_ptr<kcoro::server::manager> mgr =
        kcoro::server::manager::create(srv->manager_options(), srv->manager_setup("expose")).value();
    kcoro::runtime::controller& ctl = expose::add_to(*mgr);
    kcoro::testing::running_manager run{*srv, *mgr};

    k8s::deployment create(k8s::deployment d) {
        auto created = srv->run(kcoro::client::create<k8s::deployment>(srv->client(), std::move(d)));
        REQUIRE(created);
        REQUIRE_MESSAGE(created->has_value(), created->error().message());
        return created->value();
    }
    // A merge patch of a Deployment, as `kubectl patch --type merge` sends it.
    void patch_deployment(std::string name, std::string body) {
        auto op = kcoro::client::patch<k8s::deployment>(srv->client(), {"default", name}, std::move(body));
        auto patched = srv->run(std::move(op));
        REQUIRE(patched);
        REQUIRE_MESSAGE(patched->has_value(), patched->error().message());
    }
    // What the controller wrote (its client is user "expose"): Services, or anything.
    std::size_t service_writes(std::string verb = "") const {
        auto f = match().user("expose").resource("services").writes();
        if (!verb.empty()) f.verb(verb);
        return srv->requests().count(f);
    }
    std::size_t writes() const { return srv->requests().count(match().user("expose").writes()); }
    // The Events about a Deployment, with `reason` ("": all).
    std::vector<k8s::event> events(std::string name, std::string_view reason = "") const {
        std::vector<k8s::event> out;
        for (auto& e : srv->events_about("Deployment", {"default", name})) {
            if (reason.empty() || e.reason == reason) out.push_back(e);
        }
        return out;
    }
};

} // namespace

TEST_CASE("desired_service: port, port:targetPort, a named targetPort; an invalid annotation says why") {
    auto none = expose::desired_service(web(""));
    CHECK_FALSE(none.service);
    CHECK(none.invalid.empty());

    auto plain = expose::desired_service(web("8080"));
    REQUIRE(plain.service);
    CHECK(plain.invalid.empty());
    CHECK(plain.service->metadata.name == "web");
    CHECK(plain.service->metadata.namespace_ == "default");
    CHECK(plain.service->metadata.owner_references.empty());  // apply_owned adds the controller reference
    CHECK(plain.service->spec.selector == std::map<std::string, std::string>{{"app", "web"}});
    REQUIRE(plain.service->spec.ports.size() == 1);
    CHECK(plain.service->spec.ports[0].port == 8080);
    CHECK(plain.service->spec.ports[0].target_port == kcoro::typed::int_or_string(8080));
    CHECK(plain.service->spec.ports[0].protocol == "TCP");

    auto numbered = expose::desired_service(web("80:8080"));
    REQUIRE(numbered.service);
    CHECK(numbered.service->spec.ports[0].port == 80);
    CHECK(numbered.service->spec.ports[0].target_port == kcoro::typed::int_or_string(8080));

    auto named = expose::desired_service(web("80:http"));
    REQUIRE(named.service);
    CHECK(named.service->spec.ports[0].target_port == kcoro::typed::int_or_string("http"));

    for (std::string bad :
         {"http", "0", "65536", "-80", "+80", "80x", " 80", "80:", ":80", "80:metrics", "80:0", "8:80:1"}) {
        CAPTURE(bad);
        auto w = expose::desired_service(web(bad));
        CHECK_FALSE(w.service);
        CHECK(w.invalid.starts_with("expose.example.io/port \"" + bad + "\": "));
    }
    CHECK(expose::desired_service(web("80:metrics")).invalid ==
          "expose.example.io/port \"80:metrics\": the targetPort is neither a port (1-65535) "
          "nor the name of a container port");

    auto by_expressions = web("8080");
    by_expressions.spec.selector.match_labels.clear();
    k8s::label_selector_requirement app_in_web;
    app_in_web.key = "app";
    app_in_web.operator_ = "In";
    app_in_web.values = {"web"};
    by_expressions.spec.selector.match_expressions.push_back(app_in_web);
    CHECK_FALSE(expose::desired_service(by_expressions).service);
    CHECK(expose::desired_service(by_expressions).invalid.ends_with(
        "has no matchLabels, which a Service selector needs"));
}

TEST_CASE("expose: the Service created, repaired with one write, nothing written on a converged pass") {
    fixture f;
    const auto d = f.create(web("80:http"));
    REQUIRE(f.run.wait_idle());

    // Created once, controlled by the Deployment, read from the cache (no GET).
    auto svc = f.srv->get<k8s::service>(web_key);
    REQUIRE(svc);
    REQUIRE(svc->spec.ports.size() == 1);
    CHECK(svc->spec.ports[0].port == 80);
    CHECK(svc->spec.ports[0].target_port == kcoro::typed::int_or_string("http"));
    CHECK(svc->spec.selector == std::map<std::string, std::string>{{"app", "web"}});
    REQUIRE(svc->metadata.controller());
    CHECK(svc->metadata.controller()->uid == d.metadata.uid);
    CHECK(f.service_writes() == 1);
    CHECK(f.service_writes("create") == 1);
    CHECK(f.srv->requests().count(match().user("expose").resource("services").verb("get")) == 0);
    auto created = f.events("web", "Created");
    REQUIRE(created.size() == 1);
    CHECK(created[0].type == "Normal");
    CHECK(created[0].note == "created Service default/web");
    REQUIRE(created[0].related);
    CHECK(created[0].related->kind == "Service");
    CHECK(created[0].related->name == "web");

    // Someone edits the port: put back with one write, an Updated Event naming the field.
    f.srv->clear_requests();
    k8s::service edit;
    edit.spec.ports = svc->spec.ports;
    edit.spec.ports[0].port = 9090;
    auto edited = f.srv->run(kcoro::client::merge_patch<k8s::service>(f.srv->client(), web_key, edit));
    REQUIRE(edited);
    REQUIRE(edited->has_value());
    REQUIRE(f.run.wait_idle());
    svc = f.srv->get<k8s::service>(web_key);
    REQUIRE(svc);
    REQUIRE(svc->spec.ports.size() == 1);
    CHECK(svc->spec.ports[0].port == 80);
    CHECK_MESSAGE(f.service_writes() == 1, f.srv->requests().describe());
    auto updated = f.events("web", "Updated");
    REQUIRE(updated.size() == 1);
    // The field put back: our item of the ports list (keyed by port and protocol).
    CHECK(updated[0].note == "updated Service default/web: .spec.ports[port=80,protocol=\"TCP\"]: missing");

    // A pass with nothing to do (the Deployment annotated by someone else):
    // no write at all, no Event.
    f.srv->clear_requests();
    const auto passes = f.ctl.stats().reconciles;
    const auto events = f.events("web").size();
    f.patch_deployment("web", R"({"metadata":{"annotations":{"team":"web"}}})");
    REQUIRE(f.run.wait_idle());
    CHECK(f.ctl.stats().reconciles > passes);
    CHECK_MESSAGE(f.writes() == 0, f.srv->requests().describe());
    CHECK(f.events("web").size() == events);
    CHECK(f.ctl.stats().errors == 0);
    CHECK(f.run.stop() == 0);
}

TEST_CASE("expose: the Service deleted when the annotation goes, with a Deleted Event") {
    fixture f;
    f.create(deployment("web", "8080"));
    REQUIRE(f.run.wait_idle());
    REQUIRE(f.srv->get<k8s::service>(web_key));

    f.srv->clear_requests();
    f.patch_deployment("web", R"({"metadata":{"annotations":{"expose.example.io/port":null}}})");
    REQUIRE(f.run.wait_idle());
    CHECK_FALSE(f.srv->get<k8s::service>(web_key));
    CHECK_MESSAGE(f.service_writes() == 1, f.srv->requests().describe());
    CHECK(f.service_writes("delete") == 1);
    auto deleted = f.events("web", "Deleted");
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].type == "Normal");
    CHECK(deleted[0].note == "deleted Service default/web");
    CHECK(f.ctl.stats().errors == 0);
    CHECK(f.run.stop() == 0);
}

TEST_CASE("expose: an invalid annotation: no Service (ours deleted), a Warning Event that says why") {
    fixture f;
    // Invalid from the start: nothing written but the Event.
    f.create(deployment("api", "http"));
    REQUIRE(f.run.wait_idle());
    CHECK_FALSE(f.srv->get<k8s::service>({"default", "api"}));
    CHECK(f.service_writes() == 0);
    auto invalid = f.events("api", "InvalidAnnotation");
    REQUIRE(invalid.size() == 1);
    CHECK(invalid[0].type == "Warning");
    CHECK(invalid[0].note == "expose.example.io/port \"http\": not a port (1-65535) or port:targetPort");

    // Valid, then invalid: the Service comes, then goes.
    f.create(deployment("web", "80:http"));
    REQUIRE(f.run.wait_idle());
    REQUIRE(f.srv->get<k8s::service>(web_key));
    f.srv->clear_requests();
    f.patch_deployment("web", R"({"metadata":{"annotations":{"expose.example.io/port":"80:metrics"}}})");
    REQUIRE(f.run.wait_idle());
    CHECK_FALSE(f.srv->get<k8s::service>(web_key));
    CHECK_MESSAGE(f.service_writes() == 1, f.srv->requests().describe());
    CHECK(f.service_writes("delete") == 1);
    invalid = f.events("web", "InvalidAnnotation");
    REQUIRE(invalid.size() == 1);
    CHECK(invalid[0].note ==
          "expose.example.io/port \"80:metrics\": the targetPort is neither a port (1-65535) "
          "nor the name of a container port");
    CHECK(f.events("web", "Deleted").size() == 1);
    CHECK(f.ctl.stats().errors == 0);
    CHECK(f.run.stop() == 0);
}

TEST_CASE("expose: a Service of that name that is not ours is never touched") {
    fixture f;
    k8s::service theirs;
    theirs.metadata.name = "web";
    theirs.metadata.namespace_ = "default";
    k8s::service_port p;
    p.port = 1234;
    theirs.spec.ports.push_back(p);
    auto foreign = f.srv->run(kcoro::client::create<k8s::service>(f.srv->client(), theirs));
    REQUIRE(foreign);
    REQUIRE(foreign->has_value());
    const auto rv = foreign->value().metadata.resource_version;

    // Annotated: the pass fails with the name conflict (retried after a
    // backoff on the manual clock), and writes nothing.
    f.create(web("8080"));
    REQUIRE(f.run.wait_idle());
    CHECK(f.ctl.stats().errors >= 1);
    CHECK(f.service_writes() == 0);
    // Unannotated: delete_owned leaves it alone too.
    f.patch_deployment("web", R"({"metadata":{"annotations":{"expose.example.io/port":null}}})");
    REQUIRE(f.run.wait_idle());
    CHECK(f.service_writes() == 0);
    auto still = f.srv->get<k8s::service>(web_key);
    REQUIRE(still);
    CHECK(still->metadata.resource_version == rv);
    CHECK(still->spec.ports.at(0).port == 1234);
    CHECK(f.run.stop() == 0);
}
