#include <kcoro/core/name_validation.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace kcoro;

TEST_CASE("DNS-1123 label") {
    CHECK(validate_dns1123_label("my-name").empty());
    CHECK(validate_dns1123_label("123-abc").empty());
    CHECK_FALSE(validate_dns1123_label("My-Name").empty());
    CHECK_FALSE(validate_dns1123_label("-a").empty());
    CHECK_FALSE(validate_dns1123_label("a.b").empty());
    CHECK_FALSE(validate_dns1123_label("").empty());
    auto errs = validate_dns1123_label(std::string(64, 'a'));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0] == "must be no more than 63 characters");
    CHECK(validate_dns1123_label("a_b")[0].find("a lowercase RFC 1123 label") == 0);
}

TEST_CASE("DNS-1123 subdomain") {
    CHECK(validate_dns1123_subdomain("example.com").empty());
    CHECK(validate_dns1123_subdomain("a").empty());
    CHECK_FALSE(validate_dns1123_subdomain("a..b").empty());
    CHECK_FALSE(validate_dns1123_subdomain("Bad_Name").empty());
    CHECK_FALSE(validate_dns1123_subdomain(".a").empty());
    CHECK(validate_dns1123_subdomain("Bad")[0].find("a lowercase RFC 1123 subdomain") == 0);
    CHECK(validate_dns1123_subdomain(std::string(254, 'a')).size() == 1);
}

TEST_CASE("qualified names and label values") {
    CHECK(validate_qualified_name("app").empty());
    CHECK(validate_qualified_name("example.com/My_Name").empty());
    CHECK_FALSE(validate_qualified_name("/x").empty());
    CHECK_FALSE(validate_qualified_name("Bad.Prefix/x").empty());
    CHECK_FALSE(validate_qualified_name("a/b/c").empty());
    CHECK_FALSE(validate_qualified_name("x/").empty());
    CHECK(validate_label_value("").empty());
    CHECK(validate_label_value("My_value.1").empty());
    CHECK_FALSE(validate_label_value("_x").empty());
    CHECK_FALSE(validate_label_value(std::string(64, 'a')).empty());
}

TEST_CASE("DNS-1035 label (service names) must start with a letter") {
    CHECK(validate_dns1035_label("web-1").empty());
    CHECK_FALSE(validate_dns1035_label("1web").empty());
    CHECK(validate_dns1035_label("1web")[0].find("a DNS-1035 label") == 0);
    CHECK_FALSE(validate_dns1035_label("").empty());
}
