// The precompiled header of the test executables of the pure layers (core,
// typed, the pure runtime, the pure store, the operator's API, the
// scaffold): what nearly every one of their files includes. Only speeds the
// build up (-Db_pch=false builds the same tests without it; the g++ build
// of `kcoro-dev test` does, so each test still proves that the header it
// tests, included first, compiles on its own).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <boost/json.hpp>
#include <doctest/doctest.h>

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/status.hpp>
