// kcoro-ctl's commands over a client. Testable in-process: the caller owns
// the io_context and the client, and passes the output streams.
#pragma once

#include "args.hpp"

#include <kcoro/client/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <iosfwd>
#include <string>

namespace kcoro::ctl {

/// Runs one command; returns the process exit code (0 success, 1 failure).
/// Errors are printed to `err` as kubectl does ("Error from server (NotFound): ...").
boost::asio::awaitable<int> run_command(const ctl_args& args, client::client& c, std::ostream& out,
                                        std::ostream& err);

/// Objects from a YAML or JSON text (multi-document; kind: List flattened).
result<std::vector<boost::json::object>> read_objects(std::string_view text);

} // namespace kcoro::ctl
