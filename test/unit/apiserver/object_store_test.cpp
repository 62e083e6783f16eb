// object_store: create, get, update and their semantics.
#include "store/object_store.hpp"

#include "store_test_support.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace kcoro;
using namespace kcoro::apiserver;
using namespace kcoro::apiserver::test;
namespace json = boost::json;

TEST_CASE("initial namespaces exist and the revision has advanced") {
    object_store s;
    for (const char* ns : {"default", "kube-system", "kcoro-system"}) {
        auto n = s.get(resources::namespaces(), "", ns);
        REQUIRE_MESSAGE(n, ns);
        CHECK(str_at(*n, {"status", "phase"}) == "Active");
        CHECK(str_at(*n, {"metadata", "labels", "kubernetes.io/metadata.name"}) == ns);
    }
    CHECK(s.current_revision() >= 3);
}

TEST_CASE("create sets uid, creationTimestamp, resourceVersion, apiVersion/kind") {
    object_store s;
    auto before = s.current_revision();
    auto r = s.create(ctx_at(), resources::configmaps(), "default", configmap("a"));
    REQUIRE(r);
    CHECK(uid_of(*r).size() == 36);
    CHECK(creation_timestamp_of(*r) == format_rfc3339(t0()));
    CHECK(rv_of(*r) == before + 1);
    CHECK(s.current_revision() == before + 1);
    CHECK(api_version_of(*r) == "v1");
    CHECK(kind_of(*r) == "ConfigMap");
    CHECK(namespace_of(*r) == "default");
    // Configmaps have no generation in kube-apiserver.
    CHECK(find_path(*r, {"metadata", "generation"}) == nullptr);
    auto g = s.get(resources::configmaps(), "default", "a");
    REQUIRE(g);
    CHECK(*g == *r);
}

TEST_CASE("client-supplied system fields are replaced") {
    object_store s;
    auto body = configmap("a");
    mutable_metadata(body)["uid"] = "mine";
    mutable_metadata(body)["creationTimestamp"] = "2000-01-01T00:00:00Z";
    mutable_metadata(body)["deletionTimestamp"] = "2000-01-01T00:00:00Z";
    auto r = s.create(ctx_at(), resources::configmaps(), "default", body);
    REQUIRE(r);
    CHECK(uid_of(*r) != "mine");
    CHECK(creation_timestamp_of(*r) == format_rfc3339(t0()));
    CHECK_FALSE(is_being_deleted(*r));
}

TEST_CASE("create with resourceVersion set fails as the real server does") {
    object_store s;
    auto body = configmap("a");
    mutable_metadata(body)["resourceVersion"] = "5";
    auto r = s.create(ctx_at(), resources::configmaps(), "default", body);
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 500);
}

TEST_CASE("uids are unique and deterministic for a seed") {
    object_store a;
    object_store b;
    std::set<std::string> uids;
    for (int i = 0; i < 50; ++i) {
        auto name = "cm" + std::to_string(i);
        auto ra = a.create(ctx_at(), resources::configmaps(), "default", configmap(name));
        auto rb = b.create(ctx_at(), resources::configmaps(), "default", configmap(name));
        REQUIRE(ra);
        REQUIRE(rb);
        CHECK(uid_of(*ra) == uid_of(*rb));
        uids.insert(std::string(uid_of(*ra)));
    }
    CHECK(uids.size() == 50);
}

TEST_CASE("generateName appends 5 random lowercase alphanumerics") {
    object_store s;
    json::object body{{"metadata", json::object{{"generateName", "web-"}}}, {"data", json::object{}}};
    auto a = s.create(ctx_at(), resources::configmaps(), "default", body);
    auto b = s.create(ctx_at(), resources::configmaps(), "default", body);
    REQUIRE(a);
    REQUIRE(b);
    auto na = std::string(name_of(*a));
    CHECK(na.size() == 9);
    CHECK(na.rfind("web-", 0) == 0);
    for (char c : na.substr(4)) CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')));
    CHECK(name_of(*a) != name_of(*b));
}

TEST_CASE("missing name and generateName: 422 Required") {
    object_store s;
    auto r = s.create(ctx_at(), resources::configmaps(), "default", obj(R"({"data":{}})"));
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
    CHECK(status_message(r.error()) ==
          "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is required");
}

TEST_CASE("invalid names: 422 with the apimachinery cause") {
    object_store s;
    auto r = s.create(ctx_at(), resources::configmaps(), "default", configmap("Bad_Name"));
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 422);
    const auto* st = r.error().api_status();
    REQUIRE(st);
    REQUIRE(st->details);
    REQUIRE(st->details->causes.size() == 1);
    CHECK(st->details->causes[0].type == "FieldValueInvalid");
    CHECK(st->details->causes[0].field == "metadata.name");
    CHECK(st->details->kind == "ConfigMap");
    CHECK(st->message.rfind("ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": "
                            "a lowercase RFC 1123 subdomain",
                            0) == 0);
    // Namespaces are labels: a dot is not allowed.
    auto n = s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"a.b"}})"));
    REQUIRE_FALSE(n);
    CHECK(is_invalid(n.error()));
    // Configmaps are subdomains: a dot is fine.
    CHECK(s.create(ctx_at(), resources::configmaps(), "default", configmap("a.b")));
    // Services are DNS-1035 labels: must start with a letter.
    auto svc = s.create(ctx_at(), resources::services(), "default",
                        obj(R"({"metadata":{"name":"1svc"},"spec":{"ports":[{"port":80}]}})"));
    REQUIRE_FALSE(svc);
    CHECK(is_invalid(svc.error()));
}

TEST_CASE("invalid labels are 422") {
    object_store s;
    auto body = configmap("a");
    set_label(body, "bad key", "v");
    auto r = s.create(ctx_at(), resources::configmaps(), "default", body);
    REQUIRE_FALSE(r);
    CHECK(is_invalid(r.error()));
    CHECK(r.error().api_status()->details->causes.at(0).field == "metadata.labels");
}

TEST_CASE("409 AlreadyExists with the real message") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("x")));
    auto rev = s.current_revision();
    auto r = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE_FALSE(r);
    CHECK(is_already_exists(r.error()));
    CHECK(status_message(r.error()) == "configmaps \"x\" already exists");
    CHECK(r.error().api_status()->details->kind == "configmaps");
    CHECK(s.current_revision() == rev);
}

TEST_CASE("404 when the namespace does not exist") {
    object_store s;
    auto r = s.create(ctx_at(), resources::configmaps(), "nope", configmap("x"));
    REQUIRE_FALSE(r);
    CHECK(is_not_found(r.error()));
    CHECK(status_message(r.error()) == "namespaces \"nope\" not found");
}

TEST_CASE("403 Forbidden in a terminating namespace") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::namespaces(), "", obj(R"({"metadata":{"name":"doomed"}})")));
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "doomed", configmap("keep")));
    auto d = s.remove(ctx_at(), resources::namespaces(), "", "doomed");
    REQUIRE(d);
    CHECK_FALSE(d->deleted);
    CHECK(str_at(d->body, {"status", "phase"}) == "Terminating");
    auto r = s.create(ctx_at(), resources::configmaps(), "doomed", configmap("x"));
    REQUIRE_FALSE(r);
    CHECK(is_forbidden(r.error()));
    CHECK(status_message(r.error()) ==
          "configmaps \"x\" is forbidden: unable to create new content in namespace doomed because it is being "
          "terminated");
    const auto& causes = r.error().api_status()->details->causes;
    REQUIRE(causes.size() == 1);
    CHECK(causes[0].type == "NamespaceTerminating");
}

TEST_CASE("namespace mismatch between body and URL is 400") {
    object_store s;
    auto body = configmap("x");
    set_namespace(body, "kube-system");
    auto r = s.create(ctx_at(), resources::configmaps(), "default", body);
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
}

TEST_CASE("update with a stale resourceVersion is 409 and leaves the newer value (reference 002)") {
    object_store s;
    auto created = s.create(ctx_at(), resources::configmaps(), "default", configmap("x", "v1"));
    REQUIRE(created);
    // Writer A updates from the version it read.
    auto a = *created;
    a["data"].as_object()["k"] = "from-a";
    auto ra = s.update(ctx_at(), resources::configmaps(), "default", "x", a);
    REQUIRE(ra);
    CHECK(rv_of(*ra) > rv_of(*created));
    // Writer B still holds the old version.
    auto b = *created;
    b["data"].as_object()["k"] = "from-b";
    auto rb = s.update(ctx_at(), resources::configmaps(), "default", "x", b);
    REQUIRE_FALSE(rb);
    CHECK(is_conflict(rb.error()));
    CHECK(status_message(rb.error()) ==
          "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your "
          "changes to the latest version and try again");
    auto now = s.get(resources::configmaps(), "default", "x");
    REQUIRE(now);
    CHECK(str_at(*now, {"data", "k"}) == "from-a");
}

TEST_CASE("a UID-named side effect created three times leaves one object with the latest value (reference 002)") {
    object_store s;
    auto owner = s.create(ctx_at(), resources::configmaps(), "default", configmap("owner"));
    REQUIRE(owner);
    std::string effect = "effect-" + std::string(uid_of(*owner));
    // Three passes of "create, and on AlreadyExists read and update to the desired value".
    for (int pass = 1; pass <= 3; ++pass) {
        auto desired = configmap(effect, "value-" + std::to_string(pass));
        auto c = s.create(ctx_at(), resources::configmaps(), "default", desired);
        if (!c) {
            REQUIRE(is_already_exists(c.error()));
            auto cur = s.get(resources::configmaps(), "default", effect);
            REQUIRE(cur);
            auto next = *cur;
            next["data"] = desired["data"];
            REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", effect, next));
        }
    }
    auto l = s.list(resources::configmaps(), "default", {});
    REQUIRE(l);
    int count = 0;
    for (const auto& item : l->at("items").as_array()) {
        if (name_of(item.as_object()) == effect) {
            ++count;
            CHECK(str_at(item.as_object(), {"data", "k"}) == "value-3");
        }
    }
    CHECK(count == 1);
}

TEST_CASE("update without resourceVersion: unconditional for built-ins") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("x", "v1")));
    auto r = s.update(ctx_at(), resources::configmaps(), "default", "x", configmap("x", "v2"));
    REQUIRE(r);
    CHECK(str_at(*r, {"data", "k"}) == "v2");
}

TEST_CASE("update of a missing object: 404, or create where AllowCreateOnUpdate") {
    object_store s;
    auto r = s.update(ctx_at(), resources::configmaps(), "default", "ghost", configmap("ghost"));
    REQUIRE_FALSE(r);
    CHECK(is_not_found(r.error()));
    CHECK(status_message(r.error()) == "configmaps \"ghost\" not found");
    bool created = false;
    auto lease = s.update(ctx_at(), resources::leases(), "default", "l",
                          obj(R"({"metadata":{"name":"l"},"spec":{"holderIdentity":"me"}})"), subresource::none,
                          &created);
    REQUIRE(lease);
    CHECK(created);
    CHECK(str_at(*lease, {"spec", "holderIdentity"}) == "me");
}

TEST_CASE("update keeps system fields and rejects a changed uid") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(c);
    auto next = *c;
    mutable_metadata(next).erase("creationTimestamp");
    next["data"].as_object()["k"] = "2";
    auto r = s.update(ctx_at(t0() + std::chrono::hours(1)), resources::configmaps(), "default", "x", next);
    REQUIRE(r);
    CHECK(creation_timestamp_of(*r) == creation_timestamp_of(*c));
    CHECK(uid_of(*r) == uid_of(*c));
    auto bad = *r;
    mutable_metadata(bad)["uid"] = "other";
    auto e = s.update(ctx_at(), resources::configmaps(), "default", "x", bad);
    REQUIRE_FALSE(e);
    CHECK(is_invalid(e.error()));
}

TEST_CASE("name mismatch between body and URL is 400") {
    object_store s;
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("x")));
    auto r = s.update(ctx_at(), resources::configmaps(), "default", "x", configmap("y"));
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
}

TEST_CASE("a no-op update does not bump the revision") {
    object_store s;
    auto c = s.create(ctx_at(), resources::configmaps(), "default", configmap("x"));
    REQUIRE(c);
    auto rev = s.current_revision();
    auto r = s.update(ctx_at(), resources::configmaps(), "default", "x", *c);
    REQUIRE(r);
    CHECK(resource_version_of(*r) == resource_version_of(*c));
    CHECK(s.current_revision() == rev);
}

TEST_CASE("resourceVersion is strictly increasing across resources") {
    object_store s;
    std::uint64_t last = s.current_revision();
    for (int i = 0; i < 20; ++i) {
        auto r = i % 2 ? s.create(ctx_at(), resources::configmaps(), "default", configmap("c" + std::to_string(i)))
                       : s.create(ctx_at(), resources::secrets(), "default",
                                  obj(R"({"metadata":{"name":"s)" + std::to_string(i) + R"("}})"));
        REQUIRE(r);
        CHECK(rv_of(*r) > last);
        last = rv_of(*r);
    }
}

TEST_CASE("dry run validates and answers without committing") {
    object_store s;
    auto ctx = ctx_at();
    ctx.dry_run = true;
    auto rev = s.current_revision();
    auto r = s.create(ctx, resources::configmaps(), "default", configmap("x"));
    REQUIRE(r);
    CHECK(resource_version_of(*r).empty());
    CHECK(s.current_revision() == rev);
    CHECK_FALSE(s.get(resources::configmaps(), "default", "x"));
    auto bad = s.create(ctx, resources::configmaps(), "default", configmap("Bad"));
    CHECK_FALSE(bad);
}

TEST_CASE("unknown resources are 404") {
    object_store s;
    auto r = s.get({"example.com", "v1", "widgets"}, "default", "x");
    REQUIRE_FALSE(r);
    CHECK(is_not_found(r.error()));
}

TEST_CASE("commit hook sees every committed revision") {
    object_store s;
    std::vector<revision_t> seen;
    s.set_commit_hook([&](revision_t r) { seen.push_back(r); });
    REQUIRE(s.create(ctx_at(), resources::configmaps(), "default", configmap("x")));
    REQUIRE(s.update(ctx_at(), resources::configmaps(), "default", "x", configmap("x", "2")));
    REQUIRE(s.remove(ctx_at(), resources::configmaps(), "default", "x"));
    REQUIRE(seen.size() == 3);
    CHECK(seen.back() == s.current_revision());
    CHECK(seen[0] < seen[1]);
}

TEST_CASE("a number beyond the double range is refused, never stored as an infinity") {
    // Regression (libFuzzer, strategic_merge_patch): Boost.JSON parses 1e999
    // as an infinity and would serialize it as `Infinity`, which is not JSON.
    object_store s;
    auto body = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"immutable":1e999})");
    auto r = s.create(ctx_at(), resources::configmaps(), "default", body.as_object());
    REQUIRE_FALSE(r);
    CHECK(r.error().http_code() == 400);
    CHECK(status_message(r.error()) == "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot "
                                       "unmarshal number into Go value of type float64: out of range");
    auto ok = s.create(ctx_at(), resources::configmaps(), "default",
                       boost::json::parse(R"({"metadata":{"name":"d"},"data":{"a":"1"}})").as_object());
    REQUIRE(ok);
    auto p = s.patch(ctx_at(), resources::configmaps(), "default", "d", patch_type::merge, R"({"immutable":-1e999})");
    REQUIRE_FALSE(p);
    CHECK(p.error().http_code() == 422);
}
