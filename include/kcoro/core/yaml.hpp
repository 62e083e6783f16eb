// A YAML reader for the subset Kubernetes users write: kubeconfigs (kubectl,
// kind, cloud CLIs), manifests and CRDs. Output is Boost.JSON, the form every
// other kcoro layer works with.
//
// Supported:
//  - block mappings and sequences, including the compact `- key: v` form and
//    sequences indented at the same level as their parent key;
//  - plain, 'single-quoted' and "double-quoted" scalars (all YAML escapes,
//    \x \u \U included), multi-line folding;
//  - literal `|` and folded `>` block scalars with chomping (`-`, `+`) and
//    indentation indicators;
//  - flow collections `{a: 1}` / `[a, b]` (across lines too), comments;
//  - multi-document streams (`---`, `...`, `%` directives skipped).
// Scalars resolve as the YAML 1.2 core schema does: null/~/empty -> null,
// true/false (three spellings) -> bool, decimal/0o/0x ints -> int64 (uint64
// or double when too large), floats incl. .inf/.nan -> double. Mapping keys
// and quoted values are always strings; a `!!str` (or `!str`) tag makes a
// plain scalar a string, other tags are ignored.
//
// Not supported (a clear decode_error, never a crash): anchors `&a` and
// aliases `*a`, complex keys `? k`, flow collections as keys, duplicate
// keys (rejected, as strict Kubernetes decoding does). Nesting is limited to
// `yaml_max_depth` levels so hostile input cannot exhaust the stack.
//
// Errors: kcoro_errc::decode_error with "yaml: line L, column C: <what>"
// (1-based). Pure functions; thread-safe.
#pragma once

#include <kcoro/core/error.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>
#include <vector>

namespace kcoro {

inline constexpr std::size_t yaml_max_depth = 256;

struct yaml_options {
    /// Keep plain scalars as their text (only null/~/empty still resolve to
    /// null). For typed readers such as the kubeconfig one, where a field is
    /// always a string: `token: 0123` must stay "0123", as sigs.k8s.io/yaml
    /// converts by the target field's type.
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
