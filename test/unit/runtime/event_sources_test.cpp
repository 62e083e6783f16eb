// Event sources: events mapped to controller keys (own key, controller
// owner of a group/kind, map function), filtered by predicates.
#include <kcoro/runtime/event_sources.hpp>

#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/shard_ring.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace asio = boost::asio;
namespace json = boost::json;
using kcoro::object_key;
using namespace kcoro::runtime;

namespace {

kcoro::object_ptr obj(std::string_view text) {
    return std::make_shared<const json::object>(json::parse(text).as_object());
}

const auto child = obj(R"({"kind":"ConfigMap","metadata":{"name":"demo-observed","namespace":"ns",
  "ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"1"},
                     {"apiVersion":"v1","kind":"ConfigMap","name":"demo","uid":"2","controller":true}]}})");
const auto deployment_child = obj(R"({"metadata":{"name":"x","namespace":"ns",
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"3","controller":true}]}})");

struct harness {
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    controller ctl{ioc.get_executor(), clk, controller_options{.name = "t"},
                   [](const object_key&) -> asio::awaitable<kcoro::result<reconcile_result>> {
                       co_return reconcile_result{};
                   }};
    // Drains the queue (nothing runs: the controller is not started).
    std::vector<object_key> keys() {
        std::vector<object_key> out;
        auto& q = const_cast<work_queue&>(ctl.queue().queue());
        while (auto k = q.get(clk.now())) {
            out.push_back(*k);
            q.done(*k, clk.now());
        }
        return out;
    }
};

} // namespace

TEST_CASE("controller_owner_key: only the controller reference of that group and kind") {
    CHECK(controller_owner_key(*child, {"", "ConfigMap"}) == object_key{"ns", "demo"});
    CHECK_FALSE(controller_owner_key(*child, {"", "Secret"}));
    CHECK_FALSE(controller_owner_key(*child, {"apps", "ConfigMap"}));
    CHECK(controller_owner_key(*deployment_child, {"apps", "Deployment"}) == object_key{"ns", "d"});
    CHECK(controller_owner_key(*deployment_child, {"apps", "Deployment"}, true) == object_key{"", "d"});
    CHECK_FALSE(controller_owner_key(*obj(R"({"metadata":{"name":"a"}})"), {"", "ConfigMap"}));
}

TEST_CASE("enqueue_for_object and enqueue_for_owner map every event kind") {
    harness h;
    auto own = enqueue_for_object(h.ctl);
    own.on_add(child);
    own.on_delete(child, true);
    CHECK(h.keys() == std::vector<object_key>{{"ns", "demo-observed"}});
    auto owner = enqueue_for_owner(h.ctl, {"", "ConfigMap"});
    owner.on_update(child, child);
    CHECK(h.keys() == std::vector<object_key>{{"ns", "demo"}});
    owner.on_add(deployment_child);
    CHECK(h.keys().empty());
}

TEST_CASE("an update that moves the owner enqueues the old and the new owner") {
    harness h;
    auto moved = obj(R"({"metadata":{"name":"demo-observed","namespace":"ns",
      "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"other","uid":"9","controller":true}]}})");
    auto owner = enqueue_for_owner(h.ctl, {"", "ConfigMap"});
    owner.on_update(child, moved);
    CHECK(h.keys() == std::vector<object_key>{{"ns", "other"}, {"ns", "demo"}});
}

TEST_CASE("only handlers that can read the old state ask for it") {
    harness h;
    CHECK_FALSE(enqueue_for_object(h.ctl).reads_old_object);  // same key before and after
    predicate changed;
    changed.update = [](const json::object&, const json::object&) { return true; };
    CHECK(enqueue_for_object(h.ctl, changed).reads_old_object);
    CHECK(enqueue_for_owner(h.ctl, {"", "ConfigMap"}).reads_old_object);  // the owner may have moved
    // Without it, an update still enqueues the object's key.
    auto own = enqueue_for_object(h.ctl);
    own.on_update(nullptr, child);
    CHECK(h.keys() == std::vector<object_key>{{"ns", "demo-observed"}});
}

TEST_CASE("predicates filter; a throwing map function maps nothing") {
    harness h;
    auto gen = enqueue_for_object(h.ctl, generation_changed_predicate());
    gen.on_update(child, child);  // same generation: filtered
    CHECK(h.keys().empty());
    gen.on_add(child);  // creates pass change predicates
    CHECK(h.keys().size() == 1);
    auto mapped = enqueue_from_map(h.ctl, [](const json::object& o) -> std::vector<object_key> {
        if (kcoro::name_of(o) == "x") throw std::runtime_error("bad");
        return {{"ns", "a"}, {"ns", "b"}};
    });
    mapped.on_add(deployment_child);
    CHECK(h.keys().empty());
    mapped.on_add(child);
    CHECK(h.keys() == std::vector<object_key>{{"ns", "a"}, {"ns", "b"}});
}

TEST_CASE("sharded: a mapped key whose primary is not cached reaches the replica owning the uid the map names") {
    // A registration-like object names an instance that is gone (nothing
    // cached): with a plain map no replica queues its key; with the uid,
    // the replica owning fnv1a64(uid) does, and no other.
    asio::io_context ioc;
    kcoro::io::manual_clock clk;
    auto make = [&](bool lower_half) {
        controller_options o;
        o.name = lower_half ? "low" : "high";
        o.sharding.owns = [lower_half](std::uint64_t h) { return (h < (std::uint64_t{1} << 63)) == lower_half; };
        o.sharding.hash_of = [](const object_key&) -> std::optional<std::uint64_t> { return std::nullopt; };
        return std::make_unique<controller>(ioc.get_executor(), clk, o,
                                            [](const object_key&) -> asio::awaitable<kcoro::result<reconcile_result>> {
                                                co_return reconcile_result{};
                                            });
    };
    auto low = make(true);
    auto high = make(false);
    std::string uid;
    for (int i = 0; uid.empty(); ++i) {
        const auto u = "uid-" + std::to_string(i);
        if (fnv1a64(u) < (std::uint64_t{1} << 63)) uid = u;
    }
    const object_key key{"ns", "gone"};
    const auto record = obj(R"({"kind":"ConfigMap","metadata":{"name":"registration","namespace":"ops"}})");
    for (auto* c : {low.get(), high.get()}) {
        enqueue_from_map(*c, [&](const json::object&) { return std::vector<object_key>{key}; }).on_add(record);
        CHECK(c->queue().queue().len() == 0);  // the gap: nobody
        enqueue_from_uid_map(*c, [&](const json::object&) { return std::vector<mapped_key>{mapped_key(key, uid)}; })
            .on_add(record);
    }
    CHECK(low->queue().queue().len() == 1);
    CHECK(high->queue().queue().len() == 0);
    // No uid: as a plain map.
    enqueue_from_uid_map(*low, [&](const json::object&) { return std::vector<mapped_key>{mapped_key({"ns", "other"})}; })
        .on_add(record);
    CHECK(low->queue().queue().len() == 1);
}
