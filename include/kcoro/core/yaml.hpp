// The YAML reader for kubeconfigs, manifests and CRDs: libyaml's parser
// (YAML 1.1 syntax, the C library kubectl's go-yaml was ported from) driven
// into Boost.JSON, the form every other kcoro layer works with.
//
// Scalars mean what they mean to kubectl and kube-apiserver, which read YAML
// through sigs.k8s.io/yaml (goyaml.v2's resolve, then a JSON conversion):
//  - plain y/Y/yes/Yes/YES/on/On/ON/true/True/TRUE -> true, the n/no/off/false
//    spellings -> false (YAML 1.1: quote "yes" to keep a string);
//    ~/null/Null/NULL/empty -> null;
//  - integers in Go's syntax once '_' are removed: decimal, 0x, 0o, 0b, and a
//    leading 0 is octal (0123 -> 83); int64, then uint64, beyond that a double;
//  - floats [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, -.inf,
//    .nan -> double;
//  - everything else (timestamps too), quoted and block scalars -> string;
//  - tags: !!str and unknown tags give the text; !!int, !!float, !!bool,
//    !!null must match ("cannot decode !!str `x` as a !!int").
// Mapping keys become member names: integers in decimal, booleans true/false,
// floats as Go's FormatFloat(f, 'g', -1, 32); a null key is an error.
// Duplicate keys are an error (as strict Kubernetes decoding reports them).
// Anchors and aliases are expanded (an alias copies the anchored value), with
// goyaml.v2's bound on expansion ("document contains excessive aliasing":
// beyond 1,000 nodes, at most 99% of a document from aliases, down to 10% for
// 4 million nodes); merge keys `<<: *base` add the keys the mapping lacks.
// Nesting is limited to `yaml_max_depth` levels (aliases included), so
// hostile input cannot exhaust the stack of code that walks the result.
//
// Errors: kcoro_errc::decode_error, "yaml: line L, column C: <what>" (1-based;
// libyaml's problem, then what it was reading and where that started).
// Pure functions; thread-safe.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace kcoro {

inline constexpr std::size_t yaml_max_depth = 256;

struct yaml_options {
    /// Keep plain scalars (and keys, and tagged scalars) as their text; only
    /// null/~/empty still resolve to null. For typed readers such as the
    /// kubeconfig one, whose fields are strings: sigs.k8s.io/yaml converts by
    /// the target field's type, and `token: 0123` must stay "0123".
    bool plain_scalars_as_strings = false;
};

/// Parses a stream that holds at most one document (an empty stream is
/// null); more than one document is an error.
result<boost::json::value> parse_yaml(std::string_view text, const yaml_options& options = {});

/// Parses a multi-document stream. An explicit but empty document (`---`
/// followed by nothing) is a null value; manifest readers usually skip those.
/// An empty stream gives no documents.
result<std::vector<boost::json::value>> parse_yaml_documents(std::string_view text,
                                                              const yaml_options& options = {});

} // namespace kcoro
