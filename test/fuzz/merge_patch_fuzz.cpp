// Fuzz target: JSON merge patch (RFC 7386) and strategic merge patch. The
// input is a document and a patch separated by the first "\n@@\n" (or split
// in the middle). Properties: never throws or crashes; merge patching is
// idempotent; create_merge_patch(doc, result) turns doc into result (when
// the result holds no null, which RFC 7386 cannot express); the strategic
// merge of the same input with the Deployment table never modifies its input.
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

bool has_null(const boost::json::value& v) {
    if (v.is_null()) return true;
    if (const auto* o = v.if_object()) {
        for (const auto& [k, c] : *o) {
            if (has_null(c)) return true;
        }
    }
    if (const auto* a = v.if_array()) {
        for (const auto& c : *a) {
            if (has_null(c)) return true;
        }
    }
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace json = boost::json;
    auto [doc_text, patch_text] = split(std::string_view(reinterpret_cast<const char*>(data), size));
    boost::system::error_code ec;
    json::value doc = json::parse(doc_text, ec);
    if (ec) return 0;
    json::value patch = json::parse(patch_text, ec);
    if (ec) return 0;
    // Boost.JSON 1.81 parses `0e999` as NaN (and NaN != NaN): such input says
    // nothing about the patch code, and the store refuses it (docs/testing.md).
    if (kcoro::fuzz::has_non_finite(doc) || kcoro::fuzz::has_non_finite(patch)) return 0;
    json::value once = kcoro::apply_merge_patch(doc, patch);
    check(kcoro::apply_merge_patch(once, patch) == once, "merge patch not idempotent");
    if (!has_null(once)) {
        json::value diff = kcoro::create_merge_patch(doc, once);
        check(kcoro::json_equal(kcoro::apply_merge_patch(doc, diff), once), "create_merge_patch does not round-trip");
    }
    const json::value before = doc;
    auto smp = kcoro::apply_strategic_merge_patch(doc, patch, kcoro::builtin_list_strategies("Deployment"));
    check(doc == before, "strategic merge modified its input");
    if (smp) check(kcoro::fuzz::round_trips(*smp), "strategic result does not round-trip");
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 5000); }
#endif
