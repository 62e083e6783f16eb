// Fuzz target: custom resource validation against an openAPIV3Schema. The
// input is a JSON object {"schema": <schema>, "object": <custom resource>};
// validation (pruning, defaulting, checks) must never crash or throw, and
// validating its own output again must report no new pruning.
#include "store/schema_validation.hpp"

#include <boost/json/parse.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    if (ec || !v.is_object()) return 0;
    const auto* schema = v.as_object().if_contains("schema");
    const auto* obj = v.as_object().if_contains("object");
    if (!schema || !schema->is_object() || !obj || !obj->is_object()) return 0;
    auto doc = obj->as_object();
    (void)kcoro::apiserver::validate_custom_resource(doc, schema->as_object());
    // Pruning and defaulting are idempotent.
    auto again = doc;
    (void)kcoro::apiserver::validate_custom_resource(again, schema->as_object());
    if (again != doc) std::abort();
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput, 20000); }
#endif
