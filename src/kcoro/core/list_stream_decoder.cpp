#include <kcoro/core/list_stream_decoder.hpp>

#include <kcoro/core/json_arena.hpp>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kcoro {
namespace json = boost::json;

namespace {

json::parse_options list_parse_options() {
    json::parse_options o;
    o.max_depth = 512;  // managedFields and CRD schemas nest deeply
    return o;
}

// Which member of the list object the parser is in (depth 1).
enum class top_member { other, items, kind, api_version };

// A SAX handler for json::basic_parser. Two value stacks: `item` builds the
// element of "items" being read, `envelope` everything else (kind,
// apiVersion, metadata, and "items" as an empty array), so that the end of
// the body is decoded by decode_list like a whole body.
struct list_handler {
    static constexpr std::size_t max_object_size = json::object::max_size();
    static constexpr std::size_t max_array_size = json::array::max_size();
    static constexpr std::size_t max_key_size = json::string::max_size();
    static constexpr std::size_t max_string_size = json::string::max_size();

    explicit list_handler(list_stream_decoder::item_sink s) : sink(std::move(s)) {}

    list_stream_decoder::item_sink sink;
    json::value_stack envelope;
    json::value_stack item;
    int depth = 0;            // containers open around the next value
    bool in_items = false;    // inside the list's "items" array
    bool item_open = false;   // an element of "items" is being built
    top_member member = top_member::other;
    std::string key;          // a depth-1 key, while its parts arrive
    std::string top_string;   // the list's kind or apiVersion, while it arrives
    bool have_kind = false;
    bool have_api_version = false;
    std::string list_kind;
    std::string list_api_version;
    std::vector<json::object> held;  // items read before kind and apiVersion
    std::size_t emitted = 0;
    std::size_t index = 0;  // of the next element of "items"
    std::string failure;    // why the handler stopped the parser

    json::value_stack& target() noexcept { return item_open ? item : envelope; }

    // An element of "items" that is not an object.
    bool scalar_item(json::error_code& ec) {
        if (in_items && !item_open && depth == 2) {
            failure = "item " + std::to_string(index) + " is not an object";
            ec = boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
            return false;
        }
        return true;
    }

    void fill_in(json::object& o) const {
        if (list_kind.size() > 4 && list_kind.ends_with("List") && kind_of(o).empty()) {
            o.insert_or_assign("kind", list_kind.substr(0, list_kind.size() - 4));
        }
        if (!list_api_version.empty() && api_version_of(o).empty()) {
            o.insert_or_assign("apiVersion", list_api_version);
        }
    }

    void emit(json::object&& o) {
        fill_in(o);
        ++emitted;
        sink(std::make_shared<const json::object>(std::move(o)));
    }

    void flush_held() {
        for (auto& o : held) {
            emit(std::move(o));
        }
        held.clear();
        held.shrink_to_fit();
    }

    bool on_document_begin(json::error_code&) {
        envelope.reset();
        return true;
    }
    bool on_document_end(json::error_code&) { return true; }

    bool on_object_begin(json::error_code&) {
        if (in_items && !item_open && depth == 2) {
            // Each item in an arena of its own: freed at once with the item.
            item.reset(object_arena(4096));
            item_open = true;
        }
        ++depth;
        return true;
    }

    bool on_object_end(std::size_t n, json::error_code&) {
        --depth;
        if (!item_open) {
            envelope.push_object(n);
            return true;
        }
        item.push_object(n);
        if (depth == 2) {
            item_open = false;
            ++index;
            json::value v = item.release();
            if (have_kind && have_api_version) {
                emit(std::move(v.get_object()));
            } else {
                held.push_back(std::move(v.get_object()));
            }
        }
        return true;
    }

    bool on_array_begin(json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        if (depth == 1 && member == top_member::items && !item_open) {
            in_items = true;
        }
        ++depth;
        return true;
    }

    bool on_array_end(std::size_t n, json::error_code&) {
        --depth;
        if (item_open) {
            item.push_array(n);
        } else if (in_items && depth == 1) {
            in_items = false;
            envelope.push_array(0);  // the items went to the sink
        } else {
            envelope.push_array(n);
        }
        return true;
    }

    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        target().push_chars(s);
        if (depth == 1 && !item_open) {
            key.append(s.data(), s.size());
        }
        return true;
    }

    bool on_key(json::string_view s, std::size_t, json::error_code&) {
        target().push_key(s);
        if (depth == 1 && !item_open) {
            key.append(s.data(), s.size());
            member = key == "items"        ? top_member::items
                     : key == "kind"       ? top_member::kind
                     : key == "apiVersion" ? top_member::api_version
                                           : top_member::other;
            key.clear();
        }
        return true;
    }

    bool on_string_part(json::string_view s, std::size_t, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_chars(s);
        if (depth == 1 && member != top_member::other) {
            top_string.append(s.data(), s.size());
        }
        return true;
    }

    bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_string(s);
        if (depth == 1 && (member == top_member::kind || member == top_member::api_version)) {
            top_string.append(s.data(), s.size());
            if (member == top_member::kind) {
                list_kind = std::move(top_string);
                have_kind = true;
            } else {
                list_api_version = std::move(top_string);
                have_api_version = true;
            }
            top_string.clear();
            if (have_kind && have_api_version) {
                flush_held();
            }
        }
        top_string.clear();
        return true;
    }

    bool on_number_part(json::string_view, json::error_code& ec) { return scalar_item(ec); }
    bool on_int64(std::int64_t i, json::string_view, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_int64(i);
        return true;
    }
    bool on_uint64(std::uint64_t u, json::string_view, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_uint64(u);
        return true;
    }
    bool on_double(double d, json::string_view, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_double(d);
        return true;
    }
    bool on_bool(bool b, json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_bool(b);
        return true;
    }
    bool on_null(json::error_code& ec) {
        if (!scalar_item(ec)) {
            return false;
        }
        target().push_null();
        return true;
    }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }
};

error decode_failure(std::string what) { return error(kcoro_errc::decode_error, "list: " + std::move(what)); }

} // namespace

struct list_stream_decoder::impl {
    explicit impl(item_sink s) : parser(list_parse_options(), std::move(s)) {}

    json::basic_parser<list_handler> parser;
    error failed;
    bool finished = false;

    error fail(const json::error_code& ec) {
        auto& h = parser.handler();
        failed = decode_failure(h.failure.empty() ? "invalid JSON: " + ec.message() : h.failure);
        return failed;
    }
};

list_stream_decoder::list_stream_decoder(item_sink sink) : impl_(std::make_unique<impl>(std::move(sink))) {}
list_stream_decoder::~list_stream_decoder() = default;
list_stream_decoder::list_stream_decoder(list_stream_decoder&&) noexcept = default;
list_stream_decoder& list_stream_decoder::operator=(list_stream_decoder&&) noexcept = default;

std::size_t list_stream_decoder::items() const noexcept { return impl_->parser.handler().emitted; }

result<void> list_stream_decoder::write(std::string_view bytes) {
    auto& im = *impl_;
    if (im.failed) {
        return im.failed;
    }
    if (im.finished) {
        return decode_failure("bytes after the end of the body");
    }
    json::error_code ec;
    while (!bytes.empty()) {
        if (im.parser.done()) {
            // After the list: whitespace only.
            if (bytes.find_first_not_of(" \t\r\n") != std::string_view::npos) {
                return im.fail(json::make_error_code(json::error::extra_data));
            }
            break;
        }
        const std::size_t n = im.parser.write_some(true, bytes.data(), bytes.size(), ec);
        if (ec) {
            return im.fail(ec);
        }
        if (n == 0) {
            break;
        }
        bytes.remove_prefix(n);
    }
    return {};
}

result<list_result> list_stream_decoder::finish() {
    auto& im = *impl_;
    if (im.failed) {
        return im.failed;
    }
    if (im.finished) {
        return decode_failure("finished twice");
    }
    im.finished = true;
    json::error_code ec;
    if (!im.parser.done()) {
        im.parser.write_some(false, nullptr, 0, ec);
        if (ec) {
            return im.fail(ec);
        }
    }
    auto& h = im.parser.handler();
    auto out = decode_list(h.envelope.release());
    if (!out) {
        return im.failed = out.error();
    }
    // A list without kind or apiVersion: what was held goes out as it is.
    h.flush_held();
    return out;
}

} // namespace kcoro
