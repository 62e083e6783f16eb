// Private to the YAML reader: what a scalar's text means, as
// sigs.k8s.io/yaml decides it (its goyaml.v2/resolve.go, then yaml.go's
// convertToJSONableObject for mapping keys). libyaml only tokenizes.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kcoro::detail::yaml {

/// An untagged plain scalar (goyaml.v2 resolve with no tag): YAML 1.1's
/// booleans (y/yes/on/true... and n/no/off/false, three spellings each),
/// null (~, null, empty), Go's integer syntax after removing '_' (0x, 0o,
/// 0b, a leading 0 is octal; int64, then uint64), floats (.inf, .nan,
/// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?); everything else,
/// timestamps included, stays a string.
boost::json::value resolve_plain(std::string_view text);

/// A scalar with an explicit tag: !!str / !!binary / !!timestamp and
/// unknown tags are strings; !!int, !!float, !!bool, !!null must resolve to
/// that kind (an integer is accepted as a float). nullopt with `why` set when
/// the text is not of the tag's kind ("cannot decode !!str `x` as a !!int").
std::optional<boost::json::value> resolve_tagged(std::string_view tag, std::string_view text, std::string& why);

/// A resolved mapping key as a JSON member name (convertToJSONableObject):
/// strings as they are, integers in decimal, booleans as true/false, floats
/// as Go's strconv.FormatFloat(f, 'g', -1, 32). nullopt for null.
std::optional<std::string> key_text(const boost::json::value& key);

} // namespace kcoro::detail::yaml
