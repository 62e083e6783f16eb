#include <kcoro/core/error.hpp>

#include <doctest/doctest.h>

using namespace kcoro;

TEST_CASE("Status reason maps first, HTTP code as fallback") {
    CHECK(api_errc_from("AlreadyExists", 409) == api_errc::already_exists);
    CHECK(api_errc_from("Conflict", 409) == api_errc::conflict);
    CHECK(api_errc_from("", 409) == api_errc::conflict);
    CHECK(api_errc_from("Expired", 410) == api_errc::expired);
    CHECK(api_errc_from("", 410) == api_errc::gone);
    CHECK(api_errc_from("Whatever", 418) == api_errc::unknown);
    CHECK(api_errc_from("", 504) == api_errc::timeout);
}

TEST_CASE("error keeps the Status beside the code") {
    status s{"Failure", "configmaps \"x\" not found", "NotFound", 404, status_details{"x", "", "configmaps", "", {}, 0}};
    auto e = error::from_status(s);
    CHECK(is_not_found(e));
    CHECK_FALSE(is_conflict(e));
    REQUIRE(e.api_status() != nullptr);
    CHECK(e.api_status()->details->name == "x");
    CHECK(e.http_code() == 404);
    CHECK(e.message() == "configmaps \"x\" not found");
    auto ctx = e.with_context("get default/x");
    CHECK(is_not_found(ctx));
    CHECK(ctx.message() == "get default/x: configmaps \"x\" not found");
}

TEST_CASE("relist and retry predicates") {
    CHECK(needs_relist(error::from_status({"Failure", "too old resource version: 1 (5)", "Expired", 410, {}})));
    CHECK(needs_relist(error::from_status({"Failure", "", "Gone", 410, {}})));
    status big{"Failure", "Too large resource version", "Timeout", 504,
               status_details{"", "", "", "", {{"ResourceVersionTooLarge", "Too large resource version", ""}}, 1}};
    CHECK(needs_relist(error::from_status(big)));
    CHECK(is_retryable(error::from_status({"Failure", "", "TooManyRequests", 429, {}})));
    CHECK(is_retryable(error::from_status({"Failure", "", "", 503, {}})));
    CHECK_FALSE(is_retryable(error::from_status({"Failure", "", "Conflict", 409, {}})));
    CHECK_FALSE(is_retryable(error::from_status({"Failure", "", "Forbidden", 403, {}})));
    error refused(boost::system::errc::make_error_code(boost::system::errc::connection_refused));
    CHECK(is_transport_error(refused));
    CHECK(is_retryable(refused));
    error cancelled(boost::system::errc::make_error_code(boost::system::errc::operation_canceled));
    CHECK(is_cancelled(cancelled));
    CHECK_FALSE(is_transport_error(cancelled));
    CHECK_FALSE(is_retryable(error(kcoro_errc::invalid_config, "bad")));
}

TEST_CASE("result<T> carries either a value or an error") {
    result<int> ok = 3;
    result<int> bad = error(api_errc::not_found);
    CHECK(ok.has_value());
    CHECK(*ok == 3);
    REQUIRE(bad.has_error());
    CHECK(is_not_found(bad.error()));
    CHECK_THROWS_AS((void)bad.value(), boost::system::system_error);
}
