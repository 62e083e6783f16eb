#include <kcoro/runtime/compact_object.hpp>

#include <kcoro/core/json_arena.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serializer.hpp>

#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

namespace kcoro::runtime {

namespace json = boost::json;

// The block: this header, then the text, the namespace, the name, and per
// index a count and that many (size, bytes) values. Sizes are 32-bit and
// read with memcpy (the data after the header is not aligned).
struct compact_object::header {
    std::uint32_t size;
    std::uint32_t text_size;
    std::uint32_t ns_size;
    std::uint32_t name_size;
    std::uint32_t index_count;

    const char* data() const noexcept { return reinterpret_cast<const char*>(this + 1); }
    char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
    const char* values_begin() const noexcept { return data() + text_size + ns_size + name_size; }
};

namespace {

// Appends what the serializer writes for its current value.
void drain(json::serializer& sr, std::string& out) {
    char buf[2048];
    while (!sr.done()) {
        auto part = sr.read(buf, sizeof(buf));
        out.append(part.data(), part.size());
    }
}

void append_value(json::serializer& sr, const json::value& v, std::string& out) {
    sr.reset(&v);
    drain(sr, out);
}

void append_key(json::serializer& sr, std::string_view key, std::string& out) {
    sr.reset(json::string_view(key.data(), key.size()));
    drain(sr, out);
    out.push_back(':');
}

// metadata without managedFields.
void append_metadata(json::serializer& sr, const json::object& meta, std::string& out) {
    out.push_back('{');
    bool first = true;
    for (const auto& kv : meta) {
        if (kv.key() == "managedFields") {
            continue;
        }
        if (!first) {
            out.push_back(',');
        }
        first = false;
        append_key(sr, kv.key(), out);
        append_value(sr, kv.value(), out);
    }
    out.push_back('}');
}

std::uint32_t checked_size(std::size_t n) {
    if (n > std::numeric_limits<std::uint32_t>::max() / 2) {
        throw std::length_error("compact_object: object too large");
    }
    return static_cast<std::uint32_t>(n);
}

void put_u32(char*& p, std::uint32_t v) noexcept {
    std::memcpy(p, &v, sizeof(v));
    p += sizeof(v);
}

// memcpy must not see the null data() of an empty view.
void put_bytes(char*& p, std::string_view s) noexcept {
    if (!s.empty()) {
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    }
}

std::uint32_t get_u32(const char*& p) noexcept {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof(v));
    p += sizeof(v);
    return v;
}

bool is_metadata_only_key(std::string_view k) noexcept {
    return k == "apiVersion" || k == "kind" || k == "metadata";
}

} // namespace

void write_compact_json(const json::object& obj, compact_filter f, std::string& out) {
    out.clear();
    json::serializer sr;
    if (f == compact_filter::none || !filter_changes(obj, f)) {
        sr.reset(&obj);
        drain(sr, out);
        return;
    }
    out.push_back('{');
    bool first = true;
    for (const auto& kv : obj) {
        const std::string_view k = kv.key();
        if (f == compact_filter::metadata_only && !is_metadata_only_key(k)) {
            continue;
        }
        if (!first) {
            out.push_back(',');
        }
        first = false;
        append_key(sr, k, out);
        if (k == "metadata" && kv.value().is_object()) {
            append_metadata(sr, kv.value().get_object(), out);
        } else {
            append_value(sr, kv.value(), out);
        }
    }
    out.push_back('}');
}

bool filter_changes(const json::object& obj, compact_filter f) noexcept {
    switch (f) {
    case compact_filter::none:
        return false;
    case compact_filter::strip_managed_fields:
        return managed_fields_of(obj) != nullptr;
    case compact_filter::metadata_only:
        if (managed_fields_of(obj) != nullptr) {
            return true;
        }
        for (const auto& kv : obj) {
            if (!is_metadata_only_key(kv.key())) {
                return true;
            }
        }
        return false;
    }
    return false;
}

compact_object::~compact_object() {
    ::operator delete(block_);
}

compact_object& compact_object::operator=(compact_object&& o) noexcept {
    if (this != &o) {
        ::operator delete(block_);
        block_ = std::exchange(o.block_, nullptr);
    }
    return *this;
}

compact_object compact_object::assemble(std::string_view text, std::string_view ns, std::string_view name,
                                        const std::vector<std::vector<std::string>>& values) {
    std::size_t size = sizeof(header) + text.size() + ns.size() + name.size();
    for (const auto& vs : values) {
        size += sizeof(std::uint32_t);
        checked_size(vs.size());
        for (const auto& v : vs) {
            size += sizeof(std::uint32_t) + checked_size(v.size());
        }
    }
    // Sizes checked before the allocation, so a throw leaks nothing.
    const header sizes{checked_size(size), checked_size(text.size()), checked_size(ns.size()),
                       checked_size(name.size()), checked_size(values.size())};
    auto* h = static_cast<header*>(::operator new(size));
    *h = sizes;
    char* p = h->data();
    put_bytes(p, text);
    put_bytes(p, ns);
    put_bytes(p, name);
    for (const auto& vs : values) {
        put_u32(p, static_cast<std::uint32_t>(vs.size()));
        for (const auto& v : vs) {
            put_u32(p, static_cast<std::uint32_t>(v.size()));
            put_bytes(p, v);
        }
    }
    return compact_object(h);
}

compact_object compact_object::make(const json::object& obj, compact_filter f,
                                    const std::vector<std::vector<std::string>>& values, std::string& scratch) {
    write_compact_json(obj, f, scratch);
    return assemble(scratch, namespace_of(obj), name_of(obj), values);
}

compact_object compact_object::with_values(const std::vector<std::vector<std::string>>& values) const {
    if (!block_) {
        return {};
    }
    return assemble(text(), namespace_(), name(), values);
}

std::string_view compact_object::text() const noexcept {
    return block_ ? std::string_view(block_->data(), block_->text_size) : std::string_view();
}

std::string_view compact_object::namespace_() const noexcept {
    return block_ ? std::string_view(block_->data() + block_->text_size, block_->ns_size) : std::string_view();
}

std::string_view compact_object::name() const noexcept {
    return block_ ? std::string_view(block_->data() + block_->text_size + block_->ns_size, block_->name_size)
                  : std::string_view();
}

object_key compact_object::key() const {
    return {std::string(namespace_()), std::string(name())};
}

std::size_t compact_object::index_count() const noexcept {
    return block_ ? block_->index_count : 0;
}

std::vector<std::string_view> compact_object::values(std::size_t i) const {
    std::vector<std::string_view> out;
    if (!block_ || i >= block_->index_count) {
        return out;
    }
    const char* p = block_->values_begin();
    for (std::size_t ix = 0; ix < i; ++ix) {
        const auto n = get_u32(p);
        for (std::uint32_t k = 0; k < n; ++k) {
            const auto len = get_u32(p);
            p += len;
        }
    }
    const auto n = get_u32(p);
    out.reserve(n);
    for (std::uint32_t k = 0; k < n; ++k) {
        const auto len = get_u32(p);
        out.emplace_back(p, len);
        p += len;
    }
    return out;
}

std::size_t compact_object::bytes() const noexcept {
    return block_ ? block_->size : 0;
}

object_ptr compact_object::decode() const {
    if (!block_) {
        return nullptr;
    }
    // The text is what Boost.JSON wrote from a valid tree: it parses back
    // whatever its depth, and byte strings come back as they were.
    json::parse_options opts;
    opts.max_depth = std::numeric_limits<std::size_t>::max();
    opts.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    auto v = json::parse(text(), ec, object_arena(text().size()), opts);  // core/json_arena.hpp
    if (ec || !v.is_object()) {
        throw std::logic_error("compact_object: stored text does not parse: " + ec.message());
    }
    return std::make_shared<const json::object>(std::move(v.get_object()));
}

} // namespace kcoro::runtime
