#include <kcoro/runtime/informer_factory.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <array>
#include <exception>

namespace kcoro::runtime {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

bool is_cluster_scoped(const group_version_resource& gvr) {
    struct gr {
        std::string_view group;
        std::string_view resource;
    };
    static constexpr std::array<gr, 22> cluster_scoped{{
        {"", "namespaces"},
        {"", "nodes"},
        {"", "persistentvolumes"},
        {"", "componentstatuses"},
        {"apiextensions.k8s.io", "customresourcedefinitions"},
        {"apiregistration.k8s.io", "apiservices"},
        {"rbac.authorization.k8s.io", "clusterroles"},
        {"rbac.authorization.k8s.io", "clusterrolebindings"},
        {"storage.k8s.io", "storageclasses"},
        {"storage.k8s.io", "csidrivers"},
        {"storage.k8s.io", "csinodes"},
        {"storage.k8s.io", "volumeattachments"},
        {"scheduling.k8s.io", "priorityclasses"},
        {"node.k8s.io", "runtimeclasses"},
        {"networking.k8s.io", "ingressclasses"},
        {"admissionregistration.k8s.io", "mutatingwebhookconfigurations"},
        {"admissionregistration.k8s.io", "validatingwebhookconfigurations"},
        {"admissionregistration.k8s.io", "validatingadmissionpolicies"},
        {"admissionregistration.k8s.io", "validatingadmissionpolicybindings"},
        {"certificates.k8s.io", "certificatesigningrequests"},
        {"flowcontrol.apiserver.k8s.io", "flowschemas"},
        {"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations"},
    }};
    for (const auto& c : cluster_scoped) {
        if (gvr.group == c.group && gvr.resource == c.resource) {
            return true;
        }
    }
    return false;
}

struct informer_factory::impl {
    struct slot {
        std::unique_ptr<informer_metrics> metrics;
        std::unique_ptr<informer> inf;
    };

    impl(client::client& c, io::clock& clk, asio::any_io_executor ex)
        : client_(c), clk_(clk), ex_(ex), changed_(ex, asio::steady_timer::time_point::max()) {}

    client::client& client_;
    io::clock& clk_;
    asio::any_io_executor ex_;
    std::map<informer_key, slot> informers_;
    bool running_ = false;
    bool stopped_ = false;
    std::size_t active_ = 0;  // informer run()s not yet returned
    // Read at transform time by every full-object informer of the factory.
    std::shared_ptr<std::vector<std::string>> kept_managers_ = std::make_shared<std::vector<std::string>>();
    asio::steady_timer changed_;
    std::uint64_t epoch_ = 0;
    // Typed memos of get<T>, by informer and type (typed_cache.hpp).
    std::map<std::pair<const informer*, std::type_index>, std::shared_ptr<void>> memos_;

    void notify() {
        ++epoch_;
        changed_.cancel();
    }

    asio::awaitable<void> wait_changed(std::uint64_t seen) {
        if (seen != epoch_) {
            co_return;
        }
        co_await changed_.async_wait(asio::as_tuple(asio::use_awaitable));
    }

    void spawn(informer& inf, const kcoro::logger& log) {
        ++active_;
        asio::co_spawn(ex_, inf.run(), [this, &inf, log](std::exception_ptr e) {
            if (e) {
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    log.error(std::string_view(ex.what()), "informer failed", {{"informer", inf.name()}});
                } catch (...) {
                    log.error(std::string_view("unknown exception"), "informer failed", {{"informer", inf.name()}});
                }
            }
            --active_;
            notify();
        });
    }
};

informer_factory::informer_factory(client::client& c, io::clock& clk, asio::any_io_executor ex,
                                   informer_factory_options opts)
    : opts_(std::move(opts)), impl_(std::make_unique<impl>(c, clk, std::move(ex))) {}

informer_factory::~informer_factory() = default;

informer& informer_factory::get_or_create(informer_key key) {
    if (key.namespace_.empty() && !opts_.namespace_.empty()) {
        const bool namespaced = opts_.is_namespaced ? opts_.is_namespaced(key.gvr) : !is_cluster_scoped(key.gvr);
        if (namespaced) {
            key.namespace_ = opts_.namespace_;
        }
    }
    auto& s = *impl_;
    if (auto it = s.informers_.find(key); it != s.informers_.end()) {
        return *it->second.inf;
    }
    impl::slot sl;
    if (opts_.make_metrics) {
        sl.metrics = opts_.make_metrics(key);
    }
    informer_options io;
    io.key = key;
    io.resync_period = opts_.resync_period;
    io.watcher.random = opts_.random;
    io.metrics = sl.metrics.get();
    io.log = opts_.log;
    io.on_state_change = [&s] { s.notify(); };
    if (!key.metadata_only) {
        io.kept_managers = s.kept_managers_;  // read when storing: managers added later count
    }
    sl.inf = std::make_unique<informer>(s.client_, s.clk_, s.ex_, std::move(io));
    informer& inf = *sl.inf;
    s.informers_.emplace(std::move(key), std::move(sl));
    if (s.stopped_) {
        inf.stop();  // wait_for_sync on it returns at once
    } else if (s.running_) {
        s.spawn(inf, opts_.log);
    }
    s.notify();
    return inf;
}

void informer_factory::keep_managed_fields_of(std::string field_manager) {
    auto& kept = *impl_->kept_managers_;
    if (std::find(kept.begin(), kept.end(), field_manager) == kept.end()) {
        kept.push_back(std::move(field_manager));
    }
}

const std::vector<std::string>& informer_factory::kept_field_managers() const noexcept {
    return *impl_->kept_managers_;
}

informer* informer_factory::find(const informer_key& key) {
    auto& m = impl_->informers_;
    if (auto it = m.find(key); it != m.end()) {
        return it->second.inf.get();
    }
    if (key.namespace_.empty() && !opts_.namespace_.empty()) {
        auto scoped = key;
        scoped.namespace_ = opts_.namespace_;
        if (auto it = m.find(scoped); it != m.end()) {
            return it->second.inf.get();
        }
    }
    return nullptr;
}

std::vector<informer*> informer_factory::informers() {
    std::vector<informer*> out;
    out.reserve(impl_->informers_.size());
    for (auto& [k, sl] : impl_->informers_) {
        out.push_back(sl.inf.get());
    }
    return out;
}

asio::awaitable<void> informer_factory::run() {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto& s = *impl_;
    if (s.stopped_ || s.running_) {
        co_return;
    }
    s.running_ = true;
    for (auto& [k, sl] : s.informers_) {
        s.spawn(*sl.inf, opts_.log);
    }
    // Until stop() (or cancellation, which stops every informer), then until
    // every informer's run() returned.
    while (!(s.stopped_ && s.active_ == 0)) {
        co_await s.wait_changed(s.epoch_);
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            stop();
            co_await asio::this_coro::reset_cancellation_state();
        }
    }
    s.running_ = false;
}

void informer_factory::stop() {
    auto& s = *impl_;
    s.stopped_ = true;
    for (auto& [k, sl] : s.informers_) {
        sl.inf->stop();
    }
    s.notify();
}

bool informer_factory::has_synced() const {
    for (const auto& [k, sl] : impl_->informers_) {
        if (!sl.inf->has_synced()) {
            return false;
        }
    }
    return true;
}

asio::awaitable<result<void>> informer_factory::wait_for_sync(std::chrono::nanoseconds timeout) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto& s = *impl_;
    const steady_time deadline = s.clk_.now() + timeout;
    const std::chrono::nanoseconds no_wait{0};
    for (;;) {
        const std::uint64_t seen = s.epoch_;
        // Each informer's state as its own wait_for_sync reports it: the first
        // error that is not "not yet" wins.
        std::vector<std::string> pending;
        error last_pending;
        for (auto* inf : informers()) {
            auto r = co_await inf->wait_for_sync(no_wait);
            if (r) {
                continue;
            }
            if (r.error().code() != kcoro_errc::not_synced) {
                co_return r.error();
            }
            pending.emplace_back(inf->name());
            last_pending = r.error();
        }
        if (pending.empty()) {
            co_return result<void>();
        }
        if (s.clk_.now() >= deadline) {
            std::string msg = "informers not synced after " +
                              std::to_string(std::chrono::duration<double>(timeout).count()) + "s:";
            for (const auto& n : pending) {
                msg += " [" + n + "]";
            }
            if (pending.size() == 1) {
                msg = last_pending.message();
            }
            co_return error(kcoro_errc::not_synced, std::move(msg));
        }
        auto signalled = s.wait_changed(seen);
        auto timer = s.clk_.sleep_until(deadline);
        co_await (std::move(signalled) || std::move(timer));
        auto cs = co_await asio::this_coro::cancellation_state;
        if (cs.cancelled() != asio::cancellation_type::none) {
            co_return error(kcoro_errc::cancelled, "wait for informer sync cancelled");
        }
    }
}

namespace {
// The full-object informer of `k`, else the sharded one a sharded
// controller's primary uses (docs/sharding.md: it holds this replica's share).
informer* find_full(informer_factory& f, informer_key k) {
    if (auto* inf = f.find(k)) return inf;
    k.shard = shard_by::uid;
    return f.find(k);
}
} // namespace

informer* informer_factory::reader_for(const group_version_resource& gvr, std::string_view ns) {
    informer_key k;
    k.gvr = gvr;
    auto* inf = find_full(*this, k);
    if (!inf && !ns.empty()) {
        k.namespace_ = std::string(ns);
        inf = find_full(*this, k);
    }
    return inf;
}

std::shared_ptr<void>& informer_factory::memo_slot(const informer& inf, std::type_index type) {
    return impl_->memos_[{&inf, type}];
}

object_ptr informer_factory::get(const group_version_resource& gvr, const object_key& key) {
    auto* inf = reader_for(gvr, key.ns);
    return inf ? inf->cache().get(key) : nullptr;
}

std::vector<object_ptr> informer_factory::list(const group_version_resource& gvr, std::string_view ns) {
    auto* inf = reader_for(gvr, ns);
    if (!inf) {
        return {};
    }
    return ns.empty() ? inf->cache().list() : inf->cache().list_namespace(ns);
}

std::vector<object_ptr> informer_factory::by_index(const group_version_resource& gvr, std::string_view index,
                                                   std::string_view value) {
    informer_key k;
    k.gvr = gvr;
    auto* inf = find_full(*this, k);
    return inf ? inf->cache().by_index(index, value) : std::vector<object_ptr>{};
}

} // namespace kcoro::runtime
