// The integration tests' one harness: an io_context, kcoro-apiserver in
// process, clients that count what they have in flight, a clock (manual or
// steady), and the waits built on them.
//
//   kcoro::test::harness h;                       // manual clock, memory transport
//   auto& c = h.admin();
//   auto m = h.make_manager(h.manager_options(), h.manager_setup("m1"));
//   auto code = kcoro::test::start(h.ioc, m->run_async());
//   REQUIRE(h.advance_until([&] { return m->cache_synced(); }, 10s));
//
// Transport. transport_kind::memory (the default) hands each request to the
// server's handler on the same io_context (client::memory_transport, no
// socket); transport_kind::http has the server listen on 127.0.0.1 and the
// clients use the real HTTP transport (for tests of the wire itself).
//
// Settled. settle() runs handlers until no request of a harness client is in
// flight and no handler is ready: every consequence of what happened so far
// has run, and only time (the clock) can make more happen. A request is in
// flight from the moment a client hands it to its transport until the answer
// (for a watch: the response head) is back; an open watch is not in flight.
// No real-time idleness is involved: with the memory transport and the
// manual clock the result is deterministic. Requests of clients not made by
// the harness are not seen (make every client through it).
//
// Time. With clock_kind::manual nothing that sleeps on the clock (requeue,
// backoff, retries, delay faults, lease renewals) goes on until the test
// advances it; advance_until() moves it in steps, settling after each.
// clock_kind::steady is the real clock. Every real-time bound here only ends
// a hung test; it is never the synchronisation.
//
// Lifetime: clients and managers made here must be destroyed before the
// harness (the destructor closes streams, stops the server and settles).
// Thread safety: none; one thread runs the io_context.
#pragma once

#include "run_until.hpp"
#include "server.hpp"

#include <kcoro/client/client.hpp>
#include <kcoro/client/memory_transport.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/server/manager.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace kcoro::test {

enum class clock_kind { manual, steady };
enum class transport_kind { memory, http };

struct harness_options {
    clock_kind clock = clock_kind::manual;
    transport_kind transport = transport_kind::memory;
    /// The server's options; `listen` follows `transport`.
    apiserver::server_options server;
    /// Bearer tokens per user (the server's log names each client's user):
    /// admin() is then user "admin".
    bool authenticate = false;
};

/// How make_client() builds a client.
struct client_spec {
    /// With harness_options::authenticate: the user its token is for.
    std::string user = "admin";
    std::vector<std::string> groups;
    /// A bearer token to send as it is (instead of one made for `user`).
    std::string token;
    client::client_options options;
    /// Every attempt (client_options::metrics is not used over a harness transport).
    request_metrics* metrics = nullptr;
    std::string user_agent = "kcoro/0.1.0";
};

/// What the harness's transports share: requests in flight, and the memory
/// transports alive (close_watches() ends their streams).
struct harness_state {
    std::size_t in_flight = 0;
    std::uint64_t requests = 0;
    std::set<client::memory_transport*> memory;
};

class harness {
public:
    explicit harness(harness_options o = {});
    ~harness();
    harness(const harness&) = delete;
    harness& operator=(const harness&) = delete;

    boost::asio::io_context ioc;

    // --- the server and clients ------------------------------------------
    apiserver::server& server() noexcept { return *srv_; }
    /// The test's own client (user "admin").
    client::client& admin() noexcept { return *admin_; }
    std::unique_ptr<client::client> make_client(client_spec spec);
    std::unique_ptr<client::client> make_client() { return make_client(client_spec()); }
    /// A client of another server (a manager's probe or metrics endpoint,
    /// an unused port), over HTTP, counted like the others.
    std::unique_ptr<client::client> http_client(std::string url, client::client_options co);
    transport_kind transport() const noexcept { return opts_.transport; }

    // --- time -----------------------------------------------------------
    io::clock& clock() noexcept { return *clk_; }
    /// std::logic_error with clock_kind::steady.
    io::manual_clock& manual_clock();

    // --- waiting ----------------------------------------------------------
    /// Requests of the harness's clients handed to a transport and not yet answered.
    std::size_t in_flight() const noexcept { return state_->in_flight; }
    /// Requests the harness's clients sent so far.
    std::uint64_t requests_sent() const noexcept { return state_->requests; }
    /// Runs until settled (see the file comment): true. False when the
    /// bound passed first, or (memory transport, manual clock) when a
    /// request in flight waits for the clock: then only advancing can help.
    bool settle(std::chrono::milliseconds bound = std::chrono::seconds(20));
    /// Runs handlers until `done()` (the clock stands still); false when the bound passed.
    template <class Pred>
    bool run_until(Pred&& done, std::chrono::milliseconds bound = std::chrono::seconds(20)) {
        return kcoro::test::run_until(ioc, std::forward<Pred>(done), bound);
    }
    /// Manual clock: settles, checks `done()`, advances by `step`, until
    /// `done()` or `limit` of clock time passed (done() is checked once more).
    template <class Pred>
    bool advance_until(Pred&& done, std::chrono::milliseconds limit,
                       std::chrono::milliseconds step = std::chrono::milliseconds(100)) {
        auto& clk = manual_clock();
        for (auto t = std::chrono::milliseconds(0); t <= limit; t += step) {
            settle();
            if (done()) return true;
            clk.advance(step);
        }
        settle();
        return done();
    }
    /// Runs `a` to completion and returns its value; std::runtime_error
    /// when the bound passed first.
    template <class T>
    T run(boost::asio::awaitable<T> a, std::chrono::milliseconds bound = std::chrono::seconds(20)) {
        auto out = kcoro::test::run(ioc, std::move(a), bound);
        if (!out) throw std::runtime_error("harness::run: the coroutine did not complete in time");
        return std::move(*out);
    }

    // --- managers -------------------------------------------------------
    /// Metrics and probe servers off ("0"), everything else the defaults.
    server::manager_options manager_options() const;
    /// The harness's io_context and clock, `c` (null: a fresh harness
    /// client for user `name`, owned by the harness), no signal handling,
    /// identity `name`, a fixed random source (0.5).
    server::manager_setup manager_setup(std::string name, client::client* c = nullptr);
    /// manager::create, std::runtime_error with its message when it fails.
    std::unique_ptr<server::manager> make_manager(server::manager_options o, server::manager_setup s);

    /// Watch streams open now, of every harness client (memory), or that
    /// the server serves (http).
    std::size_t open_streams() const;
    /// Ends every open watch stream of the harness's clients (memory), or
    /// the server's watches (http): informers must rewatch.
    void close_watches();

private:
    harness_options opts_;
    std::unique_ptr<io::clock> clk_;
    io::manual_clock* manual_ = nullptr;
    std::shared_ptr<harness_state> state_ = std::make_shared<harness_state>();
    std::unique_ptr<apiserver::server> srv_;
    std::unique_ptr<client::client> admin_;
    std::vector<std::unique_ptr<client::client>> owned_;  // manager_setup's clients
};

} // namespace kcoro::test
