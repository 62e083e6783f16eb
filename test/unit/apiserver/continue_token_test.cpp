#include "store/continue_token.hpp"

#include <doctest/doctest.h>

using namespace kcoro::apiserver;

TEST_CASE("continue tokens round-trip and are URL-safe") {
    continue_token t{12345, "default/cm-9"};
    auto text = encode_continue_token(t);
    CHECK(text.find_first_of("+/=") == std::string::npos);
    auto back = decode_continue_token(text);
    REQUIRE(back.has_value());
    CHECK(back->revision == 12345);
    CHECK(back->last_key == "default/cm-9");
}

TEST_CASE("bad tokens are errors, not exceptions") {
    for (const char* bad : {"", "!!!", "e30", "bm90IGpzb24", "eyJ2IjoieCJ9"}) {
        CHECK_MESSAGE(!decode_continue_token(bad).has_value(), bad);
    }
    // A well-formed JSON object with a negative revision.
    auto neg = encode_continue_token({0, "x"});
    CHECK(decode_continue_token(neg).has_value());
}
