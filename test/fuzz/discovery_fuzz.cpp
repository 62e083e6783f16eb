// Fuzz target: the discovery documents (/api, /apis, /api/v1 and
// /apis/<group>/<version>) and the cache that answers lookups from them.
// Properties: never throws or crashes; a failure is a decode error; a
// decoded resource list holds no subresource, only resources of its
// groupVersion with a kind, and each is found again in the cache by its
// group/version/resource and resolved by its plural name; a group with
// versions has a preferred one.
#include <kcoro/core/discovery.hpp>
#include <kcoro/core/discovery_cache.hpp>

#include <boost/json/parse.hpp>

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
void check_failure(const kcoro::result<T>& r) {
    if (!r) check(r.error().code() == kcoro::make_error_code(kcoro::kcoro_errc::decode_error), "not a decode error");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view body(reinterpret_cast<const char*>(data), size);
    check_failure(kcoro::decode_api_versions(body));
    auto groups = kcoro::decode_api_group_list(body);
    check_failure(groups);
    if (groups) {
        for (const auto& g : *groups) check(g.versions.empty() || !g.preferred_version.empty(), "no preferred version");
    }
    auto list = kcoro::decode_api_resource_list(body);
    check_failure(list);
    if (!list) return 0;
    boost::system::error_code ec;
    auto v = boost::json::parse(body, ec);
    check(!ec && v.is_object(), "a resource list from a body that is not an object");
    const auto* gvt = v.get_object().if_contains("groupVersion");
    check(gvt && gvt->is_string(), "a resource list without a groupVersion");
    auto gv = kcoro::group_version::parse(gvt->get_string());
    kcoro::discovery_cache cache;
    cache.set_group_version(gv, *list);
    for (const auto& info : *list) {
        check(info.gvr.group == gv.group && info.gvr.version == gv.version, "a resource of another group version");
        check(info.gvr.resource.find('/') == std::string::npos, "a subresource listed as a resource");
        check(!info.kind.empty(), "a resource without a kind");
        auto found = cache.find(info.gvr);
        check(found && found->gvr == info.gvr, "a decoded resource the cache does not find");
        if (!info.gvr.resource.empty()) check(cache.resolve(info.gvr.resource).has_value(), "a plural name that does not resolve");
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
