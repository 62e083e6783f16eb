// A scripted HTTP(S) server on 127.0.0.1 for the client's tests: the one test
// double at the transport boundary (STYLE.md #6).
//
// The script is a list of steps consumed in order, across connections. Each
// step checks the request it receives (method, path, query parameters,
// headers, body) and answers with a status/headers/body, a chunked stream
// (pieces may wait for a gate the test opens: a pause without sleeping), or a
// fault (close before answering, close mid-body, never answer). Mismatches
// are recorded in failures(); the server still answers so the client under
// test finishes.
//
// Lifetime and thread safety: runs on the given io_context's thread; must be
// destroyed before the io_context (stop() closes every connection).
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace boost::asio::ssl {
class context;
}

namespace kcoro::test {

using header_list = std::vector<std::pair<std::string, std::string>>;

struct expected_request {
    std::string method;          // "GET"; empty = any
    std::string path;            // without the query; empty = any
    header_list query;           // parameters that must be present with these (decoded) values
    std::vector<std::string> query_absent;  // parameters that must not be present
    header_list headers;         // headers that must be present with these values
    std::string body_contains;   // substring the body must contain
};

enum class fault {
    none,
    close_before_reply,  // read the request, close without a byte
    close_mid_body,      // header with Content-Length, half the body, close
    hang,                // never answer (until stop())
};

struct stream_piece {
    std::string data;
    /// Wait until open_gate() was called once more before sending this piece.
    bool wait_gate = false;
};

struct reply {
    int status = 200;
    header_list headers;  // Content-Type defaults to application/json
    std::string body;
    /// When non-empty, the body is sent chunked, piece by piece (body ignored).
    std::vector<stream_piece> stream;
    /// After the stream: keep the connection open (an endless watch) until stop().
    bool hold_open = false;
    /// Close the connection after answering, without announcing it
    /// (a server that drops an idle keep-alive connection).
    bool close_after = false;
    fault fail = fault::none;
};

struct step {
    expected_request expect;
    reply answer;
};

struct recorded_request {
    std::string method;
    std::string target;  // as sent, with query
    std::string path;
    header_list query;   // decoded
    header_list headers;
    std::string body;
    std::size_t connection = 0;      // 1-based connection ordinal
    std::string client_cert_user;    // CN of a verified client certificate
    std::vector<std::string> client_cert_groups;
    std::string query_value(const std::string& key) const;  // "" when absent
    std::string header(const std::string& name) const;      // case-insensitive; "" when absent
};

class scripted_server {
public:
    /// Plain HTTP.
    scripted_server(boost::asio::io_context& ioc, std::vector<step> script);
    /// HTTPS with the given server context (kcoro::io::make_server_tls_context).
    scripted_server(boost::asio::io_context& ioc, std::vector<step> script,
                    std::shared_ptr<boost::asio::ssl::context> tls);
    ~scripted_server();
    scripted_server(const scripted_server&) = delete;
    scripted_server& operator=(const scripted_server&) = delete;

    unsigned short port() const noexcept;
    /// "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
    std::string url() const;

    /// Appends steps to the script.
    void add(step s);
    /// Lets one waiting stream piece go.
    void open_gate();

    const std::vector<recorded_request>& requests() const noexcept;
    /// Expectation mismatches and requests beyond the script, as text.
    const std::vector<std::string>& failures() const noexcept;
    /// TCP connections accepted so far.
    std::size_t connections() const noexcept;
    /// Steps not yet consumed.
    std::size_t remaining() const noexcept;
    /// Closes the listener and every connection.
    void stop();

    struct impl;

private:
    // Shared with the server's coroutines, which may outlive this object
    // until the io_context runs them to completion.
    std::shared_ptr<impl> impl_;
};

} // namespace kcoro::test
