// The precompiled header of the library layers on Asio (io, client,
// runtime, server, testing, kcoro-apiserver's HTTP layer, gateway-operator):
// the pure one plus Asio's coroutines, TLS and Beast's HTTP, about a second
// and a half of every such file's compile at -O0 with clang. Only speeds the
// build up (see pure_pch.hpp).
// Include guards, not #pragma once: a precompiled header is its own main
// file, where g++ warns about #pragma once.
#ifndef KCORO_PCH_ASIO_PCH_HPP
#define KCORO_PCH_ASIO_PCH_HPP

#include "pure_pch.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#endif
