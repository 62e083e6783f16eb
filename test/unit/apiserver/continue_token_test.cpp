#include "store/continue_token.hpp"

#include <doctest/doctest.h>

using namespace kcoro::apiserver;

TEST_CASE("continue tokens round-trip and are URL-safe") {
    continue_token t{12345, "default/cm-9", std::nullopt};
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
}

TEST_CASE("bad tokens get storage.DecodeContinue's messages") {
    auto msg = [](std::string_view t) { return decode_continue_token(t).error().message(); };
    CHECK(msg("!!!") == "continue key is not valid: illegal base64 data at input byte 0");
    CHECK(msg("abcde") == "continue key is not valid: illegal base64 data at input byte 4");
    CHECK(msg("eHl6") == "continue key is not valid: invalid character 'x' looking for beginning of value");
    CHECK(msg("eyJ2IjoieCJ9") == "continue key is not valid: server does not recognize this encoded version \"x\"");
    CHECK(msg(encode_continue_token({0, "x", std::nullopt})) ==
          "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
    // {"v":"meta.k8s.io/v1","rv":5,"start":""}
    CHECK(msg("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiIifQ") ==
          "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
    auto trav = encode_continue_token({5, "../secrets/x", std::nullopt});
    CHECK(msg(trav).starts_with("continue key is not valid: ../secrets/x"));
}

TEST_CASE("the count of items left rides along when given, and only then") {
    continue_token t{7, "ns/a", 41};
    auto back = decode_continue_token(encode_continue_token(t));
    REQUIRE(back.has_value());
    CHECK(back->remaining == 41);
    auto plain = decode_continue_token(encode_continue_token({7, "ns/a", std::nullopt}));
    REQUIRE(plain.has_value());
    CHECK_FALSE(plain->remaining.has_value());
}
