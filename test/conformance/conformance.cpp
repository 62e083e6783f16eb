// kcoro-conformance: scenarios that check the API semantics of issue 3
// through the kcoro client, against any server reachable with a kubeconfig
// (kcoro-apiserver in CI, a real cluster by hand; see docs/apiserver.md).
//
//   kcoro-conformance [--kubeconfig PATH] [--context NAME] [--run SUBSTRING]
//                     [--bookmark-wait SECONDS] [--gc-wait SECONDS] [--list]
//
// Without --kubeconfig the usual order applies (KUBECONFIG, ~/.kube/config).
// Each scenario runs in its own fresh namespace (conf-<scenario>-<suffix>),
// which it deletes at the end; the scenarios needing a custom resource share
// one CRD (widgets.conformance.kcoro.dev), created when missing and deleted at
// the end when this run created it. Output: one `PASS name`, `FAIL name:
// why` or `SKIP name: why` line per scenario and a summary; exit status 1
// when a scenario failed, 2 on a usage or configuration error.
//
// Waiting: a real server's garbage collector and CRD establishment are
// asynchronous, so the scenarios poll with a bound (--gc-wait, default 30 s);
// against kcoro-apiserver they finish in milliseconds.
#include <kcoro/client/client.hpp>
#include <kcoro/client/config.hpp>
#include <kcoro/core/api_request.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/core/requests.hpp>
#include <kcoro/io/clock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <chrono>
#include <exception>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using kcoro::object_key;
using kcoro::object_ptr;

namespace {

struct failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct skipped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

#define CONF_STR2(x) #x
#define CONF_STR(x) CONF_STR2(x)
#define EXPECT(cond, what)                                                                    \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            throw failure(std::string(what) + " [" #cond ", line " CONF_STR(__LINE__) "]"); \
        }                                                                                     \
    } while (0)

// `what` is a string_view so that `must(co_await f(...), "what")` holds no
// non-trivial temporary across the suspension (g++ 12, docs/toolchain.md).
template <class T>
T must(kcoro::result<T> r, std::string_view what) {
    if (!r) {
        throw failure(std::string(what) + ": " + r.error().message());
    }
    return std::move(*r);
}

/// The error of `r`, which must have failed with `code` and (when given) a
/// Status message containing `text`.
template <class T>
kcoro::error must_fail(const kcoro::result<T>& r, kcoro::api_errc code, std::string_view text,
                       const std::string& what) {
    if (r) {
        throw failure(what + ": succeeded, expected " + kcoro::make_error_code(code).message());
    }
    const auto& e = r.error();
    if (e.code() != kcoro::make_error_code(code)) {
        throw failure(what + ": expected " + kcoro::make_error_code(code).message() + ", got " + e.message() +
                      " (HTTP " + std::to_string(e.http_code()) + ")");
    }
    if (!text.empty()) {
        const auto* s = e.api_status();
        if (s == nullptr || s->message.find(text) == std::string::npos) {
            throw failure(what + ": message " + (s ? "\"" + s->message + "\"" : std::string("(no Status)")) +
                          " lacks \"" + std::string(text) + "\"");
        }
    }
    return e;
}

std::uint64_t rv_number(std::string_view rv) {
    std::uint64_t n = 0;
    auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
    if (ec != std::errc{} || p != rv.data() + rv.size()) {
        throw failure("resourceVersion \"" + std::string(rv) + "\" is not a number");
    }
    return n;
}

std::string str(const json::value* v) {
    return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}
std::string data_of(const json::object& o, std::string_view key) {
    auto p = kcoro::find_path(o, {"data", key});
    return str(p);
}

struct options {
    std::string kubeconfig;
    std::string context;
    std::string run;  // substring filter
    int bookmark_wait = 10;
    int gc_wait = 30;
    bool list = false;
};

const kcoro::group_version_resource widgets_gvr{"conformance.kcoro.dev", "v1", "widgets"};
constexpr std::string_view widgets_crd_name = "widgets.conformance.kcoro.dev";

json::object widgets_crd() {
    return json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "widgets.conformance.kcoro.dev"},
      "spec": {"group": "conformance.kcoro.dev", "scope": "Namespaced",
        "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
        "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "color": {"type": "string"}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}, "observed": {"type": "integer"}}}}}}}]}})")
        .as_object();
}

/// What one scenario works with.
struct ctx {
    kcoro::client::client& c;
    const options& opt;
    std::string ns;
    bool kcoro_server = false;  // the server has kcoro-apiserver's fault endpoint
    kcoro::group_version_resource cms = kcoro::resources::configmaps();
    kcoro::group_version_resource svcs = kcoro::resources::services();

    asio::awaitable<void> sleep(std::chrono::milliseconds d) {
        asio::steady_timer t(co_await asio::this_coro::executor, d);
        co_await t.async_wait(asio::use_awaitable);
    }

    json::object configmap(std::string_view name, std::string_view value) const {
        json::object o{{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
        kcoro::set_name(o, name);
        kcoro::set_namespace(o, ns);
        o["data"] = json::object{{"value", value}};
        return o;
    }
    json::object widget(std::string_view name, std::int64_t size) const {
        json::object o{{"apiVersion", "conformance.kcoro.dev/v1"}, {"kind", "Widget"}};
        kcoro::set_name(o, name);
        kcoro::set_namespace(o, ns);
        o["spec"] = json::object{{"size", size}, {"color", "blue"}};
        return o;
    }
    object_key key(std::string_view name) const { return object_key{ns, std::string(name)}; }

    asio::awaitable<object_ptr> create(const kcoro::group_version_resource& gvr, const json::object& o) {
        const kcoro::create_options co{};
        auto r = co_await c.create(gvr, ns, o, co);
        if (!r) {
            throw failure("create " + std::string(kcoro::name_of(o)) + ": " + r.error().message());
        }
        co_return std::move(*r);
    }
    asio::awaitable<object_ptr> create_cm(std::string_view name, std::string_view value) {
        const json::object o = configmap(name, value);
        auto r = co_await create(cms, o);
        co_return r;
    }
    asio::awaitable<object_ptr> create_widget(std::string_view name, std::int64_t size) {
        const json::object o = widget(name, size);
        auto r = co_await create(widgets_gvr, o);
        co_return r;
    }
    asio::awaitable<kcoro::result<object_ptr>> get(const kcoro::group_version_resource& gvr, std::string_view name) {
        const kcoro::get_options go{};
        const object_key k = key(name);
        auto r = co_await c.get(gvr, k, go);
        co_return r;
    }
    asio::awaitable<object_ptr> must_get(const kcoro::group_version_resource& gvr, std::string_view name) {
        auto r = co_await get(gvr, name);
        if (!r) {
            throw failure("get " + std::string(name) + ": " + r.error().message());
        }
        co_return std::move(*r);
    }
    asio::awaitable<kcoro::result<object_ptr>> update(const kcoro::group_version_resource& gvr, const json::object& o) {
        const kcoro::update_options uo{};
        auto r = co_await c.update(gvr, o, uo);
        co_return r;
    }
    asio::awaitable<kcoro::result<object_ptr>> patch(const kcoro::group_version_resource& gvr, std::string_view name,
                                                      std::string_view body, kcoro::patch_options po) {
        const object_key k = key(name);
        std::string b(body);
        auto r = co_await c.patch(gvr, k, std::move(b), po);
        co_return r;
    }
    asio::awaitable<kcoro::result<object_ptr>> remove(const kcoro::group_version_resource& gvr, std::string_view name,
                                                       kcoro::delete_options d) {
        const object_key k = key(name);
        auto r = co_await c.remove(gvr, k, d);
        co_return r;
    }
    /// One request through the client's transport; any HTTP answer is a value
    /// (for checks of exact status codes, content types and bodies).
    /// Build the request first (no temporaries in a co_await operand, g++ 12).
    static kcoro::api_request request(kcoro::http_method method, std::string target, std::string body,
                                      std::string content_type, std::string accept) {
        kcoro::api_request req;
        req.method = method;
        req.target = std::move(target);
        req.body = std::move(body);
        req.content_type = std::move(content_type);
        if (!accept.empty()) req.headers.emplace_back("Accept", std::move(accept));
        req.verb = kcoro::to_string(method);
        return req;
    }
    asio::awaitable<kcoro::client::http_response> raw(const kcoro::api_request& req) {
        auto r = co_await c.http().round_trip(req);
        if (!r) {
            throw failure("request " + req.target + ": " + r.error().message());
        }
        co_return std::move(*r);
    }
    std::string ns_path(std::string_view resource) const {
        return "/api/v1/namespaces/" + ns + "/" + std::string(resource);
    }

    /// Polls until get(name) is 404, at most --gc-wait seconds.
    asio::awaitable<bool> wait_gone(const kcoro::group_version_resource& gvr, std::string_view name) {
        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(opt.gc_wait);
        while (std::chrono::steady_clock::now() < end) {
            auto r = co_await get(gvr, name);
            if (!r && kcoro::is_not_found(r.error())) {
                co_return true;
            }
            co_await sleep(50ms);
        }
        co_return false;
    }
};

using scenario_fn = std::function<asio::awaitable<void>(ctx&)>;

struct scenario {
    std::string name;
    bool needs_crd = false;
    scenario_fn run;
};

// ---------------------------------------------------------------------------
// Scenarios

asio::awaitable<void> resource_version(ctx& x) {
    auto a = co_await x.create_cm("rv", "one");
    EXPECT(!kcoro::resource_version_of(*a).empty(), "create returns the object with a resourceVersion");
    EXPECT(!kcoro::uid_of(*a).empty() && !kcoro::creation_timestamp_of(*a).empty(), "uid and creationTimestamp set");
    auto v1 = rv_number(kcoro::resource_version_of(*a));
    json::object o = *a;
    o["data"] = json::object{{"value", "two"}};
    auto b = must(co_await x.update(x.cms, o), "update");
    auto v2 = rv_number(kcoro::resource_version_of(*b));
    EXPECT(v2 > v1, "update returns a greater resourceVersion");
    EXPECT(data_of(*b, "value") == "two", "update returns the new object");
    kcoro::patch_options po{};
    auto c = must(co_await x.patch(x.cms, "rv", R"({"data":{"value":"three"}})", po), "patch");
    auto v3 = rv_number(kcoro::resource_version_of(*c));
    EXPECT(v3 > v2, "patch returns a greater resourceVersion");
    // Another object's write advances the same global revision.
    auto d = co_await x.create_cm("rv2", "x");
    EXPECT(rv_number(kcoro::resource_version_of(*d)) > v3, "a write to another object takes a greater revision");
    const kcoro::list_options lo{};
    auto l = must(co_await x.c.list(x.cms, x.ns, lo), "list");
    EXPECT(rv_number(l.resource_version) >= rv_number(kcoro::resource_version_of(*d)),
           "list's resourceVersion is at least the last write's");
    // A write that changes nothing commits nothing.
    json::object same = *c;
    auto e = must(co_await x.update(x.cms, same), "no-op update");
    EXPECT(kcoro::resource_version_of(*e) == kcoro::resource_version_of(*c), "a no-op update keeps the resourceVersion");
}

asio::awaitable<void> generation(ctx& x) {
    auto w = co_await x.create_widget("g", 1);
    EXPECT(kcoro::generation_of(*w) == 1, "generation starts at 1");
    json::object o = *w;
    o["spec"].as_object()["size"] = 2;
    w = must(co_await x.update(widgets_gvr, o), "spec update");
    EXPECT(kcoro::generation_of(*w) == 2, "a spec change bumps generation");
    o = *w;
    kcoro::set_label(o, "touched", "yes");
    kcoro::set_annotation(o, "note", "metadata only");
    w = must(co_await x.update(widgets_gvr, o), "metadata update");
    EXPECT(kcoro::generation_of(*w) == 2, "a metadata-only change keeps generation");
    o = *w;
    o["status"] = json::object{{"ready", true}, {"observed", 2}};
    kcoro::update_options so;
    so.subresource = "status";
    auto s = must(co_await x.c.update_status(widgets_gvr, o, so), "status update");
    EXPECT(kcoro::generation_of(*s) == 2, "a status change keeps generation");
    EXPECT(kcoro::find_path(*s, {"status", "ready"}) && kcoro::find_path(*s, {"status", "ready"})->as_bool(),
           "status written");
    // A finalizer then delete: setting deletionTimestamp bumps generation.
    o = *s;
    kcoro::add_finalizer(o, "conformance.kcoro.dev/hold");
    s = must(co_await x.update(widgets_gvr, o), "add finalizer");
    EXPECT(kcoro::generation_of(*s) == 2, "adding a finalizer keeps generation");
    const kcoro::delete_options none{};
    must(co_await x.remove(widgets_gvr, "g", none), "delete");
    auto held = co_await x.must_get(widgets_gvr, "g");
    EXPECT(kcoro::is_being_deleted(*held), "deletionTimestamp set");
    EXPECT(kcoro::generation_of(*held) == 3, "setting deletionTimestamp bumps generation");
    o = *held;
    kcoro::remove_finalizer(o, "conformance.kcoro.dev/hold");
    must(co_await x.update(widgets_gvr, o), "remove finalizer");
    EXPECT(co_await x.wait_gone(widgets_gvr, "g"), "object gone after its last finalizer");
}

// Reference 002, experiment 1: a write based on a stale read gets 409 and the
// newer value stays.
asio::awaitable<void> stale_write_conflict(ctx& x) {
    auto one = co_await x.create_cm("desired", "one");
    json::object cached = *one;  // the saved snapshot
    json::object fresh = *one;
    fresh["data"] = json::object{{"value", "two"}};
    must(co_await x.update(x.cms, fresh), "update to two");
    cached["data"] = json::object{{"value", "stale-write"}};
    auto r = co_await x.update(x.cms, cached);
    must_fail(r, kcoro::api_errc::conflict,
              "Operation cannot be fulfilled on configmaps \"desired\": the object has been modified; please apply "
              "your changes to the latest version and try again",
              "stale update");
    EXPECT(r.error().api_status()->reason == "Conflict", "reason Conflict");
    auto now = co_await x.must_get(x.cms, "desired");
    EXPECT(data_of(*now, "value") == "two", "the newer value stays");
    // A patch carrying the stale resourceVersion is refused the same way.
    kcoro::patch_options po{};
    std::string p = R"({"metadata":{"resourceVersion":")" + std::string(kcoro::resource_version_of(*one)) +
                    R"("},"data":{"value":"stale-patch"}})";
    auto rp = co_await x.patch(x.cms, "desired", p, po);
    must_fail(rp, kcoro::api_errc::conflict, "the object has been modified", "stale patch");
    // Delete with a stale resourceVersion precondition.
    kcoro::delete_options dopt{};
    dopt.preconditions = kcoro::delete_preconditions{"", std::string(kcoro::resource_version_of(*one))};
    auto rd = co_await x.remove(x.cms, "desired", dopt);
    // rest.BeforeDelete's wording, the object named by Kind.
    auto latest = co_await x.must_get(x.cms, "desired");
    must_fail(rd, kcoro::api_errc::conflict,
              "Operation cannot be fulfilled on ConfigMap \"desired\": the ResourceVersion in the precondition (" +
                  std::string(kcoro::resource_version_of(*one)) +
                  ") does not match the ResourceVersion in record (" +
                  std::string(kcoro::resource_version_of(*latest)) + "). The object might have been modified",
              "delete with a stale precondition");
    kcoro::delete_options uopt{};
    uopt.preconditions = kcoro::delete_preconditions{"00000000-0000-4000-8000-000000000000", ""};
    auto ru = co_await x.remove(x.cms, "desired", uopt);
    must_fail(ru, kcoro::api_errc::conflict,
              "Operation cannot be fulfilled on ConfigMap \"desired\": the UID in the precondition "
              "(00000000-0000-4000-8000-000000000000) does not match the UID in record (" +
                  std::string(kcoro::uid_of(*latest)) + "). The object might have been deleted and then recreated",
              "delete with a wrong uid precondition");
}

// Reference 002, experiment 2: a side effect named after the owner's UID,
// created by three passes (the first one "crashes" before recording), is one
// object holding the latest desired value.
asio::awaitable<void> uid_named_side_effect(ctx& x) {
    auto d = co_await x.create_cm("desired", "one");
    json::object o = *d;
    o["data"] = json::object{{"value", "two"}};
    must(co_await x.update(x.cms, o), "update to two");
    for (int pass = 1; pass <= 3; ++pass) {
        auto desired = co_await x.must_get(x.cms, "desired");  // read the latest, not an event's copy
        std::string effect = "effect-" + std::string(kcoro::uid_of(*desired));
        std::string want = data_of(*desired, "value");
        const kcoro::create_options co{};
        json::object eff = x.configmap(effect, want);
        auto created = co_await x.c.create(x.cms, x.ns, eff, co);
        if (!created) {
            EXPECT(kcoro::is_already_exists(created.error()), "pass " + std::to_string(pass) + ": create fails only with AlreadyExists, got " + created.error().message());
            EXPECT(pass > 1, "the first pass creates the effect");
            auto cur = co_await x.must_get(x.cms, effect);
            if (data_of(*cur, "value") != want) {
                json::object fix = *cur;
                fix["data"] = json::object{{"value", want}};
                must(co_await x.update(x.cms, fix), "adjust effect");
            }
        } else {
            EXPECT(pass == 1, "only the first pass creates");
        }
        if (pass == 1) {
            continue;  // crash before recording the acknowledgement
        }
        kcoro::patch_options po{};
        must(co_await x.patch(x.cms, "desired", R"({"metadata":{"annotations":{"conformance.kcoro.dev/effect":"recorded"}}})", po),
             "record");
    }
    const kcoro::list_options lo{};
    auto l = must(co_await x.c.list(x.cms, x.ns, lo), "list");
    int effects = 0;
    for (const auto& item : l.items) {
        if (kcoro::name_of(*item).starts_with("effect-")) {
            ++effects;
            EXPECT(data_of(*item, "value") == "two", "the effect holds the latest desired value");
        }
    }
    EXPECT(effects == 1, "exactly one effect after three passes, found " + std::to_string(effects));
}

asio::awaitable<void> already_exists(ctx& x) {
    co_await x.create_cm("dup", "a");
    const kcoro::create_options co{};
    json::object again = x.configmap("dup", "b");
    auto r = co_await x.c.create(x.cms, x.ns, again, co);
    auto e = must_fail(r, kcoro::api_errc::already_exists, "configmaps \"dup\" already exists", "second create");
    EXPECT(e.api_status()->reason == "AlreadyExists" && e.api_status()->code == 409, "409 AlreadyExists");
    auto cur = co_await x.must_get(x.cms, "dup");
    EXPECT(data_of(*cur, "value") == "a", "the first object stays");
}

asio::awaitable<void> missing_namespace(ctx& x) {
    const kcoro::create_options co{};
    std::string missing = x.ns + "-absent";
    json::object o = x.configmap("cm", "a");
    kcoro::set_namespace(o, missing);
    auto r = co_await x.c.create(x.cms, missing, o, co);
    auto e = must_fail(r, kcoro::api_errc::not_found, "namespaces \"" + missing + "\" not found", "create in a missing namespace");
    EXPECT(e.http_code() == 404, "404");
}

asio::awaitable<void> finalizers(ctx& x) {
    json::object o = x.configmap("fin", "a");
    kcoro::add_finalizer(o, "conformance.kcoro.dev/one");
    co_await x.create(x.cms, o);
    const kcoro::delete_options none{};
    auto del = must(co_await x.remove(x.cms, "fin", none), "delete");
    EXPECT(kcoro::is_being_deleted(*del), "delete answers the object with deletionTimestamp");
    auto held = co_await x.must_get(x.cms, "fin");
    EXPECT(kcoro::is_being_deleted(*held), "the object stays while a finalizer is present");
    EXPECT(kcoro::find_path(*held, {"metadata", "deletionGracePeriodSeconds"}) != nullptr, "deletionGracePeriodSeconds set");
    json::object more = *held;
    kcoro::add_finalizer(more, "conformance.kcoro.dev/two");
    auto r = co_await x.update(x.cms, more);
    must_fail(r, kcoro::api_errc::invalid, "no new finalizers can be added if the object is being deleted", "add a finalizer while deleting");
    // Other changes are still allowed while deleting.
    json::object edit = *held;
    edit["data"] = json::object{{"value", "b"}};
    auto edited = must(co_await x.update(x.cms, edit), "update while deleting");
    json::object last = *edited;
    kcoro::remove_finalizer(last, "conformance.kcoro.dev/one");
    must(co_await x.update(x.cms, last), "remove the last finalizer");
    EXPECT(co_await x.wait_gone(x.cms, "fin"), "gone after the last finalizer");
}

/// An owner ConfigMap with `n` dependents dep-<i> (ownerReferences by uid).
asio::awaitable<object_ptr> owner_with_dependents(ctx& x, std::string_view owner, int n, bool block) {
    auto o = co_await x.create_cm(owner, "owner");
    for (int i = 0; i < n; ++i) {
        json::object d = x.configmap(std::string(owner) + "-dep" + std::to_string(i), "dep");
        json::object ref{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", kcoro::name_of(*o)},
                         {"uid", kcoro::uid_of(*o)}};
        if (block) {
            ref["blockOwnerDeletion"] = true;
        }
        kcoro::mutable_metadata(d)["ownerReferences"] = json::array{ref};
        co_await x.create(x.cms, d);
    }
    co_return o;
}

asio::awaitable<void> propagation_background(ctx& x) {
    co_await owner_with_dependents(x, "bg", 2, false);
    kcoro::delete_options d;
    d.propagation_policy = kcoro::deletion_propagation::background;
    must(co_await x.remove(x.cms, "bg", d), "delete (Background)");
    auto gone = co_await x.get(x.cms, "bg");
    EXPECT(!gone && kcoro::is_not_found(gone.error()), "the owner is gone at once");
    EXPECT(co_await x.wait_gone(x.cms, "bg-dep0"), "dependent 0 collected");
    EXPECT(co_await x.wait_gone(x.cms, "bg-dep1"), "dependent 1 collected");
}

asio::awaitable<void> propagation_foreground(ctx& x) {
    co_await owner_with_dependents(x, "fg", 2, true);
    kcoro::delete_options d;
    d.propagation_policy = kcoro::deletion_propagation::foreground;
    auto r = must(co_await x.remove(x.cms, "fg", d), "delete (Foreground)");
    // The owner waits with the foregroundDeletion finalizer (unless the GC
    // was already done: then it is gone).
    auto now = co_await x.get(x.cms, "fg");
    if (now) {
        EXPECT(kcoro::is_being_deleted(**now), "owner has a deletionTimestamp");
        EXPECT(kcoro::has_finalizer(**now, "foregroundDeletion"), "owner carries foregroundDeletion");
    }
    EXPECT(kcoro::has_finalizer(*r, "foregroundDeletion"), "the delete answer carries foregroundDeletion");
    EXPECT(co_await x.wait_gone(x.cms, "fg-dep0"), "dependent 0 collected");
    EXPECT(co_await x.wait_gone(x.cms, "fg-dep1"), "dependent 1 collected");
    EXPECT(co_await x.wait_gone(x.cms, "fg"), "owner gone after its dependents");
}

asio::awaitable<void> propagation_orphan(ctx& x) {
    co_await owner_with_dependents(x, "or", 2, false);
    kcoro::delete_options d;
    d.propagation_policy = kcoro::deletion_propagation::orphan;
    must(co_await x.remove(x.cms, "or", d), "delete (Orphan)");
    EXPECT(co_await x.wait_gone(x.cms, "or"), "owner gone once orphaning is done");
    for (std::string dep : {"or-dep0", "or-dep1"}) {
        auto obj = co_await x.get(x.cms, dep);
        EXPECT(obj.has_value(), dep + " kept");
        EXPECT(kcoro::owner_references_of(**obj).empty(), dep + " lost its owner reference");
    }
}

asio::awaitable<void> gc_missing_owner(ctx& x) {
    // An owner reference to an object that never existed is collected.
    json::object d = x.configmap("orphaned", "x");
    json::object ref{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "never-existed"},
                     {"uid", "00000000-0000-4000-8000-00000000c0f0"}};
    kcoro::mutable_metadata(d)["ownerReferences"] = json::array{ref};
    co_await x.create(x.cms, d);
    EXPECT(co_await x.wait_gone(x.cms, "orphaned"), "a dependent of a never-existing owner is collected");
}

asio::awaitable<void> status_subresource(ctx& x) {
    auto w = co_await x.create_widget("s", 1);
    EXPECT(kcoro::find_path(*w, {"status"}) == nullptr, "status dropped on create");
    json::object o = *w;
    o["status"] = json::object{{"ready", true}};
    o["spec"].as_object()["size"] = 5;
    auto main = must(co_await x.update(widgets_gvr, o), "main update with status");
    EXPECT(kcoro::find_path(*main, {"status", "ready"}) == nullptr, "the main endpoint ignores status");
    EXPECT(kcoro::find_path(*main, {"spec", "size"})->to_number<int>() == 5, "the main endpoint changes spec");
    o = *main;
    o["status"] = json::object{{"ready", true}};
    o["spec"].as_object()["size"] = 9;
    kcoro::set_label(o, "ignored", "yes");
    kcoro::update_options so;
    so.subresource = "status";
    auto st = must(co_await x.c.update_status(widgets_gvr, o, so), "status update");
    EXPECT(kcoro::find_path(*st, {"status", "ready"}) && kcoro::find_path(*st, {"status", "ready"})->as_bool(),
           "/status changes status");
    EXPECT(kcoro::find_path(*st, {"spec", "size"})->to_number<int>() == 5, "/status ignores spec");
    EXPECT(!kcoro::label_of(*st, "ignored"), "/status ignores labels");
    kcoro::patch_options po{};
    po.subresource = "status";
    auto ps = must(co_await x.patch(widgets_gvr, "s", R"({"spec":{"size":7},"status":{"observed":3}})", po), "status patch");
    EXPECT(kcoro::find_path(*ps, {"status", "observed"})->to_number<int>() == 3, "status patch changes status");
    EXPECT(kcoro::find_path(*ps, {"spec", "size"})->to_number<int>() == 5, "status patch ignores spec");
}

asio::awaitable<void> patches(ctx& x) {
    co_await x.create_cm("p", "a");
    kcoro::patch_options merge{};
    auto m = must(co_await x.patch(x.cms, "p", R"({"data":{"value":null,"other":"b"}})", merge), "merge patch");
    EXPECT(data_of(*m, "value").empty() && data_of(*m, "other") == "b", "merge patch: null removes, members merge");

    kcoro::patch_options jp;
    jp.type = kcoro::patch_type::json;
    auto j = must(co_await x.patch(x.cms, "p", R"([{"op":"test","path":"/data/other","value":"b"},{"op":"add","path":"/data/third","value":"c"}])", jp), "json patch");
    EXPECT(data_of(*j, "third") == "c", "json patch applied");
    auto jt = co_await x.patch(x.cms, "p", R"([{"op":"test","path":"/data/other","value":"zzz"},{"op":"add","path":"/data/fourth","value":"d"}])", jp);
    auto e = must_fail(jt, kcoro::api_errc::invalid, "", "json patch with a failing test");
    EXPECT(e.http_code() == 422, "a failing test is 422");
    auto after = co_await x.must_get(x.cms, "p");
    EXPECT(data_of(*after, "fourth").empty(), "a failing test applies nothing");

    // Strategic merge on a Service: ports merge by port number.
    json::object svc = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"},
        "spec":{"selector":{"app":"x"},"ports":[{"name":"http","port":80},{"name":"https","port":443}]}})").as_object();
    kcoro::set_namespace(svc, x.ns);
    co_await x.create(x.svcs, svc);
    kcoro::patch_options sp;
    sp.type = kcoro::patch_type::strategic_merge;
    auto s = must(co_await x.patch(x.svcs, "svc", R"({"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}]}})", sp), "strategic patch");
    const auto* ports = kcoro::find_path(*s, {"spec", "ports"});
    EXPECT(ports && ports->as_array().size() == 2, "strategic merge kept the other port");
    bool found = false;
    for (const auto& p : ports->as_array()) {
        if (p.as_object().at("port").to_number<int>() == 80) {
            found = p.as_object().at("targetPort").to_number<int>() == 8080;
        }
    }
    EXPECT(found, "strategic merge changed port 80's targetPort");

    // Server-side apply: ownership, conflict naming the field, force.
    json::object applied = x.configmap("ssa", "a");
    const std::string manager_a = "manager-a";
    const std::string manager_b = "manager-b";
    auto a1 = must(co_await x.c.apply(x.cms, applied, manager_a, false), "apply by manager-a");
    EXPECT(kcoro::managed_fields_of(*a1) != nullptr, "managedFields tracked");
    json::object other = x.configmap("ssa", "b");
    auto a2 = co_await x.c.apply(x.cms, other, manager_b, false);
    auto ce = must_fail(a2, kcoro::api_errc::conflict, "conflict with \"manager-a\"", "conflicting apply");
    EXPECT(ce.api_status()->message.find(".data.value") != std::string::npos, "the conflict names .data.value: " + ce.api_status()->message);
    auto a3 = must(co_await x.c.apply(x.cms, other, manager_b, true), "forced apply");
    EXPECT(data_of(*a3, "value") == "b", "force takes the field");
    bool b_owns = false;
    for (const auto& mf : kcoro::managed_fields_of(*a3)->as_array()) {
        if (str(mf.as_object().if_contains("manager")) == "manager-b") {
            b_owns = true;
        }
    }
    EXPECT(b_owns, "manager-b in managedFields");
}

// Every list selects the scenario's own objects (label set=paging): a real
// cluster adds kube-root-ca.crt to every namespace.
asio::awaitable<void> list_paging_selectors(ctx& x) {
    const std::string own = "conformance.kcoro.dev/set=paging";
    auto make = [&](const std::string& name, const std::string& value) {
        json::object o = x.configmap(name, value);
        kcoro::set_label(o, "conformance.kcoro.dev/set", "paging");
        return o;
    };
    for (int i = 0; i < 5; ++i) {
        json::object o = make("item" + std::to_string(i), std::to_string(i));
        kcoro::set_label(o, "tier", i % 2 == 0 ? "a" : "b");
        if (i == 4) {
            kcoro::set_label(o, "special", "yes");
        }
        co_await x.create(x.cms, o);
    }
    kcoro::list_options lo;
    lo.label_selector = own;
    lo.limit = 2;
    std::vector<std::string> names;
    std::string first_rv;
    int pages = 0;
    for (;;) {
        auto page = must(co_await x.c.list(x.cms, x.ns, lo), "list page");
        ++pages;
        EXPECT(page.items.size() <= 2, "limit respected");
        if (first_rv.empty()) {
            first_rv = page.resource_version;
        }
        for (const auto& i : page.items) {
            names.emplace_back(kcoro::name_of(*i));
        }
        if (page.continue_token.empty()) {
            break;
        }
        EXPECT(pages < 10, "paging ends");
        lo.continue_token = page.continue_token;
        if (pages == 1) {
            // A write between pages does not show up: pages are one snapshot.
            json::object late = make("item9", "late");
            co_await x.create(x.cms, late);
        }
    }
    EXPECT(pages == 3, "5 items in pages of 2 are 3 pages, got " + std::to_string(pages));
    EXPECT(names.size() == 5, "all 5 items, once each (snapshot), got " + std::to_string(names.size()));
    kcoro::list_options sel;
    sel.label_selector = "tier in (a),!special," + own;
    auto l = must(co_await x.c.list(x.cms, x.ns, sel), "label selector");
    EXPECT(l.items.size() == 2, "tier in (a),!special matches 2, got " + std::to_string(l.items.size()));
    kcoro::list_options ne;
    ne.label_selector = "tier!=a," + own;
    l = must(co_await x.c.list(x.cms, x.ns, ne), "label selector !=");
    EXPECT(l.items.size() == 3, "tier!=a matches 2 + the tierless item9, got " + std::to_string(l.items.size()));
    kcoro::list_options fs;
    fs.field_selector = "metadata.name=item3";
    l = must(co_await x.c.list(x.cms, x.ns, fs), "field selector");
    EXPECT(l.items.size() == 1 && kcoro::name_of(*l.items[0]) == "item3", "metadata.name=item3");
    kcoro::list_options fsn;
    fsn.label_selector = own;
    fsn.field_selector = "metadata.namespace=" + x.ns + ",metadata.name!=item3";
    l = must(co_await x.c.list(x.cms, "", fsn), "field selector across namespaces");
    EXPECT(l.items.size() == 5, "metadata.namespace=ns,metadata.name!=item3 matches 5, got " + std::to_string(l.items.size()));
    kcoro::list_options bad;
    bad.field_selector = "spec.nothing=x";
    auto rb = co_await x.c.list(x.cms, x.ns, bad);
    // ConfigMaps register no field label conversion: runtime.DefaultMetaV1FieldSelectorConversion.
    must_fail(rb, kcoro::api_errc::bad_request,
              "\"spec.nothing\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
              "unsupported field selector");
    // An undecodable continue token: storage.DecodeContinue's message.
    kcoro::list_options junk;
    junk.limit = 1;
    junk.continue_token = "!!!";
    auto rj = co_await x.c.list(x.cms, x.ns, junk);
    must_fail(rj, kcoro::api_errc::bad_request,
              "invalid continue token: continue key is not valid: illegal base64 data at input byte 0", "junk continue");
}

asio::awaitable<void> watch_from_rv(ctx& x) {
    auto a = co_await x.create_cm("w", "0");
    std::string from = std::string(kcoro::resource_version_of(*a));
    json::object o = *a;
    o["data"] = json::object{{"value", "1"}};
    auto b = must(co_await x.update(x.cms, o), "update 1");
    o = *b;
    o["data"] = json::object{{"value", "2"}};
    auto c = must(co_await x.update(x.cms, o), "update 2");
    co_await x.create_cm("other", "x");
    const kcoro::delete_options none{};
    must(co_await x.remove(x.cms, "w", none), "delete");
    kcoro::watch_options wo;
    wo.field_selector = "metadata.name=w";
    wo.resource_version = from;
    wo.allow_watch_bookmarks = false;
    wo.timeout_seconds = 5;
    auto ws = must(co_await x.c.watch(x.cms, x.ns, wo), "watch");
    std::vector<kcoro::watch_event> evs;
    while (evs.size() < 3) {
        auto ev = must(co_await ws.next(), "next event");
        if (!ev) {
            break;
        }
        evs.push_back(std::move(*ev));
    }
    ws.close();
    EXPECT(evs.size() == 3, "three events after the create, got " + std::to_string(evs.size()));
    EXPECT(evs[0].type == kcoro::watch_event_type::modified && data_of(*evs[0].object, "value") == "1", "MODIFIED 1 first");
    EXPECT(evs[1].type == kcoro::watch_event_type::modified && data_of(*evs[1].object, "value") == "2", "MODIFIED 2 next");
    EXPECT(evs[2].type == kcoro::watch_event_type::deleted, "DELETED last");
    EXPECT(data_of(*evs[2].object, "value") == "2", "DELETED carries the final object");
    EXPECT(rv_number(evs[0].resource_version) == rv_number(kcoro::resource_version_of(*b)), "event 1 at the update's revision");
    EXPECT(rv_number(evs[1].resource_version) == rv_number(kcoro::resource_version_of(*c)), "event 2 at the update's revision");
    EXPECT(rv_number(evs[2].resource_version) > rv_number(evs[1].resource_version), "DELETED at a later revision");
}

asio::awaitable<void> watch_initial_events(ctx& x) {
    for (const char* n : {"i1", "i2"}) {
        json::object o = x.configmap(n, "a");
        kcoro::set_label(o, "conformance.kcoro.dev/set", "initial");
        co_await x.create(x.cms, o);
    }
    // resourceVersion "" without sendInitialEvents: the state first as ADDED
    // (selected by label: a real cluster adds kube-root-ca.crt).
    kcoro::watch_options wo;
    wo.label_selector = "conformance.kcoro.dev/set=initial";
    wo.allow_watch_bookmarks = false;
    wo.timeout_seconds = 5;
    auto ws = must(co_await x.c.watch(x.cms, x.ns, wo), "watch");
    std::vector<std::string> added;
    while (added.size() < 2) {
        auto ev = must(co_await ws.next(), "next");
        if (!ev) {
            break;
        }
        EXPECT(ev->type == kcoro::watch_event_type::added, "initial events are ADDED");
        added.emplace_back(kcoro::name_of(*ev->object));
    }
    ws.close();
    EXPECT(added.size() == 2, "both objects sent first");
    std::sort(added.begin(), added.end());
    EXPECT(added[0] == "i1" && added[1] == "i2", "the two created objects");
}

asio::awaitable<void> watch_too_old(ctx& x) {
    if (!x.kcoro_server) {
        throw skipped("needs a compaction hook (kcoro-apiserver's /kcoro/faults); a real server compacts on its own schedule");
    }
    auto a = co_await x.create_cm("old", "a");
    co_await x.create_cm("mid", "b");  // compaction at a later revision than the watch's
    kcoro::list_options first_page;
    first_page.limit = 1;
    auto page = must(co_await x.c.list(x.cms, x.ns, first_page), "first page");
    EXPECT(!page.continue_token.empty(), "a continue token");
    co_await x.create_cm("after-page", "c");  // the page's snapshot is older than the compaction
    kcoro::api_request req;
    req.method = kcoro::http_method::post;
    req.target = "/kcoro/faults";
    req.body = R"({"action":"compact"})";
    req.content_type = "application/json";
    req.verb = "POST";
    must(co_await x.c.send(req), "compact");
    co_await x.create_cm("new", "b");
    kcoro::watch_options wo;
    wo.resource_version = std::string(kcoro::resource_version_of(*a));
    wo.allow_watch_bookmarks = false;
    wo.timeout_seconds = 5;
    auto ws = co_await x.c.watch(x.cms, x.ns, wo);
    kcoro::error err;
    if (!ws) {
        err = ws.error();
    } else {
        auto ev = must(co_await ws->next(), "first event");
        EXPECT(ev && ev->type == kcoro::watch_event_type::error, "an ERROR event");
        err = ev->to_error();
        ws->close();
    }
    EXPECT(kcoro::is_gone_or_expired(err), "410: " + err.message());
    EXPECT(err.api_status() && err.api_status()->code == 410, "code 410");
    EXPECT(err.api_status()->message.find("too old resource version") != std::string::npos, "message: " + err.api_status()->message);
    // A continue token from before the compaction is expired too.
    kcoro::list_options next_page;
    next_page.limit = 1;
    next_page.continue_token = page.continue_token;
    auto rn = co_await x.c.list(x.cms, x.ns, next_page);
    must_fail(rn, kcoro::api_errc::expired, "The provided continue parameter is too old", "continue after compaction");
    // A fresh list still works.
    const kcoro::list_options lo{};
    must(co_await x.c.list(x.cms, x.ns, lo), "list after compaction");
}

// The cacher sends a bookmark every minute and 2 s before the watch's
// deadline, carrying the newest resourceVersion its resource has seen, and
// only when that is newer than where the watch started: a write the watch
// does not select (another object) makes one due. Resuming from the
// bookmark's resourceVersion works.
asio::awaitable<void> bookmarks(ctx& x) {
    json::object bo = x.configmap("b", "a");
    kcoro::set_label(bo, "conformance.kcoro.dev/set", "bookmark");
    auto a = co_await x.create(x.cms, bo);
    const int wait = std::max(x.opt.bookmark_wait, 3);
    kcoro::watch_options wo;
    wo.label_selector = "conformance.kcoro.dev/set=bookmark";
    wo.resource_version = std::string(kcoro::resource_version_of(*a));
    wo.allow_watch_bookmarks = true;
    wo.timeout_seconds = wait;
    auto ws = must(co_await x.c.watch(x.cms, x.ns, wo), "watch with bookmarks");
    auto other = co_await x.create_cm("unselected", "x");
    std::optional<kcoro::watch_event> bm;
    for (;;) {
        auto ev = must(co_await ws.next(), "next");
        if (!ev) {
            break;
        }
        if (ev->type == kcoro::watch_event_type::bookmark) {
            bm = std::move(*ev);
            break;
        }
        EXPECT(ev->type != kcoro::watch_event_type::error, "no ERROR event");
    }
    ws.close();
    EXPECT(bm.has_value(), "a BOOKMARK within " + std::to_string(wait) + " s (2 s before the deadline at the latest)");
    EXPECT(rv_number(bm->resource_version) >= rv_number(kcoro::resource_version_of(*other)),
           "the bookmark carries the resource's newest resourceVersion");
    EXPECT(str(bm->object->if_contains("kind")) == "ConfigMap" && str(bm->object->if_contains("apiVersion")) == "v1",
           "the bookmark has kind and apiVersion");
    const auto* md = bm->object->if_contains("metadata");
    EXPECT(md && md->is_object(), "the bookmark has metadata");
    for (const auto& kv : md->as_object()) {
        EXPECT(kv.key() == "resourceVersion" || kv.key() == "creationTimestamp",
               "bookmark metadata holds only resourceVersion (and a null creationTimestamp), found " + std::string(kv.key()));
    }
    EXPECT(kcoro::find_path(*bm->object, {"data"}) == nullptr, "no data");
    // Resume from the bookmark: the next change of b arrives.
    kcoro::watch_options resume;
    resume.label_selector = "conformance.kcoro.dev/set=bookmark";
    resume.resource_version = bm->resource_version;
    resume.allow_watch_bookmarks = false;
    resume.timeout_seconds = 5;
    auto rs = must(co_await x.c.watch(x.cms, x.ns, resume), "watch from the bookmark");
    kcoro::patch_options po{};
    must(co_await x.patch(x.cms, "b", R"({"data":{"value":"after-bookmark"}})", po), "patch b");
    auto ev = must(co_await rs.next(), "event after resume");
    rs.close();
    EXPECT(ev && ev->type == kcoro::watch_event_type::modified && data_of(*ev->object, "value") == "after-bookmark",
           "the change after the bookmark arrives");
}

asio::awaitable<void> send_initial_events(ctx& x) {
    json::object so = x.configmap("s1", "a");
    kcoro::set_label(so, "conformance.kcoro.dev/set", "initial");
    co_await x.create(x.cms, so);
    kcoro::watch_options wo;
    wo.label_selector = "conformance.kcoro.dev/set=initial";
    wo.allow_watch_bookmarks = true;
    wo.timeout_seconds = 10;
    wo.send_initial_events = true;
    auto ws = co_await x.c.watch(x.cms, x.ns, wo);
    if (!ws) {
        throw skipped("sendInitialEvents refused (WatchList disabled?): " + ws.error().message());
    }
    int added = 0;
    bool end = false;
    for (;;) {
        auto ev = must(co_await ws->next(), "next");
        if (!ev) {
            break;
        }
        if (ev->type == kcoro::watch_event_type::added) {
            ++added;
        } else if (ev->type == kcoro::watch_event_type::bookmark && ev->initial_events_end) {
            end = true;
            break;
        } else if (ev->type == kcoro::watch_event_type::error) {
            throw skipped("sendInitialEvents refused: " + ev->to_error().message());
        }
    }
    ws->close();
    EXPECT(added == 1, "the state as ADDED");
    EXPECT(end, "the k8s.io/initial-events-end bookmark");
}

asio::awaitable<void> resource_version_too_large(ctx& x) {
    const kcoro::list_options now{};
    auto l = must(co_await x.c.list(x.cms, x.ns, now), "list");
    std::string ahead = std::to_string(rv_number(l.resource_version) + 1000000);
    kcoro::list_options lo;
    lo.resource_version = ahead;
    lo.resource_version_match = kcoro::version_match::not_older_than;
    lo.timeout = std::chrono::milliseconds(15000);
    auto r = co_await x.c.list(x.cms, x.ns, lo);
    EXPECT(!r, "a list ahead of the store fails");
    EXPECT(kcoro::is_resource_version_too_large(r.error()), "Too large resource version: " + r.error().message());
    // storage.NewTooLargeResourceVersionError is an apierrors.NewTimeoutError: "Timeout: " first.
    EXPECT(r.error().api_status()->message.starts_with("Timeout: Too large resource version: " + ahead + ", current: "),
           "504 message: " + r.error().api_status()->message);
}

// ---------------------------------------------------------------------------
// Issue 13 (server fidelity): strategic merge, apply identity, validation,
// the two event views, namespace deletion conditions. Each expectation is
// the real server's answer (the Go file is named where it is decided).

json::object deployment_obj(const ctx& x, std::string_view name) {
    json::object d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
        "spec":{"replicas":0,"selector":{"matchLabels":{"app":"conf"}},
          "template":{"metadata":{"labels":{"app":"conf"}},
            "spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9"}]}}}})").as_object();
    kcoro::set_name(d, name);
    kcoro::set_namespace(d, x.ns);
    return d;
}

const json::array& env_of(const json::object& d) {
    const auto* env = kcoro::find_path(d, {"spec", "template", "spec", "containers"});
    if (!env || !env->is_array() || env->as_array().empty()) throw failure("no containers");
    const auto* e = env->as_array()[0].as_object().if_contains("env");
    if (!e || !e->is_array()) throw failure("container has no env");
    return e->as_array();
}

std::string env_names(const json::object& d) {
    std::string out;
    for (const auto& e : env_of(d)) out += (out.empty() ? "" : ",") + str(e.as_object().if_contains("name"));
    return out;
}

// strategicpatch/patch.go mergeMap (v0.32): a key the live object lacks takes
// the patch value through removeDirectives, so `{"$patch":"replace"}` in an
// absent env list is dropped (1.31 and older stored it and answered 422
// `env[0].name: Required value`); present, it replaces the list.
asio::awaitable<void> strategic_merge_directives(ctx& x) {
    const auto deps = kcoro::resources::deployments();
    const json::object smp_obj = deployment_obj(x, "smp");  // named: no temporary in a co_await (docs/toolchain.md)
    co_await x.create(deps, smp_obj);
    kcoro::patch_options sp;
    sp.type = kcoro::patch_type::strategic_merge;
    const std::string replace_env =
        R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"$patch":"replace"},{"name":"A","value":"1"}]}]}}}})";
    auto d = must(co_await x.patch(deps, "smp", replace_env, sp), "$patch: replace in an absent env");
    EXPECT(env_names(*d) == "A", "$patch: replace in an absent env is dropped: " + env_names(*d));
    // Present, the directive replaces the list.
    d = must(co_await x.patch(deps, "smp",
                              R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"$patch":"replace"},{"name":"OLD","value":"0"}]}]}}}})", sp),
             "replace env with OLD");
    EXPECT(env_names(*d) == "OLD", "env replaced: " + env_names(*d));
    // mergeSlice + normalizeElementOrder: an item new to the live list goes
    // before the live-only items.
    d = must(co_await x.patch(deps, "smp",
                              R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"NEW","value":"1"}]}]}}}})", sp),
             "merge env");
    EXPECT(env_names(*d) == "NEW,OLD", "merged env order: " + env_names(*d));
    // $setElementOrder orders the merged list.
    d = must(co_await x.patch(deps, "smp",
                              R"({"spec":{"template":{"spec":{"containers":[{"name":"c","$setElementOrder/env":[{"name":"OLD"},{"name":"NEW"}]}]}}}})", sp),
             "reorder env");
    EXPECT(env_names(*d) == "OLD,NEW", "$setElementOrder order: " + env_names(*d));
    d = must(co_await x.patch(deps, "smp", replace_env, sp), "replace env");
    EXPECT(env_names(*d) == "A", "$patch: replace on a present env: " + env_names(*d));
    // A merge error the handler does not map is a 500 with the Go error's text.
    auto bad = co_await x.patch(deps, "smp", R"({"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}})", sp);
    auto e = must_fail(bad, kcoro::api_errc::internal_error, "does not contain declared merge key: name",
                       "a list item without its merge key");
    EXPECT(e.http_code() == 500, "500");
}

// fieldmanager: managers are manager + operation (an Update by M and an Apply
// by M conflict); without fieldManager the manager is the User-Agent up to
// its first '/' (handlers/rest.go managerOrUserAgent).
asio::awaitable<void> apply_manager_identity(ctx& x) {
    json::object o = x.configmap("owned", "one");
    kcoro::create_options co;
    co.field_manager = "conf-owner";
    must(co_await x.c.create(x.cms, x.ns, o, co), "create as conf-owner");
    json::object changed = x.configmap("owned", "two");
    const std::string manager = "conf-owner";
    auto r = co_await x.c.apply(x.cms, changed, manager, false);
    must_fail(r, kcoro::api_errc::conflict,
              "Apply failed with 1 conflict: conflict with \"conf-owner\" using v1: .data.value",
              "apply over the same manager's Update");
    auto ua = co_await x.create_cm("ua", "x");
    const auto* mf = kcoro::managed_fields_of(*ua);
    EXPECT(mf && mf->is_array() && !mf->as_array().empty(), "managedFields recorded");
    const auto& first = mf->as_array()[0].as_object();
    // The driver's User-Agent is "kcoro-conformance/<version>".
    EXPECT(str(first.if_contains("manager")) == "kcoro-conformance",
           "manager from the User-Agent: " + str(first.if_contains("manager")));
    EXPECT(str(first.if_contains("operation")) == "Update", "operation Update");
}

// Apply prunes what its manager applied before and no longer applies, each
// list item looked up by the path element its list gives it
// (structured-merge-diff typed/remove.go, listItemToPathElement): a
// list-map's item by its whole key. A manager entry a client wrote with an
// element that addresses no item that way (an empty key "k:{}" under Service
// ports, a list-map keyed by port and protocol) prunes nothing: the port
// the apply does not name stays, the one it names is added, and re-applying
// changes nothing. (kcoro-apiserver once matched "k:{}" against every item.)
// Whether the server honours such managedFields (decodeLiveOrNew) or drops
// them, the outcome is the same.
asio::awaitable<void> apply_prunes_by_item_key(ctx& x) {
    json::object svc = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"pruned","managedFields":[
        {"manager":"conf-applier","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1",
         "fieldsV1":{"f:spec":{"f:ports":{"k:{}":{".":{}}}}}}]},
        "spec":{"selector":{"app":"x"},"ports":[{"name":"a","port":80,"protocol":"TCP"}]}})").as_object();
    kcoro::set_namespace(svc, x.ns);
    co_await x.create(x.svcs, svc);
    json::object cfg = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"pruned"},
        "spec":{"ports":[{"name":"b","port":81,"protocol":"TCP"}]}})").as_object();
    kcoro::set_namespace(cfg, x.ns);
    const std::string manager = "conf-applier";
    auto port_names = [](const json::object& o) {
        std::vector<std::string> names;
        if (const auto* ports = kcoro::find_path(o, {"spec", "ports"}); ports && ports->is_array()) {
            for (const auto& p : ports->as_array()) names.push_back(str(p.as_object().if_contains("name")));
        }
        return names;
    };
    auto once = must(co_await x.c.apply(x.svcs, cfg, manager, false), "apply by the manager with the stale entry");
    EXPECT(port_names(*once) == std::vector<std::string>({"a", "b"}), "the port not applied stays, the applied one is added");
    auto twice = must(co_await x.c.apply(x.svcs, cfg, manager, false), "the same apply again");
    EXPECT(port_names(*twice) == std::vector<std::string>({"a", "b"}), "re-applying changes nothing");
}

// pkg/apis/*/validation, the decoder, and the registry strategies.
asio::awaitable<void> builtin_validation(ctx& x) {
    json::object bad = x.configmap("badkey", "v");
    bad["data"] = json::object{{"a b", "1"}};
    const kcoro::create_options co{};
    auto r = co_await x.c.create(x.cms, x.ns, bad, co);
    must_fail(r, kcoro::api_errc::invalid,
              "ConfigMap \"badkey\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must consist of "
              "alphanumeric characters, '-', '_' or '.'",
              "a bad ConfigMap key");

    json::object imm = x.configmap("imm", "one");
    imm["immutable"] = true;
    auto made = co_await x.create(x.cms, imm);
    json::object edit = *made;
    edit["data"] = json::object{{"value", "two"}};
    auto u = co_await x.update(x.cms, edit);
    must_fail(u, kcoro::api_errc::invalid,
              "ConfigMap \"imm\" is invalid: data: Forbidden: field is immutable when `immutable` is set",
              "changing an immutable ConfigMap");

    // Unknown fields of a built-in are dropped (fieldValidation Warn, the default).
    json::object extra = x.configmap("extra", "v");
    extra["colour"] = "red";
    auto ex = co_await x.create(x.cms, extra);
    EXPECT(!ex->contains("colour"), "unknown field dropped");

    const auto leases = kcoro::resources::leases();
    json::object lease = json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},
        "spec":{"holderIdentity":"a","leaseDurationSeconds":15,"renewTime":"2026-01-02T03:04:05Z"}})").as_object();
    kcoro::set_namespace(lease, x.ns);
    auto lr = co_await x.c.create(leases, x.ns, lease, co);
    must_fail(lr, kcoro::api_errc::bad_request, "cannot parse \"Z\" as \".000000\"", "a MicroTime without microseconds");
    lease["spec"].as_object()["renewTime"] = "2026-01-02T03:04:05.000000Z";
    lease["spec"].as_object()["leaseDurationSeconds"] = 0;
    lr = co_await x.c.create(leases, x.ns, lease, co);
    must_fail(lr, kcoro::api_errc::invalid,
              "Lease.coordination.k8s.io \"l\" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
              "leaseDurationSeconds 0");
    lease["spec"].as_object()["leaseDurationSeconds"] = 15;
    auto l = co_await x.create(leases, lease);
    json::object unconditional = *l;
    kcoro::mutable_metadata(unconditional).erase("resourceVersion");
    auto lu = co_await x.update(leases, unconditional);
    must_fail(lu, kcoro::api_errc::invalid,
              "leases.coordination.k8s.io \"l\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update",
              "a Lease update without resourceVersion");

    json::object ev = json::parse(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"ev"},"reason":"R",
        "involvedObject":{"kind":"ConfigMap","name":"imm","namespace":"elsewhere"}})").as_object();
    kcoro::set_namespace(ev, x.ns);
    auto er = co_await x.c.create(kcoro::resources::events(), x.ns, ev, co);
    must_fail(er, kcoro::api_errc::invalid,
              "Event \"ev\" is invalid: involvedObject.namespace: Invalid value: \"elsewhere\": does not match event.namespace",
              "an event for another namespace");

    const auto deps = kcoro::resources::deployments();
    const json::object st_obj = deployment_obj(x, "st");
    auto d = co_await x.create(deps, st_obj);
    json::object st = *d;
    st["status"] = json::object{{"replicas", 1}, {"readyReplicas", 2}, {"availableReplicas", 1}};
    // Unconditional (Deployments allow it): the deployment controller may
    // have written status since, and a stale resourceVersion would be a 409
    // before validation runs.
    kcoro::mutable_metadata(st).erase("resourceVersion");
    kcoro::update_options so;
    so.subresource = "status";
    auto sr = co_await x.c.update_status(deps, st, so);
    must_fail(sr, kcoro::api_errc::invalid, "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
              "Deployment status counts");

    json::object svc = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"dup"},
        "spec":{"selector":{"app":"x"},"ports":[{"name":"a","port":80},{"name":"a","port":81}]}})").as_object();
    kcoro::set_namespace(svc, x.ns);
    auto svr = co_await x.c.create(x.svcs, x.ns, svc, co);
    must_fail(svr, kcoro::api_errc::invalid, "spec.ports[1].name: Duplicate value: \"a\"", "duplicate Service port names");
}

// pkg/apis/events/v1/conversion.go: one storage, two views.
asio::awaitable<void> events_two_views(ctx& x) {
    co_await x.create_cm("subject", "v");
    json::object ev = json::parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"rec"},
        "eventTime":"2026-01-02T03:04:05.000000Z","reportingController":"conformance.kcoro.dev/ctl",
        "reportingInstance":"ctl-1","action":"Reconcile","reason":"Created","type":"Normal","note":"made it",
        "regarding":{"kind":"ConfigMap","apiVersion":"v1","name":"subject"}})").as_object();
    kcoro::set_namespace(ev, x.ns);
    ev["regarding"].as_object()["namespace"] = x.ns;
    const auto v1 = kcoro::resources::events_v1();
    const auto core = kcoro::resources::events();
    auto w = co_await x.create(v1, ev);
    EXPECT(str(w->if_contains("note")) == "made it", "events.k8s.io answers its own form");
    auto c = co_await x.must_get(core, "rec");
    EXPECT(str(c->if_contains("message")) == "made it", "core/v1 shows note as message");
    EXPECT(str(kcoro::find_path(*c, {"involvedObject", "name"})) == "subject", "regarding is involvedObject");
    EXPECT(str(c->if_contains("reportingComponent")) == "conformance.kcoro.dev/ctl", "reportingController is reportingComponent");
    kcoro::list_options by_involved;
    by_involved.field_selector = "involvedObject.name=subject,involvedObject.kind=ConfigMap";
    auto l = must(co_await x.c.list(core, x.ns, by_involved), "core list by involvedObject");
    EXPECT(l.items.size() == 1, "kubectl describe's selector finds the recorder's event");
    kcoro::list_options by_regarding;
    by_regarding.field_selector = "regarding.name=subject";
    auto l2 = must(co_await x.c.list(v1, x.ns, by_regarding), "events.k8s.io list by regarding");
    EXPECT(l2.items.size() == 1, "regarding.name selects");
    kcoro::list_options core_label;
    core_label.field_selector = "involvedObject.name=subject";
    auto l3 = co_await x.c.list(v1, x.ns, core_label);
    must_fail(l3, kcoro::api_errc::bad_request, "field label not supported: involvedObject.name",
              "events.k8s.io refuses the core field labels");
}

// pkg/controller/namespace/deletion: a namespace whose content is held by a
// finalizer carries the deleter's conditions.
asio::awaitable<void> namespace_deletion_conditions(ctx& x) {
    const auto nss = kcoro::resources::namespaces();
    const std::string ns = x.ns + "-t";
    json::object nsobj{{"apiVersion", "v1"}, {"kind", "Namespace"}};
    kcoro::set_name(nsobj, ns);
    const kcoro::create_options co{};
    must(co_await x.c.create(nss, "", nsobj, co), "create namespace");
    json::object held{{"apiVersion", "v1"}, {"kind", "ConfigMap"}};
    kcoro::set_name(held, "held");
    kcoro::set_namespace(held, ns);
    kcoro::add_finalizer(held, "conformance.kcoro.dev/hold");
    must(co_await x.c.create(x.cms, ns, held, co), "create held configmap");
    const kcoro::delete_options none{};
    const object_key nskey{"", ns};
    must(co_await x.c.remove(nss, nskey, none), "delete namespace");
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(x.opt.gc_wait);
    std::string remaining, finalizers, ok_reason;
    while (std::chrono::steady_clock::now() < end) {
        const kcoro::get_options go{};
        auto cur = must(co_await x.c.get(nss, nskey, go), "get namespace");
        if (const auto* conds = kcoro::find_path(*cur, {"status", "conditions"}); conds && conds->is_array()) {
            for (const auto& cv : conds->as_array()) {
                const auto& c = cv.as_object();
                auto type = str(c.if_contains("type"));
                if (type == "NamespaceContentRemaining" && str(c.if_contains("status")) == "True") {
                    remaining = str(c.if_contains("reason")) + ": " + str(c.if_contains("message"));
                }
                if (type == "NamespaceFinalizersRemaining" && str(c.if_contains("status")) == "True") {
                    finalizers = str(c.if_contains("reason")) + ": " + str(c.if_contains("message"));
                }
                if (type == "NamespaceDeletionDiscoveryFailure") ok_reason = str(c.if_contains("reason"));
            }
        }
        if (!remaining.empty() && !finalizers.empty()) break;
        co_await x.sleep(100ms);
    }
    EXPECT(remaining == "SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances",
           "NamespaceContentRemaining: " + remaining);
    EXPECT(finalizers == "SomeFinalizersRemain: Some content in the namespace has finalizers remaining: "
                         "conformance.kcoro.dev/hold in 1 resource instances",
           "NamespaceFinalizersRemaining: " + finalizers);
    EXPECT(ok_reason == "ResourcesDiscovered", "NamespaceDeletionDiscoveryFailure False: " + ok_reason);
    // Release it; the namespace goes.
    const object_key cmkey{ns, "held"};
    kcoro::patch_options po{};
    std::string unhold = R"({"metadata":{"finalizers":null}})";
    must(co_await x.c.patch(x.cms, cmkey, std::move(unhold), po), "remove the finalizer");
    bool gone = false;
    end = std::chrono::steady_clock::now() + std::chrono::seconds(x.opt.gc_wait);
    while (!gone && std::chrono::steady_clock::now() < end) {
        const kcoro::get_options go{};
        auto cur = co_await x.c.get(nss, nskey, go);
        gone = !cur && kcoro::is_not_found(cur.error());
        if (!gone) co_await x.sleep(100ms);
    }
    EXPECT(gone, "the namespace goes once its content is gone");
}

// --- issue 13: the HTTP surface, watch cache, subresources, metadata, discovery

json::object parse_object(const std::string& body, std::string_view what) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object()) {
        throw failure(std::string(what) + ": not a JSON object: " + body.substr(0, 200));
    }
    return std::move(v.as_object());
}

std::string status_message(const kcoro::client::http_response& r, std::string_view what) {
    auto o = parse_object(r.body, what);
    EXPECT(str(o.if_contains("kind")) == "Status", std::string(what) + ": a Status, got " + r.body.substr(0, 200));
    return str(o.if_contains("message"));
}

// go-restful answers for the built-ins (405, JSON 404), the not-found
// handler's text 404, option validation (422), body kind checks (400),
// negotiation (406), /openapi/v2.
asio::awaitable<void> http_surface(ctx& x) {
    co_await x.create_cm("a", "1");
    const std::string body = json::serialize(x.configmap("a", "2"));
    const auto post_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps/a"), body, "application/json", "");
    auto post = co_await x.raw(post_rq);
    EXPECT(post.status == 405, "POST to a named path is 405, got " + std::to_string(post.status));
    auto po = parse_object(post.body, "405 body");
    EXPECT(str(po.if_contains("reason")) == "MethodNotAllowed", "reason MethodNotAllowed");
    EXPECT(str(po.if_contains("message")) == "the server does not allow this method on the requested resource",
           "405 message: " + str(po.if_contains("message")));
    const auto put_rq = ctx::request(kcoro::http_method::put, x.ns_path("configmaps"), body, "application/json", "");
    auto put = co_await x.raw(put_rq);
    EXPECT(put.status == 405, "PUT on a collection is 405, got " + std::to_string(put.status));

    const auto foo_rq = ctx::request(kcoro::http_method::get, "/foo-conformance", "", "", "");
    auto foo = co_await x.raw(foo_rq);
    EXPECT(foo.status == 404, "/foo is 404");
    EXPECT(foo.content_type.starts_with("text/plain"), "/foo: text/plain, got " + foo.content_type);
    EXPECT(foo.body == "404 page not found\n", "/foo body: " + foo.body);
    const auto group_rq = ctx::request(kcoro::http_method::get, "/apis/nothing.conformance.kcoro.dev/v1/things", "", "", "");
    auto group = co_await x.raw(group_rq);
    EXPECT(group.status == 404 && group.body == "404 page not found\n", "an unknown group is a text 404");
    const auto res_rq = ctx::request(kcoro::http_method::get, x.ns_path("conformancefoos"), "", "", "");
    auto res = co_await x.raw(res_rq);
    EXPECT(res.status == 404, "an unknown resource in v1 is 404");
    EXPECT(status_message(res, "unknown resource") == "the server could not find the requested resource",
           "JSON NotFound for an unknown resource in a known group version");

    const auto dry_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps?dryRun=Nope"),
                              json::serialize(x.configmap("d", "1")), "application/json", "");
    auto dry = co_await x.raw(dry_rq);
    EXPECT(dry.status == 422, "a bad dryRun is 422, got " + std::to_string(dry.status));
    EXPECT(status_message(dry, "dryRun") ==
               "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Nope\"}: supported "
               "values: \"All\"",
           "dryRun message: " + dry.body);
    json::object secret{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", json::object{{"name", "s"}}}};
    const auto wrong_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps"), json::serialize(secret),
                                "application/json", "");
    auto wrong = co_await x.raw(wrong_rq);
    EXPECT(wrong.status == 400, "a Secret posted as a ConfigMap is 400, got " + std::to_string(wrong.status));
    EXPECT(status_message(wrong, "wrong kind")
               .starts_with("Secret in version \"v1\" cannot be handled as a ConfigMap"),
           "wrong kind message: " + wrong.body);
    const auto na_rq = ctx::request(kcoro::http_method::get, x.ns_path("configmaps"), "", "",
                             "application/json;as=Nothing;g=meta.k8s.io;v=v1");
    auto na = co_await x.raw(na_rq);
    EXPECT(na.status == 406, "an unknown transform is 406, got " + std::to_string(na.status));
    EXPECT(status_message(na, "406").starts_with("only the following media types are accepted: application/json"),
           "406 message: " + na.body);
    const auto v2_rq = ctx::request(kcoro::http_method::get, "/openapi/v2", "", "", "application/json");
    auto v2 = co_await x.raw(v2_rq);
    EXPECT(v2.status == 200, "/openapi/v2 is served, got " + std::to_string(v2.status));
    EXPECT(str(parse_object(v2.body, "/openapi/v2").if_contains("swagger")) == "2.0", "swagger 2.0");
}

// The watch cache: a watch from resourceVersion 1 is older than any cache
// window once the server has done work: one ERROR 410 Expired
// `too old resource version: 1 (N)`, then the stream ends.
asio::awaitable<void> watch_too_old_rv1(ctx& x) {
    auto a = co_await x.create_cm("w", "1");
    const auto current = rv_number(kcoro::resource_version_of(*a));
    if (current <= 2) {
        throw skipped("the server has done too little work to have a resourceVersion 1 out of its window");
    }
    kcoro::watch_options wo;
    wo.resource_version = "1";
    wo.allow_watch_bookmarks = false;
    wo.timeout_seconds = 5;
    auto ws = co_await x.c.watch(x.cms, x.ns, wo);
    kcoro::error err;
    if (!ws) {
        err = ws.error();
    } else {
        auto ev = must(co_await ws->next(), "first event");
        EXPECT(ev.has_value(), "a first event");
        if (ev->type != kcoro::watch_event_type::error) {
            // A kube-apiserver started on a fresh etcd lists each resource
            // at a revision near 1 when its cache starts, so its window
            // (watch_cache.go getAllEventsSinceLocked: oldest =
            // listResourceVersion + 1) still reaches 1 and the watch is served.
            // Seen on a real v1.32.13 with a new etcd (issue 22); restarted on
            // the same etcd it answers the ERROR checked below.
            ws->close();
            throw skipped("the watch cache's window still reaches resourceVersion 1 (a server started on a fresh etcd)");
        }
        err = ev->to_error();
        auto after = co_await ws->next();
        EXPECT(after && !*after, "the stream ends after the ERROR event");
        ws->close();
    }
    const auto* st = err.api_status();
    EXPECT(st && st->code == 410 && st->reason == "Expired", "410 Expired: " + err.message());
    if (st->message == "The resourceVersion for the provided watch is too old.") {
        throw skipped("the server watches etcd directly (no watch cache): " + st->message);
    }
    const std::string prefix = "too old resource version: 1 (";
    EXPECT(st->message.starts_with(prefix) && st->message.back() == ')', "message: " + st->message);
    auto n = rv_number(std::string_view(st->message).substr(prefix.size(), st->message.size() - prefix.size() - 1));
    EXPECT(n > 1 && n <= current, "N is the cache window's start: " + st->message);
}

// deployments/scale: autoscaling/v1 Scale with the selector string, writes
// that bump generation, the resourceVersion precondition, validation.
asio::awaitable<void> scale_subresource(ctx& x) {
    const kcoro::group_version_resource deployments{"apps", "v1", "deployments"};
    json::object d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
        "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}})")
                         .as_object();
    kcoro::set_namespace(d, x.ns);
    auto created = co_await x.create(deployments, d);
    const auto gen = kcoro::generation_of(*created);
    const std::string path = "/apis/apps/v1/namespaces/" + x.ns + "/deployments/web/scale";
    const auto g_rq = ctx::request(kcoro::http_method::get, path, "", "", "");
    auto g = co_await x.raw(g_rq);
    EXPECT(g.status == 200, "GET scale, got " + std::to_string(g.status));
    auto scale = parse_object(g.body, "scale");
    EXPECT(str(scale.if_contains("apiVersion")) == "autoscaling/v1" && str(scale.if_contains("kind")) == "Scale",
           "an autoscaling/v1 Scale");
    EXPECT(str(kcoro::find_path(scale, {"status", "selector"})) == "app=web", "status.selector is the selector string");
    EXPECT(kcoro::find_path(scale, {"spec", "replicas"}) && kcoro::find_path(scale, {"spec", "replicas"})->to_number<int>() == 1,
           "spec.replicas");
    const std::string rv(kcoro::resource_version_of(scale));
    const auto p_rq = ctx::request(kcoro::http_method::patch, path, R"({"spec":{"replicas":3}})", "application/merge-patch+json", "");
    auto p = co_await x.raw(p_rq);
    EXPECT(p.status == 200, "PATCH scale, got " + std::to_string(p.status) + " " + p.body);
    auto after = co_await x.must_get(deployments, "web");
    EXPECT(kcoro::find_path(*after, {"spec", "replicas"})->to_number<int>() == 3, "the Deployment has 3 replicas");
    EXPECT(kcoro::generation_of(*after) == gen + 1, "scaling bumps generation");
    json::object stale{{"apiVersion", "autoscaling/v1"}, {"kind", "Scale"},
                       {"metadata", json::object{{"name", "web"}, {"namespace", x.ns}, {"resourceVersion", rv}}},
                       {"spec", json::object{{"replicas", 5}}}};
    const auto put_rq = ctx::request(kcoro::http_method::put, path, json::serialize(stale), "application/json", "");
    auto put = co_await x.raw(put_rq);
    EXPECT(put.status == 409, "PUT with a stale resourceVersion is 409, got " + std::to_string(put.status));
    EXPECT(status_message(put, "stale scale")
               .starts_with("Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified"),
           "conflict message: " + put.body);
    const auto neg_rq = ctx::request(kcoro::http_method::patch, path, R"({"spec":{"replicas":-1}})", "application/merge-patch+json", "");
    auto neg = co_await x.raw(neg_rq);
    EXPECT(neg.status == 422, "negative replicas is 422, got " + std::to_string(neg.status));
    EXPECT(status_message(neg, "negative") ==
               "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
           "validation message: " + neg.body);
}

// Accept as=PartialObjectMetadata(List): metadata only, for get, list, watch.
asio::awaitable<void> partial_object_metadata(ctx& x) {
    json::object o = x.configmap("m", "secret-ish");
    kcoro::set_label(o, "conformance.kcoro.dev/set", "meta");
    co_await x.create(x.cms, o);
    const std::string one = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    const std::string list = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
    const auto g_rq = ctx::request(kcoro::http_method::get, x.ns_path("configmaps/m"), "", "", one + ",application/json");
    auto g = co_await x.raw(g_rq);
    EXPECT(g.status == 200, "get");
    auto go = parse_object(g.body, "get");
    EXPECT(str(go.if_contains("kind")) == "PartialObjectMetadata" && str(go.if_contains("apiVersion")) == "meta.k8s.io/v1",
           "PartialObjectMetadata meta.k8s.io/v1, got " + g.body.substr(0, 120));
    EXPECT(!go.contains("data") && str(kcoro::find_path(go, {"metadata", "name"})) == "m", "metadata only");
    const auto l_rq = ctx::request(kcoro::http_method::get, x.ns_path("configmaps?labelSelector=conformance.kcoro.dev%2Fset%3Dmeta"),
                            "", "", list + ",application/json");
    auto l = co_await x.raw(l_rq);
    auto lo = parse_object(l.body, "list");
    EXPECT(str(lo.if_contains("kind")) == "PartialObjectMetadataList", "PartialObjectMetadataList");
    const auto* items = lo.if_contains("items");
    EXPECT(items && items->is_array() && items->as_array().size() == 1, "one item");
    EXPECT(str(items->as_array()[0].as_object().if_contains("kind")) == "PartialObjectMetadata", "items are PartialObjectMetadata");
    const auto wrong_rq = ctx::request(kcoro::http_method::get, x.ns_path("configmaps"), "", "", one);
    auto wrong = co_await x.raw(wrong_rq);
    EXPECT(wrong.status == 406, "PartialObjectMetadata of a list is 406, got " + std::to_string(wrong.status));
    EXPECT(status_message(wrong, "406") ==
               "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)",
           "406 message: " + wrong.body);
    // A watch from "0" (initial ADDED) that ends by itself after 1 s.
    const auto w_rq = ctx::request(kcoro::http_method::get,
                            x.ns_path("configmaps?watch=1&resourceVersion=0&timeoutSeconds=1&labelSelector="
                                      "conformance.kcoro.dev%2Fset%3Dmeta"),
                            "", "", one);
    auto w = co_await x.raw(w_rq);
    EXPECT(w.status == 200, "watch");
    auto nl = w.body.find('\n');
    EXPECT(nl != std::string::npos, "an event line: " + w.body.substr(0, 200));
    auto ev = parse_object(w.body.substr(0, nl), "watch event");
    EXPECT(str(ev.if_contains("type")) == "ADDED", "ADDED");
    const auto* obj = ev.if_contains("object");
    EXPECT(obj && str(obj->as_object().if_contains("kind")) == "PartialObjectMetadata" && !obj->as_object().contains("data"),
           "the event carries PartialObjectMetadata");
}

// Discovery: the real fields and values for the kinds kcoro-apiserver serves.
asio::awaitable<void> discovery_fields(ctx& x) {
    auto find = [](const json::object& list, std::string_view name) -> const json::object* {
        for (const auto& r : list.at("resources").as_array()) {
            if (str(r.as_object().if_contains("name")) == name) return &r.as_object();
        }
        return nullptr;
    };
    auto strings = [](const json::value* v) {
        std::vector<std::string> out;
        if (v && v->is_array()) {
            for (const auto& s : v->as_array()) out.push_back(str(&s));
        }
        return out;
    };
    const auto core_rq = ctx::request(kcoro::http_method::get, "/api/v1", "", "", "application/json");
    auto core_resp = co_await x.raw(core_rq);
    auto core = parse_object(core_resp.body, "/api/v1");
    const auto* cm = find(core, "configmaps");
    EXPECT(cm, "configmaps listed");
    // singularName of a built-in: the store's SingularQualifiedResource
    // (installer.go, 1.27 and later: 1.32 says "configmap"); 1.23-1.26 leave
    // it empty. Subresources have none.
    EXPECT(str(cm->if_contains("singularName")) == "configmap" && cm->at("namespaced").as_bool() &&
               str(cm->if_contains("kind")) == "ConfigMap",
           "configmaps singularName, namespaced, kind");
    EXPECT(strings(cm->if_contains("verbs")) ==
               std::vector<std::string>({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}),
           "configmaps verbs");
    EXPECT(strings(cm->if_contains("shortNames")) == std::vector<std::string>({"cm"}), "configmaps shortNames [cm]");
    EXPECT(str(cm->if_contains("storageVersionHash")) == "qFsyl6wFWjQ=", "configmaps storageVersionHash");
    const auto* ns = find(core, "namespaces");
    EXPECT(ns && strings(ns->if_contains("verbs")) ==
                     std::vector<std::string>({"create", "delete", "get", "list", "patch", "update", "watch"}),
           "namespaces verbs (no deletecollection)");
    const auto* nss = find(core, "namespaces/status");
    EXPECT(nss && strings(nss->if_contains("verbs")) == std::vector<std::string>({"get", "patch", "update"}) &&
               str(nss->if_contains("singularName")).empty(),
           "namespaces/status");
    const auto apps_rq = ctx::request(kcoro::http_method::get, "/apis/apps/v1", "", "", "application/json");
    auto apps_resp = co_await x.raw(apps_rq);
    auto apps = parse_object(apps_resp.body, "apps/v1");
    const auto* dep = find(apps, "deployments");
    EXPECT(dep && strings(dep->if_contains("categories")) == std::vector<std::string>({"all"}) &&
               strings(dep->if_contains("shortNames")) == std::vector<std::string>({"deploy"}) &&
               str(dep->if_contains("storageVersionHash")) == "8aSe+NMegvE=",
           "deployments categories [all], shortNames [deploy], storageVersionHash");
    const auto* scale = find(apps, "deployments/scale");
    EXPECT(scale && str(scale->if_contains("group")) == "autoscaling" && str(scale->if_contains("version")) == "v1" &&
               str(scale->if_contains("kind")) == "Scale" &&
               strings(scale->if_contains("verbs")) == std::vector<std::string>({"get", "patch", "update"}),
           "deployments/scale: autoscaling/v1 Scale, get patch update");
}

// kube-controller-manager's root-CA publisher (pkg/controller/certificates/
// rootcacertpublisher/publisher.go): kube-root-ca.crt in every namespace,
// re-created when deleted, repaired when its data is edited. A real
// controller is asynchronous: every step polls up to --gc-wait.
asio::awaitable<void> root_ca_configmap(ctx& x) {
    const std::string name = "kube-root-ca.crt";
    auto wait_for = [&](std::function<bool(const object_ptr&)> done, std::string what) -> asio::awaitable<object_ptr> {
        auto end = std::chrono::steady_clock::now() + std::chrono::seconds(x.opt.gc_wait);
        for (;;) {
            auto r = co_await x.get(x.cms, name);
            if (r && done(*r)) co_return std::move(*r);
            if (std::chrono::steady_clock::now() >= end) throw failure(what + ": not within --gc-wait");
            co_await x.sleep(50ms);
        }
    };
    // Named predicates and options: no temporaries in a co_await operand (g++ 12).
    const std::function<bool(const object_ptr&)> present = [](const object_ptr&) { return true; };
    auto cm = co_await wait_for(present, "kube-root-ca.crt in the new namespace");
    const std::string ca = data_of(*cm, "ca.crt");
    EXPECT(ca.starts_with("-----BEGIN CERTIFICATE-----"), "ca.crt is a PEM certificate");
    EXPECT(cm->at("data").as_object().size() == 1, "data holds ca.crt only");
    const std::string description =
        "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
        "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
        "Kubernetes clusters.";
    auto ann = kcoro::annotation_of(*cm, "kubernetes.io/description");
    EXPECT(ann && *ann == description, "the kubernetes.io/description annotation");
    const std::string uid(kcoro::uid_of(*cm));

    // Edited data is put back.
    json::object edit = *cm;
    edit["data"] = json::object{{"ca.crt", "forged"}};
    must(co_await x.update(x.cms, edit), "edit kube-root-ca.crt");
    const std::function<bool(const object_ptr&)> same_ca = [&](const object_ptr& o) { return data_of(*o, "ca.crt") == ca; };
    auto repaired = co_await wait_for(same_ca, "repaired data");
    EXPECT(kcoro::uid_of(*repaired) == uid, "repaired in place (same uid)");

    // Deleted, it comes back as a new object.
    const kcoro::delete_options plain{};
    must(co_await x.remove(x.cms, name, plain), "delete kube-root-ca.crt");
    const std::function<bool(const object_ptr&)> new_uid = [&](const object_ptr& o) { return kcoro::uid_of(*o) != uid; };
    auto back = co_await wait_for(new_uid, "re-created");
    EXPECT(data_of(*back, "ca.crt") == ca, "re-created with the same CA");
}

// Authentication (issue 22): a request with no credentials is system:anonymous
// (--anonymous-auth, on by default): /version and /healthz answer
// (system:public-info-viewer), /api is a 403 on the path, resources are 403
// with RBAC's message (responsewriters/errors.go, rbac authorizer).
// Impersonate-User: system:anonymous, asked for by the kubeconfig's user,
// makes the request anonymous (filters/impersonation.go). Needs a TLS server
// with client-certificate or token authentication.
asio::awaitable<void> anonymous_and_impersonation(ctx& x) {
    auto cfg = x.c.config();
    if (cfg.server.starts_with("http://")) throw skipped("plain HTTP: authentication is off");
    cfg.token.clear();
    cfg.token_file.clear();
    cfg.client_cert_pem.clear();
    cfg.client_key_pem.clear();
    cfg.exec.reset();
    kcoro::io::system_clock clk;
    kcoro::client::client_options co;
    co.max_retries = 0;
    auto anon = kcoro::client::client::create(cfg, clk, co);
    if (!anon) throw failure("anonymous client: " + anon.error().message());
    auto get = [&](std::string target) -> asio::awaitable<kcoro::client::http_response> {
        const auto rq = ctx::request(kcoro::http_method::get, std::move(target), "", "", "application/json");
        auto r = co_await (*anon)->http().round_trip(rq);
        if (!r) throw failure("anonymous request: " + r.error().message());
        co_return std::move(*r);
    };
    auto version = co_await get("/version");
    EXPECT(version.status == 200, "anonymous /version is 200, got " + std::to_string(version.status));
    EXPECT(str(parse_object(version.body, "/version").if_contains("major")) == "1", "/version major 1");
    auto health = co_await get("/healthz");
    EXPECT(health.status == 200 && health.body == "ok", "anonymous /healthz is 200 ok, got " + health.body);
    auto api = co_await get("/api");
    EXPECT(api.status == 403, "anonymous /api is 403, got " + std::to_string(api.status));
    auto ao = parse_object(api.body, "/api 403");
    EXPECT(str(ao.if_contains("reason")) == "Forbidden", "reason Forbidden");
    EXPECT(str(ao.if_contains("message")) == "forbidden: User \"system:anonymous\" cannot get path \"/api\"",
           "/api message: " + api.body);
    const std::string want = "configmaps is forbidden: User \"system:anonymous\" cannot list resource \"configmaps\" "
                             "in API group \"\" in the namespace \"" + x.ns + "\"";
    auto list = co_await get(x.ns_path("configmaps"));
    EXPECT(list.status == 403, "anonymous list is 403, got " + std::to_string(list.status));
    EXPECT(status_message(list, "anonymous list") == want, "anonymous list message: " + list.body);

    auto rq = ctx::request(kcoro::http_method::get, x.ns_path("configmaps"), "", "", "application/json");
    rq.headers.emplace_back("Impersonate-User", "system:anonymous");
    auto imp = co_await x.raw(rq);
    EXPECT(imp.status == 403, "impersonating system:anonymous: 403, got " + std::to_string(imp.status));
    EXPECT(status_message(imp, "impersonated list") == want, "impersonated list message: " + imp.body);
}

// Malformed query parameters (issue 22), each answer read from a real
// v1.32.13: the query decoder's strconv errors (runtime/conversion.go, 400),
// an unparsable resourceVersion (api_object_versioner.go: a storage error no
// handler maps, so 500 with no reason; a watch gets it before any stream),
// sendInitialEvents on a list (ValidateListOptions, 422), a continue token
// decoded before the resourceVersion is looked at (storage.ValidateListOptions),
// a negative limit (no check in 1.32: the whole list), a get ahead of the
// store (cacher.Get waits, then 504) and validateWatchOptions' 422s.
asio::awaitable<void> malformed_query_parameters(ctx& x) {
    co_await x.create_cm("q", "1");
    auto get = [&](std::string target) -> asio::awaitable<kcoro::client::http_response> {
        const auto rq = ctx::request(kcoro::http_method::get, std::move(target), "", "", "application/json");
        auto r = co_await x.raw(rq);
        co_return r;
    };
    auto expect_status = [&](const kcoro::client::http_response& r, int code, std::string_view reason,
                             std::string_view message, std::string_view what) {
        EXPECT(r.status == code, std::string(what) + ": " + std::to_string(code) + ", got " + std::to_string(r.status) +
                                     " " + r.body.substr(0, 200));
        auto o = parse_object(r.body, what);
        EXPECT(str(o.if_contains("reason")) == reason, std::string(what) + ": reason " + std::string(reason) + ", got " + r.body);
        EXPECT(str(o.if_contains("message")) == message, std::string(what) + ": message: " + r.body);
    };
    const std::string cms = x.ns_path("configmaps");
    expect_status(co_await get(cms + "?limit=abc"), 400, "BadRequest",
                  "strconv.ParseInt: parsing \"abc\": invalid syntax", "limit=abc");
    expect_status(co_await get(cms + "?limit=99999999999999999999"), 400, "BadRequest",
                  "strconv.ParseInt: parsing \"99999999999999999999\": value out of range", "limit out of range");
    expect_status(co_await get(cms + "?timeoutSeconds=x"), 400, "BadRequest",
                  "strconv.ParseInt: parsing \"x\": invalid syntax", "timeoutSeconds=x");
    const std::string bad_rv = "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax";
    expect_status(co_await get(cms + "?resourceVersion=abc"), 500, "", bad_rv, "list resourceVersion=abc");
    expect_status(co_await get(cms + "/q?resourceVersion=abc"), 500, "", bad_rv, "get resourceVersion=abc");
    expect_status(co_await get(cms + "?watch=1&resourceVersion=abc"), 500, "", bad_rv, "watch resourceVersion=abc");
    auto sie = co_await get(cms + "?sendInitialEvents=true");
    EXPECT(sie.status == 422, "sendInitialEvents on a list: 422, got " + std::to_string(sie.status));
    EXPECT(status_message(sie, "sendInitialEvents") ==
               "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list",
           "sendInitialEvents message: " + sie.body);
    expect_status(co_await get(cms + "?continue=abc&resourceVersion=1"), 400, "BadRequest",
                  "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value",
                  "continue=abc with a resourceVersion");
    // validateWatchOptions (1.32, WatchList on): every error together.
    auto wm = co_await get(cms + "?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan");
    EXPECT(wm.status == 422, "resourceVersionMatch on a watch without sendInitialEvents: 422, got " + std::to_string(wm.status));
    EXPECT(status_message(wm, "watch match") ==
               "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is "
               "forbidden for watch unless sendInitialEvents is provided",
           "watch match message: " + wm.body);
    auto we = co_await get(cms + "?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact");
    EXPECT(we.status == 422, "sendInitialEvents with Exact: 422, got " + std::to_string(we.status));
    EXPECT(status_message(we, "watch Exact") ==
               "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires "
               "setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: \"Exact\": "
               "supported values: \"NotOlderThan\"]",
           "watch Exact message: " + we.body);
    // fields.parseSelector: values unescaped (a bare "=" is rune 61), terms
    // sorted before their labels are converted, nothing trimmed.
    expect_status(co_await get(cms + "?fieldSelector=metadata.name%3D%3D%3Dx"), 400, "BadRequest",
                  "invalid field selector: unescaped character in value: 61", "fieldSelector ===");
    expect_status(co_await get(cms + "?fieldSelector=zz%3D1,metadata.x%3D2"), 400, "BadRequest",
                  "\"metadata.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
                  "fieldSelector sorted");
    expect_status(co_await get(cms + "?fieldSelector=%20"), 400, "BadRequest",
                  "invalid selector: ' '; can't understand ' '", "fieldSelector space");
    // labels/selector.go's Parser: top-level errors unprefixed, requirement
    // errors prefixed, keys validated on a nil path.
    expect_status(co_await get(cms + "?labelSelector=a%2C%2Cb"), 400, "BadRequest",
                  "found ',', expected: identifier after ','", "labelSelector a,,b");
    expect_status(co_await get(cms + "?labelSelector=a%20in%20("), 400, "BadRequest",
                  "unable to parse requirement: found '', expected: ',', ')' or identifier", "labelSelector a in (");
    expect_status(co_await get(cms + "?labelSelector=a%20notin%20b"), 400, "BadRequest",
                  "unable to parse requirement: found 'b' expected: '('", "labelSelector a notin b");
    expect_status(co_await get(cms + "?labelSelector=a%3Cx"), 400, "BadRequest",
                  "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value "
                  "must be an integer",
                  "labelSelector a<x");
    {
        // gt compares integers.
        json::object g = x.configmap("gt", "1");
        kcoro::set_label(g, "conformance.kcoro.dev/n", "10");
        co_await x.create(x.cms, g);
        auto l = co_await get(cms + "?labelSelector=conformance.kcoro.dev%2Fn%3E9");
        EXPECT(l.status == 200 && parse_object(l.body, "gt list").at("items").as_array().size() == 1, "n>9 selects n=10: " + l.body.substr(0, 200));
        auto none = co_await get(cms + "?labelSelector=conformance.kcoro.dev%2Fn%3C10");
        EXPECT(none.status == 200 && parse_object(none.body, "lt list").at("items").as_array().empty(), "n<10 selects nothing");
    }
    // Exact lists and continue tokens are read from etcd: a future revision is
    // etcd's ErrFutureRev as a 500 with no reason.
    {
        auto now = must(co_await x.get(x.cms, "q"), "get q");
        const std::string future = std::to_string(rv_number(kcoro::resource_version_of(*now)) + 1000000);
        expect_status(co_await get(cms + "?resourceVersion=" + future + "&resourceVersionMatch=Exact"), 500, "",
                      "etcdserver: mvcc: required revision is a future revision", "Exact ahead");
        // The token's shape (storage.EncodeContinue): base64url of {"v","rv","start"}.
        const std::string raw = R"({"v":"meta.k8s.io/v1","rv":)" + future + R"(,"start":"a"})";
        static constexpr char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        std::string token;
        for (std::size_t i = 0; i < raw.size(); i += 3) {
            std::uint32_t n = std::uint32_t(static_cast<unsigned char>(raw[i])) << 16;
            if (i + 1 < raw.size()) n |= std::uint32_t(static_cast<unsigned char>(raw[i + 1])) << 8;
            if (i + 2 < raw.size()) n |= std::uint32_t(static_cast<unsigned char>(raw[i + 2]));
            token.push_back(b64[(n >> 18) & 63]);
            token.push_back(b64[(n >> 12) & 63]);
            if (i + 1 < raw.size()) token.push_back(b64[(n >> 6) & 63]);
            if (i + 2 < raw.size()) token.push_back(b64[n & 63]);
        }
        expect_status(co_await get(cms + "?limit=1&continue=" + token), 500, "",
                      "etcdserver: mvcc: required revision is a future revision", "continue ahead");
    }
    auto neg = co_await get(cms + "?limit=-1");
    EXPECT(neg.status == 200, "limit=-1 lists, got " + std::to_string(neg.status) + " " + neg.body.substr(0, 200));
    auto nl = parse_object(neg.body, "limit=-1");
    EXPECT(nl.if_contains("metadata") && !nl.at("metadata").as_object().contains("continue"), "limit=-1: no continue");
    auto cur = must(co_await x.get(x.cms, "q"), "get q");
    const std::string ahead = std::to_string(rv_number(kcoro::resource_version_of(*cur)) + 1000000);
    auto far = co_await get(cms + "/q?resourceVersion=" + ahead);
    EXPECT(far.status == 504, "a get ahead of the store: 504, got " + std::to_string(far.status) + " " + far.body.substr(0, 200));
    EXPECT(status_message(far, "get ahead").starts_with("Timeout: Too large resource version: " + ahead + ", current: "),
           "get ahead message: " + far.body);
}

// Protobuf request bodies (issue 23), built here from the wire format: the
// `k8s\0` magic, runtime.Unknown {typeMeta 1 {apiVersion 1, kind 2}, raw 2},
// and the object's message as client-go 1.32's typed clients send it.
std::string pb_varint(std::uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
    return out + static_cast<char>(v);
}
std::string pb_ld(std::uint32_t n, std::string_view b) {
    return pb_varint(n << 3 | 2) + pb_varint(b.size()) + std::string(b);
}
std::string pb_envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
    return std::string("k8s\0", 4) + pb_ld(1, pb_ld(1, api_version) + pb_ld(2, kind)) + pb_ld(2, raw) + pb_ld(3, "") +
           pb_ld(4, "");
}

asio::awaitable<void> protobuf_bodies(ctx& x) {
    const std::string pb = "application/vnd.kubernetes.protobuf";
    // client-go sends "application/vnd.kubernetes.protobuf,application/json", and a real server
    // then answers in protobuf, errors included (a Status in the k8s envelope; checked against
    // v1.32.13). kcoro-apiserver answers JSON only, so the texts are compared as JSON.
    const std::string accept = "application/json";
    // ConfigMap{metadata(1){name(1), labels(11)}, data(2){"value": "pb"}}.
    const std::string meta = pb_ld(1, "pb") + pb_ld(11, pb_ld(1, "conformance.kcoro.dev/scenario") + pb_ld(2, "protobuf"));
    const std::string raw = pb_ld(1, meta) + pb_ld(2, pb_ld(1, "value") + pb_ld(2, "pb"));
    const auto create_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps"),
                                        pb_envelope("v1", "ConfigMap", raw), pb, accept);
    auto created = co_await x.raw(create_rq);
    EXPECT(created.status == 201, "protobuf create: 201, got " + std::to_string(created.status) + " " +
                                      created.body.substr(0, 200));
    auto got = must(co_await x.get(x.cms, "pb"), "get pb");
    EXPECT(data_of(*got, "value") == "pb", "the protobuf ConfigMap's data");

    const auto garbage_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps"), "nope", pb, accept);
    auto garbage = co_await x.raw(garbage_rq);
    EXPECT(garbage.status == 400, "a body without the magic: 400, got " + std::to_string(garbage.status));
    EXPECT(status_message(garbage, "garbage") ==
               "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be "
               "a protobuf message, expected prefix [107 56 115 0] (6e6f7065)",
           "garbage message: " + garbage.body);

    const auto cut_rq = ctx::request(kcoro::http_method::post, x.ns_path("configmaps"),
                                     pb_envelope("v1", "ConfigMap", raw.substr(0, raw.size() - 3)), pb, accept);
    auto cut = co_await x.raw(cut_rq);
    EXPECT(cut.status == 400, "a truncated object: 400, got " + std::to_string(cut.status));
    EXPECT(status_message(cut, "truncated") ==
               "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: unexpected EOF",
           "truncated message: " + cut.body);

    // Custom resources: crdHandler lists protobuf, then cannot decode into Unstructured. A real
    // v1.32.13 server panics there (a nil pointer in customresource_handler.go's
    // schemaCoercingDecoder.Decode; the panic filter closes the connection with no answer);
    // kcoro-apiserver answers the 400 the decoder's error was meant to give. Either passes.
    const auto cr_rq = ctx::request(kcoro::http_method::post,
                                    "/apis/conformance.kcoro.dev/v1/namespaces/" + x.ns + "/widgets",
                                    pb_envelope("conformance.kcoro.dev/v1", "Widget", pb_ld(1, pb_ld(1, "w"))), pb, accept);
    auto cr_or = co_await x.c.http().round_trip(cr_rq);
    if (!cr_or) co_return; // the real server's panic: no answer at all
    auto& cr = *cr_or;
    EXPECT(cr.status == 400, "a protobuf custom resource: 400, got " + std::to_string(cr.status) + " " +
                                 cr.body.substr(0, 200));
    EXPECT(status_message(cr, "custom resource") ==
               "Widget in version \"v1\" cannot be handled as a Widget: object *unstructured.Unstructured does not "
               "implement the protobuf marshalling interface and cannot be encoded to a protobuf message",
           "custom resource message: " + cr.body);
}

// issue 24: KEP-5866 server-side sharded list and watch (1.36 alpha, gate
// ShardedListAndWatch). Skipped when the list does not echo
// metadata.shardInfo (the gate off, or a server before 1.36), so it passes
// unchanged there; kcoro-apiserver runs it with
// --feature-gates=ShardedListAndWatch=true (run_conformance.sh). Followed:
// test/e2e/apimachinery/sharding.go and
// test/integration/apiserver/sharding_test.go (4 uid shards, pages of 2,
// every page echoing the selector; watch events only of in-shard objects).
namespace shardsel {

std::uint64_t fnv1a64(std::string_view s) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex(std::uint64_t v) {
    static constexpr std::string_view d = "0123456789abcdef";
    std::string out = "0x";
    for (int i = 60; i >= 0; i -= 4) out.push_back(d[(v >> i) & 0xf]);
    return out;
}

// Shard i of n (n a power of two here): [i * 2^64/n, (i+1) * 2^64/n).
std::string selector(int i, int n) {
    const std::uint64_t span = (~std::uint64_t{0} / static_cast<std::uint64_t>(n)) + 1;
    const std::string end = i == n - 1 ? "0x10000000000000000" : hex(span * static_cast<std::uint64_t>(i + 1));
    return "shardRange(object.metadata.uid, '" + hex(span * static_cast<std::uint64_t>(i)) + "', '" + end + "')";
}

bool in_shard(std::string_view uid, int i, int n) {
    const std::uint64_t span = (~std::uint64_t{0} / static_cast<std::uint64_t>(n)) + 1;
    return fnv1a64(uid) / span == static_cast<std::uint64_t>(i);
}

} // namespace shardsel

asio::awaitable<void> sharded_list_and_watch(ctx& x) {
    const std::string own = "conformance.kcoro.dev/set=shard";
    // Every target is named before the co_await and passed by reference: no
    // temporary in a co_await operand (g++ 12 frees it twice: docs/toolchain.md).
    auto get = [&](const std::string& target) -> asio::awaitable<kcoro::client::http_response> {
        const auto rq = ctx::request(kcoro::http_method::get, target, "", "", "application/json");
        auto r = co_await x.raw(rq);
        co_return r;
    };
    const std::string base = x.ns_path("configmaps") + "?labelSelector=" + kcoro::query_escape(own);
    auto before = co_await get(base);
    EXPECT(before.status == 200, "list: " + before.body.substr(0, 200));
    const std::string rv0 = str(parse_object(before.body, "list").at("metadata").as_object().if_contains("resourceVersion"));

    // The probe: does the server apply shardSelector (it echoes shardInfo)?
    const std::string sel0 = shardsel::selector(0, 2);
    const std::string probe_q = base + "&shardSelector=" + kcoro::query_escape(sel0);
    auto probe = co_await get(probe_q);
    EXPECT(probe.status == 200, "list with shardSelector: " + probe.body.substr(0, 300));
    if (!parse_object(probe.body, "probe").at("metadata").as_object().contains("shardInfo")) {
        throw skipped("no metadata.shardInfo in the list: ShardedListAndWatch off, or a server before 1.36");
    }

    const int count = 12;
    std::vector<std::string> uids;
    for (int i = 0; i < count; ++i) {
        json::object o = x.configmap("s" + std::to_string(i), std::to_string(i));
        kcoro::set_label(o, "conformance.kcoro.dev/set", "shard");
        auto created = co_await x.create(x.cms, o);
        uids.emplace_back(kcoro::uid_of(*created));
    }

    const int n = 4;
    std::vector<std::string> whole, paged;
    for (int i = 0; i < n; ++i) {
        const std::string sel = shardsel::selector(i, n);
        const std::string q = base + "&shardSelector=" + kcoro::query_escape(sel);
        auto listed = co_await get(q);
        auto l = parse_object(listed.body, "sharded list");
        const auto* info = l.at("metadata").as_object().if_contains("shardInfo");
        EXPECT(info && info->is_object() && str(info->as_object().if_contains("selector")) == sel,
               "shardInfo.selector echoes " + sel + ": " + json::serialize(l.at("metadata")));
        for (const auto& item : l.at("items").as_array()) {
            std::string uid(kcoro::uid_of(item.as_object()));
            EXPECT(shardsel::in_shard(uid, i, n), "shard " + std::to_string(i) + " returned uid " + uid);
            whole.push_back(uid);
        }
        std::string cont;
        for (int pages = 0;; ++pages) {
            EXPECT(pages < 20, "paging ends");
            const std::string page_q = q + "&limit=2" + (cont.empty() ? "" : "&continue=" + kcoro::query_escape(cont));
            auto page_r = co_await get(page_q);
            auto page = parse_object(page_r.body, "sharded page");
            const auto& meta = page.at("metadata").as_object();
            const auto* pinfo = meta.if_contains("shardInfo");
            EXPECT(pinfo && pinfo->is_object() && str(pinfo->as_object().if_contains("selector")) == sel,
                   "every page echoes shardInfo: " + json::serialize(meta));
            EXPECT(page.at("items").as_array().size() <= 2, "limit respected");
            for (const auto& item : page.at("items").as_array()) {
                std::string uid(kcoro::uid_of(item.as_object()));
                EXPECT(shardsel::in_shard(uid, i, n), "page of shard " + std::to_string(i) + " returned uid " + uid);
                paged.push_back(uid);
            }
            cont = str(meta.if_contains("continue"));
            if (cont.empty()) break;
        }
    }
    std::sort(uids.begin(), uids.end());
    std::sort(whole.begin(), whole.end());
    std::sort(paged.begin(), paged.end());
    EXPECT(whole == uids, "every object in exactly one shard (" + std::to_string(whole.size()) + " of " +
                              std::to_string(uids.size()) + ")");
    EXPECT(paged == uids, "paged: every object in exactly one shard (" + std::to_string(paged.size()) + ")");

    // Watch from before the creations, per half: ADDED for its objects only.
    for (int i = 0; i < 2; ++i) {
        const std::string sel = shardsel::selector(i, 2);
        const std::string watch_q = base + "&watch=true&timeoutSeconds=2&resourceVersion=" + rv0 +
                                    "&shardSelector=" + kcoro::query_escape(sel);
        auto w = co_await get(watch_q);
        EXPECT(w.status == 200, "sharded watch: " + w.body.substr(0, 300));
        std::vector<std::string> got;
        std::size_t pos = 0;
        while (pos < w.body.size()) {
            auto nl = w.body.find('\n', pos);
            if (nl == std::string::npos) nl = w.body.size();
            if (nl > pos) {
                auto ev = parse_object(w.body.substr(pos, nl - pos), "watch event");
                EXPECT(str(ev.if_contains("type")) == "ADDED", "watch event type: " + w.body.substr(pos, nl - pos));
                got.emplace_back(kcoro::uid_of(ev.at("object").as_object()));
            }
            pos = nl + 1;
        }
        std::vector<std::string> want;
        for (const auto& u : uids) {
            if (shardsel::in_shard(u, i, 2)) want.push_back(u);
        }
        std::sort(got.begin(), got.end());
        EXPECT(got == want, "watch of half " + std::to_string(i) + ": " + std::to_string(got.size()) + " events, want " +
                                std::to_string(want.size()));
    }

    // A malformed selector: 400 BadRequest naming parser.go's complaint.
    const std::string bad_q =
        base + "&shardSelector=" +
        kcoro::query_escape("shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')");
    auto bad = co_await get(bad_q);
    EXPECT(bad.status == 400, "malformed shardSelector: 400, got " + std::to_string(bad.status) + " " + bad.body.substr(0, 300));
    EXPECT(status_message(bad, "malformed shardSelector").find("unsupported field path \"object.metadata.name\"") !=
               std::string::npos,
           "the message names the unsupported field path: " + bad.body.substr(0, 300));
}

// A 20 KB request line: kube-apiserver reads up to 1 MiB of request line and
// headers (MaxHeaderBytes in staging/src/k8s.io/apiserver/pkg/server/
// secure_serving.go), so a long query is an ordinary request. A sharded
// informer's shardSelector is this long (about 250 ranges). kcoro-apiserver
// once refused it at Beast's 8 KiB default with 413.
asio::awaitable<void> long_request_line(ctx& x) {
    std::string values;
    for (int i = 0; values.size() < 20000; ++i) values += (i ? "," : "") + std::string("value-") + std::to_string(i);
    const std::string selector = "conformance.kcoro.dev/long in (" + values + ")";
    const auto rq = ctx::request(kcoro::http_method::get,
                                 x.ns_path("configmaps") + "?labelSelector=" + kcoro::query_escape(selector), "", "",
                                 "application/json");
    EXPECT(rq.target.size() > 20000, "the request line is over 20 KB");
    auto r = co_await x.raw(rq);
    EXPECT(r.status == 200, "a 20 KB list request: 200, got " + std::to_string(r.status) + " " + r.body.substr(0, 200));
    EXPECT(parse_object(r.body, "long list").at("items").as_array().empty(), "nothing carries the label");
}

// issue 23: the kinds a controller's tests touch, with the defaults of
// v1.32's pkg/apis/{core,apps,batch,rbac}/v1/defaults.go, the strategies'
// PrepareForCreate, the Priority and DefaultTolerationSeconds admission
// plugins, and validation messages of pkg/apis/*/validation.
std::int64_t num(const json::value* v) { return v && v->is_number() ? v->to_number<std::int64_t>() : -1; }

bool has_toleration(const json::object& pod, std::string_view key) {
    const auto* t = kcoro::find_path(pod, {"spec", "tolerations"});
    if (!t || !t->is_array()) return false;
    for (const auto& e : t->as_array()) {
        if (!e.is_object()) continue;
        const auto& o = e.as_object();
        if (str(o.if_contains("key")) == key && str(o.if_contains("operator")) == "Exists" &&
            str(o.if_contains("effect")) == "NoExecute" && num(o.if_contains("tolerationSeconds")) == 300) {
            return true;
        }
    }
    return false;
}

asio::awaitable<void> workload_kinds(ctx& x) {
    const kcoro::group_version_resource pods{"", "v1", "pods"}, jobs{"batch", "v1", "jobs"},
        cronjobs{"batch", "v1", "cronjobs"}, sets{"apps", "v1", "statefulsets"}, roles{"rbac.authorization.k8s.io", "v1", "roles"},
        bindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
    const kcoro::create_options co{};

    // A pod as `kubectl run p --image=busybox` writes it.
    json::object pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"run":"p"}},
        "spec":{"containers":[{"name":"p","image":"busybox"}]}})").as_object();
    kcoro::set_namespace(pod, x.ns);
    auto p = co_await x.create(pods, pod);
    EXPECT(str(kcoro::find_path(*p, {"status", "phase"})) == "Pending", "a new pod is Pending");
    EXPECT(str(kcoro::find_path(*p, {"status", "qosClass"})) == "BestEffort", "no requests: BestEffort");
    EXPECT(str(kcoro::find_path(*p, {"spec", "restartPolicy"})) == "Always", "restartPolicy Always");
    EXPECT(str(kcoro::find_path(*p, {"spec", "dnsPolicy"})) == "ClusterFirst", "dnsPolicy ClusterFirst");
    EXPECT(str(kcoro::find_path(*p, {"spec", "schedulerName"})) == "default-scheduler", "schedulerName");
    EXPECT(num(kcoro::find_path(*p, {"spec", "terminationGracePeriodSeconds"})) == 30, "grace period 30");
    EXPECT(kcoro::find_path(*p, {"spec", "enableServiceLinks"}) &&
               *kcoro::find_path(*p, {"spec", "enableServiceLinks"}) == json::value(true),
           "enableServiceLinks true");
    EXPECT(num(kcoro::find_path(*p, {"spec", "priority"})) == 0, "priority 0 (no PriorityClass)");
    EXPECT(str(kcoro::find_path(*p, {"spec", "preemptionPolicy"})) == "PreemptLowerPriority", "preemptionPolicy");
    EXPECT(has_toleration(*p, "node.kubernetes.io/not-ready") && has_toleration(*p, "node.kubernetes.io/unreachable"),
           "the not-ready and unreachable tolerations of 300 s");
    const auto* c0 = kcoro::find_path(*p, {"spec", "containers"});
    EXPECT(c0 && c0->is_array() && !c0->as_array().empty(), "containers kept");
    const auto& c = c0->as_array()[0].as_object();
    EXPECT(str(c.if_contains("imagePullPolicy")) == "Always", "an untagged image is pulled Always");
    EXPECT(str(c.if_contains("terminationMessagePolicy")) == "File", "terminationMessagePolicy File");
    EXPECT(kcoro::find_path(*p, {"metadata", "generation"}) == nullptr, "pods have no generation (1.32)");
    // The ServiceAccount admission plugin, with the account kube-controller-manager made.
    EXPECT(str(kcoro::find_path(*p, {"spec", "serviceAccountName"})) == "default" &&
               str(kcoro::find_path(*p, {"spec", "serviceAccount"})) == "default",
           "the pod runs as the namespace's default account");
    const auto* vols = kcoro::find_path(*p, {"spec", "volumes"});
    EXPECT(vols && vols->is_array() && vols->as_array().size() == 1, "one volume: the token");
    const auto& tv = vols->as_array()[0].as_object();
    const std::string token_volume = str(tv.if_contains("name"));
    EXPECT(token_volume.starts_with("kube-api-access-") && token_volume.size() == 21, "kube-api-access-<5>");
    EXPECT(num(kcoro::find_path(tv, {"projected", "defaultMode"})) == 420 &&
               num(kcoro::find_path(tv, {"projected", "sources"})->as_array()[0].as_object().at("serviceAccountToken").as_object().if_contains("expirationSeconds")) == 3607,
           "the projected token, 3607 s");
    const auto* mounts = c.if_contains("volumeMounts");
    EXPECT(mounts && mounts->is_array() && mounts->as_array().size() == 1 &&
               str(mounts->as_array()[0].as_object().if_contains("mountPath")) == "/var/run/secrets/kubernetes.io/serviceaccount",
           "the container mounts it");
    json::object nobody = pod;
    kcoro::set_name(nobody, "nobody");
    nobody["spec"].as_object()["serviceAccountName"] = "nobody";
    auto nr = co_await x.c.create(pods, x.ns, nobody, co);
    must_fail(nr, kcoro::api_errc::forbidden,
              "pods \"nobody\" is forbidden: error looking up service account " + x.ns + "/nobody: serviceaccount \"nobody\" not found",
              "a pod naming a missing account");

    json::object empty = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"empty"},"spec":{"containers":[]}})")
                             .as_object();
    kcoro::set_namespace(empty, x.ns);
    auto er = co_await x.c.create(pods, x.ns, empty, co);
    must_fail(er, kcoro::api_errc::invalid, "Pod \"empty\" is invalid: spec.containers: Required value", "a pod without containers");

    // A job as `kubectl create job j --image=busybox` writes it.
    json::object job = json::parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},
        "spec":{"template":{"metadata":{},"spec":{"containers":[{"name":"j","image":"busybox"}],"restartPolicy":"Never"}}}})")
                           .as_object();
    kcoro::set_namespace(job, x.ns);
    auto j = co_await x.create(jobs, job);
    const std::string uid(kcoro::uid_of(*j));
    EXPECT(num(kcoro::find_path(*j, {"spec", "completions"})) == 1 && num(kcoro::find_path(*j, {"spec", "parallelism"})) == 1,
           "completions and parallelism 1");
    EXPECT(num(kcoro::find_path(*j, {"spec", "backoffLimit"})) == 6, "backoffLimit 6");
    EXPECT(str(kcoro::find_path(*j, {"spec", "completionMode"})) == "NonIndexed", "completionMode NonIndexed");
    EXPECT(str(kcoro::find_path(*j, {"spec", "podReplacementPolicy"})) == "TerminatingOrFailed", "podReplacementPolicy");
    EXPECT(*kcoro::find_path(*j, {"spec", "suspend"}) == json::value(false), "suspend false");
    EXPECT(*kcoro::find_path(*j, {"spec", "manualSelector"}) == json::value(false), "manualSelector false");
    EXPECT(str(kcoro::find_path(*j, {"spec", "selector", "matchLabels", "batch.kubernetes.io/controller-uid"})) == uid,
           "the generated selector is the job's uid");
    EXPECT(str(kcoro::find_path(*j, {"spec", "template", "metadata", "labels", "job-name"})) == "j" &&
               str(kcoro::find_path(*j, {"spec", "template", "metadata", "labels", "batch.kubernetes.io/job-name"})) == "j" &&
               str(kcoro::find_path(*j, {"spec", "template", "metadata", "labels", "controller-uid"})) == uid,
           "the template carries the job-name and controller-uid labels, legacy and prefixed");
    EXPECT(str(kcoro::find_path(*j, {"metadata", "labels", "batch.kubernetes.io/job-name"})) == "j",
           "a job without labels reads back with its template's");
    EXPECT(num(kcoro::find_path(*j, {"metadata", "generation"})) == 1, "jobs have generation 1");
    json::object always = job;
    kcoro::set_name(always, "always");
    always["spec"].as_object()["template"].as_object()["spec"].as_object()["restartPolicy"] = "Always";
    auto ar = co_await x.c.create(jobs, x.ns, always, co);
    must_fail(ar, kcoro::api_errc::invalid,
              "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
              "a job whose pods restart Always");

    // CronJob defaults; a schedule that does not parse.
    json::object cj = json::parse(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},
        "spec":{"schedule":"*/5 * * * *","jobTemplate":{"metadata":{},"spec":{"template":{"metadata":{},
          "spec":{"containers":[{"name":"c","image":"busybox"}],"restartPolicy":"OnFailure"}}}}}})").as_object();
    kcoro::set_namespace(cj, x.ns);
    auto cr = co_await x.create(cronjobs, cj);
    EXPECT(str(kcoro::find_path(*cr, {"spec", "concurrencyPolicy"})) == "Allow", "concurrencyPolicy Allow");
    EXPECT(num(kcoro::find_path(*cr, {"spec", "successfulJobsHistoryLimit"})) == 3 &&
               num(kcoro::find_path(*cr, {"spec", "failedJobsHistoryLimit"})) == 1,
           "history limits 3 and 1");
    json::object bad_cj = cj;
    kcoro::set_name(bad_cj, "badcj");
    bad_cj["spec"].as_object()["schedule"] = "every minute";
    auto bcr = co_await x.c.create(cronjobs, x.ns, bad_cj, co);
    must_fail(bcr, kcoro::api_errc::invalid,
              "spec.schedule: Invalid value: \"every minute\": expected exactly 5 fields, found 2: [every minute]",
              "a schedule with two fields");

    // StatefulSet defaults, and its spec fields that never change.
    json::object sts = json::parse(R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"s"},
        "spec":{"serviceName":"s","selector":{"matchLabels":{"app":"s"}},
          "template":{"metadata":{"labels":{"app":"s"}},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}}})")
                           .as_object();
    kcoro::set_namespace(sts, x.ns);
    auto st = co_await x.create(sets, sts);
    EXPECT(num(kcoro::find_path(*st, {"spec", "replicas"})) == 1, "replicas 1");
    EXPECT(str(kcoro::find_path(*st, {"spec", "podManagementPolicy"})) == "OrderedReady", "podManagementPolicy");
    EXPECT(str(kcoro::find_path(*st, {"spec", "updateStrategy", "type"})) == "RollingUpdate" &&
               num(kcoro::find_path(*st, {"spec", "updateStrategy", "rollingUpdate", "partition"})) == 0,
           "RollingUpdate with partition 0");
    EXPECT(str(kcoro::find_path(*st, {"spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"})) == "Retain",
           "PVC retention Retain");
    EXPECT(str(kcoro::find_path(*st, {"spec", "template", "spec", "containers"})->as_array()[0].as_object().if_contains(
               "imagePullPolicy")) == "IfNotPresent",
           "a tagged image is IfNotPresent");
    // An empty selector: ValidateDeploymentSpec's message, the selector printed as Go's %#v.
    json::object empty_sel = deployment_obj(x, "emptysel");
    empty_sel["spec"].as_object()["selector"] = json::object{};
    auto es = co_await x.c.create(kcoro::resources::deployments(), x.ns, empty_sel, co);
    must_fail(es, kcoro::api_errc::invalid,
              "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
              "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment",
              "a Deployment with an empty selector");
    // The scale subresource of a StatefulSet (statefulset/storage/storage.go ScaleREST).
    auto scale_req = ctx::request(kcoro::http_method::patch,
                                  "/apis/apps/v1/namespaces/" + x.ns + "/statefulsets/s/scale", R"({"spec":{"replicas":3}})",
                                  "application/merge-patch+json", "application/json");
    auto scaled = co_await x.raw(scale_req);
    const auto scale = json::parse(scaled.body).as_object();
    EXPECT(scaled.status == 200 && str(scale.if_contains("kind")) == "Scale" &&
               num(kcoro::find_path(scale, {"spec", "replicas"})) == 3 &&
               str(kcoro::find_path(scale, {"status", "selector"})) == "app=s",
           "statefulsets/scale: " + scaled.body);
    st = co_await x.must_get(sets, "s");
    EXPECT(num(kcoro::find_path(*st, {"spec", "replicas"})) == 3 && num(kcoro::find_path(*st, {"metadata", "generation"})) == 2,
           "the StatefulSet scaled, its generation bumped");
    json::object renamed = *st;
    renamed["spec"].as_object()["serviceName"] = "other";
    auto rr = co_await x.update(sets, renamed);
    must_fail(rr, kcoro::api_errc::invalid,
              "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
              "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
              "changing a StatefulSet's serviceName");

    // RBAC: names are path segments, rules need verbs, a binding's roleRef never changes.
    json::object role = json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
        "metadata":{"name":"system:conf:reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]})")
                            .as_object();
    kcoro::set_namespace(role, x.ns);
    co_await x.create(roles, role);
    json::object noverbs = role;
    kcoro::set_name(noverbs, "noverbs");
    noverbs["rules"] = json::parse(R"([{"apiGroups":[""],"resources":["pods"]}])");
    auto nv = co_await x.c.create(roles, x.ns, noverbs, co);
    must_fail(nv, kcoro::api_errc::invalid, "rules[0].verbs: Required value: verbs must contain at least one value",
              "a rule without verbs");
    json::object rb = json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
        "metadata":{"name":"rb"},"roleRef":{"kind":"Role","name":"system:conf:reader"},
        "subjects":[{"kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"default"}]})").as_object();
    kcoro::set_namespace(rb, x.ns);
    auto b = co_await x.create(bindings, rb);
    EXPECT(str(kcoro::find_path(*b, {"roleRef", "apiGroup"})) == "rbac.authorization.k8s.io", "roleRef.apiGroup defaulted");
    const auto* subjects = kcoro::find_path(*b, {"subjects"});
    EXPECT(subjects && subjects->is_array() && subjects->as_array().size() == 2 &&
               str(subjects->as_array()[0].as_object().if_contains("apiGroup")) == "rbac.authorization.k8s.io" &&
               !subjects->as_array()[1].as_object().contains("apiGroup"),
           "a User subject gets the RBAC group, a ServiceAccount none");
    json::object rebind = *b;
    rebind["roleRef"].as_object()["name"] = "other";
    auto rbu = co_await x.update(bindings, rebind);
    must_fail(rbu, kcoro::api_errc::invalid, "roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
                                             "Kind:\"Role\", Name:\"other\"}: cannot change roleRef",
              "changing a binding's roleRef");

    // Pods are deleted with their final state as the answer (ReturnDeletedObject).
    kcoro::delete_options d{};
    auto del = co_await x.remove(pods, "p", d);
    EXPECT(del && *del && kcoro::name_of(**del) == "p", "deleting a pod answers the pod");

    // Services without a cluster IP (service/storage/alloc.go): ExternalName gets none, headless keeps "None".
    json::object ext = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"ext"},
        "spec":{"type":"ExternalName","externalName":"example.com"}})").as_object();
    kcoro::set_namespace(ext, x.ns);
    auto e = co_await x.create(x.svcs, ext);
    EXPECT(kcoro::find_path(*e, {"spec", "clusterIP"}) == nullptr && kcoro::find_path(*e, {"spec", "clusterIPs"}) == nullptr,
           "an ExternalName Service gets no cluster IP");
    json::object headless = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"headless"},
        "spec":{"clusterIP":"None","selector":{"app":"x"},"ports":[{"port":80}]}})").as_object();
    kcoro::set_namespace(headless, x.ns);
    auto h = co_await x.create(x.svcs, headless);
    EXPECT(json::serialize(*kcoro::find_path(*h, {"spec", "clusterIPs"})) == R"(["None"])", "a headless Service keeps None");

    // kubectl get pods: printers.go's pod columns (a Table).
    auto table_req = ctx::request(kcoro::http_method::get, x.ns_path("pods"), "", "",
                                  "application/json;as=Table;v=v1;g=meta.k8s.io");
    auto table = co_await x.raw(table_req);
    std::string columns;
    const json::value table_doc = json::parse(table.body);  // named: a range-for over parse(...).at(...) dangles
    for (const auto& col : table_doc.as_object().at("columnDefinitions").as_array()) {
        const auto& o = col.as_object();
        columns += (columns.empty() ? "" : ", ") + str(o.if_contains("name")) + ":" + str(o.if_contains("type")) + ":" +
                   std::to_string(o.at("priority").to_number<int>());
    }
    EXPECT(columns == "Name:string:0, Ready:string:0, Status:string:0, Restarts:string:0, Age:string:0, IP:string:1, "
                      "Node:string:1, Nominated Node:string:1, Readiness Gates:string:1",
           "the pods Table's columns: " + columns);
}

// issue 23: the review APIs and RBAC (kubectl auth can-i / whoami), as a
// real cluster answers them: RBAC over the stored roles and bindings, the
// system:masters group before it (plugin/pkg/auth/authorizer/rbac/rbac.go,
// pkg/registry/authorization/*/rest.go). The kubeconfig's user must be in
// system:masters (an admin kubeconfig). kcoro-apiserver runs with
// --authorization-mode=RBAC for it (run_conformance.sh).
asio::awaitable<void> access_reviews(ctx& x) {
    const kcoro::group_version_resource ssars{"authorization.k8s.io", "v1", "selfsubjectaccessreviews"},
        sars{"authorization.k8s.io", "v1", "subjectaccessreviews"},
        lsars{"authorization.k8s.io", "v1", "localsubjectaccessreviews"},
        ssrrs{"authorization.k8s.io", "v1", "selfsubjectrulesreviews"},
        ssrs{"authentication.k8s.io", "v1", "selfsubjectreviews"}, roles{"rbac.authorization.k8s.io", "v1", "roles"},
        bindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
    const kcoro::create_options co{};
    auto allowed_of = [](const object_ptr& o) {
        const auto* a = kcoro::find_path(*o, {"status", "allowed"});
        return a && a->is_bool() && a->get_bool();
    };
    // The admin: system:masters may do anything, with no reason (the privileged-groups authorizer).
    json::object self = json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
        "spec":{"resourceAttributes":{"verb":"delete","resource":"secrets"}}})").as_object();
    self["spec"].as_object()["resourceAttributes"].as_object()["namespace"] = x.ns;
    auto s1 = must(co_await x.c.create(ssars, "", self, co), "SelfSubjectAccessReview");
    EXPECT(allowed_of(s1), "the admin may delete secrets");
    EXPECT(kcoro::find_path(*s1, {"status", "reason"}) == nullptr, "system:masters: no reason");
    EXPECT(str(kcoro::find_path(*s1, {"spec", "resourceAttributes", "verb"})) == "delete", "the spec is echoed");
    EXPECT(kcoro::find_path(*s1, {"metadata", "creationTimestamp"}) &&
               kcoro::find_path(*s1, {"metadata", "creationTimestamp"})->is_null(),
           "metadata.creationTimestamp null: never stored");

    // A user with no binding may not; a Role and RoleBinding change that, with RBAC's reason.
    auto sar_for = [&](std::string_view user, std::string_view verb) {
        json::object sar{{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}};
        sar["spec"] = json::object{{"user", user},
                                   {"resourceAttributes", json::object{{"verb", verb}, {"resource", "configmaps"}, {"namespace", x.ns}}}};
        return sar;
    };
    auto no = must(co_await x.c.create(sars, "", sar_for("conf-reader", "list"), co), "SubjectAccessReview");
    EXPECT(!allowed_of(no), "conf-reader has no binding yet");
    EXPECT(kcoro::find_path(*no, {"status", "reason"}) == nullptr && kcoro::find_path(*no, {"status", "denied"}) == nullptr,
           "RBAC has no opinion: neither a reason nor denied");
    json::object role = json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"cm-reader"},
        "rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]})").as_object();
    kcoro::set_namespace(role, x.ns);
    co_await x.create(roles, role);
    json::object rb = json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"readers"},
        "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm-reader"},
        "subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"conf-reader"}]})").as_object();
    kcoro::set_namespace(rb, x.ns);
    co_await x.create(bindings, rb);
    // RBAC reads its informers' caches on a real server: poll briefly.
    object_ptr yes;
    for (int i = 0; i < 50; ++i) {
        yes = must(co_await x.c.create(sars, "", sar_for("conf-reader", "list"), co), "SubjectAccessReview");
        if (allowed_of(yes)) break;
        co_await x.sleep(100ms);
    }
    EXPECT(allowed_of(yes), "the RoleBinding grants list");
    EXPECT(str(kcoro::find_path(*yes, {"status", "reason"})) ==
               "RBAC: allowed by RoleBinding \"readers/" + x.ns + "\" of Role \"cm-reader\" to User \"conf-reader\"",
           "RBAC's reason names the binding, the role and the subject");
    auto del = must(co_await x.c.create(sars, "", sar_for("conf-reader", "delete"), co), "SubjectAccessReview");
    EXPECT(!allowed_of(del), "the role grants no delete");
    json::object local = sar_for("conf-reader", "get");
    local["kind"] = "LocalSubjectAccessReview";
    auto l = must(co_await x.c.create(lsars, x.ns, local, co), "LocalSubjectAccessReview");
    EXPECT(allowed_of(l), "LocalSubjectAccessReview in the namespace");
    json::object elsewhere = local;
    elsewhere["spec"].as_object()["resourceAttributes"].as_object()["namespace"] = "default";
    auto le = co_await x.c.create(lsars, x.ns, elsewhere, co);
    must_fail(le, kcoro::api_errc::invalid, "spec.resourceAttributes.namespace: Invalid value: \"default\": must match metadata.namespace",
              "a LocalSubjectAccessReview for another namespace");
    json::object empty_sar = json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
        "spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})").as_object();
    auto es = co_await x.c.create(sars, "", empty_sar, co);
    must_fail(es, kcoro::api_errc::invalid, "spec.user: Invalid value: \"\": at least one of user or group must be specified",
              "a SubjectAccessReview without a subject");

    // kubectl auth can-i --list and whoami.
    json::object rules = json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{}})").as_object();
    rules["spec"].as_object()["namespace"] = x.ns;
    auto rr = must(co_await x.c.create(ssrrs, "", rules, co), "SelfSubjectRulesReview");
    const auto* rrules = kcoro::find_path(*rr, {"status", "resourceRules"});
    bool star = false;
    for (const auto& r : rrules && rrules->is_array() ? rrules->as_array() : json::array{}) {
        star = star || json::serialize(r) == R"({"verbs":["*"],"apiGroups":["*"],"resources":["*"]})";
    }
    EXPECT(star, "the admin's rules include cluster-admin's");
    EXPECT(kcoro::find_path(*rr, {"status", "incomplete"}) && *kcoro::find_path(*rr, {"status", "incomplete"}) == json::value(false),
           "complete");
    json::object who = json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})").as_object();
    auto w = must(co_await x.c.create(ssrs, "", who, co), "SelfSubjectReview");
    const auto* groups = kcoro::find_path(*w, {"status", "userInfo", "groups"});
    bool masters = false, authenticated = false;
    for (const auto& g : groups && groups->is_array() ? groups->as_array() : json::array{}) {
        masters = masters || g == json::value("system:masters");
        authenticated = authenticated || g == json::value("system:authenticated");
    }
    EXPECT(masters && authenticated, "whoami: the admin's groups");
    EXPECT(!str(kcoro::find_path(*w, {"status", "userInfo", "username"})).empty(), "whoami: a username");
}

// issue 23: serviceaccounts/<name>/token and TokenReview (kubectl create
// token; pkg/registry/core/serviceaccount/storage/token.go,
// pkg/serviceaccount/claims.go): the token is the account's credential
// until the account goes.
asio::awaitable<void> token_request(ctx& x) {
    const auto sas = kcoro::resources::serviceaccounts();
    const kcoro::group_version_resource reviews{"authentication.k8s.io", "v1", "tokenreviews"};
    json::object sa = json::parse(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"robot"}})").as_object();
    kcoro::set_namespace(sa, x.ns);
    auto made = co_await x.create(sas, sa);
    const std::string target = x.ns_path("serviceaccounts") + "/robot/token";
    auto req = ctx::request(kcoro::http_method::post, target,
                            R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})",
                            "application/json", "application/json");
    auto resp = co_await x.raw(req);
    EXPECT(resp.status == 201, "TokenRequest answers 201, got " + std::to_string(resp.status) + " " + resp.body);
    const auto tr = json::parse(resp.body).as_object();
    EXPECT(str(kcoro::find_path(tr, {"kind"})) == "TokenRequest", "a TokenRequest");
    EXPECT(num(kcoro::find_path(tr, {"spec", "expirationSeconds"})) == 3600, "an hour by default");
    const auto* auds = kcoro::find_path(tr, {"spec", "audiences"});
    EXPECT(auds && auds->is_array() && auds->as_array().size() == 1, "the API audience by default");
    EXPECT(kcoro::find_path(tr, {"spec", "boundObjectRef"}) && kcoro::find_path(tr, {"spec", "boundObjectRef"})->is_null(),
           "boundObjectRef null");
    EXPECT(str(kcoro::find_path(tr, {"metadata", "name"})) == "robot", "named after the account");
    const std::string token = str(kcoro::find_path(tr, {"status", "token"}));
    EXPECT(std::count(token.begin(), token.end(), '.') == 2, "a JWT");
    EXPECT(!str(kcoro::find_path(tr, {"status", "expirationTimestamp"})).empty(), "its expiry");

    const kcoro::create_options co{};
    json::object review{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"},
                        {"spec", json::object{{"token", token}}}};
    auto rv = must(co_await x.c.create(reviews, "", review, co), "TokenReview");
    EXPECT(kcoro::find_path(*rv, {"status", "authenticated"}) &&
               *kcoro::find_path(*rv, {"status", "authenticated"}) == json::value(true),
           "the token authenticates");
    EXPECT(str(kcoro::find_path(*rv, {"status", "user", "username"})) == "system:serviceaccount:" + x.ns + ":robot",
           "as the account");
    EXPECT(str(kcoro::find_path(*rv, {"status", "user", "uid"})) == std::string(kcoro::uid_of(*made)), "with its uid");
    const auto* groups = kcoro::find_path(*rv, {"status", "user", "groups"});
    EXPECT(groups && json::serialize(*groups) == R"(["system:serviceaccounts","system:serviceaccounts:)" + x.ns +
                                                     R"(","system:authenticated"])",
           "in the service account groups");
    const auto* cred = kcoro::find_path(*rv, {"status", "user", "extra", "authentication.kubernetes.io/credential-id"});
    EXPECT(cred && cred->is_array() && cred->as_array().size() == 1 &&
               std::string_view(cred->as_array()[0].as_string()).starts_with("JTI="),
           "the credential id is the token's jti");
    review["spec"].as_object()["token"] = "garbage";
    auto bad = must(co_await x.c.create(reviews, "", review, co), "TokenReview of garbage");
    EXPECT(json::serialize(*kcoro::find_path(*bad, {"status"})) == R"({"user":{},"error":"invalid bearer token"})",
           "garbage: not authenticated, 'invalid bearer token'");

    auto short_req = ctx::request(kcoro::http_method::post, target,
                                  R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":60}})",
                                  "application/json", "application/json");
    auto short_resp = co_await x.raw(short_req);
    EXPECT(short_resp.status == 422 && short_resp.body.find("spec.expirationSeconds: Invalid value: 60: may not specify a "
                                                            "duration less than 10 minutes") != std::string::npos,
           "ten minutes at least: " + short_resp.body);
    auto missing_req = ctx::request(kcoro::http_method::post, x.ns_path("serviceaccounts") + "/nobody/token",
                                    R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})",
                                    "application/json", "application/json");
    auto missing = co_await x.raw(missing_req);
    EXPECT(missing.status == 404 && str(json::parse(missing.body).as_object().if_contains("message")) ==
                                        "serviceaccounts \"nobody\" not found",
           "no account, no token: " + missing.body);

    // The account deleted, its token no longer authenticates (the validator
    // reads the account; kube-apiserver caches a token's authentication for
    // 10 s (tokencache), so it may take that long there: poll up to 15 s).
    kcoro::delete_options d{};
    auto gone_sa = must(co_await x.remove(sas, "robot", d), "delete the account");
    // ReturnDeletedObject (serviceaccount/storage/storage.go): the answer is the account.
    EXPECT(gone_sa && kcoro::name_of(*gone_sa) == "robot" && kcoro::uid_of(*gone_sa) == kcoro::uid_of(*made),
           "deleting a ServiceAccount answers the account");
    // AllowCreateOnUpdate false (serviceaccount/strategy.go): a PUT does not create one.
    json::object ghost = sa;
    kcoro::set_name(ghost, "ghost");
    auto put = co_await x.update(sas, ghost);
    must_fail(put, kcoro::api_errc::not_found, "serviceaccounts \"ghost\" not found", "a PUT of a missing ServiceAccount");
    review["spec"].as_object()["token"] = token;
    bool gone = false;
    for (int i = 0; i < 150 && !gone; ++i) {
        auto after = must(co_await x.c.create(reviews, "", review, co), "TokenReview after the delete");
        gone = kcoro::find_path(*after, {"status", "authenticated"}) == nullptr;
        if (!gone) co_await x.sleep(100ms);
    }
    EXPECT(gone, "a deleted account's token no longer authenticates");
}

// issue 23: aggregated discovery (apidiscovery.k8s.io/v2), which kubectl
// 1.30+ and client-go ask for first (staging/src/k8s.io/apiserver/pkg/
// endpoints/discovery/aggregated/handler.go).
asio::awaitable<void> aggregated_discovery(ctx& x) {
    const std::string accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                               "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    auto apis_req = ctx::request(kcoro::http_method::get, "/apis", "", "", accept);
    auto apis = co_await x.raw(apis_req);
    EXPECT(apis.status == 200, "GET /apis aggregated");
    EXPECT(apis.content_type == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
           "the aggregated content type, got " + apis.content_type);
    const auto doc = json::parse(apis.body).as_object();
    EXPECT(str(doc.if_contains("kind")) == "APIGroupDiscoveryList" && str(doc.if_contains("apiVersion")) == "apidiscovery.k8s.io/v2",
           "an APIGroupDiscoveryList");
    const json::object* deployments = nullptr;
    bool core_in_apis = false;
    for (const auto& item : doc.at("items").as_array()) {
        const auto& it = item.as_object();
        const auto name = str(kcoro::find_path(it, {"metadata", "name"}));
        if (name.empty()) core_in_apis = true;
        if (name != "apps") continue;
        EXPECT(kcoro::find_path(it, {"metadata", "creationTimestamp"})->is_null(), "metadata.creationTimestamp null");
        const auto& v1 = it.at("versions").as_array()[0].as_object();
        EXPECT(str(v1.if_contains("version")) == "v1" && str(v1.if_contains("freshness")) == "Current", "apps/v1, Current");
        for (const auto& r : v1.at("resources").as_array()) {
            if (str(r.as_object().if_contains("resource")) == "deployments") deployments = &r.as_object();
        }
    }
    EXPECT(!core_in_apis, "/apis leaves the core group out");
    EXPECT(deployments != nullptr, "deployments in apps/v1");
    EXPECT(json::serialize(deployments->at("responseKind")) == R"({"group":"","version":"","kind":"Deployment"})",
           "responseKind: the resource's own group version left empty");
    EXPECT(str(deployments->if_contains("scope")) == "Namespaced" && str(deployments->if_contains("singularResource")) == "deployment",
           "scope and singularResource");
    EXPECT(json::serialize(deployments->at("shortNames")) == R"(["deploy"])" &&
               json::serialize(deployments->at("categories")) == R"(["all"])",
           "shortNames and categories");
    EXPECT(json::serialize(deployments->at("subresources")) ==
               R"([{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},)"
               R"({"subresource":"status","responseKind":{"group":"","version":"","kind":"Deployment"},"verbs":["get","patch","update"]}])",
           "scale and status subresources");
    EXPECT(!deployments->contains("storageVersionHash"), "no storageVersionHash in the aggregated form");

    auto api_req = ctx::request(kcoro::http_method::get, "/api", "", "", accept);
    auto api = co_await x.raw(api_req);
    const auto core = json::parse(api.body).as_object();
    const auto& items = core.at("items").as_array();
    EXPECT(items.size() == 1 && !items[0].as_object().at("metadata").as_object().contains("name"), "/api: the core group, unnamed");
    const json::object* sas = nullptr;
    for (const auto& r : items[0].as_object().at("versions").as_array()[0].as_object().at("resources").as_array()) {
        if (str(r.as_object().if_contains("resource")) == "serviceaccounts") sas = &r.as_object();
    }
    EXPECT(sas && json::serialize(sas->at("subresources")) ==
                      R"([{"subresource":"token","responseKind":{"group":"authentication.k8s.io","version":"v1","kind":"TokenRequest"},"verbs":["create"]}])",
           "serviceaccounts/token answers a TokenRequest");
    // Plain JSON first: the legacy document.
    auto legacy_req = ctx::request(kcoro::http_method::get, "/apis", "", "", "application/json");
    auto legacy = co_await x.raw(legacy_req);
    EXPECT(str(json::parse(legacy.body).as_object().if_contains("kind")) == "APIGroupList", "plain JSON: APIGroupList");
}

std::vector<scenario> all_scenarios() {
    return {
        {"resource-version", false, resource_version},
        {"generation", true, generation},
        {"ref002-stale-write-conflict", false, stale_write_conflict},
        {"ref002-uid-named-side-effect", false, uid_named_side_effect},
        {"already-exists", false, already_exists},
        {"missing-namespace", false, missing_namespace},
        {"finalizers", false, finalizers},
        {"propagation-background", false, propagation_background},
        {"propagation-foreground", false, propagation_foreground},
        {"propagation-orphan", false, propagation_orphan},
        {"gc-missing-owner", false, gc_missing_owner},
        {"status-subresource", true, status_subresource},
        {"patches", false, patches},
        {"list-paging-selectors", false, list_paging_selectors},
        {"watch-from-resource-version", false, watch_from_rv},
        {"watch-initial-events", false, watch_initial_events},
        {"watch-too-old-410", false, watch_too_old},
        {"watch-bookmarks", false, bookmarks},
        {"watch-send-initial-events", false, send_initial_events},
        {"resource-version-too-large", false, resource_version_too_large},
        // issue 13, server fidelity
        {"strategic-merge-directives", false, strategic_merge_directives},
        {"apply-manager-identity", false, apply_manager_identity},
        {"apply-prunes-by-item-key", false, apply_prunes_by_item_key},
        {"builtin-validation", false, builtin_validation},
        {"events-two-views", false, events_two_views},
        {"namespace-deletion-conditions", false, namespace_deletion_conditions},
        {"http-surface", false, http_surface},
        {"watch-too-old-rv1", false, watch_too_old_rv1},
        {"scale-subresource", false, scale_subresource},
        {"partial-object-metadata", false, partial_object_metadata},
        {"discovery-fields", false, discovery_fields},
        // issue 22, a 1.32 server
        {"root-ca-configmap", false, root_ca_configmap},
        {"anonymous-and-impersonation", false, anonymous_and_impersonation},
        {"malformed-query-parameters", false, malformed_query_parameters},
        // issue 23, client-go's protobuf writes
        {"protobuf-bodies", true, protobuf_bodies},
        // issue 23, the kinds a controller's tests touch
        {"workload-kinds", false, workload_kinds},
        {"access-reviews", false, access_reviews},
        {"token-request", false, token_request},
        {"aggregated-discovery", false, aggregated_discovery},
        // issue 24, KEP-5866 (skipped unless the server echoes shardInfo)
        {"sharded-list-and-watch", false, sharded_list_and_watch},
        {"long-request-line", false, long_request_line},
    };
}

// ---------------------------------------------------------------------------
// Driver

std::string random_suffix() {
    static std::mt19937_64 rng{std::random_device{}()};
    static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::string s;
    for (int i = 0; i < 5; ++i) {
        s.push_back(alphabet[rng() % alphabet.size()]);
    }
    return s;
}

enum class crd_origin { created, existed };

/// Creates the shared CRD when missing and waits until its resource answers.
asio::awaitable<kcoro::result<crd_origin>> ensure_crd(kcoro::client::client& c, const options& opt) {
    const auto crds = kcoro::resources::customresourcedefinitions();
    const kcoro::create_options co{};
    json::object crd = widgets_crd();
    auto r = co_await c.create(crds, "", crd, co);
    crd_origin origin = crd_origin::created;
    if (!r) {
        if (!kcoro::is_already_exists(r.error())) {
            co_return r.error();
        }
        origin = crd_origin::existed;
    }
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(opt.gc_wait);
    kcoro::error last;
    while (std::chrono::steady_clock::now() < end) {
        const kcoro::list_options lo{};
        auto l = co_await c.list(widgets_gvr, "default", lo);
        if (l) {
            co_return origin;
        }
        last = l.error();
        asio::steady_timer t(co_await asio::this_coro::executor, 100ms);
        co_await t.async_wait(asio::use_awaitable);
    }
    co_return last.with_context("waiting for " + std::string(widgets_crd_name));
}

asio::awaitable<int> run_all(kcoro::client::client& c, const options& opt) {
    // kcoro-apiserver has the fault endpoint (used for compaction only).
    kcoro::api_request probe;
    probe.target = "/kcoro/faults";
    probe.verb = "GET";
    auto pr = co_await c.send(probe);
    bool kcoro_server = pr.has_value();
    std::cout << "server: " << c.config().server << (kcoro_server ? " (kcoro-apiserver)" : "") << "\n";

    auto list = all_scenarios();
    bool need_crd = false;
    for (const auto& s : list) {
        if (s.name.find(opt.run) != std::string::npos && s.needs_crd) {
            need_crd = true;
        }
    }
    bool crd_created = false;
    bool crd_ok = true;
    std::string crd_error;
    if (need_crd) {
        auto e = co_await ensure_crd(c, opt);
        if (!e) {
            crd_ok = false;
            crd_error = e.error().message();
        } else {
            crd_created = *e == crd_origin::created;
        }
    }
    int pass = 0, fail = 0, skip = 0;
    const auto nss = kcoro::resources::namespaces();
    for (auto& s : list) {
        if (s.name.find(opt.run) == std::string::npos) {
            continue;
        }
        if (s.needs_crd && !crd_ok) {
            std::cout << "FAIL " << s.name << ": CRD setup: " << crd_error << std::endl;
            ++fail;
            continue;
        }
        ctx x{c, opt, "conf-" + s.name.substr(0, 40) + "-" + random_suffix(), kcoro_server};
        json::object nsobj{{"apiVersion", "v1"}, {"kind", "Namespace"}};
        kcoro::set_name(nsobj, x.ns);
        const kcoro::create_options co{};
        auto made = co_await c.create(nss, "", nsobj, co);
        if (!made) {
            std::cout << "FAIL " << s.name << ": create namespace " << x.ns << ": " << made.error().message() << std::endl;
            ++fail;
            continue;
        }
        auto start = std::chrono::steady_clock::now();
        std::string outcome;
        std::string why;
        try {
            co_await s.run(x);
            outcome = "PASS";
        } catch (const skipped& e) {
            outcome = "SKIP";
            why = e.what();
        } catch (const std::exception& e) {
            outcome = "FAIL";
            why = e.what();
        }
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        std::cout << outcome << " " << s.name << (why.empty() ? "" : ": " + why) << " (" << ms << " ms)" << std::endl;
        (outcome == "PASS" ? pass : outcome == "SKIP" ? skip : fail)++;
        const object_key nskey{"", x.ns};
        const kcoro::delete_options dopt{};
        auto removed = co_await c.remove(nss, nskey, dopt);
        if (!removed && !kcoro::is_not_found(removed.error())) {
            std::cout << "  (cleanup: delete namespace " << x.ns << ": " << removed.error().message() << ")\n";
        }
    }
    if (crd_created) {
        const auto crds = kcoro::resources::customresourcedefinitions();
        const object_key k{"", std::string(widgets_crd_name)};
        const kcoro::delete_options dopt{};
        auto removed = co_await c.remove(crds, k, dopt);
        if (!removed) {
            std::cout << "  (cleanup: delete CRD: " << removed.error().message() << ")\n";
        }
    }
    std::cout << "conformance: " << pass << " passed, " << fail << " failed, " << skip << " skipped" << std::endl;
    co_return fail == 0 ? 0 : 1;
}

int usage(std::ostream& os, int rc) {
    os << "usage: kcoro-conformance [--kubeconfig PATH] [--context NAME] [--run SUBSTRING]\n"
          "                         [--bookmark-wait SECONDS] [--gc-wait SECONDS] [--list]\n";
    return rc;
}

} // namespace

int main(int argc, char** argv) {
    options opt;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) {
                std::exit(usage(std::cerr, 2));
            }
            return args[++i];
        };
        if (args[i] == "--kubeconfig") {
            opt.kubeconfig = value();
        } else if (args[i] == "--context") {
            opt.context = value();
        } else if (args[i] == "--run") {
            opt.run = value();
        } else if (args[i] == "--bookmark-wait") {
            opt.bookmark_wait = std::stoi(value());
        } else if (args[i] == "--gc-wait") {
            opt.gc_wait = std::stoi(value());
        } else if (args[i] == "--list") {
            opt.list = true;
        } else if (args[i] == "-h" || args[i] == "--help") {
            return usage(std::cout, 0);
        } else {
            return usage(std::cerr, 2);
        }
    }
    if (opt.list) {
        for (const auto& s : all_scenarios()) {
            std::cout << s.name << "\n";
        }
        return 0;
    }
    auto env = kcoro::client::environment::process();
    auto cfg = kcoro::client::load_config({opt.kubeconfig, opt.context}, env);
    if (!cfg) {
        std::cerr << "error: " << cfg.error().message() << "\n";
        return 2;
    }
    asio::io_context ioc;
    kcoro::io::system_clock clk;
    kcoro::client::client_options co;
    co.user_agent = "kcoro-conformance/" + std::string(kcoro::client::version);
    co.max_retries = 0;  // the scenarios check first answers
    auto c = kcoro::client::client::create(*cfg, clk, co);
    if (!c) {
        std::cerr << "error: " << c.error().message() << "\n";
        return 2;
    }
    int rc = 1;
    asio::co_spawn(ioc, run_all(**c, opt), [&rc](std::exception_ptr e, int code) {
        if (e) {
            std::rethrow_exception(e);
        }
        rc = code;
    });
    ioc.run();
    return rc;
}
