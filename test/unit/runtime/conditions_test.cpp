#include <kcoro/runtime/conditions.hpp>

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>

using namespace std::chrono_literals;
using namespace kcoro::runtime;

namespace {
const kcoro::wall_time t1 = kcoro::parse_rfc3339("2026-11-29T10:00:00Z").value();
const kcoro::wall_time t2 = t1 + 1h;
std::string ltt(const boost::json::array& a, std::string_view type) {
    return std::string(find_condition(a, type)->at("lastTransitionTime").as_string());
}
} // namespace

TEST_CASE("a new condition is appended with the transition time") {
    boost::json::array a;
    CHECK(set_condition(a, {"Ready", "False", "Creating", "creating children", 3}, t1));
    REQUIRE(a.size() == 1);
    CHECK(ltt(a, "Ready") == "2026-11-29T10:00:00Z");
    CHECK(find_condition(a, "Ready")->at("observedGeneration").as_int64() == 3);
    CHECK(is_condition_false(a, "Ready"));
    CHECK_FALSE(is_condition_true(a, "Ready"));
    CHECK(find_condition(a, "Other") == nullptr);
}

TEST_CASE("the same condition again changes nothing, not even the time") {
    boost::json::array a;
    set_condition(a, {"Ready", "True", "Available", "ok", 1}, t1);
    auto before = a;
    CHECK_FALSE(set_condition(a, {"Ready", "True", "Available", "ok", 1}, t2));
    CHECK(a == before);
}

TEST_CASE("reason, message or generation changes keep lastTransitionTime") {
    boost::json::array a;
    set_condition(a, {"Ready", "True", "Available", "ok", 1}, t1);
    CHECK(set_condition(a, {"Ready", "True", "StillAvailable", "fine", 2}, t2));
    CHECK(ltt(a, "Ready") == "2026-11-29T10:00:00Z");
    CHECK(find_condition(a, "Ready")->at("reason").as_string() == "StillAvailable");
    CHECK(find_condition(a, "Ready")->at("observedGeneration").as_int64() == 2);
}

TEST_CASE("a status change moves lastTransitionTime") {
    boost::json::array a;
    set_condition(a, {"Ready", "True", "Available", "ok", 1}, t1);
    CHECK(set_condition(a, {"Ready", "False", "Down", "lost", 1}, t2));
    CHECK(ltt(a, "Ready") == "2026-11-29T11:00:00Z");
    CHECK(is_condition_false(a, "Ready"));
}

TEST_CASE("on an object: status.conditions created when missing; remove") {
    auto obj = boost::json::parse(R"({"metadata":{"name":"x"},"status":"garbage"})").as_object();
    CHECK(set_condition(obj, {"Ready", "True", "R", "m", 1}, t1));
    REQUIRE(conditions_of(obj) != nullptr);
    CHECK(is_condition_true(*conditions_of(obj), "Ready"));
    auto& arr = obj["status"].as_object()["conditions"].as_array();
    CHECK(remove_condition(arr, "Ready"));
    CHECK_FALSE(remove_condition(arr, "Ready"));
    CHECK(conditions_of(boost::json::object{}) == nullptr);
}

TEST_CASE("malformed entries are skipped, not trusted") {
    auto a = boost::json::parse(R"([1, "x", {"type":"Ready","status":"True"}])").as_array();
    CHECK(is_condition_true(a, "Ready"));
    CHECK(set_condition(a, {"Ready", "True", "R", "m", 0}, t1));  // fills the missing fields
    CHECK(ltt(a, "Ready") == "2026-11-29T10:00:00Z");
    CHECK_FALSE(set_condition(a, {"Ready", "True", "R", "m", 0}, t2));
}
