#include <kcoro/runtime/builder.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kcoro::runtime {

namespace asio = boost::asio;

namespace {

// Waits for every informer in turn within one overall deadline.
asio::awaitable<result<void>> wait_all(std::vector<informer*> infs, io::clock* clk,
                                       std::chrono::nanoseconds timeout) {
    const auto deadline = clk->now() + timeout;
    for (auto* inf : infs) {
        auto left = std::max(std::chrono::nanoseconds(0),
                             std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - clk->now()));
        auto w = inf->wait_for_sync(left);
        auto r = co_await std::move(w);
        if (!r) {
            co_return r.error().with_context(to_string(inf->key()));
        }
    }
    co_return result<void>{};
}

} // namespace

builder::builder(informer_factory& factory, io::clock& clk, asio::any_io_executor ex)
    : factory_(factory), clock_(clk), ex_(std::move(ex)) {}

builder& builder::named(std::string name) {
    name_ = std::move(name);
    return *this;
}

builder& builder::for_(informer_key key, group_kind kind, std::vector<predicate> predicates) {
    if (primary_kind_) {
        throw std::invalid_argument("builder: for_() may only be called once");
    }
    primary_kind_ = std::move(kind);
    sources_.push_back({source_kind::primary, std::move(key), std::move(predicates), {}});
    return *this;
}

builder& builder::for_(const group_version_resource& gvr, group_kind kind, std::vector<predicate> predicates) {
    informer_key key;
    key.gvr = gvr;
    return for_(std::move(key), std::move(kind), std::move(predicates));
}

builder& builder::owns(informer_key key, std::vector<predicate> predicates) {
    sources_.push_back({source_kind::owned, std::move(key), std::move(predicates), {}});
    return *this;
}

builder& builder::owns(const group_version_resource& gvr, std::vector<predicate> predicates) {
    informer_key key;
    key.gvr = gvr;
    return owns(std::move(key), std::move(predicates));
}

builder& builder::watches(informer_key key, map_func fn, std::vector<predicate> predicates) {
    return watches(std::move(key), with_no_uid(std::move(fn)), std::move(predicates));
}

builder& builder::watches(informer_key key, uid_map_func fn, std::vector<predicate> predicates) {
    sources_.push_back({source_kind::mapped, std::move(key), std::move(predicates), std::move(fn)});
    return *this;
}

builder& builder::with_event_filter(predicate p) {
    global_.push_back(std::move(p));
    return *this;
}

builder& builder::with_options(controller_options opts) {
    opts_ = std::move(opts);
    return *this;
}

void builder::check() const {
    if (name_.empty() && opts_.name.empty()) {
        throw std::invalid_argument("builder: a controller needs a name (named())");
    }
    if (!primary_kind_) {
        throw std::invalid_argument("builder: a controller needs a primary resource (for_())");
    }
}

void builder::wire(controller& c) {
    for (auto& src : sources_) {
        auto& inf = factory_.get_or_create(src.key);
        std::vector<predicate> ps = global_;
        ps.insert(ps.end(), src.predicates.begin(), src.predicates.end());
        predicate p = ps.empty() ? predicate{} : all_of(std::move(ps));
        switch (src.kind) {
        case source_kind::primary:
            c.watch(inf, enqueue_for_object(c, std::move(p)));
            break;
        case source_kind::owned:
            c.watch(inf, enqueue_for_owner(c, *primary_kind_, std::move(p)));
            break;
        case source_kind::mapped:
            c.watch(inf, enqueue_from_uid_map(c, src.map, std::move(p)));
            break;
        }
    }
}

namespace {

template <class F>
std::unique_ptr<controller> make(asio::any_io_executor ex, io::clock& clk, controller_options opts, F r) {
    return std::make_unique<controller>(std::move(ex), clk, std::move(opts), std::move(r));
}

} // namespace

std::unique_ptr<controller> builder::complete(reconcile_func r) {
    return complete(reconcile_context_func([f = std::move(r)](const reconcile_context& ctx) { return f(ctx.key); }));
}

std::unique_ptr<controller> builder::complete(reconcile_context_func r) {
    check();
    controller_options opts = opts_;
    if (!name_.empty()) {
        opts.name = name_;
    }
    if (opts.group.empty() && opts.kind.empty()) {
        opts.group = primary_kind_->group;
        opts.kind = primary_kind_->kind;
    }
    std::vector<informer*> infs;
    for (auto& src : sources_) {
        auto& inf = factory_.get_or_create(src.key);
        if (std::find(infs.begin(), infs.end(), &inf) == infs.end()) {
            infs.push_back(&inf);
        }
        if (src.kind == source_kind::primary && !opts.read_primary) {
            opts.read_primary = [p = &inf](const object_key& key) { return p->cache().get(key); };
        }
    }
    if (!opts.wait_for_sync) {
        io::clock* clk = &clock_;
        opts.wait_for_sync = [infs, clk](std::chrono::nanoseconds timeout) { return wait_all(infs, clk, timeout); };
    }
    auto c = make(ex_, clock_, std::move(opts), std::move(r));
    wire(*c);
    return c;
}

} // namespace kcoro::runtime
