// Typed reads of an informer cache, decoded once per object version.
//
//   runtime::typed_memo<gateway_instance> memo(4096);
//   auto gi = memo.get(inf.cache(), key);   // result<std::shared_ptr<const gateway_instance>>
//   if (gi && *gi) use((*gi)->spec.replicas);   // null: not in the cache
//
// (informer_factory::get<T>(key), typed_cache.hpp, keeps one per informer
// and type; typed controllers keep their own.)
//
// Why a memo and not a decode per read: the cache stores compact JSON text
// (object_cache.hpp), so a read is a parse and a decode, about 8 µs for a
// 2.7 KB GatewayInstance (docs/typed.md, typed_bench); a memo hit costs two
// key lookups and a shared_ptr copy. The memo is keyed by namespace/name
// and checked against object_cache::stamp(key), which changes whenever the
// stored object does: an entry is used only for the exact object version it
// was decoded from, so a reader never sees a stale decode. A decoding
// failure is remembered too (the object is not decoded again until it
// changes), with its field-path errors.
//
// Bounded: at most `capacity` entries. When full, entries of objects that
// changed or left the cache are dropped; if that frees less than a quarter,
// every entry is (the objects are decoded again as they are read). Memory:
// a decoded struct per entry, on top of the cache's text.
//
// The objects handed out are shared and immutable: keep them past the
// cache's next update if you like, copy one to change it.
//
// Lifetime: a value; reads name the cache they read. Thread safety: one
// io_context, as the cache.
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/runtime/object_cache.hpp>
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/resource_traits.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace kcoro::runtime {

template <typed::resource_type T> class typed_memo {
public:
    /// What a lookup found: the object, or the reasons it does not decode;
    /// both null when the cache has no object under the key.
    struct lookup {
        std::shared_ptr<const T> object;
        std::shared_ptr<const typed::field_errors> errors;
        object_key key;
        /// "GatewayInstance ns/name: spec.replicas: ..." (kcoro_errc::decode_error).
        error to_error() const {
            return typed::to_error(errors ? *errors : typed::field_errors{},
                                   std::string(typed::resource_traits<T>::kind) + " " + key.str());
        }
    };

    explicit typed_memo(std::size_t capacity) : capacity_(std::max<std::size_t>(1, capacity)) {}

    lookup find(const object_cache& cache, const object_key& key) {
        lookup out;
        out.key = key;
        const auto stamp = cache.stamp(key);
        auto it = entries_.find(key);
        if (stamp == 0) {
            if (it != entries_.end())
                entries_.erase(it);
            return out;
        }
        if (it != entries_.end() && it->second.stamp == stamp) {
            ++hits_;
            out.object = it->second.object;
            out.errors = it->second.errors;
            return out;
        }
        entry e{stamp, nullptr, nullptr};
        if (auto raw = cache.get(key)) {
            ++decodes_;
            auto decoded = std::make_shared<T>();
            auto errors = typed::decode(*raw, *decoded);
            if (errors.empty())
                e.object = std::move(decoded);
            else
                e.errors = std::make_shared<const typed::field_errors>(std::move(errors));
        }
        out.object = e.object;
        out.errors = e.errors;
        if (it != entries_.end()) {
            it->second = std::move(e);
        } else {
            if (entries_.size() >= capacity_)
                make_room(cache);
            entries_.emplace(key, std::move(e));
        }
        return out;
    }

    /// The object (null when not cached), or a decode_error naming the field paths.
    result<std::shared_ptr<const T>> get(const object_cache& cache, const object_key& key) {
        auto found = find(cache, key);
        if (found.errors)
            return found.to_error();
        return std::move(found.object);
    }

    std::size_t size() const noexcept { return entries_.size(); }
    std::size_t capacity() const noexcept { return capacity_; }
    /// Reads answered from the memo, and objects decoded (tests, benchmarks).
    std::uint64_t hits() const noexcept { return hits_; }
    std::uint64_t decodes() const noexcept { return decodes_; }
    void clear() noexcept { entries_.clear(); }

private:
    struct entry {
        std::uint64_t stamp = 0;
        std::shared_ptr<const T> object;
        std::shared_ptr<const typed::field_errors> errors;
    };

    void make_room(const object_cache& cache) {
        const auto before = entries_.size();
        std::erase_if(entries_, [&](const auto& kv) { return cache.stamp(kv.first) != kv.second.stamp; });
        if (entries_.size() > before - before / 4)
            entries_.clear();
    }

    std::size_t capacity_;
    std::map<object_key, entry> entries_;
    std::uint64_t hits_ = 0;
    std::uint64_t decodes_ = 0;
};

} // namespace kcoro::runtime
