// The precompiled header of the pure library layers (core, typed,
// runtime_pure, kcoro-apiserver's store): the standard and Boost.JSON headers
// nearly every file includes. Only speeds the clang builds up (the ASan
// build, the packages, the subproject route); the g++ build of `kcoro-dev
// test` has -Db_pch=false, so each file still proves it includes what it
// uses. Boost and the standard library only: no layer's headers, so the
// precompiled header cannot hide a dependency on a layer above.
// Include guards, not #pragma once: a precompiled header is its own main
// file, where g++ warns about #pragma once.
#ifndef KCORO_PCH_PURE_PCH_HPP
#define KCORO_PCH_PURE_PCH_HPP

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

#endif
