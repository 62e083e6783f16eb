// Fuzz target: the store's write path for built-in kinds on untrusted bodies
// (decoder, defaulting, pkg/apis validation, event conversion). The input is
// a JSON body; it is created, then used to update and to patch (strategic
// merge) an existing object, for each served built-in kind. Properties:
// never throws or crashes; every failure is a Status with a code; a write
// that succeeds returns an object of the endpoint's kind; a created object
// reads back as written.
#include "store/object_store.hpp"

#include <kcoro/core/object.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <chrono>
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

template <class T>
void check_result(const kcoro::result<T>& r) {
    if (!r) check(r.error().api_status() && r.error().api_status()->code >= 400, "a failure without a Status code");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace json = boost::json;
    using namespace kcoro;
    using namespace kcoro::apiserver;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) return 0;
    const json::object body = v.get_object();
    object_store s;
    request_context ctx;
    ctx.now = wall_time{std::chrono::seconds(1'800'000'000)};
    ctx.field_manager = "fuzz";
    std::vector<std::string> warnings;
    ctx.warnings = &warnings;
    for (const auto& gvr : {resources::configmaps(), resources::secrets(), resources::services(),
                            resources::serviceaccounts(), resources::events(), resources::events_v1(),
                            resources::deployments(), resources::leases()}) {
        for (const char* validation : {"", "Strict"}) {
            ctx.field_validation = validation;
            json::object b = body;
            mutable_metadata(b)["name"] = "f";
            auto c = s.create(ctx, gvr, "default", b);
            check_result(c);
            if (c) {
                const auto* def = s.registry().find(gvr);
                check(kind_of(*c) == def->kind, "create answers the endpoint's kind");
                auto g = s.get(gvr, "default", "f");
                check(g && *g == *c, "a created object reads back as written");
                auto u = s.update(ctx, gvr, "default", "f", b);
                check_result(u);
                std::string patch = json::serialize(body);
                auto p = s.patch(ctx, gvr, "default", "f", patch_type::strategic, patch);
                check_result(p);
                auto r = s.remove(ctx, gvr, "default", "f");
                check_result(r);
            }
        }
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 1500); }
#endif
