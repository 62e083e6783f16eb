#include <kcoro/core/base64.hpp>

#include <doctest/doctest.h>

#include <string>

using kcoro::base64_decode;
using kcoro::base64_encode;

TEST_CASE("base64 encodes the RFC 4648 vectors") {
    CHECK(base64_encode("") == "");
    CHECK(base64_encode("f") == "Zg==");
    CHECK(base64_encode("fo") == "Zm8=");
    CHECK(base64_encode("foo") == "Zm9v");
    CHECK(base64_encode("foob") == "Zm9vYg==");
    CHECK(base64_encode("fooba") == "Zm9vYmE=");
    CHECK(base64_encode("foobar") == "Zm9vYmFy");
    CHECK(base64_encode(std::string("\xff\xfe\x00", 3)) == "//4A");
}

TEST_CASE("base64 decodes, ignoring line breaks and tolerating missing padding") {
    CHECK(base64_decode("Zm9vYmFy") == "foobar");
    CHECK(base64_decode("Zm9vYg==") == "foob");
    CHECK(base64_decode("Zm9vYmE=") == "fooba");
    CHECK(base64_decode("Zm9vYg") == "foob");
    CHECK(base64_decode("Zm9v\nYmFy\r\n") == "foobar");
    CHECK(base64_decode("") == "");
    CHECK(base64_decode("//4A") == std::string("\xff\xfe\x00", 3));
}

TEST_CASE("base64 rejects foreign characters, bad padding and truncated groups") {
    CHECK_FALSE(base64_decode("Zm9v!").has_value());
    CHECK_FALSE(base64_decode("Zm9vY").has_value());      // one sextet left over
    CHECK_FALSE(base64_decode("Zm=9v").has_value());      // data after padding
    CHECK_FALSE(base64_decode("Zm9vYg=").has_value());    // short padding
    CHECK_FALSE(base64_decode("Zm9v====").has_value());   // padding with no group
    CHECK_FALSE(base64_decode("Zm9v-_").has_value());     // URL alphabet is not accepted
}

TEST_CASE("base64 round-trips every byte value and length") {
    std::string all;
    for (int i = 0; i < 256; ++i) {
        all.push_back(static_cast<char>(i));
    }
    for (std::size_t n = 0; n <= all.size(); n += 7) {
        std::string part = all.substr(0, n);
        CHECK(base64_decode(base64_encode(part)) == part);
    }
}
