// configmap-stamper's controller, apart from main() so its test
// (stamper_test.cpp, on kcoro::testing) runs the same code in process.
//
// For every ConfigMap labelled example.kcoro.dev/stamp=true it keeps the
// annotation example.kcoro.dev/keys = the ConfigMap's data keys, sorted and
// comma-separated.
#pragma once

#include <kcoro/server/manager.hpp>

#include <boost/json/object.hpp>

#include <string>

namespace stamper {

inline constexpr const char* stamp_selector = "example.kcoro.dev/stamp=true";
inline constexpr const char* keys_annotation = "example.kcoro.dev/keys";

/// What the annotation should say (pure).
std::string data_keys(const boost::json::object& configmap);

/// Adds the controller (and its informer) to the manager.
void add_controller(kcoro::server::manager& mgr);

} // namespace stamper
