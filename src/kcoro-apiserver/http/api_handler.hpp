// The HTTP face of the object store: maps each request (route.hpp) onto the
// store, after authentication, authorization and the fault table, and
// encodes answers as kube-apiserver does (objects, XxxList, Status errors,
// chunked watch streams of {"type":..,"object":..} lines).
//
// Thin on purpose: semantics live in the store; this file decides status
// codes, content types, and the watch loop (start revision, 410 as an ERROR
// event, bookmarks, timeoutSeconds, sendInitialEvents).
//
// Lifetime: references the store, clock, access control, fault table and
// hub; all must outlive the handler and every stream it started. Thread
// safety: none (one io_context).
#pragma once

#include "http/auth.hpp"
#include "http/service_account_tokens.hpp"
#include "http/faults.hpp"
#include "http/table.hpp"
#include "http/route.hpp"
#include "http/watch_hub.hpp"
#include "http/watch_window.hpp"
#include "store/object_store.hpp"

#include <kcoro/io/clock.hpp>
#include <kcoro/io/http_server.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <string>

namespace kcoro::apiserver::http {

struct handler_options {
    /// How often a watch with allowWatchBookmarks=true gets a BOOKMARK (the
    /// cacher's bookmark frequency; one is also sent 2 s before the deadline).
    std::chrono::milliseconds bookmark_interval{std::chrono::seconds(60)};
    /// Watch length when the client sends no timeoutSeconds (the real server
    /// picks 30-60 minutes).
    std::chrono::seconds default_watch_timeout{1800};
    /// "host:port" for /api's serverAddressByClientCIDRs.
    std::string server_address = "127.0.0.1:6443";
    /// How long a list (or a sendInitialEvents watch) at a resourceVersion
    /// newer than the store waits for it before answering 504 "Too large
    /// resource version" (the watch cache's blockTimeout).
    std::chrono::milliseconds too_large_wait{std::chrono::seconds(3)};
    /// The watch cache's window per resource (watch_window.hpp).
    watch_window_params watch_cache{};
};

/// One JSON log line per request and per fault; may be empty.
using log_sink = std::function<void(const boost::json::object&)>;

class api_handler {
public:
    api_handler(object_store& store, io::clock& clk, access_control& access, fault_table& faults, watch_hub& hub,
                handler_options options = {}, log_sink log = {});

    boost::asio::awaitable<io::http_reply> operator()(io::http_request req);

    /// Called by the fault endpoint's "closeWatches" (the server wires it to
    /// http_server::close_streams).
    void set_close_streams(std::function<void()> f) { close_streams_ = std::move(f); }
    /// Ends every watch stream now (what set_close_streams() was given).
    void close_streams() {
        if (close_streams_) close_streams_();
    }
    /// The store's commit hook must call this (after the write): it feeds the
    /// per-resource watch cache windows.
    void on_commit(revision_t rev);
    const watch_window& window() const noexcept { return window_; }
    handler_options& options() noexcept { return options_; }
    void log(boost::json::object line) const;

private:
    struct watch_params;
    boost::asio::awaitable<io::http_reply> dispatch(io::http_request& req);
    boost::asio::awaitable<io::http_reply> handle_resource(io::http_request& req, route& r, const user_info& user);
    io::http_reply handle_watch(route& r, media_choice media);
    boost::asio::awaitable<io::http_reply> handle_scale(io::http_request& req, route& r,
                                                        const request_context& ctx, media_choice media);
    /// The Table columns of a resource (a CRD version's printer columns).
    std::vector<table_column> columns_for(const resource_def& def, std::string_view version) const;
    boost::asio::awaitable<void> run_watch(watch_params p, io::http_stream_writer& w);
    io::http_reply handle_faults(const io::http_request& req);
    /// The serialized `{"type":..,"object":..}` line of a stored object:
    /// stored objects are shared and immutable, so every watcher of one
    /// event reuses one serialization (a bounded FIFO cache).
    const std::string& event_line_for(const char* type, const object_ptr& obj);

    object_store& store_;
    io::clock& clk_;
    access_control& access_;
    fault_table& faults_;
    watch_hub& hub_;
    handler_options options_;
    log_sink log_;
    std::function<void()> close_streams_;
    watch_window window_;
    std::map<std::pair<const boost::json::object*, const char*>, std::pair<object_ptr, std::string>> line_cache_;
    std::deque<std::pair<const boost::json::object*, const char*>> line_order_;
    token_issuer tokens_;  // serviceaccounts/token; its tokens authenticate here
};

/// A Status error as an HTTP response (code, JSON body, Retry-After).
io::http_response status_response(const error& e);
io::http_response json_response(unsigned code, const boost::json::object& body);

} // namespace kcoro::apiserver::http
