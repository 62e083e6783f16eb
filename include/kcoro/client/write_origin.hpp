// Who sends a write: the client's write guard (client::set_write_guard) is
// told which controller's reconcile a request comes from, without a
// parameter on every verb. The manager runs each controller's workers on an
// executor that carries the controller's write_origin; every coroutine of a
// reconcile (the client's verbs included) runs on its caller's executor, so
// the client reads the origin from `co_await asio::this_coro::executor`.
//
//   client::write_origin origin{"mirror", client::write_gate::shard};
//   auto ex = client::with_write_origin(ioc.get_executor(), &origin);
//   asio::co_spawn(ex, reconcile(...), ...);   // its writes carry &origin
//   client::write_origin_of(ex) == &origin
//
// Why: one client serves every controller of a manager. With leader
// election and sharding both on, a replica may hold the leader Lease while
// its shard Lease's validity has passed (or the reverse); the guard must
// refuse a sharded reconcile's write by the shard Lease and a singleton's by
// the leader Lease, not let either through because the other Lease is valid
// (docs/sharding.md, "The write guard").
//
// Work a reconcile starts on another executor (co_spawn on the manager's
// plain executor, a thread of its own) carries no origin: the guard applies
// its rule for writes of unknown origin.
//
// origin_executor forwards everything to the io_context executor it wraps
// (other executors are not wrapped: their work carries no origin); the
// origin must outlive every executor that carries it (the manager keeps
// them).
// Values; thread safety: as the wrapped executor.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/require.hpp>

#include <string>
#include <type_traits>
#include <utility>

namespace kcoro::client {

/// Which Lease's validity a controller's writes depend on.
enum class write_gate {
    leader,  // leader-gated controller: the leader Lease (--leader-elect)
    shard,   // sharded controller: this replica's shard Lease (--sharding-ring)
};

struct write_origin {
    write_origin() = default;
    write_origin(std::string c, write_gate g) : controller(std::move(c)), gate(g) {}
    std::string controller;
    write_gate gate = write_gate::leader;
};

/// An executor that runs everything on the io_context executor it wraps and
/// carries a write origin (see above). Small and trivially destructible
/// (two pointers), as the io_context's own executor is: any_io_executor
/// keeps it inline, so code that g++ 12 miscompiles by destroying the
/// result of `co_await this_coro::executor` twice (an aggregate or a
/// constructor argument built around the co_await, docs/toolchain.md) is no
/// worse off on it than on the plain executor; a wrapper holding an
/// any_io_executor would be kept behind a reference count, and that second
/// destruction would free it under the coroutine's feet.
template <class Inner>
class basic_origin_executor {
public:
    basic_origin_executor(const Inner& inner, const write_origin* origin) noexcept : inner_(inner), origin_(origin) {}

    const write_origin* origin() const noexcept { return origin_; }
    const Inner& inner() const noexcept { return inner_; }

    template <class P>
    auto query(const P& p) const noexcept(noexcept(boost::asio::query(std::declval<const Inner&>(), p)))
        -> decltype(boost::asio::query(std::declval<const Inner&>(), p)) {
        return boost::asio::query(inner_, p);
    }
    template <class P>
    auto require(const P& p) const -> basic_origin_executor<std::decay_t<decltype(boost::asio::require(std::declval<const Inner&>(), p))>> {
        return {boost::asio::require(inner_, p), origin_};
    }
    template <class P>
    auto prefer(const P& p) const -> basic_origin_executor<std::decay_t<decltype(boost::asio::prefer(std::declval<const Inner&>(), p))>> {
        return {boost::asio::prefer(inner_, p), origin_};
    }

    template <typename F>
    void execute(F&& f) const {
        inner_.execute(std::forward<F>(f));
    }

    friend bool operator==(const basic_origin_executor& a, const basic_origin_executor& b) noexcept {
        return a.origin_ == b.origin_ && a.inner_ == b.inner_;
    }
    friend bool operator!=(const basic_origin_executor& a, const basic_origin_executor& b) noexcept { return !(a == b); }

private:
    Inner inner_;
    const write_origin* origin_;
};

/// What the manager's controllers run on: the io_context's executor with an origin.
using origin_executor = basic_origin_executor<boost::asio::io_context::executor_type>;

/// `ex` carrying `origin`; `ex` unchanged when `origin` is null or `ex` is
/// not an io_context's executor (or one already carrying an origin, whose
/// origin is replaced).
boost::asio::any_io_executor with_write_origin(boost::asio::any_io_executor ex, const write_origin* origin);

/// The origin `ex` carries; null when it carries none.
const write_origin* write_origin_of(const boost::asio::any_io_executor& ex) noexcept;

} // namespace kcoro::client
