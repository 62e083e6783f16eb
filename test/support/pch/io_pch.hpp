// The precompiled header of the test executables of the layers on Asio (io,
// client, runtime, server, the API server's HTTP layer, the public API, the
// integration tests): the pure one plus Asio's coroutines and the client,
// runtime and manager headers nearly every file includes. Only speeds the
// build up (see pure_pch.hpp).
#pragma once

#include "pure_pch.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <kcoro/client/client.hpp>
#include <kcoro/io/clock.hpp>
#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/informer.hpp>
#include <kcoro/server/manager.hpp>
