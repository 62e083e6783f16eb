// The opaque `continue` token of paginated lists, shaped like the real
// server's (base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}):
// the revision the first page was read at and the last key returned, plus
// (our own field "rem", absent from the real server's tokens) the number of
// items left after that key when the list counts them, so each page's
// remainingItemCount costs nothing instead of a walk over the rest.
// Pure; decoding bad input gives an error, never throws.
#pragma once

#include <kcoro/core/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kcoro::apiserver {

struct continue_token {
    std::uint64_t revision = 0;
    std::string last_key;  // object_key::str() of the last item returned
    /// Items after last_key at `revision` (lists without selectors).
    std::optional<std::int64_t> remaining;
};

std::string encode_continue_token(const continue_token& t);
result<continue_token> decode_continue_token(std::string_view text);

} // namespace kcoro::apiserver
