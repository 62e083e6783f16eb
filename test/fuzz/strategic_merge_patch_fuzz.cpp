// Fuzz target: strategic merge patch (core/strategic_merge_patch.cpp) and the
// Go value semantics it is built on (core/go_value.cpp). The input is a
// document and a patch separated by the first "\n@@\n" (or split in the
// middle); the input's length picks the kind whose list table is used (the
// server's entry point takes it from the object's kind). Properties: never throws or crashes; the input is never modified; a
// failure is a Status with one of the codes the real handler answers (400,
// 415, 422, 500); a result is an object that serializes and parses back
// equal; with no list strategies, a patch without directives and nulls merges
// exactly as a JSON merge patch (RFC 7386) does, as patch.go's mergeMap does
// for fields without a patch strategy.
#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/strategic_merge_patch.hpp>

#include "json_props.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

std::pair<std::string_view, std::string_view> split(std::string_view in) {
    auto at = in.find("\n@@\n");
    if (at != std::string_view::npos) return {in.substr(0, at), in.substr(at + 4)};
    return {in.substr(0, in.size() / 2), in.substr(in.size() / 2)};
}

// No `$` key (a directive) and no null anywhere.
bool plain(const boost::json::value& v) {
    if (v.is_null()) return false;
    if (const auto* o = v.if_object()) {
        for (const auto& kv : *o) {
            if (kv.key().starts_with("$") || !plain(kv.value())) return false;
        }
    }
    if (const auto* a = v.if_array()) {
        for (const auto& c : *a) {
            if (!plain(c)) return false;
        }
    }
    return true;
}

void check_result(const kcoro::result<boost::json::value>& r) {
    namespace json = boost::json;
    if (!r) {
        const auto* s = r.error().api_status();
        check(s != nullptr, "a failure without a Status");
        check(s->code == 400 || s->code == 415 || s->code == 422 || s->code == 500, "an unexpected status code");
        return;
    }
    check(r->is_object(), "a result that is not an object");
    check(kcoro::fuzz::round_trips(*r), "result does not round-trip");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace json = boost::json;
    static constexpr const char* kinds[] = {"Deployment", "Pod", "Service", "StatefulSet", "ConfigMap", "CronJob"};
    auto [doc_text, patch_text] = split(std::string_view(reinterpret_cast<const char*>(data), size));
    const char* kind = kinds[size % std::size(kinds)];
    boost::system::error_code ec;
    json::value doc = json::parse(doc_text, ec);
    if (ec) return 0;
    (void)kcoro::strategic_patch_as_go_map(patch_text);  // go_value's %v on anything
    json::value patch = json::parse(patch_text, ec);
    if (ec) return 0;
    // Boost.JSON 1.81 parses `0e999` as NaN (and NaN != NaN): such input says
    // nothing about the patch code, and the store refuses it (docs/testing.md).
    if (kcoro::fuzz::has_non_finite(doc) || kcoro::fuzz::has_non_finite(patch)) return 0;

    const json::value before = doc;
    auto r = kcoro::apply_strategic_merge_patch(doc, patch, kcoro::builtin_list_strategies(kind));
    check(doc == before, "strategic merge modified its input");
    check_result(r);

    static const kcoro::list_strategies none;
    auto atomic = kcoro::apply_strategic_merge_patch(doc, patch, none);
    check_result(atomic);
    if (doc.is_object() && patch.is_object() && plain(patch)) {
        check(atomic.has_value(), "a plain patch failed without list strategies");
        check(kcoro::json_equal(*atomic, kcoro::apply_merge_patch(doc, patch)),
              "a plain patch without list strategies differs from a JSON merge patch");
    }

    if (auto* o = doc.if_object()) {
        // The server's entry point: the table from the object's kind, 415 for
        // custom resources.
        check_result(kcoro::apply_strategic_merge_patch(*o, patch_text));
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 5000); }
#endif
