#include <kcoro/core/list_decoder.hpp>

#include <kcoro/core/status.hpp>

#include <boost/json/parse.hpp>

#include <ostream>
#include <string>

namespace kcoro {
namespace json = boost::json;

namespace {

error decode_failure(std::string what) { return error(kcoro_errc::decode_error, "list: " + std::move(what)); }

std::string str_or_empty(const json::object& o, std::string_view key) {
    if (const auto* v = o.if_contains(key); v && v->is_string()) {
        return std::string(v->get_string());
    }
    return {};
}

} // namespace

std::ostream& operator<<(std::ostream& os, const list_result& l) {
    os << l.kind << ": " << l.items.size() << " items, rv " << l.resource_version;
    if (!l.continue_token.empty()) {
        os << ", continue";
    }
    return os;
}

result<list_result> decode_list(json::value&& v) {
    auto* o = v.if_object();
    if (!o) {
        return decode_failure("not a JSON object");
    }
    list_result out;
    out.kind = str_or_empty(*o, "kind");
    out.api_version = str_or_empty(*o, "apiVersion");
    if (out.kind == "Status") {
        if (auto s = decode_status(v)) {
            return error::from_status(std::move(*s));
        }
    }
    if (const auto* m = o->if_contains("metadata"); m && m->is_object()) {
        const auto& meta = m->get_object();
        out.resource_version = str_or_empty(meta, "resourceVersion");
        out.continue_token = str_or_empty(meta, "continue");
        if (const auto* r = meta.if_contains("remainingItemCount")) {
            if (r->is_int64()) {
                out.remaining_item_count = r->get_int64();
            } else if (r->is_uint64() && r->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
                out.remaining_item_count = static_cast<std::int64_t>(r->get_uint64());
            }
        }
        // KEP-5866: ListMeta.shardInfo {selector} echoes the shardSelector
        // the server applied (apimachinery pkg/apis/meta/v1/types.go).
        if (const auto* si = meta.if_contains("shardInfo"); si && si->is_object()) {
            if (const auto* sel = si->get_object().if_contains("selector"); sel && sel->is_string()) {
                out.shard_selector = std::string(sel->get_string());
            }
        }
    }
    std::string item_kind;
    if (out.kind.size() > 4 && out.kind.ends_with("List")) {
        item_kind = out.kind.substr(0, out.kind.size() - 4);
    }
    auto* items = o->if_contains("items");
    if (!items || items->is_null()) {
        return out;  // an empty list may omit or null its items
    }
    if (!items->is_array()) {
        return decode_failure("\"items\" is not an array");
    }
    auto& arr = items->get_array();
    out.items.reserve(arr.size());
    for (std::size_t i = 0; i < arr.size(); ++i) {
        auto* item = arr[i].if_object();
        if (!item) {
            return decode_failure("item " + std::to_string(i) + " is not an object");
        }
        const bool add_kind = !item_kind.empty() && kind_of(*item).empty();
        const bool add_api_version = !out.api_version.empty() && api_version_of(*item).empty();
        if (add_kind || add_api_version) {
            item->reserve(item->size() + 2);  // one reallocation, not two
        }
        if (add_kind) {
            item->insert_or_assign("kind", item_kind);
        }
        if (add_api_version) {
            item->insert_or_assign("apiVersion", out.api_version);
        }
        // Same storage: an O(1) move of the item's tree.
        out.items.push_back(std::make_shared<const json::object>(std::move(*item)));
    }
    return out;
}

result<list_result> decode_list_body(std::string_view body) {
    json::parse_options opts;
    opts.max_depth = 512;  // managedFields and CRD schemas nest deeply
    boost::system::error_code ec;
    auto v = json::parse(body, ec, json::storage_ptr(), opts);
    if (ec) {
        return decode_failure("invalid JSON: " + ec.message());
    }
    return decode_list(std::move(v));
}

} // namespace kcoro
