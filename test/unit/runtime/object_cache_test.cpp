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

TEST_CASE("apply adds then updates; get returns an immutable object equal to the stored one") {
    object_cache c;
    auto a1 = cm("ns", "a", "1");
    auto n = c.apply(a1);
    CHECK(n.type == notification_type::added);
    CHECK(n.object == a1);  // nothing filtered: the handlers get the decoded object itself
    REQUIRE(c.get({"ns", "a"}));
    CHECK(*c.get({"ns", "a"}) == *a1);
    CHECK(c.get({"ns", "a"}) != c.get({"ns", "a"}));  // each read is a parse of the stored text
    auto a2 = cm("ns", "a", "2");
    n = c.apply(a2);
    CHECK(n.type == notification_type::updated);
    REQUIRE(n.old_object);
    CHECK(*n.old_object == *a1);
    CHECK(n.object == a2);
    CHECK(c.size() == 1);
    CHECK(c.get({"ns", "missing"}) == nullptr);
    CHECK(kcoro::resource_version_of(*c.get({"ns", "a"})) == "2");
}

TEST_CASE("for_each visits every object once, in list() order, each decoded alone and released before the next") {
    object_cache c;
    c.apply(cm("b", "y", "3"));
    c.apply(cm("a", "x", "1"));
    c.apply(cm("a", "z", "2"));
    std::vector<object_ptr> seen;
    std::weak_ptr<const boost::json::object> previous;
    bool previous_released = true;
    c.for_each([&](const object_ptr& o) {
        if (!previous.expired()) previous_released = false;
        previous = o;
        seen.push_back(std::make_shared<const boost::json::object>(*o));  // a copy: `o` itself goes
    });
    CHECK(previous_released);
    CHECK(names(seen) == names(c.list()));
    CHECK(names(seen) == std::vector<std::string>{"x", "z", "y"});
    object_cache empty;
    int calls = 0;
    empty.for_each([&](const object_ptr&) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("stored_bytes follows what is stored: about the compact JSON text") {
    object_cache c;
    CHECK(c.stored_bytes() == 0);
    auto a = cm("ns", "a", "1");
    c.apply(a);
    const auto text = boost::json::serialize(*a).size();
    CHECK(c.stored_bytes() >= text);
    CHECK(c.stored_bytes() < text + 64);
    c.apply(cm("ns", "b", "1"));
    c.remove(cm("ns", "a", "2"));
    CHECK(c.stored_bytes() < text + 64);
    c.remove(cm("ns", "b", "2"));
    CHECK(c.stored_bytes() == 0);
}

TEST_CASE("the sink form hears what the vector form returns; an empty sink hears nothing") {
    object_cache a, b;
    std::vector<cache_notification> heard;
    auto sink = [&](const cache_notification& n) { heard.push_back(n); };
    std::vector<watcher_event> events{{watcher_event_type::init_start, nullptr},
                                      {watcher_event_type::init_apply, cm("ns", "x", "1")},
                                      {watcher_event_type::init_apply, cm("ns", "y", "2")},
                                      {watcher_event_type::init_done, nullptr},
                                      {watcher_event_type::apply, cm("ns", "x", "3")},
                                      {watcher_event_type::deleted, cm("ns", "y", "4")}};
    std::vector<cache_notification> returned;
    for (const auto& e : events) {
        a.handle(e, sink);
        for (auto& n : b.handle(e)) returned.push_back(n);
    }
    CHECK(heard == returned);
    CHECK(heard.size() == 4);
    object_cache quiet;
    for (const auto& e : events) quiet.handle(e, notification_sink());
    CHECK(quiet.keys() == a.keys());
    CHECK(*quiet.get({"ns", "x"}) == *a.get({"ns", "x"}));
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
    CHECK(*c.get({"ns", "b"}) == *b);  // still the old snapshot until init_done
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
    CHECK(kcoro::managed_fields_of(*stored) == nullptr);
    auto expect = *with_mf;
    kcoro::strip_managed_fields(expect);
    CHECK(*stored == expect);
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

TEST_CASE("kept managers: only their managedFields entries are stored, read at store time") {
    auto kept = std::make_shared<std::vector<std::string>>();
    cache_options o;
    o.kept_managers = kept;
    object_cache c(o);
    const std::string mf = R"(,"managedFields":[{"manager":"op"},{"manager":"kubectl"}])";
    c.apply(cm("ns", "a", "1", "", mf));
    CHECK(kcoro::managed_fields_of(*c.get({"ns", "a"})) == nullptr);  // none kept yet: stripped

    kept->push_back("op");
    c.apply(cm("ns", "a", "2", "", mf));
    const auto stored = c.get({"ns", "a"});
    const auto* entries = kcoro::managed_fields_of(*stored);
    REQUIRE(entries);
    REQUIRE(entries->as_array().size() == 1);
    CHECK(entries->as_array()[0].at("manager") == "op");
    CHECK(stored->contains("data"));

    c.apply(cm("ns", "b", "1", "", R"(,"managedFields":[{"manager":"kubectl"}])"));
    const auto other = c.get({"ns", "b"});
    const auto* none = kcoro::managed_fields_of(*other);
    REQUIRE(none);  // present and empty: filtered, not stripped
    CHECK(none->as_array().empty());
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

TEST_CASE("a namespace is a range of the keys: no prefix confusion") {
    object_cache c;
    c.apply(cm("ns1", "a", "1"));
    c.apply(cm("n", "b", "1"));
    c.apply(cm("ns", "c", "1"));
    c.apply(cm("ns", "d", "1"));
    c.apply(cm("nt", "e", "1"));
    CHECK(names(c.list_namespace("ns")) == std::vector<std::string>{"c", "d"});
    CHECK(names(c.by_index(namespace_index, "ns1")) == std::vector<std::string>{"a"});
    CHECK(c.list_namespace("").empty());
    CHECK(names(c.list()) == std::vector<std::string>{"b", "c", "d", "a", "e"});
}

TEST_CASE("user indexes see the stored (filtered) object; replacing an index refiles everything") {
    object_cache meta(cache_options{{}, true});
    meta.add_index("has-data", [](const boost::json::object& o) {
        return std::vector<std::string>{o.contains("data") ? "yes" : "no"};
    });
    meta.apply(cm("ns", "a", "1", "", R"(,"managedFields":[{"manager":"m"}])"));
    CHECK(meta.by_index("has-data", "no").size() == 1);
    CHECK(meta.by_index("has-data", "yes").empty());

    object_cache c;
    c.add_index("rv", [](const boost::json::object& o) { return std::vector<std::string>{std::string(kcoro::resource_version_of(o))}; });
    c.apply(cm("ns", "a", "1"));
    c.apply(cm("ns", "b", "2"));
    CHECK(names(c.by_index("rv", "2")) == std::vector<std::string>{"b"});
    c.add_index("rv", [](const boost::json::object& o) { return std::vector<std::string>{"rv-" + std::string(kcoro::resource_version_of(o))}; });
    CHECK(c.by_index("rv", "2").empty());
    CHECK(names(c.by_index("rv", "rv-2")) == std::vector<std::string>{"b"});
    CHECK(names(c.list_controlled_by("none")).empty());
}

TEST_CASE("an index added while a snapshot is pending indexes the snapshot at init_done") {
    object_cache c;
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, cm("ns", "a", "1", "uid-p")});
    c.add_index("name", [](const boost::json::object& o) { return std::vector<std::string>{std::string(kcoro::name_of(o))}; });
    c.handle({watcher_event_type::init_apply, cm("ns", "b", "2")});
    c.handle({watcher_event_type::init_done, nullptr});
    CHECK(names(c.by_index("name", "a")) == std::vector<std::string>{"a"});
    CHECK(names(c.by_index("name", "b")) == std::vector<std::string>{"b"});
    CHECK(names(c.list_controlled_by("uid-p")) == std::vector<std::string>{"a"});
    // The blocks are counted once, with the new index's values: as a cache
    // that had the index from the start.
    object_cache d;
    d.add_index("name", [](const boost::json::object& o) { return std::vector<std::string>{std::string(kcoro::name_of(o))}; });
    d.apply(cm("ns", "a", "1", "uid-p"));
    d.apply(cm("ns", "b", "2"));
    CHECK(c.stored_bytes() == d.stored_bytes());
}

TEST_CASE("a key listed twice in one snapshot keeps its later state") {
    object_cache c;
    c.handle({watcher_event_type::init_start, nullptr});
    c.handle({watcher_event_type::init_apply, cm("ns", "a", "1")});
    c.handle({watcher_event_type::init_apply, cm("ns", "a", "2")});
    auto ns = c.handle({watcher_event_type::init_done, nullptr});
    REQUIRE(ns.size() == 1);
    CHECK(kcoro::resource_version_of(*ns[0].object) == "2");
    CHECK(c.size() == 1);
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

TEST_CASE("without old objects, updates (watched and relisted) carry a null previous state") {
    object_cache c;
    c.set_old_objects(false);
    std::vector<cache_notification> heard;
    auto sink = [&](const cache_notification& n) { heard.push_back(n); };
    auto a = cm("ns", "a", "1"), a2 = cm("ns", "a", "2"), a3 = cm("ns", "a", "3");
    c.handle({watcher_event_type::init_start, nullptr}, sink);
    c.handle({watcher_event_type::init_apply, a}, sink);
    c.handle({watcher_event_type::init_done, nullptr}, sink);
    c.handle({watcher_event_type::apply, a2}, sink);
    c.handle({watcher_event_type::init_start, nullptr}, sink);
    c.handle({watcher_event_type::init_apply, a3}, sink);
    c.handle({watcher_event_type::init_done, nullptr}, sink);
    REQUIRE(heard.size() == 3);
    CHECK(heard[1] == cache_notification{notification_type::updated, nullptr, a2, false});
    CHECK(heard[2] == cache_notification{notification_type::updated, nullptr, a3, false});
    CHECK(*c.get({"ns", "a"}) == *a3);
    // Back on: the previous state is decoded again.
    c.set_old_objects(true);
    heard.clear();
    c.handle({watcher_event_type::apply, a}, sink);
    REQUIRE(heard.size() == 1);
    CHECK(heard[0] == cache_notification{notification_type::updated, a3, a, false});
}
