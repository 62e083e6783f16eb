// Fuzz target: JSON patch (RFC 6902) application. The input is a document
// and a patch separated by the first "\n@@\n" (or split in the middle).
// Properties: never throws or crashes; a failed patch leaves the document
// unchanged; a successful result serializes and parses back equal; a patch
// of only `test` ops returns the document unchanged.
#include <kcoro/core/json_patch.hpp>

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace json = boost::json;
    auto [doc_text, patch_text] = split(std::string_view(reinterpret_cast<const char*>(data), size));
    boost::system::error_code ec;
    json::value doc = json::parse(doc_text, ec);
    if (ec) return 0;
    // Boost.JSON 1.81 parses 0e400 as NaN (0 times an infinity; Go reads 0),
    // and NaN != NaN: equality properties mean nothing on such a document.
    if (kcoro::fuzz::has_non_finite(doc)) return 0;
    const json::value before = doc;
    auto r = kcoro::apply_json_patch(doc, patch_text);
    check(doc == before, "input document modified");
    if (!r) {
        check(r.error().api_status() != nullptr, "error without a Status");
        return 0;
    }
    check(kcoro::fuzz::round_trips(*r), "result does not round-trip");
    json::value patch = json::parse(patch_text, ec);
    if (!ec && patch.is_array()) {
        bool only_tests = true;
        for (const auto& op : patch.get_array()) {
            const auto* o = op.if_object();
            const auto* name = o ? o->if_contains("op") : nullptr;
            only_tests = only_tests && name && name->is_string() && name->get_string() == "test";
        }
        if (only_tests) check(*r == doc, "test-only patch changed the document");
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 5000); }
#endif
