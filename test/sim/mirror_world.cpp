// The configmap-mirror world (sim.hpp, docs/testing.md "The mirror world"):
// one or two configmap-mirror managers (leader election on with two), a user
// who creates managed and unmanaged parents, edits their data and their
// label, deletes them, edits, strips, replaces and deletes their
// `<name>-observed` children, and now and then creates a foreign ConfigMap
// under a child's name before its parent exists; on world.hpp's machinery
// (the same faults, crashes and partitions as the operator world).
//
// The properties are section 16 of the seed document
// (../shared/reference/003, test/integration/section16_test.cpp) under
// faults: a child is only ever written with a controller reference to its
// parent and the parent's uid in its data; a foreign object is never
// touched; duplicate events and lost responses end in one correct child and
// then no write at all.
#include "world.hpp"

#include "defective_mirror.hpp"
#include "mirror.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>

#include <boost/json/parse.hpp>

namespace kcoro::sim {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view ns = user_ns;
constexpr int parent_names = 5;
constexpr std::string_view child_suffix = "-observed";

replica_config mirror_replicas(const sim_options& o) {
    replica_config rc;
    rc.name = "configmap-mirror";
    rc.leader_elect = o.replicas > 1;
    rc.lease_name = "configmap-mirror.example.io";
    rc.max_concurrent_reconciles = 32;  // as main.cpp
    rc.lagging_watches = true;
    if (o.sharded) {
        rc.sharding_ring = "mirror";
        rc.leader_elect = false;
    }
    return rc;
}

/// "cm-3-observed" -> "cm-3"; "" when `name` is not a child's name.
std::string parent_of_child_name(std::string_view name) {
    if (name.size() <= child_suffix.size() || !name.ends_with(child_suffix)) return {};
    return std::string(name.substr(0, name.size() - child_suffix.size()));
}

bool is_managed(const json::object& cm) { return label_of(cm, mirror::managed_label).value_or("") == "true"; }

std::string data_of(const json::object& cm, std::string_view key) {
    const auto* v = find_path(cm, {"data", key});
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

class mirror_world final : public world {
public:
    explicit mirror_world(const sim_options& o) : world(o, mirror_replicas(o)) {}
    ~mirror_world() override { shut_down(); }

private:
    struct foreign_object {
        std::string uid;
        std::string resource_version;
    };

    void install(replica& r) override;
    void check_write(peer& p, const target_info& t, const io::http_request& req) override;
    bool counts_as_write(const target_info& t, const io::http_request& req) override;
    void note_response(peer& p, const target_info& t, const io::http_response& r) override;
    void check_store() override;
    bool converged(std::string* why) override;
    asio::awaitable<void> user_step() override;
    void nudge() override;
    std::string primary_uid_of_write(const target_info& t, const io::http_request& req) override;

    void check_child_body(peer& p, const target_info& t, std::string_view parent, const io::http_request& req);
    bool was_parent_uid(const std::string& parent, std::string_view uid);
    void remember(const result<object_ptr>& created);

    // Every uid a parent of each name had (the user's creates, the store at
    // settled points): a child's owner must be one of them.
    std::map<std::string, std::set<std::string>> parent_uids_;
    // Objects the user made under a child's name (child name -> identity):
    // never to be modified or deleted by anyone.
    std::map<std::string, foreign_object> foreign_;
};

// The example's own reconciler, as its main.cpp wires it; with --defect,
// the defective one (defective_mirror.hpp).
void mirror_world::install(replica& r) {
    if (o_.defects) {
        auto rec = std::make_shared<defective_mirror>(r.mgr->client(), o_.defects);
        add_to(*r.mgr, *rec);
        r.keep = std::move(rec);
        return;
    }
    auto rec = std::make_shared<mirror::reconciler>(r.mgr->client());
    mirror::add_to(*r.mgr, *rec);
    r.keep = std::move(rec);
}

void mirror_world::remember(const result<object_ptr>& created) {
    if (created && *created) parent_uids_[std::string(name_of(**created))].insert(std::string(uid_of(**created)));
}

bool mirror_world::was_parent_uid(const std::string& parent, std::string_view uid) {
    if (auto live = srv_.store().get(resources::configmaps(), ns, parent); live && uid_of(*live) == uid) return true;
    auto it = parent_uids_.find(parent);
    return it != parent_uids_.end() && it->second.count(std::string(uid));
}

// The parent a child's write is about (the sharding key): the controller
// owner of the body, else of the child as stored, else the live parent.
std::string mirror_world::primary_uid_of_write(const target_info& t, const io::http_request& req) {
    if (t.resource != "configmaps") return {};
    boost::system::error_code ec;
    auto body = json::parse(req.body, ec);
    const std::string name = written_name(t, req);
    auto child = srv_.store().get(resources::configmaps(), ns, name);
    if (auto uid = controller_uid(!ec && body.is_object() ? &body.as_object() : nullptr, child ? &*child : nullptr);
        !uid.empty()) {
        return uid;
    }
    const std::string parent = parent_of_child_name(name);
    if (parent.empty()) return {};
    auto live = srv_.store().get(resources::configmaps(), ns, parent);
    return live ? std::string(uid_of(*live)) : std::string();
}

// --- request-level invariants -----------------------------------------------

// A create under a foreign object's name is the name-conflict retry the
// example documents (with backoff, never adopted): an attempt, never a change.
bool mirror_world::counts_as_write(const target_info& t, const io::http_request& req) {
    return !(t.resource == "configmaps" && t.verb == "create" && foreign_.count(written_name(t, req)));
}

void mirror_world::check_write(peer& p, const target_info& t, const io::http_request& req) {
    if (t.resource == "leases" || t.resource == "events") return;
    const std::string what = p.name + " " + t.verb + " " + t.resource + " " + t.name;
    if (t.resource != "configmaps" || t.ns != ns) {
        violation("the mirror wrote something else than a child: " + what);
        return;
    }
    const std::string name = written_name(t, req);
    const std::string parent = parent_of_child_name(name);
    if (parent.empty()) {
        violation("the mirror wrote a ConfigMap that is not a child: " + p.name + " " + t.verb + " " + name);
        return;
    }
    if (t.verb == "delete") violation("the mirror deleted a child (the garbage collector's job): " + what);
    // A foreign object is never modified; nor is anything the mirror does not control.
    if (t.verb != "create") {
        if (auto live = srv_.store().get(resources::configmaps(), ns, name); live) {
            auto ctl = controller_of(*live);
            auto f = foreign_.find(name);
            if (!ctl || ctl->kind != "ConfigMap" || (f != foreign_.end() && f->second.uid == uid_of(*live))) {
                violation("foreign object modified: " + what);
            }
        }
    }
    if (t.verb == "create" || t.verb == "patch") check_child_body(p, t, parent, req);
}

// A create of a child of ours answered AlreadyExists (our own earlier create
// whose answer was lost, or raced by the cache): apply_owned reads it back.
// Traced, so a campaign can tell that the path ran.
void mirror_world::note_response(peer& p, const target_info& t, const io::http_response& r) {
    if (t.resource != "configmaps" || t.verb != "create" || r.status != 409) return;
    boost::system::error_code ec;
    auto st = json::parse(r.body, ec);
    const auto* name = ec || !st.is_object() ? nullptr : find_path(st.as_object(), {"details", "name"});
    const std::string n = name && name->is_string() ? std::string(name->as_string()) : std::string();
    if (foreign_.count(n)) return;  // the name-conflict retry
    tr_.line(clk_.now(), "check", p.name + " create of " + n + " answered AlreadyExists: our own child (read back)");
}

// What a create or an apply sends: a controller reference to the parent, by
// a uid the parent had, and that uid in the data (section 16: the child is
// recognisable on every later pass).
void mirror_world::check_child_body(peer& p, const target_info& t, std::string_view parent,
                                    const io::http_request& req) {
    const bool apply = req.header("Content-Type").find("apply-patch") != std::string_view::npos;
    if (t.verb == "patch" && !apply) return;  // a JSON patch of list items: not the mirror's (no lists)
    boost::system::error_code ec;
    auto body = json::parse(req.body, ec);
    const std::string what = p.name + " " + t.verb + " " + std::string(parent) + std::string(child_suffix);
    if (ec || !body.is_object()) {
        violation("child written with a body that is not an object: " + what);
        return;
    }
    const auto& obj = body.as_object();
    auto ctl = controller_of(obj);
    if (!ctl || ctl->kind != "ConfigMap" || ctl->api_version != "v1" || ctl->name != parent) {
        violation("child written without a controller reference to its parent: " + what);
        return;
    }
    if (!was_parent_uid(std::string(parent), ctl->uid)) {
        violation("child written with a controller reference to uid " + ctl->uid + ", never its parent's: " + what);
    }
    if (data_of(obj, mirror::parent_uid_key) != ctl->uid) {
        violation("child written with data.parentUID '" + data_of(obj, mirror::parent_uid_key) +
                  "' against its owner uid " + ctl->uid + ": " + what);
    }
    if (label_of(obj, mirror::child_label).value_or("") != "true") violation("child written without its label: " + what);
}

// --- store-level invariants and convergence -----------------------------------

void mirror_world::check_store() {
    auto all = srv_.store().list(resources::configmaps(), ns, {});
    if (!all) return;
    std::map<std::string, const json::object*> by_name;
    std::map<std::string, int> children_per_uid;
    for (const auto& v : all->at("items").as_array()) {
        const auto& cm = v.as_object();
        const std::string name(name_of(cm));
        by_name[name] = &cm;
        if (parent_of_child_name(name).empty() && name.starts_with("cm-")) {
            parent_uids_[name].insert(std::string(uid_of(cm)));
        }
    }
    for (const auto& [name, cm] : by_name) {
        auto ctl = controller_of(*cm);
        if (!ctl || ctl->kind != "ConfigMap") continue;
        const std::string parent = parent_of_child_name(name);
        if (parent != ctl->name || !was_parent_uid(parent, ctl->uid)) {
            violation("child " + name + " controlled by " + ctl->name + " uid " + ctl->uid +
                      ", never a parent of that name");
        }
        if (++children_per_uid[ctl->uid] > 1) violation("two children of parent uid " + ctl->uid);
    }
    for (const auto& [name, f] : foreign_) {
        auto it = by_name.find(name);
        if (it == by_name.end() || uid_of(*it->second) != f.uid) {
            violation("foreign object " + name + " deleted");
        } else if (resource_version_of(*it->second) != f.resource_version) {
            violation("foreign object " + name + " modified (resourceVersion " + f.resource_version + " -> " +
                      std::string(resource_version_of(*it->second)) + ")");
        }
    }
}

bool mirror_world::converged(std::string* why) {
    auto fail = [&](std::string s) {
        if (why) *why = std::move(s);
        return false;
    };
    auto all = srv_.store().list(resources::configmaps(), ns, {});
    if (!all) return fail("cannot list ConfigMaps");
    std::map<std::string, const json::object*> by_name;
    std::set<std::string> live_uids;
    for (const auto& v : all->at("items").as_array()) {
        const auto& cm = v.as_object();
        by_name[std::string(name_of(cm))] = &cm;
        live_uids.insert(std::string(uid_of(cm)));
    }
    for (const auto& [name, cm] : by_name) {
        if (!parent_of_child_name(name).empty() || !name.starts_with("cm-")) continue;
        const std::string uid(uid_of(*cm));
        if (is_being_deleted(*cm)) return fail(name + ": still deleting");
        const std::string child_name = name + std::string(child_suffix);
        auto c = by_name.find(child_name);
        const json::object* child = c == by_name.end() ? nullptr : c->second;
        if (foreign_.count(child_name)) {
            // A name conflict: never adopted (the foreign object's own check
            // is check_store's); the parent has no child.
            continue;
        }
        if (is_managed(*cm)) {
            if (!child) return fail(name + ": no child");
            if (!is_controlled_by(*child, uid)) return fail(name + ": the child is not controlled by the parent's uid");
            if (data_of(*child, mirror::parent_uid_key) != uid) return fail(name + ": the child's data.parentUID differs");
            if (label_of(*child, mirror::child_label).value_or("") != "true") return fail(name + ": the child's label");
        } else if (child && !is_controlled_by(*child, uid)) {
            // Unmanaged: the mirror leaves a child as it was (it no longer
            // sees the parent); it still belongs to this parent, and goes with it.
            return fail(name + " (unmanaged): a child that is not this parent's");
        }
    }
    // No child of a deleted parent once the garbage collector ran.
    for (const auto& [name, cm] : by_name) {
        auto ctl = controller_of(*cm);
        if (ctl && ctl->kind == "ConfigMap" && !live_uids.count(ctl->uid)) {
            return fail(name + ": a child of a deleted parent (uid " + ctl->uid + ")");
        }
    }
    return true;
}

// --- the user -------------------------------------------------------------

asio::awaitable<void> mirror_world::user_step() {
    auto& c = *user_->c;
    const std::string name = "cm-" + std::to_string(rng_.below(parent_names));
    const std::string child_name = name + std::string(child_suffix);
    const object_key key{std::string(ns), name};
    const object_key child_key{std::string(ns), child_name};
    auto report = [&](std::string what, const auto& r) {
        tr_.line(clk_.now(), "user", what + " -> " + (r ? std::string("ok") : r.error().message()));
    };
    patch_options merge;
    merge.type = patch_type::merge;
    auto parent = srv_.store().get(resources::configmaps(), ns, name);
    auto child = srv_.store().get(resources::configmaps(), ns, child_name);
    if (!parent) {
        if (!child && foreign_.size() < 2 && rng_.chance(0.12)) {
            // Someone else's ConfigMap under the child's name, before the parent
            // exists: the mirror must never adopt or touch it.
            json::object cm{{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", child_name}, {"namespace", ns}}},
                            {"data", {{"owner", "someone"}}}};
            auto r = co_await c.create(resources::configmaps(), std::string(ns), std::move(cm));
            if (r) foreign_[child_name] = {std::string(uid_of(**r)), std::string(resource_version_of(**r))};
            report("create foreign " + child_name, r);
            co_return;
        }
        const bool managed = rng_.chance(0.85);
        json::object labels;
        labels[mirror::managed_label] = managed ? "true" : "false";
        json::object cm{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                        {"data", {{"input", "v" + std::to_string(rng_.below(100))}}}};
        auto r = co_await c.create(resources::configmaps(), std::string(ns), std::move(cm));
        remember(r);
        report(std::string(managed ? "create" : "create unmanaged") + " " + name, r);
        if (r && rng_.chance(0.2)) {
            // Changed their mind: deleted while the mirror's first pass may still run.
            auto pause = rng_.millis(0ms, 1500ms);
            co_await clk_.sleep_for(pause);
            auto d = co_await c.remove(resources::configmaps(), key);
            report("delete at once " + name, d);
        }
        co_return;
    }
    if (is_being_deleted(*parent)) co_return;
    const bool own_child = child && !foreign_.count(child_name);
    const auto x = rng_.below(100);
    if (x < 15) {
        auto body = "{\"data\":{\"input\":\"v" + std::to_string(rng_.below(100)) + "\"}}";
        auto r = co_await c.patch(resources::configmaps(), key, std::move(body), merge);
        report("edit data " + name, r);
    } else if (x < 27) {
        // The label off (removed or "false"), or back on.
        std::string body = is_managed(*parent)
                               ? (rng_.chance(0.5) ? R"({"metadata":{"labels":{"app.example.io/managed":null}}})"
                                                   : R"({"metadata":{"labels":{"app.example.io/managed":"false"}}})")
                               : R"({"metadata":{"labels":{"app.example.io/managed":"true"}}})";
        auto r = co_await c.patch(resources::configmaps(), key, std::move(body), merge);
        report(std::string(is_managed(*parent) ? "unmanage " : "manage ") + name, r);
    } else if (x < 37) {
        auto r = co_await c.remove(resources::configmaps(), key);
        report("delete " + name, r);
    } else if (x < 42) {
        // Foreground: the parent waits (deletionTimestamp set) until the GC removed the child.
        delete_options d{deletion_propagation::foreground};
        auto r = co_await c.remove(resources::configmaps(), key, std::move(d));
        report("delete (foreground) " + name, r);
    } else if (x < 50) {
        // Another writer: a PUT of the parent from what it read a moment ago.
        json::object obj = *parent;
        set_label(obj, "sim/touched", std::to_string(rng_.below(1000)));
        auto pause = rng_.millis(0ms, 300ms);
        co_await clk_.sleep_for(pause);
        auto r = co_await c.update(resources::configmaps(), std::move(obj));
        report("relabel (PUT) " + name, r);
    } else if (!own_child) {
        co_return;
    } else if (x < 65) {
        auto body = "{\"data\":{\"parentUID\":\"tampered-" + std::to_string(rng_.below(1000)) + "\"}}";
        auto r = co_await c.patch(resources::configmaps(), child_key, std::move(body), merge);
        report("tamper " + child_name, r);
    } else if (x < 73) {
        // The child's data replaced wholesale by a PUT from a stale read.
        json::object obj = *child;
        obj["data"] = json::object{{"edited", "by hand"}};
        auto pause = rng_.millis(0ms, 300ms);
        co_await clk_.sleep_for(pause);
        auto r = co_await c.update(resources::configmaps(), std::move(obj));
        report("replace data (PUT) " + child_name, r);
    } else if (x < 80) {
        // The child's label stripped: it leaves the mirror's children informer.
        auto r = co_await c.patch(resources::configmaps(), child_key,
                                  R"({"metadata":{"labels":{"app.example.io/child":null}}})", merge);
        report("strip label " + child_name, r);
    } else if (x < 85) {
        auto r = co_await c.patch(resources::configmaps(), child_key,
                                  R"({"metadata":{"annotations":{"note":"hand-made"}}})", merge);
        report("annotate " + child_name, r);
    } else {
        auto r = co_await c.remove(resources::configmaps(), child_key);
        report("delete " + child_name, r);
    }
}

// Converged: every managed parent's data edited, and every child touched in
// a field the mirror does not own. Both wake the mirror (section 16, R2:
// repeated events); neither may cause a write.
void mirror_world::nudge() {
    auto all = srv_.store().list(resources::configmaps(), ns, {});
    if (!all) return;
    std::vector<std::string> parents, children;
    for (const auto& v : all->at("items").as_array()) {
        const auto& cm = v.as_object();
        const std::string name(name_of(cm));
        if (is_managed(cm)) parents.push_back(name);
        if (!parent_of_child_name(name).empty() && !foreign_.count(name)) children.push_back(name);
    }
    patch_options merge;
    merge.type = patch_type::merge;
    for (const auto& name : parents) {
        auto r = run_now(admin_->c->patch(resources::configmaps(), object_key{std::string(ns), name},
                                          R"({"data":{"nudge":"1"}})", merge));
        tr_.line(clk_.now(), "sim", "nudge " + name + (r ? "" : ": " + r.error().message()));
    }
    for (const auto& name : children) {
        auto r = run_now(admin_->c->patch(resources::configmaps(), object_key{std::string(ns), name},
                                          R"({"metadata":{"annotations":{"nudge":"1"}}})", merge));
        tr_.line(clk_.now(), "sim", "nudge " + name + (r ? "" : ": " + r.error().message()));
    }
}

} // namespace

std::unique_ptr<world> make_mirror_world(const sim_options& o) { return std::make_unique<mirror_world>(o); }

} // namespace kcoro::sim
