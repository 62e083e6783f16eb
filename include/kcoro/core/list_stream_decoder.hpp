// Decoding of a List response as its body arrives: each item is handed to a
// sink as soon as its closing brace is read, before the next byte of the
// body is looked at, so decoding a list of N objects holds one item's tree
// and the parser's buffers, never the whole body or a tree of all the items
// (a real kube-apiserver answers a resourceVersion=0 list from its watch
// cache in one response whatever `limit` says: 150 MB of JSON at 100,000
// objects of 1.5 KB).
//
//   list_stream_decoder d([&](object_ptr item) { cache.put(item); });
//   for (auto chunk : body) if (auto r = d.write(chunk); !r) return r.error();
//   result<list_result> meta = d.finish();   // rv, continue, kind; no items
//
// Items get the list's apiVersion and kind (without "List") when they lack
// them, as decode_list does; both come before "items" in what kube-apiserver
// writes, and items that come before them are held until they are known.
// Each item is parsed into an arena of its own (core/json_arena.hpp).
//
// Errors are decode_list's: a Status body gives its error, a body that is
// not a list a kcoro_errc::decode_error. After an error the decoder only
// repeats it; items already handed out stay handed out.
//
// Thread safety: one decoder per body, used by one thread.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/list_decoder.hpp>
#include <kcoro/core/object.hpp>

#include <functional>
#include <memory>
#include <string_view>

namespace kcoro {

class list_stream_decoder {
public:
    /// Called once per item, in the order of the body.
    using item_sink = std::function<void(object_ptr)>;

    explicit list_stream_decoder(item_sink sink);
    ~list_stream_decoder();
    list_stream_decoder(list_stream_decoder&&) noexcept;
    list_stream_decoder& operator=(list_stream_decoder&&) noexcept;

    /// The next bytes of the body (any split, even inside a string or a
    /// number). May call the sink any number of times.
    result<void> write(std::string_view bytes);
    /// The end of the body: the list's metadata, kind and apiVersion, with
    /// `items` empty (every item went to the sink).
    result<list_result> finish();

    /// Items handed to the sink so far.
    std::size_t items() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace kcoro
