// The shared informer cache (controller-runtime's "cache"): one informer per
// informer_key, shared by every controller that asks for it, started and
// synced together, with cached reads.
//
//   runtime::informer_factory cache(client, clock, ex, {.namespace_ = "default"});
//   auto& cms = cache.get_or_create({.gvr = resources::configmaps()});
//   cms.add_handlers(...);
//   co_spawn(ex, cache.run(), detached);        // the manager does this
//   co_await cache.wait_for_sync();
//   auto cm = cache.get(resources::configmaps(), {"default", "x"});
//
// (test/integration/header_examples_test.cpp runs it.)
//
// An informer asked for after run() started is started at once.
// `namespace_` scopes every informer of a namespaced resource (the
// manager's --namespace); informer keys asking for another namespace get it
// unchanged.
//
// Lifetime: client and clock outlive it; run() returned before destruction;
// informer references stay valid for its lifetime. Thread safety: none.
#pragma once

#include <kcoro/runtime/informer.hpp>
#include <kcoro/runtime/runnable.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

namespace kcoro::runtime {

struct informer_factory_options {
    /// Default namespace of informers whose key leaves it empty ("" = all).
    std::string namespace_{};
    std::chrono::nanoseconds resync_period = std::chrono::hours(10);
    /// Metrics per informer (e.g. metrics_registry::make_informer_metrics); may be empty.
    std::function<std::unique_ptr<informer_metrics>(const informer_key&)> make_metrics{};
    /// Random source for watch timeouts and jitter (tests seed it); empty: a real one.
    std::function<double()> random{};
    /// Whether a resource is namespaced (the namespace_ default applies only
    /// to those); empty: every resource but the built-in cluster-scoped ones
    /// (namespaces, nodes, CRDs, cluster RBAC, ...; see is_cluster_scoped).
    std::function<bool(const group_version_resource&)> is_namespaced{};
    /// Handed to every informer (watcher failures, handler exceptions).
    kcoro::logger log{};
    /// Entries of each typed memo of get<T> (typed_memo.hpp).
    std::size_t typed_memo_capacity = 4096;
};

/// The built-in cluster-scoped resources (namespaces, nodes, persistentvolumes,
/// customresourcedefinitions, clusterroles, ...).
bool is_cluster_scoped(const group_version_resource& gvr);

class informer_factory final : public runnable {
public:
    informer_factory(client::client& c, io::clock& clk, boost::asio::any_io_executor ex,
                     informer_factory_options opts = {});
    ~informer_factory() override;

    /// The informer for `key` (namespace defaulted from the options), created
    /// on first use and started if the factory runs.
    informer& get_or_create(informer_key key);
    /// The informer for `key` if it exists.
    informer* find(const informer_key& key);
    std::vector<informer*> informers();

    // runnable: runs every informer until stop(); returns once all returned.
    std::string_view name() const override { return "informers"; }
    boost::asio::awaitable<void> run() override;
    void stop() override;
    bool needs_leader_election() const override { return false; }

    bool has_synced() const;
    /// Waits for every informer (see informer::wait_for_sync): the first error wins.
    boost::asio::awaitable<result<void>> wait_for_sync(std::chrono::nanoseconds timeout);
    /// wait_for_sync(2 minutes).
    boost::asio::awaitable<result<void>> wait_for_sync() { return wait_for_sync(std::chrono::minutes(2)); }

    // Cached reads from the full-object informer of gvr in the default scope.
    object_ptr get(const group_version_resource& gvr, const object_key& key);
    std::vector<object_ptr> list(const group_version_resource& gvr, std::string_view ns = {});
    std::vector<object_ptr> by_index(const group_version_resource& gvr, std::string_view index,
                                     std::string_view value);
    /// Typed cached read from the informer of resource_traits<T>::gvr():
    /// decoded once per object version and shared (typed_memo.hpp); null
    /// when not cached; a decode_error naming the field paths when the
    /// object does not decode. Defined in kcoro/runtime/typed_cache.hpp
    /// (included by the controller builder's header).
    template <class T> result<std::shared_ptr<const T>> get(const object_key& key);
    /// The informer get(gvr, key) reads: gvr's in the default scope, else
    /// the one scoped to `ns`; null when neither exists.
    informer* reader_for(const group_version_resource& gvr, std::string_view ns);
    /// One slot per informer and type, for the typed memos of get<T>.
    std::shared_ptr<void>& memo_slot(const informer& inf, std::type_index type);

    const informer_factory_options& options() const noexcept { return opts_; }

    /// Keeps the managedFields entries of `field_manager` in every object
    /// the full-object informers of this factory cache (the others are still
    /// stripped; keep_managed_fields_transform), so that server-side applies
    /// can be compared with the cache (runtime::apply_owned) instead of a
    /// GET. Takes effect for objects stored from now on: call it before run().
    void keep_managed_fields_of(std::string field_manager);
    const std::vector<std::string>& kept_field_managers() const noexcept;

private:
    struct impl;
    informer_factory_options opts_;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro::runtime
