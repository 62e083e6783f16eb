// What the manager starts: informers (the informer factory), controllers,
// the leader elector, the event recorder. One interface so the start order
// and the shutdown live in one place (server/manager.hpp).
//
// Contract:
//  - `run()` runs on the manager's io_context until `stop()` is called, then
//    returns once its in-flight work finished (controllers drain their
//    reconciles). It must also return promptly when the coroutine is
//    cancelled (the manager's hard deadline cancels it).
//  - `stop()` is idempotent and may be called before `run()`.
//  - `needs_leader_election()`: started only while this replica leads
//    (controllers: true; informers and the event recorder: false).
//
// Lifetime: owned by the caller; must outlive its run(). Thread safety: none
// (everything on the io_context's thread).
#pragma once

#include <boost/asio/awaitable.hpp>

#include <string_view>

namespace kcoro::runtime {

class runnable {
public:
    virtual ~runnable() = default;
    virtual std::string_view name() const = 0;
    virtual boost::asio::awaitable<void> run() = 0;
    virtual void stop() = 0;
    virtual bool needs_leader_election() const = 0;
};

} // namespace kcoro::runtime
