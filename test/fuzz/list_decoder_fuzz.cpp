// Fuzz target: the client's List decoder (core/list_decoder.cpp) on arbitrary
// response bodies. Properties: never throws or crashes; a failure is a decode
// error or the error a Status body describes; a decoded list has one item per
// element of "items", each the element itself with only apiVersion and kind
// filled in (from the list) when it lacked them, and the list metadata as
// the body has it. The streaming decoder (core/list_stream_decoder.cpp),
// fed the body in chunks of a size taken from the body itself, gives the
// same answer: the same error code, or the same metadata and items.
#include <kcoro/core/list_decoder.hpp>
#include <kcoro/core/list_stream_decoder.hpp>

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

std::string_view str_at(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view{};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace json = boost::json;
    std::string_view body(reinterpret_cast<const char*>(data), size);
    auto l = kcoro::decode_list_body(body);

    std::vector<kcoro::object_ptr> streamed;
    kcoro::result<kcoro::list_result> meta = kcoro::list_result{};
    {
        kcoro::list_stream_decoder d([&](kcoro::object_ptr o) { streamed.push_back(std::move(o)); });
        const std::size_t chunk = 1 + (size == 0 ? 0 : data[size / 2] % 17);
        for (std::size_t at = 0; at < size && meta; at += chunk) {
            if (auto w = d.write(body.substr(at, chunk)); !w) meta = w.error();
        }
        if (meta) meta = d.finish();
    }
    check(static_cast<bool>(meta) == static_cast<bool>(l), "the streaming decoder succeeds where the other fails");
    if (!meta) {
        check(meta.error().code() == l.error().code(), "the streaming decoder's error code");
    } else {
        check(meta->resource_version == l->resource_version && meta->continue_token == l->continue_token &&
                  meta->kind == l->kind && meta->api_version == l->api_version && meta->items.empty(),
              "the streaming decoder's list metadata");
        check(streamed.size() == l->items.size(), "the streaming decoder's item count");
        for (std::size_t i = 0; i < streamed.size(); ++i) {
            check(streamed[i] && *streamed[i] == *l->items[i], "a streamed item differs");
        }
    }
    if (!l) {
        check(l.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::decode_error) ||
                  kcoro::is_api_error(l.error()),
              "a failure that is neither a decode error nor a Status");
        return 0;
    }
    // The same body, parsed on its own, is what the items must be.
    json::parse_options opts;
    opts.max_depth = 512;
    boost::system::error_code ec;
    json::value v = json::parse(body, ec, json::storage_ptr(), opts);
    check(!ec && v.is_object(), "a list decoded from a body that is not an object");
    const auto& o = v.get_object();
    check(l->kind == str_at(o, "kind") && l->api_version == str_at(o, "apiVersion"), "list kind or apiVersion");
    if (const auto* m = o.if_contains("metadata"); m && m->is_object()) {
        check(l->resource_version == str_at(m->get_object(), "resourceVersion"), "list resourceVersion");
        check(l->continue_token == str_at(m->get_object(), "continue"), "list continue");
    } else {
        check(l->resource_version.empty() && l->continue_token.empty(), "list metadata out of nothing");
    }
    const auto* items = o.if_contains("items");
    const std::size_t n = items && items->is_array() ? items->get_array().size() : 0;
    check(l->items.size() == n, "item count");
    std::string_view item_kind;
    if (l->kind.size() > 4 && l->kind.ends_with("List")) item_kind = std::string_view(l->kind).substr(0, l->kind.size() - 4);
    for (std::size_t i = 0; i < n; ++i) {
        check(l->items[i] != nullptr, "a null item");
        json::object want = items->get_array()[i].get_object();
        if (!item_kind.empty() && kcoro::kind_of(want).empty()) want["kind"] = item_kind;
        if (!l->api_version.empty() && kcoro::api_version_of(want).empty()) want["apiVersion"] = l->api_version;
        check(*l->items[i] == want, "an item differs from its element");
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
