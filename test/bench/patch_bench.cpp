// Patch throughput on a Deployment of realistic size (3 containers, 10 env
// vars each, labels, annotations, managedFields): what the apiserver pays per
// PATCH before storage. Prints operations per second; asserts nothing.
//   meson test -C build --suite bench patch_bench --verbose
#include "server_side_apply.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/strategic_merge_patch.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace json = boost::json;
using namespace kcoro;

namespace {

json::object deployment() {
    json::array containers;
    for (int c = 0; c < 3; ++c) {
        json::array env;
        for (int e = 0; e < 10; ++e) {
            env.push_back(json::object{{"name", "VAR_" + std::to_string(e)}, {"value", "value-" + std::to_string(e)}});
        }
        containers.push_back(json::object{{"name", "c" + std::to_string(c)},
                                          {"image", "registry.example/app:" + std::to_string(c)},
                                          {"ports", json::array{json::object{{"containerPort", 8080 + c}}}},
                                          {"env", std::move(env)}});
    }
    json::object d;
    d["apiVersion"] = "apps/v1";
    d["kind"] = "Deployment";
    d["metadata"] = json::object{{"name", "web"},
                                 {"namespace", "default"},
                                 {"uid", "u-1"},
                                 {"resourceVersion", "42"},
                                 {"labels", json::object{{"app", "web"}, {"tier", "frontend"}}},
                                 {"annotations", json::object{{"note", std::string(200, 'x')}}},
                                 {"finalizers", json::array{"kcoro.dev/cleanup"}}};
    d["spec"] = json::object{
        {"replicas", 3},
        {"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}},
        {"template", json::object{{"metadata", json::object{{"labels", json::object{{"app", "web"}}}}},
                                  {"spec", json::object{{"containers", std::move(containers)}}}}}};
    return d;
}

void run(const char* name, int iterations, const std::function<bool()>& op) {
    auto start = std::chrono::steady_clock::now();
    int ok = 0;
    for (int i = 0; i < iterations; ++i) ok += op() ? 1 : 0;
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("%-44s %8.0f ops/s  (%6.1f us/op, %d/%d ok)\n", name, iterations / took.count(),
                1e6 * took.count() / iterations, ok, iterations);
}

} // namespace

int main() {
    const json::object base = deployment();
    const json::value base_v(base);
    std::printf("object size: %zu bytes\n", json::serialize(base).size());

    const json::value merge = json::parse(R"({"metadata":{"labels":{"tier":"backend","new":"1"}}})");
    run("merge patch (2 labels)", 20000, [&] { return apply_merge_patch(base_v, merge).is_object(); });

    const std::string jp = R"([{"op":"test","path":"/metadata/resourceVersion","value":"42"},
                               {"op":"add","path":"/metadata/finalizers/-","value":"other/f"}])";
    run("JSON patch (test + add finalizer)", 20000, [&] { return apply_json_patch(base_v, std::string_view(jp)).has_value(); });

    const std::string smp = R"({"spec":{"template":{"spec":{"containers":[{"name":"c1","image":"registry.example/app:new",
                                "env":[{"name":"VAR_3","value":"changed"}]}]}}}})";
    run("strategic merge (image + env by key)", 20000,
        [&] { return apply_strategic_merge_patch(base, std::string_view(smp)).has_value(); });

    apiserver::update_options create{"kubectl-create", apiserver::managed_operation::update, {}};
    json::object tracked = apiserver::update_managed_fields({}, base, create);
    run("managedFields for an Update (create)", 5000,
        [&] { return apiserver::update_managed_fields({}, base, create).contains("metadata"); });

    apiserver::apply_options apply{"ctrl", true, {}};
    json::object applied_obj = base;
    applied_obj["metadata"].as_object().erase("uid");
    auto first = apiserver::server_side_apply(tracked, applied_obj, apply);
    run("server-side apply, no-op re-apply", 2000,
        [&] { return apiserver::server_side_apply(*first, applied_obj, apply).has_value(); });
    json::object changed = applied_obj;
    changed["spec"].as_object()["replicas"] = 5;
    run("server-side apply, replicas changed", 2000,
        [&] { return apiserver::server_side_apply(*first, changed, apply).has_value(); });
    return 0;
}
