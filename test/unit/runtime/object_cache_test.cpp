#include <kcoro/runtime/object_cache.hpp>

#include <doctest/doctest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <stdexcept>

using namespace kcoro::runtime;
using kcoro::object_key;
using kcoro::object_ptr;

namespace {

object_ptr cm(const std::string& ns, const std::string& name, const std::string& rv,
              const std::string& owner_uid = "", const std::string& extra_meta = "") {
    std::string owners;
    if (!owner_uid.empty()) {
        owners = R"(,"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"p","uid":")" + owner_uid +
                 R"(","controller":true}])";
    }
    auto v = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":")" + ns +
                                R"(","name":")" + name + R"(","resourceVersion":")" + rv + "\"" + owners +
                                extra_meta + R"(},"data":{"k":"v"}})");
    return std::make_shared<const boost::json::object>(std::move(v.as_object()));
}

std::vector<std::string> names(const std::vector<object_ptr>& objs) {
    std::vector<std::string> out;
    for (const auto& o : objs) {
        out.emplace_back(kcoro::name_of(*o));
    }
    return out;
}

} // namespace

TEST_CASE("apply adds then updates; get returns the shared immutable object") {
    object_cache c;
    auto a1 = cm("ns", "a", "1");
    auto n = c.apply(a1);
    CHECK(n.type == notification_type::added);
    CHECK(c.get({"ns", "a"}) == a1);  // no managedFields: the same pointer, no copy
    auto a2 = cm("ns", "a", "2");
    n = c.apply(a2);
    CHECK(n.type == notification_type::updated);
    CHECK(n.old_object == a1);
    CHECK(n.object == a2);
    CHECK(c.size() == 1);
    CHECK(c.get({"ns", "missing"}) == nullptr);
}

TEST_CASE("indexes: namespace, controller owner uid, user functions; kept right on update and delete") {
    object_cache c;
    CHECK(c.add_index("by-data-key", [](const boost::json::object& o) {
        std::vector<std::string> out;
        if (const auto* d = o.if_contains("data"); d && d->is_object()) {
            for (const auto& kv : d->as_object()) {
                out.emplace_back(kv.key());
            }
        }
        return out;
    }));
    CHECK_FALSE(c.add_index(std::string(namespace_index), [](const boost::json::object&) { return std::vector<std::string>{}; }));
    c.apply(cm("ns1", "a", "1", "uid-p"));
    c.apply(cm("ns1", "b", "2"));
    c.apply(cm("ns2", "c", "3", "uid-p"));
    CHECK(names(c.list_namespace("ns1")) == std::vector<std::string>{"a", "b"});
    CHECK(names(c.list_namespace("ns2")) == std::vector<std::string>{"c"});
    CHECK(names(c.list_controlled_by("uid-p")) == std::vector<std::string>{"a", "c"});
    CHECK(c.by_index("by-data-key", "k").size() == 3);
    CHECK(c.by_index("nope", "k").empty());
    // a loses its owner: the index follows the update.
    c.apply(cm("ns1", "a", "4"));
    CHECK(names(c.list_controlled_by("uid-p")) == std::vector<std::string>{"c"});
    c.remove(cm("ns2", "c", "5"));
    CHECK(c.list_controlled_by("uid-p").empty());
    CHECK(c.list_namespace("ns2").empty());
}

TEST_CASE("a user index added later indexes what is cached; a throwing one indexes nothing") {
    object_cache c;
    c.apply(cm("ns", "a", "1"));
    c.add_index("name", [](const boost::json::object& o) { return std::vector<std::string>{std::string(kcoro::name_of(o))}; });
    CHECK(c.by_index("name", "a").size() == 1);
    c.add_index("bad", [](const boost::json::object&) -> std::vector<std::string> { throw std::runtime_error("x"); });
    c.apply(cm("ns", "b", "1"));
    CHECK(c.by_index("bad", "x").empty());
    CHECK(c.size() == 2);
}

TEST_CASE("delete carries the reported final state; deleting an unknown key notifies nothing") {
    object_cache c;
    c.apply(cm("ns", "a", "1"));
    auto final_state = cm("ns", "a", "9");
    auto ns = c.remove(final_state);
    REQUIRE(ns.size() == 1);
    CHECK(ns[0] == cache_notification{notification_type::deleted, nullptr, final_state, false});
    CHECK(c.remove(final_state).empty());
}

TEST_CASE("relist: snapshot swapped at init_done, vanished objects delivered as tombstones") {
    object_cache c;
    CHECK_FALSE(c.has_synced());
    auto a = cm("ns", "a", "1"), b = cm("ns", "b", "2");
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, a});
    c.handle({watcher_event_type::init_apply, b});
    CHECK(c.size() == 0);  // nothing visible before init_done
    auto ns = c.handle({watcher_event_type::init_done, nullptr});
    CHECK(c.has_synced());
    CHECK(ns.size() == 2);
    CHECK(c.size() == 2);
    // A relist after a watch gap: b vanished, c appeared, a changed.
    auto a2 = cm("ns", "a", "5"), cc = cm("ns", "c", "6");
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, a2});
    c.handle({watcher_event_type::init_apply, cc});
    CHECK(c.get({"ns", "b"}) == b);  // still the old snapshot until init_done
    ns = c.handle({watcher_event_type::init_done, nullptr});
    REQUIRE(ns.size() == 3);
    CHECK(ns[0] == cache_notification{notification_type::updated, a, a2, false});
    CHECK(ns[1] == cache_notification{notification_type::added, nullptr, cc, false});
    CHECK(ns[2] == cache_notification{notification_type::deleted, nullptr, b, true});
    CHECK(c.get({"ns", "b"}) == nullptr);
    CHECK(c.size() == 2);
}

TEST_CASE("an interrupted snapshot is discarded by the next init_start") {
    object_cache c;
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, cm("ns", "partial", "1")});
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, cm("ns", "a", "2")});
    c.handle({watcher_event_type::init_done, nullptr});
    CHECK(c.keys() == std::vector<object_key>{{"ns", "a"}});
}

TEST_CASE("default transform strips managedFields; metadata-only keeps apiVersion, kind, metadata") {
    auto with_mf = cm("ns", "a", "1", "", R"(,"managedFields":[{"manager":"kubectl"}])");
    object_cache c;
    c.apply(with_mf);
    auto stored = c.get({"ns", "a"});
    CHECK(stored != with_mf);
    CHECK(kcoro::managed_fields_of(*stored) == nullptr);
    CHECK(stored->contains("data"));
    CHECK(kcoro::managed_fields_of(*with_mf) != nullptr);  // the input was not mutated

    object_cache meta(cache_options{{}, true});
    meta.apply(with_mf);
    auto m = meta.get({"ns", "a"});
    CHECK_FALSE(m->contains("data"));
    CHECK(kcoro::kind_of(*m) == "ConfigMap");
    CHECK(kcoro::resource_version_of(*m) == "1");
    CHECK(kcoro::managed_fields_of(*m) == nullptr);
}

TEST_CASE("a custom transform runs before storing; a throwing one stores the object as is") {
    cache_options o;
    o.transform = [](object_ptr p) {
        auto copy = std::make_shared<boost::json::object>(*p);
        copy->erase("data");
        return object_ptr(copy);
    };
    object_cache c(o);
    c.apply(cm("ns", "a", "1"));
    CHECK_FALSE(c.get({"ns", "a"})->contains("data"));

    cache_options bad;
    bad.transform = [](object_ptr) -> object_ptr { throw std::runtime_error("boom"); };
    object_cache c2(bad);
    c2.apply(cm("ns", "a", "1"));
    CHECK(c2.get({"ns", "a"})->contains("data"));
}

TEST_CASE("null objects are ignored") {
    object_cache c;
    CHECK(c.handle({watcher_event_type::apply, nullptr}).empty());
    CHECK(c.handle({watcher_event_type::deleted, nullptr}).empty());
    CHECK(c.size() == 0);
}

TEST_CASE("keep_managed_fields_transform keeps only the given managers' entries, and says it filtered") {
    auto o = std::make_shared<const boost::json::object>(boost::json::parse(R"({"metadata":{"name":"a","managedFields":[
        {"manager":"op","operation":"Apply"},{"manager":"kubectl","operation":"Update"},{"manager":"op","operation":"Update"}]}})")
                                                             .as_object());
    auto kept = kcoro::runtime::keep_managed_fields_transform(o, {"op"});
    const auto* mf = kcoro::managed_fields_of(*kept);
    REQUIRE(mf);
    REQUIRE(mf->as_array().size() == 2);
    CHECK(mf->as_array()[0].at("operation") == "Apply");
    CHECK(mf->as_array()[1].at("operation") == "Update");
    CHECK(kcoro::managed_fields_of(*o)->as_array().size() == 3);  // the input is untouched
    // Already ours only: the same pointer, no copy.
    CHECK(kcoro::runtime::keep_managed_fields_transform(kept, {"op"}) == kept);
    // None of ours: an empty list, not no list (a reader can tell it was filtered).
    auto none = kcoro::runtime::keep_managed_fields_transform(o, {"other"});
    REQUIRE(kcoro::managed_fields_of(*none));
    CHECK(kcoro::managed_fields_of(*none)->as_array().empty());
    auto bare = std::make_shared<const boost::json::object>(boost::json::parse(R"({"metadata":{"name":"b"}})").as_object());
    CHECK(kcoro::managed_fields_of(*kcoro::runtime::keep_managed_fields_transform(bare, {"op"}))->as_array().empty());
    CHECK(kcoro::runtime::keep_managed_fields_transform(nullptr, {"op"}) == nullptr);
}
