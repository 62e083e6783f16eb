#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/condition.hpp>

#include <boost/json/parse.hpp>

#include <doctest/doctest.h>

using namespace std::chrono_literals;
using namespace kcoro::typed;
namespace json = boost::json;

namespace {
const kcoro::wall_time t1 = kcoro::parse_rfc3339("2026-11-29T10:00:00Z").value();
const kcoro::wall_time t2 = t1 + 1h;
condition c(std::string type, std::string status, std::string reason, std::string message, std::int64_t gen) {
    return {std::move(type), std::move(status), gen, {}, std::move(reason), std::move(message), {}};
}
} // namespace

TEST_CASE("a new condition is appended with the transition time") {
    std::vector<condition> list;
    CHECK(set_condition(list, c("Ready", "False", "Creating", "creating", 3), t1));
    REQUIRE(list.size() == 1);
    CHECK(list[0].last_transition_time.str() == "2026-11-29T10:00:00Z");
    CHECK(is_condition_false(list, "Ready"));
    CHECK_FALSE(is_condition_true(list, "Ready"));
    CHECK(find_condition(list, "Other") == nullptr);
}

TEST_CASE("the same condition again changes nothing, not even the time") {
    std::vector<condition> list;
    set_condition(list, c("Ready", "True", "Available", "ok", 1), t1);
    auto before = list;
    CHECK_FALSE(set_condition(list, c("Ready", "True", "Available", "ok", 1), t2));
    CHECK(list == before);
}

TEST_CASE("reason, message or generation changes keep lastTransitionTime; a status change moves it") {
    std::vector<condition> list;
    set_condition(list, c("Ready", "True", "Available", "ok", 1), t1);
    CHECK(set_condition(list, c("Ready", "True", "StillAvailable", "fine", 2), t2));
    CHECK(list[0].last_transition_time.str() == "2026-11-29T10:00:00Z");
    CHECK(list[0].reason == "StillAvailable");
    CHECK(list[0].observed_generation == 2);
    CHECK(set_condition(list, c("Ready", "False", "Down", "lost", 2), t2));
    CHECK(list[0].last_transition_time.str() == "2026-11-29T11:00:00Z");
}

TEST_CASE("an explicit transition time is used, as meta.SetStatusCondition does") {
    std::vector<condition> list;
    auto d = c("Ready", "True", "R", "m", 1);
    d.last_transition_time = timestamp(t2);
    set_condition(list, d, t1);
    CHECK(list[0].last_transition_time.str() == "2026-11-29T11:00:00Z");
}

TEST_CASE("an entry read without a transition time gets one, without being a transition") {
    auto list =
        from_json<std::vector<condition>>(json::parse(R"([{"type":"Ready","status":"True","reason":"R",
      "message":"m"}])"))
            .value();
    CHECK(set_condition(list, c("Ready", "True", "R", "m", 0), t1));
    CHECK(list[0].last_transition_time.str() == "2026-11-29T10:00:00Z");
    CHECK_FALSE(set_condition(list, c("Ready", "True", "R", "m", 0), t2));
}

TEST_CASE("remove, and the wire form of metav1.Condition") {
    std::vector<condition> list;
    set_condition(list, c("A", "True", "R", "", 0), t1);
    set_condition(list, c("B", "Unknown", "R", "m", 4), t1);
    CHECK(to_json(list) == json::parse(R"([
      {"type":"A","status":"True","lastTransitionTime":"2026-11-29T10:00:00Z","reason":"R","message":""},
      {"type":"B","status":"Unknown","observedGeneration":4,"lastTransitionTime":"2026-11-29T10:00:00Z",
       "reason":"R","message":"m"}])"));
    CHECK(remove_condition(list, "A"));
    CHECK_FALSE(remove_condition(list, "A"));
    CHECK(list.size() == 1);
    CHECK(is_condition_status(list, "B", "Unknown"));
}
