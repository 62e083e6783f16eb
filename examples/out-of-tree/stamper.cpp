// The ConfigMap comes from the informer cache; a merge patch is sent only
// when the annotation differs, so a settled object costs no write.
//
// Coroutine calls name every argument before co_await (g++ 12 mishandles
// temporaries in a co_await operand; see kcoro's docs/using-kcoro.md).
#include "stamper.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/request_options.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/runtime/reconcile_result.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace stamper {

namespace json = boost::json;

std::string data_keys(const json::object& cm) {
    std::vector<std::string> keys;
    if (const auto* data = cm.if_contains("data"); data && data->is_object()) {
        for (const auto& kv : data->get_object()) keys.emplace_back(kv.key());
    }
    std::sort(keys.begin(), keys.end());
    std::string out;
    for (const auto& k : keys) out += (out.empty() ? "" : ",") + k;
    return out;
}

namespace {

kcoro::runtime::informer_key stamped_configmaps() {
    kcoro::runtime::informer_key k;
    k.gvr = kcoro::resources::configmaps();
    k.label_selector = stamp_selector;
    return k;
}

} // namespace

void add_controller(kcoro::server::manager& mgr) {
    auto& client = mgr.client();
    // The controller's own informer (sharded with --sharding-ring), not a second one.
    auto& informer = mgr.cache().get_or_create(mgr.controller_key(stamped_configmaps(), kcoro::runtime::shard_by::uid));
    auto log = mgr.log().with_name("configmap-stamper");

    auto reconcile = [&client, &informer, log](kcoro::object_key key)
        -> boost::asio::awaitable<kcoro::result<kcoro::runtime::reconcile_result>> {
        auto cm = informer.cache().get(key);
        if (!cm || kcoro::is_being_deleted(*cm)) co_return kcoro::runtime::success();  // gone: nothing to keep
        std::string want = data_keys(*cm);
        auto have = kcoro::annotation_of(*cm, keys_annotation);
        if (have && *have == want) co_return kcoro::runtime::success();  // settled: no write

        json::object annotations;
        annotations[keys_annotation] = want;
        json::object metadata;
        metadata["annotations"] = std::move(annotations);
        // The resourceVersion read makes a stale cache a 409 instead of a lost update.
        metadata["resourceVersion"] = kcoro::resource_version_of(*cm);
        json::object patch;
        patch["metadata"] = std::move(metadata);
        std::string body = json::serialize(patch);
        auto gvr = kcoro::resources::configmaps();
        kcoro::patch_options opts;
        opts.type = kcoro::patch_type::merge;
        auto written = co_await client.patch(gvr, key, body, opts);
        if (!written) co_return written.error().with_context("stamp " + key.str());
        log.info("stamped", {{"configmap", key.str()}, {"keys", want}});
        co_return kcoro::runtime::success();
    };

    kcoro::runtime::controller_options opts;
    opts.name = "configmap-stamper";
    opts.metrics = mgr.metrics().make_controller_metrics(opts.name);
    opts.queue_metrics = mgr.metrics().make_workqueue_metrics(opts.name, opts.name);
    opts.log = mgr.log();
    kcoro::runtime::group_kind kind;
    kind.kind = "ConfigMap";
    auto ctl = kcoro::runtime::builder(mgr.cache(), mgr.clock(), mgr.executor())
                   .named(opts.name)
                   .for_(stamped_configmaps(), kind)
                   .with_options(std::move(opts))
                   .complete(reconcile);
    mgr.add(std::move(ctl));
}

} // namespace stamper
