#include <kcoro/server/controller_builder.hpp>

#include <kcoro/client/write_origin.hpp>
#include <kcoro/core/resource_table.hpp>
#include <kcoro/runtime/builder.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/runtime/informer_factory.hpp>
#include <kcoro/runtime/shard_ring.hpp>
#include <kcoro/server/manager.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace kcoro::server {

namespace {

runtime::informer_key key_for(group_version_resource gvr) {
    runtime::informer_key k;
    k.gvr = std::move(gvr);
    return k;
}

} // namespace

controller_builder::controller_builder(manager& mgr, std::string name) : mgr_(mgr), name_(std::move(name)) {}

controller_builder& controller_builder::for_(group_version_resource gvr, std::vector<runtime::predicate> predicates) {
    return for_(key_for(std::move(gvr)), std::move(predicates));
}

controller_builder& controller_builder::for_(runtime::informer_key key, std::vector<runtime::predicate> predicates) {
    const bool has_primary = std::any_of(sources_.begin(), sources_.end(),
                                         [](const source& s) { return s.kind == source::role::primary; });
    if (has_primary) {
        throw std::invalid_argument("controller " + name_ + ": for_() may only be called once");
    }
    sources_.push_back({source::role::primary, std::move(key), std::move(predicates), {}});
    return *this;
}

controller_builder& controller_builder::owns(group_version_resource gvr, std::vector<runtime::predicate> predicates) {
    return owns(key_for(std::move(gvr)), std::move(predicates));
}

controller_builder& controller_builder::owns(runtime::informer_key key, std::vector<runtime::predicate> predicates) {
    sources_.push_back({source::role::owned, std::move(key), std::move(predicates), {}});
    return *this;
}

controller_builder& controller_builder::watches(runtime::informer_key key, runtime::map_func fn,
                                                std::vector<runtime::predicate> predicates) {
    return watches(std::move(key), runtime::with_no_uid(std::move(fn)), std::move(predicates));
}

controller_builder& controller_builder::watches(runtime::informer_key key, runtime::uid_map_func fn,
                                                std::vector<runtime::predicate> predicates) {
    sources_.push_back({source::role::mapped, std::move(key), std::move(predicates), std::move(fn)});
    return *this;
}

controller_builder& controller_builder::with_event_filter(runtime::predicate p) {
    filters_.push_back(std::move(p));
    return *this;
}

controller_builder& controller_builder::max_concurrent_reconciles(std::size_t n) {
    max_concurrent_ = n;
    return *this;
}

controller_builder& controller_builder::field_manager(std::string name) {
    field_manager_ = std::move(name);
    return *this;
}

controller_builder& controller_builder::event_source(std::string name) {
    event_source_ = std::move(name);
    return *this;
}

controller_builder& controller_builder::hot_loop(runtime::hot_loop_options opts) {
    hot_loop_ = opts;
    return *this;
}

controller_builder& controller_builder::rate_limiter(runtime::rate_limiter_options opts) {
    rate_limiter_ = opts;
    return *this;
}

controller_builder& controller_builder::shard_children_by_label() {
    children_by_label_ = true;
    return *this;
}

controller_builder& controller_builder::shard_by_namespace() {
    by_namespace_ = true;
    return *this;
}

controller_builder& controller_builder::singleton() {
    singleton_ = true;
    return *this;
}

void controller_builder::add_resource(resource_info info) {
    auto& table = mgr_.resources();
    if (const auto* known = table.find(info.gvr)) {
        if (known->kind != info.kind) {
            std::ostringstream what;
            what << info.gvr;
            throw std::invalid_argument("controller " + name_ + ": resource " + what.str() + " is kind " +
                                        known->kind + " in the manager's resource table, not " + info.kind);
        }
        return;
    }
    table.add(std::move(info));
}

runtime::informer& controller_builder::primary_informer(const group_version_resource& expected) {
    auto primary = std::find_if(sources_.begin(), sources_.end(),
                                [](const source& s) { return s.kind == source::role::primary; });
    if (primary == sources_.end()) {
        throw std::invalid_argument("controller " + name_ + ": a controller needs a primary resource (for_())");
    }
    if (!(primary->key.gvr == expected)) {
        std::ostringstream what;
        what << "controller " << name_ << ": the typed reconciler is for " << expected << ", the primary is "
             << primary->key.gvr;
        throw std::invalid_argument(what.str());
    }
    return mgr_.cache().get_or_create(cache_key(*primary));
}

// Sharded controllers (docs/sharding.md) read informers that keep only the
// share: the primary by its uid, owned objects by their controller owner's.
runtime::informer_key controller_builder::cache_key(const source& s) const {
    if (singleton_ || !mgr_.shard()) return s.key;
    if (by_namespace_ && s.kind != source::role::mapped) {
        // Children live in their owner's namespace: the same share, and
        // KEP-5866 selects both by object.metadata.namespace.
        return mgr_.controller_key(s.key, runtime::shard_by::namespace_);
    }
    switch (s.kind) {
    case source::role::primary: return mgr_.controller_key(s.key, runtime::shard_by::uid);
    case source::role::owned:
        return mgr_.controller_key(s.key, children_by_label_ ? runtime::shard_by::controller_owner_bucket
                                                             : runtime::shard_by::controller_owner);
    case source::role::mapped: break;
    }
    return s.key;
}

std::size_t controller_builder::inf_memo_capacity() const noexcept {
    return mgr_.cache().options().typed_memo_capacity;
}

runtime::controller& controller_builder::complete(runtime::reconcile_func r) {
    return complete(runtime::reconcile_context_func(
        [f = std::move(r)](const runtime::reconcile_context& ctx) { return f(ctx.key); }));
}

runtime::controller& controller_builder::complete(runtime::reconcile_context_func r) {
    if (name_.empty()) {
        throw std::invalid_argument("controller_builder: a controller needs a name");
    }
    auto primary = std::find_if(sources_.begin(), sources_.end(),
                                [](const source& s) { return s.kind == source::role::primary; });
    if (primary == sources_.end()) {
        throw std::invalid_argument("controller " + name_ + ": a controller needs a primary resource (for_())");
    }
    const auto* info = mgr_.resources().find(primary->key.gvr);
    if (!info) {
        std::ostringstream what;
        what << primary->key.gvr;
        throw std::invalid_argument("controller " + name_ + ": unknown resource " + what.str() +
                                    ": add it to the manager's resource table (manager::resources().add)");
    }
    const runtime::group_kind kind{info->gvr.group, info->kind};

    auto& cache = mgr_.cache();
    runtime::controller_options opts;
    opts.name = name_;
    const auto flag = mgr_.options().max_concurrent_reconciles;
    opts.max_concurrent_reconciles = max_concurrent_ ? *max_concurrent_ : static_cast<std::size_t>(std::max<std::int64_t>(1, flag));
    opts.rate_limiter = rate_limiter_;
    opts.metrics = mgr_.metrics().make_controller_metrics(name_);
    opts.queue_metrics = mgr_.metrics().make_workqueue_metrics(name_, name_);
    opts.log = mgr_.log();
    opts.hot_loop = hot_loop_;
    opts.events = &mgr_.events(event_source_.empty() ? name_ : event_source_);
    opts.field_manager = field_manager_.empty() ? mgr_.name() : field_manager_;
    if (const auto& r = mgr_.random_source()) {
        // Reconcile IDs from the injected source (a seeded run stays seeded).
        opts.random = [r] {
            const auto hi = static_cast<std::uint64_t>(r() * 4294967296.0);
            const auto lo = static_cast<std::uint64_t>(r() * 4294967296.0);
            return (hi << 32) ^ lo;
        };
    }
    cache.keep_managed_fields_of(opts.field_manager);

    // Cached reads: the primary for the HotLoop Event, owned objects for apply_owned.
    auto owned = std::make_shared<std::vector<std::pair<group_version_resource, runtime::informer*>>>();
    std::vector<runtime::informer*> owned_informers;
    for (auto& s : sources_) {
        if (s.kind != source::role::mapped) s.key = cache_key(s);
        if (s.kind == source::role::owned) {
            owned->emplace_back(s.key.gvr, &cache.get_or_create(s.key));
            owned_informers.push_back(owned->back().second);
        }
    }
    // read_primary keeps the list alive for as long as the controller's
    // options live; read_owned, which every reconcile's context copies,
    // holds a plain pointer to it (small and trivially copyable: a copy of
    // the std::function allocates nothing).
    auto* primary_inf = &cache.get_or_create(primary->key);
    opts.read_primary = [primary_inf, owned](const object_key& key) { return primary_inf->cache().get(key); };
    opts.read_owned = [list = owned.get()](const group_version_resource& gvr,
                                           const object_key& key) -> std::optional<object_ptr> {
        for (const auto& [g, inf] : *list) {
            if (g != gvr) continue;
            auto obj = inf->cache().get(key);
            // A sharded cache proves presence, not absence: an object of that
            // name that is not ours (someone else's, or a child without the
            // owner-bucket label) is never in it. Unknown: read the API, so
            // that apply_owned meets a name conflict with a GET rather than
            // with a create answered 409 (scripts/chaos counted those writes
            // in its quiet period, a NameConflict retried every minute).
            if (!obj && inf->key().shard != runtime::shard_by::none) return std::nullopt;
            return obj;
        }
        return std::nullopt;
    };

    // Sharding (docs/sharding.md): every replica runs it, each on its share.
    auto* member = mgr_.shard();
    const bool sharded = member != nullptr && !singleton_;
    if (sharded) {
        opts.needs_leader_election = false;
        opts.sharding.owns = [member](std::uint64_t h) { return member->owns(h); };
        if (by_namespace_) {
            if (!info->namespaced) {
                throw std::invalid_argument("controller " + name_ +
                                            ": shard_by_namespace() needs a namespaced primary resource");
            }
            // The key decides: no cache read, and a deleted primary's key
            // (a watched object's event) still has its owner.
            opts.sharding.key_hash = [](const object_key& key) { return runtime::fnv1a64(key.ns); };
        } else {
            opts.sharding.hash_of = [primary_inf](const object_key& key) -> std::optional<std::uint64_t> {
                auto obj = primary_inf->cache().get(key);
                if (!obj) return std::nullopt;
                const auto uid = uid_of(*obj);
                if (uid.empty()) return std::nullopt;
                return runtime::fnv1a64(uid);
            };
        }
        opts.sharding.on_unowned = [reg = &mgr_.metrics(), name = name_] { reg->shard_unowned_event(name); };
    } else if (member) {
        mgr_.log().info("controller is a singleton: it runs on the leader only, not sharded",
                        {{"controller", name_}, {"leaderElection", mgr_.options().leader_elect}});
    }

    // The workers' executor carries the controller's origin: the write
    // guard judges its writes by the shard Lease (sharded) or the leader
    // Lease (leader-gated), not by whichever is valid.
    const auto* origin = mgr_.write_origin(name_, sharded ? client::write_gate::shard : client::write_gate::leader);
    runtime::builder b(cache, mgr_.clock(), client::with_write_origin(mgr_.executor(), origin));
    b.named(name_);
    for (auto& f : filters_) {
        b.with_event_filter(f);
    }
    for (auto& s : sources_) {
        switch (s.kind) {
        case source::role::primary:
            b.for_(s.key, kind, s.predicates);
            break;
        case source::role::owned:
            b.owns(s.key, s.predicates);
            break;
        case source::role::mapped:
            b.watches(s.key, s.map, s.predicates);
            break;
        }
    }
    b.with_options(std::move(opts));
    auto ctl = b.complete(std::move(r));
    auto& ref = *ctl;
    if (sharded) mgr_.add_sharded(ref, *primary_inf, owned_informers);
    mgr_.add(std::move(ctl));
    return ref;
}

} // namespace kcoro::server
