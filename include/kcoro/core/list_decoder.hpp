// Decoding of a List response (ConfigMapList, GatewayInstanceList, ...)
// into its items and list metadata. One parse; the items are moved out of
// the parsed tree into shared immutable objects, never copied.
//
// As client-go does for unstructured lists, an item without apiVersion/kind
// gets the list's apiVersion and the list kind without its "List" suffix
// (kube-apiserver omits them in typed lists).
//
// Thread safety: pure functions; the result is a value.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/object.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

struct list_result {
    std::vector<object_ptr> items;
    /// metadata.resourceVersion of the list: where a following watch starts.
    std::string resource_version;
    /// metadata.continue: non-empty when more pages follow.
    std::string continue_token;
    /// metadata.remainingItemCount (an estimate, only on paginated lists).
    std::optional<std::int64_t> remaining_item_count;
    /// metadata.shardInfo.selector: the shardSelector the server applied
    /// (KEP-5866, Kubernetes 1.36 alpha); absent when the server ignored it
    /// or was not asked. Present means the items are only that shard.
    std::optional<std::string> shard_selector;
    /// "ConfigMapList".
    std::string kind;
    std::string api_version;
};

/// "ConfigMapList: 2 items, rv 2001, continue" for test failures and logs.
std::ostream& operator<<(std::ostream& os, const list_result& l);

/// Decode a parsed List (consumed). A Status object gives the error it
/// describes; anything else that is not a list is a kcoro_errc::decode_error.
result<list_result> decode_list(boost::json::value&& v);

/// Parse and decode a List body.
result<list_result> decode_list_body(std::string_view body);

} // namespace kcoro
