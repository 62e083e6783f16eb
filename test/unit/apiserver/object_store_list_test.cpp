// object_store: list (selectors, pagination, resourceVersion rules).
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

namespace {

std::vector<std::string> names(const json::object& list) {
    std::vector<std::string> out;
    for (const auto& i : list.at("items").as_array()) out.emplace_back(name_of(i.as_object()));
    return out;
}

void fill_labeled(object_store& s) {
    auto mk = [&](const char* name, const char* app, const char* env) {
        auto c = configmap(name);
        if (app) set_label(c, "app", app);
        if (env) set_label(c, "env", env);
        REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", c));
    };
    mk("a", "web", "prod");
    mk("b", "web", "dev");
    mk("c", "db", "prod");
    mk("d", nullptr, nullptr);
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "kube-system", configmap("z")));
}

} // namespace

TEST_CASE("list is a <Kind>List with apiVersion, resourceVersion and typed items") {
    object_store s;
    fill_labeled(s);
    auto l = s.list(resources::configmaps(), "default", {});
    REQUIRE(l);
    CHECK(l->at("kind") == "ConfigMapList");
    CHECK(l->at("apiVersion") == "v1");
    CHECK(str_at(*l, {"metadata", "resourceVersion"}) == std::to_string(s.current_revision()));
    CHECK(names(*l) == std::vector<std::string>{"a", "b", "c", "d"});
    for (const auto& i : l->at("items").as_array()) {
        CHECK(kind_of(i.as_object()) == "ConfigMap");
        CHECK(api_version_of(i.as_object()) == "v1");
    }
    auto all = s.list(resources::configmaps(), "", {});
    REQUIRE(all);
    CHECK(all->at("items").as_array().size() == 5);
}

TEST_CASE("labelSelector forms") {
    object_store s;
    fill_labeled(s);
    auto sel = [&](const char* text) {
        list_options o;
        o.label_selector = text;
        auto l = s.list(resources::configmaps(), "default", o);
        REQUIRE(l);
        return names(*l);
    };
    using v = std::vector<std::string>;
    CHECK(sel("app=web") == v{"a", "b"});
    CHECK(sel("app==web") == v{"a", "b"});
    CHECK(sel("app!=web") == v{"c", "d"});
    CHECK(sel("env in (prod)") == v{"a", "c"});
    CHECK(sel("env notin (prod)") == v{"b", "d"});
    CHECK(sel("app") == v{"a", "b", "c"});
    CHECK(sel("!app") == v{"d"});
    CHECK(sel("app=web,env=prod") == v{"a"});
    list_options bad;
    bad.label_selector = "app in (";
    auto r = s.list(resources::configmaps(), "default", bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
}

TEST_CASE("fieldSelector on metadata.name and metadata.namespace") {
    object_store s;
    fill_labeled(s);
    list_options o;
    o.field_selector = "metadata.name=b";
    CHECK(names(*s.list(resources::configmaps(), "", o)) == std::vector<std::string>{"b"});
    o.field_selector = "metadata.namespace==kube-system";
    CHECK(names(*s.list(resources::configmaps(), "", o)) == std::vector<std::string>{"z"});
    o.field_selector = "metadata.name!=a,metadata.namespace=default";
    CHECK(names(*s.list(resources::configmaps(), "", o)) == std::vector<std::string>{"b", "c", "d"});
    o.field_selector = "spec.foo=x";
    auto r = s.list(resources::configmaps(), "", o);
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
}

TEST_CASE("limit and continue page through a consistent snapshot") {
    object_store s;
    fill_labeled(s);
    list_options o;
    o.limit = 2;
    auto p1 = s.list(resources::configmaps(), "default", o);
    REQUIRE(p1);
    CHECK(names(*p1) == std::vector<std::string>{"a", "b"});
    auto token = str_at(*p1, {"metadata", "continue"});
    REQUIRE_FALSE(token.empty());
    CHECK(find_path(*p1, {"metadata", "remainingItemCount"})->as_int64() == 2);
    // Writes between pages are not visible in the snapshot.
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "c"));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("bb")));
    o.continue_token = token;
    auto p2 = s.list(resources::configmaps(), "default", o);
    REQUIRE(p2);
    CHECK(names(*p2) == std::vector<std::string>{"c", "d"});
    CHECK(str_at(*p2, {"metadata", "resourceVersion"}) == str_at(*p1, {"metadata", "resourceVersion"}));
    CHECK(find_path(*p2, {"metadata", "continue"}) == nullptr);
}

TEST_CASE("resourceVersion=0 is answered whole, as the watch cache answers it (limit ignored)") {
    // cacher.go shouldDelegateList: hasLimit := pred.Limit > 0 && resourceVersion != "0".
    object_store s;
    fill_labeled(s);
    list_options o;
    o.limit = 2;
    o.resource_version = "0";
    auto l = s.list(resources::configmaps(), "default", o);
    REQUIRE(l);
    CHECK(names(*l) == std::vector<std::string>{"a", "b", "c", "d"});
    CHECK(find_path(*l, {"metadata", "continue"}) == nullptr);
    CHECK(find_path(*l, {"metadata", "remainingItemCount"}) == nullptr);
    CHECK(str_at(*l, {"metadata", "resourceVersion"}) == std::to_string(s.current_revision()));
    o.resource_version_match = "NotOlderThan";
    auto nt = s.list(resources::configmaps(), "default", o);
    REQUIRE(nt);
    CHECK(names(*nt).size() == 4);
    // Unset or an exact revision with a limit: etcd, paged.
    for (const char* rv : {"", "3"}) {
        CAPTURE(rv);
        list_options paged;
        paged.limit = 2;
        paged.resource_version = rv;
        auto p = s.list(resources::configmaps(), "default", paged);
        REQUIRE(p);
        CHECK(names(*p) == std::vector<std::string>{"a", "b"});
        CHECK_FALSE(str_at(*p, {"metadata", "continue"}).empty());
    }
    // A continue token with resourceVersion=0 is paged from the token's snapshot.
    list_options first;
    first.limit = 2;
    auto p1 = s.list(resources::configmaps(), "default", first);
    REQUIRE(p1);
    list_options next;
    next.limit = 1;
    next.resource_version = "0";
    next.continue_token = str_at(*p1, {"metadata", "continue"});
    auto p2 = s.list(resources::configmaps(), "default", next);
    REQUIRE(p2);
    CHECK(names(*p2) == std::vector<std::string>{"c"});
}

TEST_CASE("without the watch cache resourceVersion=0 is paged (--watch-cache=false)") {
    store_config cfg;
    cfg.watch_cache = false;
    object_store s(cfg);
    fill_labeled(s);
    list_options o;
    o.limit = 3;
    o.resource_version = "0";
    auto l = s.list(resources::configmaps(), "default", o);
    REQUIRE(l);
    CHECK(names(*l) == std::vector<std::string>{"a", "b", "c"});
    CHECK_FALSE(str_at(*l, {"metadata", "continue"}).empty());
    CHECK(find_path(*l, {"metadata", "remainingItemCount"})->as_int64() == 1);
}

TEST_CASE("pages after writes: each page and remainingItemCount at the snapshot") {
    object_store s;
    fill_labeled(s);
    list_options o;
    o.limit = 1;
    auto page = s.list(resources::configmaps(), "default", o);
    REQUIRE(page);
    CHECK(names(*page) == std::vector<std::string>{"a"});
    CHECK(find_path(*page, {"metadata", "remainingItemCount"})->as_int64() == 3);
    // After the snapshot: c deleted, bb and e created, d updated.
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "c"));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("bb")));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("e")));
    auto d = configmap("d");
    set_label(d, "changed", "yes");
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "d", d));
    std::vector<std::string> seen;
    std::vector<std::int64_t> remaining;
    for (int i = 0; i < 10 && page && find_path(*page, {"metadata", "continue"}); ++i) {
        o.continue_token = str_at(*page, {"metadata", "continue"});
        page = s.list(resources::configmaps(), "default", o);
        REQUIRE(page);
        for (auto& n : names(*page)) seen.push_back(n);
        const auto* r = find_path(*page, {"metadata", "remainingItemCount"});
        remaining.push_back(r ? r->as_int64() : -1);
    }
    CHECK(seen == std::vector<std::string>{"b", "c", "d"});
    CHECK(remaining == std::vector<std::int64_t>{2, 1, -1});
    CHECK(page->at("items").as_array()[0].as_object().at("metadata").as_object().if_contains("labels") == nullptr);
}

TEST_CASE("pages across namespaces, and with a selector (no remainingItemCount)") {
    object_store s;
    fill_labeled(s);
    list_options o;
    o.limit = 3;
    auto p1 = s.list(resources::configmaps(), "", o);
    REQUIRE(p1);
    CHECK(names(*p1) == std::vector<std::string>{"a", "b", "c"});
    CHECK(find_path(*p1, {"metadata", "remainingItemCount"})->as_int64() == 2);
    o.continue_token = str_at(*p1, {"metadata", "continue"});
    auto p2 = s.list(resources::configmaps(), "", o);
    REQUIRE(p2);
    CHECK(names(*p2) == std::vector<std::string>{"d", "z"});
    CHECK(find_path(*p2, {"metadata", "continue"}) == nullptr);
    // A token of the all-namespaces list used in one namespace: after its
    // last key, kube-system has z; default has nothing left.
    auto in_system = s.list(resources::configmaps(), "kube-system", o);
    REQUIRE(in_system);
    CHECK(names(*in_system) == std::vector<std::string>{"z"});

    list_options sel;
    sel.limit = 1;
    sel.label_selector = "app=web";
    auto w1 = s.list(resources::configmaps(), "default", sel);
    REQUIRE(w1);
    CHECK(names(*w1) == std::vector<std::string>{"a"});
    CHECK(find_path(*w1, {"metadata", "remainingItemCount"}) == nullptr);
    sel.continue_token = str_at(*w1, {"metadata", "continue"});
    auto w2 = s.list(resources::configmaps(), "default", sel);
    REQUIRE(w2);
    CHECK(names(*w2) == std::vector<std::string>{"b"});
    CHECK(find_path(*w2, {"metadata", "continue"}) == nullptr);
}

TEST_CASE("a continue token older than the retained history is 410 Expired") {
    store_config cfg;
    cfg.history_size = 3;
    object_store s(cfg, t0());
    for (int i = 0; i < 4; ++i) REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("c" + std::to_string(i))));
    list_options o;
    o.limit = 1;
    auto p1 = s.list(resources::configmaps(), "default", o);
    REQUIRE(p1);
    for (int i = 0; i < 4; ++i) REQUIRE(s.create(ctx_at(), resources::secrets(), "default", obj(R"({"metadata":{"name":"s)" + std::to_string(i) + R"("}})")));
    o.continue_token = str_at(*p1, {"metadata", "continue"});
    auto p2 = s.list(resources::configmaps(), "default", o);
    REQUIRE_FALSE(p2);
    CHECK(is_gone_or_expired(p2.error()));
    CHECK(p2.error().api_status()->reason == "Expired");
    CHECK(status_message(p2.error()).rfind("The provided continue parameter is too old", 0) == 0);
    o.continue_token = "garbage!";
    auto bad = s.list(resources::configmaps(), "default", o);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().http_code() == 400);
}

TEST_CASE("compact() expires continue tokens") {
    object_store s;
    fill_labeled(s);
    list_options o;
    o.limit = 1;
    auto p1 = s.list(resources::configmaps(), "default", o);
    REQUIRE(p1);
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("later")));
    s.compact();
    o.continue_token = str_at(*p1, {"metadata", "continue"});
    auto p2 = s.list(resources::configmaps(), "default", o);
    REQUIRE_FALSE(p2);
    CHECK(is_gone_or_expired(p2.error()));
}

TEST_CASE("resourceVersion and resourceVersionMatch rules") {
    object_store s;
    fill_labeled(s);
    auto cur = s.current_revision();
    auto at = [&](std::string rv, std::string match) {
        list_options o;
        o.resource_version = std::move(rv);
        o.resource_version_match = std::move(match);
        return s.list(resources::configmaps(), "default", o);
    };
    // "0" and unset: the current state.
    CHECK(str_at(*at("0", ""), {"metadata", "resourceVersion"}) == std::to_string(cur));
    CHECK(str_at(*at("", ""), {"metadata", "resourceVersion"}) == std::to_string(cur));
    // Exact at an older revision: the state then.
    auto before_c = cur;
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "c"));
    auto exact = at(std::to_string(before_c), "Exact");
    REQUIRE(exact);
    CHECK(names(*exact) == std::vector<std::string>{"a", "b", "c", "d"});
    CHECK(str_at(*exact, {"metadata", "resourceVersion"}) == std::to_string(before_c));
    // NotOlderThan: current state.
    auto not_older = at(std::to_string(before_c), "NotOlderThan");
    REQUIRE(not_older);
    CHECK(names(*not_older) == std::vector<std::string>{"a", "b", "d"});
    // Newer than current: 504 Too large resource version.
    auto future = at(std::to_string(s.current_revision() + 10), "NotOlderThan");
    REQUIRE_FALSE(future);
    CHECK(is_resource_version_too_large(future.error()));
    CHECK(future.error().http_code() == 504);
    // Exact ahead: etcd's own refusal, a 500 with no reason (Exact goes to etcd).
    auto future_exact = at(std::to_string(s.current_revision() + 10), "Exact");
    REQUIRE_FALSE(future_exact);
    CHECK(future_exact.error().http_code() == 500);
    CHECK(future_exact.error().api_status()->message == "etcdserver: mvcc: required revision is a future revision");
    // Validation of the options.
    auto no_rv = at("", "Exact");
    REQUIRE_FALSE(no_rv);
    CHECK(is_invalid(no_rv.error()));
    auto exact0 = at("0", "Exact");
    REQUIRE_FALSE(exact0);
    CHECK(is_invalid(exact0.error()));
    auto bogus = at("1", "Sometimes");
    REQUIRE_FALSE(bogus);
    CHECK(is_invalid(bogus.error()));
    // Not a number: ParseResourceVersion's storage error, a 500 with no reason (1.32).
    auto nonnum = at("abc", "");
    REQUIRE_FALSE(nonnum);
    CHECK(nonnum.error().http_code() == 500);
    CHECK(nonnum.error().api_status()->reason.empty());
    CHECK(nonnum.error().api_status()->message ==
          "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax");
    auto huge = at("99999999999999999999", "");
    REQUIRE_FALSE(huge);
    CHECK(huge.error().api_status()->message ==
          "resourceVersion: Invalid value: \"99999999999999999999\": strconv.ParseUint: parsing "
          "\"99999999999999999999\": value out of range");
    // Every ValidateListOptions error at once, in its order.
    list_options both;
    both.resource_version_match = "Sometimes";
    both.send_initial_events = true;
    auto two = s.list(resources::configmaps(), "default", both);
    REQUIRE_FALSE(two);
    REQUIRE(two.error().api_status()->details);
    CHECK(two.error().api_status()->details->causes.size() == 3);
    CHECK(two.error().api_status()->details->causes.back().message == "Forbidden: sendInitialEvents is forbidden for list");
    // Exact older than the history window: 410.
    s.compact();
    auto old = at(std::to_string(before_c), "Exact");
    REQUIRE_FALSE(old);
    CHECK(is_gone_or_expired(old.error()));
}

TEST_CASE("cluster-scoped lists ignore the namespace") {
    object_store s;
    auto l = s.list(resources::namespaces(), "", {});
    REQUIRE(l);
    CHECK(l->at("kind") == "NamespaceList");
    CHECK(l->at("items").as_array().size() >= 3);
}
