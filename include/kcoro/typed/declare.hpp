// What a header that declares typed resources includes: Boost.Describe's
// macros, kcoro's annotations, the unknown-field holder and the small scalar
// types. Conversion lives in codec.hpp, the CRD in crd.hpp.
#pragma once

#include <kcoro/typed/annotations.hpp>
#include <kcoro/typed/bytes.hpp>
#include <kcoro/typed/int_or_string.hpp>
#include <kcoro/typed/quantity.hpp>
#include <kcoro/typed/timestamp.hpp>
#include <kcoro/typed/unknown_fields.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
