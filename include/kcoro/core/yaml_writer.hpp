// Writes a JSON value as block-style YAML, the form kubectl and
// controller-gen write manifests in. The output reads back (parse_yaml, and
// YAML 1.1 readers such as sigs.k8s.io/yaml) as the same value: strings that
// a reader could take for another type (true, yes, null, 8080, 1.27, "") or
// that hold characters with a meaning in YAML are double-quoted; keys keep
// the object's order; empty objects and arrays are written `{}` and `[]`.
//
// Pure; thread-safe.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kcoro {

/// The value as YAML, ending with a newline. A scalar is written on one line.
std::string to_yaml(const boost::json::value& v);

/// A string as a YAML scalar: plain when that reads back as the same string,
/// double-quoted otherwise.
std::string yaml_scalar(std::string_view s);

} // namespace kcoro
