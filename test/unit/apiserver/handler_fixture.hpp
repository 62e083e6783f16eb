// The api_handler of a test: a store, access control, faults and the watch
// hub on a manual clock, and requests handed to it in process (no socket).
// Shared by the handler's unit tests.
#pragma once

#include "http/api_handler.hpp"

#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace kcoro::apiserver::http::test {

using namespace std::chrono_literals;

struct fixture {
    boost::asio::io_context io;
    io::manual_clock clk;
    object_store store{store_config{}, clk.wall_now()};
    access_control access;
    fault_table faults;
    watch_hub hub;
    api_handler handler{store, clk, access, faults, hub, handler_options{10s, 1800s, "127.0.0.1:1"}};
    io::http_headers extra;  // sent with every request (impersonation headers)
    /// Sent as User-Agent (the field manager of writes without fieldManager); "" sends none.
    std::string user_agent = "kubectl/v1.32.4 (linux/amd64)";

    explicit fixture(store_config config = {}) : store{std::move(config), clk.wall_now()} {
        store.set_commit_hook([this](revision_t rev) {
            handler.on_commit(rev);
            hub.notify();
        });
    }

    io::http_reply call(std::string method, std::string target, std::string body = {},
                        std::string content_type = "application/json", std::string auth = {}) {
        io::http_request req;
        req.method = std::move(method);
        req.target = std::move(target);
        req.body = std::move(body);
        req.headers.emplace_back("Content-Type", std::move(content_type));
        if (!user_agent.empty()) req.headers.emplace_back("User-Agent", user_agent);
        if (!auth.empty()) req.headers.emplace_back("Authorization", std::move(auth));
        req.headers.insert(req.headers.end(), extra.begin(), extra.end());
        std::optional<io::http_reply> out;
        auto run = [&]() -> boost::asio::awaitable<void> { out = co_await handler(std::move(req)); };
        boost::asio::co_spawn(io, run(), boost::asio::detached);
        io.restart();
        io.poll();
        REQUIRE(out.has_value());
        return std::move(*out);
    }
    io::http_response answer(std::string method, std::string target, std::string body = {},
                             std::string content_type = "application/json", std::string auth = {}) {
        auto r = call(std::move(method), std::move(target), std::move(body), std::move(content_type), std::move(auth));
        REQUIRE(std::holds_alternative<io::http_response>(r));
        return std::get<io::http_response>(std::move(r));
    }
};

} // namespace kcoro::apiserver::http::test
