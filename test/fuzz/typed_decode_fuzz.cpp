// Fuzz target: typed decoding of arbitrary JSON into a Deployment, a
// Service, an Event and a GatewayInstance. Never a crash; every error has a
// message; what decodes encodes to JSON that decodes again to the same value
// (the round trip is stable), and a best-effort decode() of anything
// terminates with its errors. What decodes is checked (typed::check: the
// annotations' bounds and patterns, validate()): every error has a path and
// a message.
#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/validation.hpp>
#include <kcoro/typed/k8s/deployment.hpp>
#include <kcoro/typed/k8s/event.hpp>
#include <kcoro/typed/k8s/service.hpp>

#include <boost/json/parse.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/gateway_instance_types.hpp"

namespace {

template <class T> void check(const boost::json::value& v) {
    auto r = kcoro::typed::from_json<T>(v);
    if (!r) {
        if (r.error().empty())
            std::abort();
        for (const auto& e : r.error()) {
            if (e.message.empty())
                std::abort();
        }
        T partial;
        if (kcoro::typed::decode(v, partial).empty())
            std::abort();
        (void)kcoro::typed::to_json(partial);
        return;
    }
    for (const auto& e : kcoro::typed::check(*r)) {
        if (e.path.empty() || e.message.empty())
            std::abort();
    }
    auto encoded = kcoro::typed::to_json(*r);
    auto again = kcoro::typed::from_json<T>(encoded);
    if (!again || !(*again == *r))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    if (ec)
        return 0;
    check<kcoro::k8s::deployment>(v);
    check<kcoro::k8s::service>(v);
    check<kcoro::k8s::event>(v);
    check<gateway::v1alpha1::gateway_instance>(v);
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) {
    return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000);
}
#endif
