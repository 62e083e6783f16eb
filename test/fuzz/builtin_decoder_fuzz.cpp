// Fuzz target: the apiserver's decoder for built-in kinds
// (store/builtin_decoder.cpp): unknown-field dropping, base64 and Go time
// checks, and server-side apply's "field not declared in schema". The first
// byte picks the served resource, the rest is the JSON body. Properties:
// never throws or crashes; decoding is idempotent (a decoded object decodes
// again with no unknown field, unchanged, with the same error); apply
// refuses a configuration exactly when the decoder finds unknown fields; a
// time that parses as a MicroTime parses as a Time too.
#include "store/builtin_decoder.hpp"
#include "store/resource_registry.hpp"

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

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kcoro::apiserver;
    static const resource_registry registry = resource_registry::with_builtins();
    static const std::vector<const resource_def*> defs = registry.all();
    if (size == 0) return 0;
    const resource_def& def = *defs[data[0] % defs.size()];
    std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

    if (!check_go_time(text, true)) check(!check_go_time(text, false), "a MicroTime that is not a Time");

    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec);
    if (ec || !v.is_object()) return 0;
    const boost::json::object original = v.get_object();
    boost::json::object obj = original;
    auto first = decode_builtin(def, obj);
    // An unknown field may be named "" (the key "" at the top level): the
    // strict decoder names it by its key path as it is (sigs.k8s.io/json
    // internal/golang/encoding/json/decode.go, object(): `unknown field ""`),
    // so an empty name is no violation.
    const boost::json::object decoded = obj;
    auto second = decode_builtin(def, obj);
    check(second.unknown_fields.empty(), "a decoded object still has unknown fields");
    check(obj == decoded, "decoding a decoded object changed it");
    check(second.error == first.error, "decoding a decoded object gave another error");

    auto apply = apply_configuration_error(def, original);
    check(apply.has_value() == !first.unknown_fields.empty(),
          "apply and the decoder disagree about unknown fields");
    if (!first.unknown_fields.empty()) (void)strict_decoding_error(first.unknown_fields);
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
