// The manager-aware controller builder: the short way to a controller that
// behaves like a controller-runtime one out of the box.
//
//   auto& ctl = mgr.controller("configmap-mirror")
//                   .for_(parents_key)                   // kind from mgr.resources()
//                   .owns(children_key)
//                   .complete(reconcile);                // added to the manager
//
// (test/integration/header_examples_test.cpp runs it.)
//
// Typed (kcoro/typed/): the resource and its kind from resource_traits<T>,
// the reconciler gets the decoded, checked primary (see complete<T>):
//
//   mgr.controller("gateway")
//       .for_<v1alpha1::gateway_instance>()
//       .owns<k8s::deployment>()
//       .complete<v1alpha1::gateway_instance>(reconcile);   // (ctx, std::shared_ptr<const T>)
//
// (test/integration/typed_builder_test.cpp runs it.)
//
// complete() wires, from the manager:
//  - controller_runtime_* and workqueue_* metrics for the controller (the
//    manager's registry, exported on /metrics), plus kcoro_noop_writes_total
//    and kcoro_hot_loop_detected_total{controller};
//  - the manager's logger, so "Reconciler error" and the rest are logged
//    with controller, namespace, name and reconcileID (never silent);
//  - --max-concurrent-reconciles (max_concurrent_reconciles() overrides it);
//  - an event recorder for the controller (mgr.events(event source), the
//    controller name unless event_source() says otherwise) in every
//    reconcile_context, also used for the HotLoop Warning Event;
//  - the field manager of its server-side applies (the manager's name
//    unless field_manager() says otherwise), whose managedFields entries
//    the shared cache keeps, and cached reads of owned objects in every
//    reconcile_context (read_owned), so apply_owned sends no GET;
//  - the hot-loop alarm (hot_loop(); controller.hpp);
//  - and adds the controller to the manager (leader-gated), which owns it.
//    With --sharding-ring (docs/sharding.md) it is sharded instead: it runs
//    on every replica, not leader-gated, and only reconciles keys whose hash
//    (fnv1a64 of the primary's uid; a child's controller owner reference
//    uid) this replica's ring share holds; singleton() opts out (leader-gated
//    as without sharding).
//
// `for_` takes the resource alone: its kind comes from the manager's
// resource table (built-in resources are there; add custom resources once
// with mgr.resources().add). An unknown resource, a missing for_() or a
// second for_() are start-up configuration errors: std::invalid_argument
// (ADR 0002). The low-level runtime::builder stays for tests and for code
// that wires a controller without a manager.
//
// Lifetime: use it before mgr.run(), on the manager's thread; the returned
// controller is owned by the manager. Thread safety: none.
#pragma once

#include <kcoro/core/resource.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/event_sources.hpp>
#include <kcoro/runtime/hot_loop_tracker.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/predicates.hpp>
#include <kcoro/runtime/rate_limiter.hpp>
#include <kcoro/runtime/reconcile_context.hpp>
#include <kcoro/runtime/reconcile_result.hpp>
#include <kcoro/runtime/typed_cache.hpp>
#include <kcoro/typed/resource_traits.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kcoro::server {

class manager;

/// A typed reconciler: the primary object decoded (and checked) from the
/// cache, shared and immutable.
template <class T>
using typed_reconcile_func = std::function<boost::asio::awaitable<result<runtime::reconcile_result>>(
    runtime::reconcile_context ctx, std::shared_ptr<const T> obj)>;
/// What a typed controller does with a primary object that does not decode
/// or fails its checks: `obj` is the object as cached, `errors` every field
/// path (typed::describe(errors) is an InvalidSpec condition's message).
using invalid_object_func = std::function<boost::asio::awaitable<result<runtime::reconcile_result>>(
    runtime::reconcile_context ctx, object_ptr obj, typed::field_errors errors)>;

class controller_builder {
public:
    controller_builder(manager& mgr, std::string name);

    /// The primary resource (one per controller), every namespace the manager watches.
    controller_builder& for_(group_version_resource gvr, std::vector<runtime::predicate> predicates = {});
    /// The primary, with the informer's namespace and selectors.
    controller_builder& for_(runtime::informer_key key, std::vector<runtime::predicate> predicates = {});
    /// Children controlled by the primary (mapped through the controller owner reference).
    controller_builder& owns(group_version_resource gvr, std::vector<runtime::predicate> predicates = {});
    controller_builder& owns(runtime::informer_key key, std::vector<runtime::predicate> predicates = {});
    /// Any resource, mapped to keys by `fn`.
    controller_builder& watches(runtime::informer_key key, runtime::map_func fn,
                                std::vector<runtime::predicate> predicates = {});
    /// Any resource, mapped to keys and their primaries' uids by `fn`: with
    /// --sharding-ring a key whose primary is not cached (deleted) still
    /// reaches the replica owning its uid (runtime/event_sources.hpp).
    controller_builder& watches(runtime::informer_key key, runtime::uid_map_func fn,
                                std::vector<runtime::predicate> predicates = {});
    // Typed sources: the resource (and its kind, added to the manager's
    // resource table when missing) from resource_traits<T>, so the type and
    // the resource watched cannot disagree.
    template <typed::resource_type T> controller_builder& for_() { return for_<T>({}); }
    template <typed::resource_type T> controller_builder& for_(std::vector<runtime::predicate> predicates) {
        return for_(typed_key<T>(), std::move(predicates));
    }
    template <typed::resource_type T> controller_builder& owns() { return owns<T>({}); }
    template <typed::resource_type T> controller_builder& owns(std::vector<runtime::predicate> predicates) {
        return owns(typed_key<T>(), std::move(predicates));
    }
    template <typed::resource_type T> controller_builder& watches(runtime::map_func fn) {
        return watches<T>(std::move(fn), {});
    }
    template <typed::resource_type T>
    controller_builder& watches(runtime::map_func fn, std::vector<runtime::predicate> predicates) {
        return watches(typed_key<T>(), std::move(fn), std::move(predicates));
    }

    /// Applied to every source, before its own predicates.
    controller_builder& with_event_filter(runtime::predicate p);

    /// Overrides --max-concurrent-reconciles for this controller.
    controller_builder& max_concurrent_reconciles(std::size_t n);
    /// The server-side apply field manager (default: the manager's name).
    controller_builder& field_manager(std::string name);
    /// The reportingController of its Events (default: the controller's name).
    controller_builder& event_source(std::string name);
    controller_builder& hot_loop(runtime::hot_loop_options opts);
    controller_builder& rate_limiter(runtime::rate_limiter_options opts);
    /// Not sharded under --sharding-ring: runs only on the replica holding
    /// the leader Lease (--leader-elect), every key, as without sharding.
    controller_builder& singleton();
    /// Sharded, the owns() informers ask the server for this replica's
    /// children only: those whose owner-bucket label (kcoro.io/shard-bucket,
    /// runtime/shard_bucket.hpp) is in its share, instead of receiving every
    /// child and dropping the others after decoding. The label is stamped by
    /// apply_owned and create_or_patch; a child written otherwise must carry
    /// it (runtime::stamp_shard_bucket) or this replica never sees it.
    /// No effect without --sharding-ring or with singleton().
    controller_builder& shard_children_by_label();
    /// Sharded by namespace instead of by the primary's uid: a replica owns
    /// every key of the namespaces whose fnv1a64(namespace) its share holds
    /// (KEP-5866's other field), for controllers whose work is per
    /// namespace. The primary and owns() informers then list and watch the
    /// share's namespaces (the server's shardSelector on
    /// object.metadata.namespace where it echoes shardInfo, else the client
    /// filters); a key's owner follows from its namespace alone, so watched
    /// objects of a deleted primary still reach it. The primary must be
    /// namespaced (std::invalid_argument otherwise).
    controller_builder& shard_by_namespace();

    /// Builds the controller, adds it to the manager, returns it.
    runtime::controller& complete(runtime::reconcile_context_func r);
    runtime::controller& complete(runtime::reconcile_func r);

    /// A typed controller: each reconcile reads the primary from the cache,
    /// decoded once per version (typed_memo.hpp), and checks it
    /// (typed::check: the schema's bounds and the type's validate()).
    ///  - not in the cache (deleted): success, `r` is not called (owner
    ///    references and finalizers take it from there);
    ///  - decodes and checks: `r(ctx, obj)`;
    ///  - does not: `on_invalid(ctx, raw, errors)`, or by default the
    ///    "Reconciler error" log and a terminal error (not retried until the
    ///    object changes: never a hot loop). Set a status condition there.
    /// T must be the for_() resource (std::invalid_argument otherwise).
    template <typed::resource_type T> runtime::controller& complete(typed_reconcile_func<T> r) {
        return complete<T>(std::move(r), invalid_object_func());
    }
    template <typed::resource_type T>
    runtime::controller& complete(typed_reconcile_func<T> r, invalid_object_func on_invalid);

private:
    template <typed::resource_type T> runtime::informer_key typed_key() {
        using traits = typed::resource_traits<T>;
        resource_info info;
        info.gvr = traits::gvr();
        info.kind = std::string(traits::kind);
        info.namespaced = traits::namespaced;
        info.has_status = traits::info.status_subresource;
        add_resource(std::move(info));
        runtime::informer_key k;
        k.gvr = traits::gvr();
        return k;
    }
    /// Adds `info` to the manager's table when missing; a different kind
    /// for the same resource is a start-up configuration error.
    void add_resource(resource_info info);
    /// The informer of the for_() resource (std::invalid_argument without one).
    runtime::informer& primary_informer(const group_version_resource& expected);
    std::size_t inf_memo_capacity() const noexcept;

    template <class T> struct typed_state {
        runtime::typed_memo<T> memo;
        runtime::informer* inf;
        typed_reconcile_func<T> reconcile;
        invalid_object_func on_invalid;
    };
    template <class T>
    static boost::asio::awaitable<result<runtime::reconcile_result>> typed_pass(
        runtime::reconcile_context ctx, std::shared_ptr<typed_state<T>> st);

    struct source {
        enum class role { primary, owned, mapped } kind;
        runtime::informer_key key;
        std::vector<runtime::predicate> predicates;
        runtime::uid_map_func map;
    };
    /// The informer key `s` is read through: with sharding on (and not a
    /// singleton) the primary's and owned keys filter to the share.
    runtime::informer_key cache_key(const source& s) const;

    manager& mgr_;
    std::string name_;
    std::vector<source> sources_;
    std::vector<runtime::predicate> filters_;
    std::optional<std::size_t> max_concurrent_;
    std::string field_manager_;
    std::string event_source_;
    runtime::hot_loop_options hot_loop_{};
    runtime::rate_limiter_options rate_limiter_{};
    bool singleton_ = false;
    bool children_by_label_ = false;
    bool by_namespace_ = false;
};

template <typed::resource_type T>
runtime::controller& controller_builder::complete(typed_reconcile_func<T> r, invalid_object_func on_invalid) {
    auto& inf = primary_informer(typed::resource_traits<T>::gvr());
    auto st = std::make_shared<typed_state<T>>(typed_state<T>{
        runtime::typed_memo<T>(inf_memo_capacity()), &inf, std::move(r), std::move(on_invalid)});
    // A plain lambda returning the coroutine: the state travels by value
    // into each pass's frame (one shared_ptr copy per reconcile).
    return complete(runtime::reconcile_context_func(
        [st](const runtime::reconcile_context& ctx) { return typed_pass<T>(ctx, st); }));
}

template <class T>
boost::asio::awaitable<result<runtime::reconcile_result>> controller_builder::typed_pass(
    runtime::reconcile_context ctx, std::shared_ptr<typed_state<T>> st) {
    auto found = st->memo.find(st->inf->cache(), ctx.key);
    if (!found.object && !found.errors) {
        co_return runtime::success();  // deleted: nothing to converge
    }
    typed::field_errors errors = found.errors ? *found.errors : typed::check(*found.object);
    if (errors.empty()) {
        auto pass = st->reconcile(std::move(ctx), std::move(found.object));
        co_return co_await std::move(pass);
    }
    if (st->on_invalid) {
        auto raw = st->inf->cache().get(found.key);
        auto pass = st->on_invalid(std::move(ctx), std::move(raw), std::move(errors));
        co_return co_await std::move(pass);
    }
    if (!found.errors) {
        found.errors = std::make_shared<const typed::field_errors>(std::move(errors));
    }
    co_return runtime::terminal_error(found.to_error());
}

} // namespace kcoro::server
