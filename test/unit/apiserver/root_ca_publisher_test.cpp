// object_store: the root-CA publisher (store/root_ca_publisher.cpp), as
// kube-controller-manager's rootcacertpublisher/publisher.go keeps
// kube-root-ca.crt.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

constexpr std::string_view ca = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n";
constexpr std::string_view description =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";

int settle(object_store& s) {
    int rounds = 0;
    while (rounds < 50 && s.gc_step(t0())) ++rounds;
    return rounds;
}

std::optional<json::object> root_ca(const object_store& s, std::string_view ns) {
    auto r = s.get(resources::configmaps(), ns, "kube-root-ca.crt");
    if (!r) return std::nullopt;
    return *r;
}

std::size_t configmaps_in(const object_store& s, std::string_view ns) {
    auto l = s.list(resources::configmaps(), ns, {});
    REQUIRE(l);
    return l->at("items").as_array().size();
}

} // namespace

TEST_CASE("root-CA publisher: off by default, every existing namespace gets it when turned on") {
    object_store s;
    CHECK(s.count(resources::configmaps()) == 0);
    CHECK(s.root_ca().empty());
    s.set_root_ca(std::string(ca), t0());
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease", "kcoro-system"}) {
        CAPTURE(ns);
        auto cm = root_ca(s, ns);
        REQUIRE(cm);
        CHECK(str_at(*cm, {"data", "ca.crt"}) == ca);
        CHECK(cm->at("data").as_object().size() == 1);
        CHECK(str_at(*cm, {"metadata", "annotations", "kubernetes.io/description"}) == description);
        CHECK(find_path(*cm, {"metadata", "labels"}) == nullptr);  // publisher.go sets none
        // Written by kube-controller-manager (an Update, as its client's create is).
        const auto* mf = find_path(*cm, {"metadata", "managedFields"});
        REQUIRE(mf);
        REQUIRE(mf->is_array());
        REQUIRE(mf->as_array().size() == 1);
        CHECK(mf->as_array()[0].as_object().at("manager") == "kube-controller-manager");
        CHECK(mf->as_array()[0].as_object().at("operation") == "Update");
    }
    CHECK(s.count(resources::configmaps()) == 5);
    CHECK_FALSE(s.gc_step(t0()));  // nothing to repair
}

TEST_CASE("root-CA publisher: a new namespace has it as soon as its create returns") {
    object_store s;
    s.set_root_ca(std::string(ca), t0());
    auto before = s.current_revision();
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"team"}})")));
    CHECK(s.current_revision() == before + 2);  // the namespace, then the ConfigMap
    auto cm = root_ca(s, "team");
    REQUIRE(cm);
    CHECK(str_at(*cm, {"data", "ca.crt"}) == ca);
    CHECK(configmaps_in(s, "team") == 1);
    // A dry-run namespace create writes nothing.
    auto dry = ctx_at();
    dry.dry_run = true;
    REQUIRE(s.create(dry, resources::namespaces(), "", obj(R"({"metadata":{"name":"dry"}})")));
    CHECK_FALSE(root_ca(s, "dry"));
}

TEST_CASE("root-CA publisher: a deleted kube-root-ca.crt is re-created by the next pass") {
    object_store s;
    s.set_root_ca(std::string(ca), t0());
    auto old_uid = std::string(uid_of(*root_ca(s, "default")));
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "kube-root-ca.crt"));
    CHECK_FALSE(root_ca(s, "default"));
    CHECK(s.gc_step(t0()));
    auto cm = root_ca(s, "default");
    REQUIRE(cm);
    CHECK(uid_of(*cm) != old_uid);
    CHECK(str_at(*cm, {"data", "ca.crt"}) == ca);
}

TEST_CASE("root-CA publisher: edited data or a dropped annotation is repaired, other metadata kept") {
    object_store s;
    s.set_root_ca(std::string(ca), t0());
    auto cm = *root_ca(s, "default");
    cm["data"] = json::object{{"ca.crt", "forged"}, {"extra", "x"}};
    mutable_metadata(cm)["annotations"] = json::object{{"team", "a"}};
    set_label(cm, "mine", "yes");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "kube-root-ca.crt", cm));
    CHECK(s.gc_step(t0()));
    auto fixed = *root_ca(s, "default");
    CHECK(json::serialize(fixed.at("data")) == json::serialize(json::object{{"ca.crt", ca}}));
    CHECK(str_at(fixed, {"metadata", "annotations", "kubernetes.io/description"}) == description);
    CHECK(str_at(fixed, {"metadata", "annotations", "team"}) == "a");
    CHECK(str_at(fixed, {"metadata", "labels", "mine"}) == "yes");
    CHECK(uid_of(fixed) == uid_of(cm));
    CHECK_FALSE(s.gc_step(t0()));

    // The annotation alone (data intact) is repaired too.
    auto cur = fixed;
    mutable_metadata(cur)["annotations"].as_object().erase("kubernetes.io/description");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "kube-root-ca.crt", cur));
    CHECK(s.gc_step(t0()));
    CHECK(str_at(*root_ca(s, "default"), {"metadata", "annotations", "kubernetes.io/description"}) == description);
}

TEST_CASE("root-CA publisher: a terminating namespace does not get it back; the namespace still goes") {
    object_store s;
    s.set_root_ca(std::string(ca), t0());
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "",
                     obj(R"({"metadata":{"name":"held","finalizers":["example.com/hold"]}})")));
    REQUIRE(root_ca(s, "held"));
    REQUIRE(s.remove(ctx_at(), resources::namespaces(), "", "held"));
    settle(s);
    // The namespace controller deleted it; the create the publisher then
    // tries is refused (NamespaceTerminating) and dropped.
    CHECK_FALSE(root_ca(s, "held"));
    CHECK(configmaps_in(s, "held") == 0);
    CHECK_FALSE(s.gc_step(t0()));
    auto ns = *s.get(resources::namespaces(), "", "held");
    remove_finalizer(ns, "example.com/hold");
    REQUIRE(s.update(ctx_at(), resources::namespaces(), "", "held", ns));
    settle(s);
    CHECK(is_not_found(s.get(resources::namespaces(), "", "held").error()));
    CHECK_FALSE(root_ca(s, "held"));
}

TEST_CASE("root-CA publisher: a new CA is written into every namespace") {
    object_store s;
    s.set_root_ca(std::string(ca), t0());
    s.set_root_ca("other", t0());
    CHECK(str_at(*root_ca(s, "kube-system"), {"data", "ca.crt"}) == "other");
    s.set_root_ca("", t0());  // off: what exists stays, nothing is re-created
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "kube-root-ca.crt"));
    settle(s);
    CHECK_FALSE(root_ca(s, "default"));
}
