// Fuzz target: server-side apply and managedFields on untrusted input. The
// input is a live object (whose managedFields a client may have written
// freely) and an applied configuration, separated by the first "\n@@\n" (or
// split in the middle). Properties: never throws or crashes; FieldsV1 sets
// round-trip; a forced apply succeeds (or fails for a malformed request)
// and re-applying the same configuration changes nothing but managedFields;
// an Update never fails.
#include "server_side_apply.hpp"

#include "json_props.hpp"

#include <kcoro/core/object.hpp>

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
    using namespace kcoro::apiserver;
    auto [live_text, cfg_text] = split(std::string_view(reinterpret_cast<const char*>(data), size));
    boost::system::error_code ec;
    json::value live = json::parse(live_text, ec);
    if (ec || !live.is_object()) return 0;
    json::value cfg = json::parse(cfg_text, ec);
    if (ec || !cfg.is_object()) return 0;
    // The store refuses non-finite numbers before any apply (object_store.cpp,
    // as Go's decoder: "out of range"), and NaN never equals itself, so the
    // re-apply property cannot hold for them.
    if (kcoro::fuzz::has_non_finite(live) || kcoro::fuzz::has_non_finite(cfg)) return 0;

    if (auto entries = decode_managed_fields(live.get_object())) {
        for (const auto& e : *entries) check(from_fields_v1(to_fields_v1(e.fields)) == e.fields, "FieldsV1 round trip");
    }
    const kcoro::wall_time now{};
    (void)server_side_apply(live.get_object(), cfg.get_object(), apply_options{"fuzz", false, now, field_scope::all});
    auto forced = server_side_apply(live.get_object(), cfg.get_object(), apply_options{"fuzz", true, now, field_scope::all});
    if (!forced) {
        // Only a malformed request may fail a forced apply: managedFields in
        // it or another apiVersion (400), duplicate keys in a list (500, as
        // the real server's typed conversion).
        const auto* st = forced.error().api_status();
        check(st && (st->code == 400 || (st->code == 500 && st->message.find("duplicate entries for key") != std::string::npos)),
              "forced apply failed");
        return 0;
    }
    // The store writes every object with its endpoint's kind (object_store.cpp
    // do_update), whatever kind the configuration named.
    if (auto k = kcoro::kind_of(live.get_object()); !k.empty()) (*forced)["kind"] = k;
    auto again = server_side_apply(*forced, cfg.get_object(), apply_options{"fuzz", false, now, field_scope::all});
    check(again.has_value(), "re-apply by the owner conflicted");
    if (auto k = kcoro::kind_of(live.get_object()); !k.empty()) (*again)["kind"] = k;
    json::object a = *forced, b = *again;
    kcoro::strip_managed_fields(a);
    kcoro::strip_managed_fields(b);
    if (a != b) {
        std::fprintf(stderr, "forced apply: %s\nre-applied:   %s\n", json::serialize(*forced).c_str(),
                     json::serialize(*again).c_str());
        check(false, "re-applying the same configuration changed the object");
    }
    (void)update_managed_fields(live.get_object(), cfg.get_object(),
                                update_options{"fuzz-update", managed_operation::update, now, field_scope::main_without_status});
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 3000); }
#endif
