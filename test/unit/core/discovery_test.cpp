#include <kcoro/core/discovery.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace kcoro;

// Documents as kube-apiserver 1.30 serves them (trimmed to a few resources).
namespace {

const char* api_versions = R"({"kind":"APIVersions","versions":["v1"],
  "serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"172.18.0.2:6443"}]})";

const char* api_groups = R"({"kind":"APIGroupList","apiVersion":"v1","groups":[
  {"name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],
   "preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}},
  {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
  {"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}],
   "preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
  {"name":"gateway.kcoro.dev","versions":[{"groupVersion":"gateway.kcoro.dev/v1alpha1","version":"v1alpha1"}],
   "preferredVersion":{"groupVersion":"gateway.kcoro.dev/v1alpha1","version":"v1alpha1"}}]})";

const char* core_v1 = R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
  {"name":"bindings","singularName":"binding","namespaced":true,"kind":"Binding","verbs":["create"]},
  {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",
   "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["cm"],
   "storageVersionHash":"qFsyl6wFWjQ="},
  {"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace",
   "verbs":["create","delete","get","list","patch","update","watch"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="},
  {"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":["update"]},
  {"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get","patch","update"]},
  {"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod",
   "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["po"],
   "categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="},
  {"name":"pods/eviction","singularName":"","namespaced":true,"group":"policy","version":"v1","kind":"Eviction","verbs":["create"]},
  {"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]},
  {"name":"pods/status","singularName":"","namespaced":true,"kind":"Pod","verbs":["get","patch","update"]}]})";

const char* apps_v1 = R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
  {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale",
   "verbs":["get","patch","update"]},
  {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment",
   "verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],
   "categories":["all"],"storageVersionHash":"8aSe+NMegvE="},
  {"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]}]})";

} // namespace

TEST_CASE("APIVersions") {
    auto v = decode_api_versions(api_versions);
    REQUIRE(v.has_value());
    CHECK(*v == std::vector<std::string>{"v1"});
    CHECK_FALSE(decode_api_versions(R"({"kind":"APIVersions","versions":[]})").has_value());
    CHECK_FALSE(decode_api_versions(R"({"kind":"APIVersions","versions":[1]})").has_value());
}

TEST_CASE("APIGroupList") {
    auto g = decode_api_group_list(api_groups);
    REQUIRE(g.has_value());
    REQUIRE(g->size() == 4);
    CHECK((*g)[1] == api_group{"apps", {"v1"}, "v1"});
    CHECK((*g)[2].versions == std::vector<std::string>{"v2", "v1"});
    CHECK((*g)[2].preferred_version == "v2");
    CHECK((*g)[3].name == "gateway.kcoro.dev");
    // without preferredVersion, the first version is preferred
    auto np = decode_api_group_list(R"({"kind":"APIGroupList","groups":[{"name":"x.io","versions":[{"version":"v2"},{"version":"v1"}]}]})");
    REQUIRE(np.has_value());
    CHECK((*np)[0].preferred_version == "v2");
}

TEST_CASE("APIResourceList of the core group: scope, verbs, short names, subresources") {
    auto r = decode_api_resource_list(core_v1);
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 4);  // subresources are folded in
    auto by = [&](std::string_view n) {
        return *std::find_if(r->begin(), r->end(), [&](const resource_info& i) { return i.gvr.resource == n; });
    };
    auto cm = by("configmaps");
    CHECK(cm.gvr == group_version_resource{"", "v1", "configmaps"});
    CHECK(cm.kind == "ConfigMap");
    CHECK(cm.namespaced);
    CHECK(cm.short_names == std::vector<std::string>{"cm"});
    CHECK(cm.verbs.size() == 8);
    CHECK_FALSE(cm.has_status);
    auto ns = by("namespaces");
    CHECK_FALSE(ns.namespaced);
    CHECK(ns.has_status);
    auto pods = by("pods");
    CHECK(pods.has_status);
    CHECK_FALSE(pods.has_scale);
}

TEST_CASE("APIResourceList of apps/v1: status and scale, in any order") {
    auto r = decode_api_resource_list(apps_v1);
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 1);
    const auto& d = r->front();
    CHECK(d.gvr == group_version_resource{"apps", "v1", "deployments"});
    CHECK(d.has_status);
    CHECK(d.has_scale);
    CHECK(d.short_names == std::vector<std::string>{"deploy"});
}

TEST_CASE("broken discovery documents are decode errors") {
    for (const char* body : {"", "<html/>", "[]", R"({"kind":"APIGroupList","groups":[]})",
                             R"({"kind":"APIResourceList","resources":[]})",
                             R"({"kind":"APIResourceList","groupVersion":"v1"})",
                             R"({"kind":"APIResourceList","groupVersion":"v1","resources":[{"kind":"X"}]})",
                             R"({"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"xs"}]})",
                             R"({"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"xs","kind":"X","verbs":"get"}]})",
                             R"({"kind":"APIResourceList","groupVersion":"v1","resources":[7]})"}) {
        CAPTURE(body);
        auto r = decode_api_resource_list(body);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == make_error_code(kcoro_errc::decode_error));
    }
    CHECK_FALSE(decode_api_group_list(R"({"kind":"APIGroupList","groups":[{"versions":[]}]})").has_value());
    CHECK_FALSE(decode_api_group_list(R"({"kind":"APIGroupList"})").has_value());
    // an empty group list is valid (a server with only the core group)
    CHECK(decode_api_group_list(R"({"kind":"APIGroupList","groups":[]})").has_value());
}
