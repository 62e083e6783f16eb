// The gateway-operator world (sim.hpp, docs/testing.md "Simulation"): two
// operator replicas with leader election, a user who creates, edits and
// deletes GatewayInstances and their children (and now and then makes a
// foreign Deployment under an instance's name, or a foreign ConfigMap under
// its registration's), on world.hpp's machinery.
#include "world.hpp"

#include "controller_setup.hpp"
#include "desired_state.hpp"
#include "instance_status.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/core/resource.hpp>
#include <kcoro/core/yaml.hpp>
#include <kcoro/runtime/conditions.hpp>
#include <kcoro/typed/codec.hpp>

#include <boost/json/parse.hpp>

#include <fstream>
#include <sstream>

namespace kcoro::sim {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view ns = user_ns;
constexpr std::string_view registry_ns = "kcoro-system";
constexpr int instance_names = 4;

json::object read_yaml_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    auto doc = parse_yaml(ss.str());
    if (!doc || !doc->is_object()) throw std::runtime_error("cannot read " + path);
    return doc->as_object();
}

replica_config operator_replicas(const sim_options& o) {
    replica_config rc;
    rc.name = "gateway-operator";
    rc.lease_namespace = std::string(registry_ns);
    rc.lease_name = "gateway-operator.gateway.kcoro.dev";
    rc.max_concurrent_reconciles = 32;  // as main.cpp
    if (o.sharded) {
        // deploy/sharding's ring; no singleton controller, so no leader election.
        rc.sharding_ring = "gateway";
        rc.leader_elect = false;
    }
    return rc;
}

class operator_world final : public world {
public:
    explicit operator_world(const sim_options& o) : world(o, operator_replicas(o)) {}
    ~operator_world() override { shut_down(); }

private:
    void set_up() override;
    void install(replica& r) override;
    void check_write(peer& p, const target_info& t, const io::http_request& req) override;
    bool counts_as_write(const target_info& t, const io::http_request& req) override;
    void note_response(peer& p, const target_info& t, const io::http_response& r) override;
    void note_late_write(peer& p, const target_info& t, const io::http_request& req) override;
    void check_store() override;
    bool converged(std::string* why) override;
    asio::awaitable<void> user_step() override;
    void before_converge() override;
    bool after_converge() override;
    std::string primary_uid_of_write(const target_info& t, const io::http_request& req) override;

    asio::awaitable<void> plant_foreign_registration(std::string uid);
    bool foreign_registration_at(const std::string& name);

    // The instance as each replica last read it (peer -> name -> object; null: 404).
    std::map<const peer*, std::map<std::string, std::shared_ptr<const json::object>>> seen_;
    std::set<std::string> known_uids_;  // instances that existed
    std::set<std::string> foreign_;     // Deployments the user made by hand
    // ConfigMaps the user made under a registration's name (name -> their
    // uid): never to be modified or deleted by the operator, kept through
    // the convergence check (the instance must report NameConflict).
    std::map<std::string, std::string> foreign_regs_;
    // Registrations created by late writes (they may commit after their
    // instance's cleanup ran: orphans, which the operator must delete).
    std::set<std::string> late_regs_;
};

void operator_world::set_up() {
    // The CRD, as deployed.
    auto crd = read_yaml_file(o_.source_dir + "/deploy/crd/gateway.kcoro.dev_gatewayinstances.yaml");
    auto r = run_now(admin_->c->create(resources::customresourcedefinitions(), "", std::move(crd)));
    if (!r) throw std::runtime_error("CRD: " + r.error().message());
}

void operator_world::install(replica& r) {
    gateway::reconciler_options ro;
    ro.registry_namespace = std::string(registry_ns);
    ro.defects = o_.defects;
    gateway::setup(*r.mgr, ro);
}

// --- request-level invariants -----------------------------------------------

void operator_world::note_response(peer& p, const target_info& t, const io::http_response& r) {
    if (t.resource != "gatewayinstances" || t.name.empty()) return;
    auto& seen = seen_[&p];
    if (r.status == 404 && (t.verb == "get" || t.verb == "update" || t.verb == "patch")) {
        seen[t.name] = nullptr;
        return;
    }
    if (r.status >= 200 && r.status < 300 && t.verb != "delete") {
        auto obj = client::decode_object_body(r.body);
        if (obj && kind_of(**obj) == "GatewayInstance") seen[t.name] = *obj;
    }
}

bool operator_world::foreign_registration_at(const std::string& name) {
    auto it = foreign_regs_.find(name);
    if (it == foreign_regs_.end()) return false;
    auto cm = srv_.store().get(resources::configmaps(), registry_ns, name);
    return cm && uid_of(*cm) == it->second;
}

// A registration create under a foreign object's name is the name-conflict
// check of every pass of that instance (answered AlreadyExists, read back,
// NameConflict): an attempt that changes nothing.
bool operator_world::counts_as_write(const target_info& t, const io::http_request& req) {
    return !(t.resource == "configmaps" && t.verb == "create" && t.ns == registry_ns &&
             foreign_registration_at(written_name(t, req)));
}

void operator_world::note_late_write(peer&, const target_info& t, const io::http_request& req) {
    if (t.resource == "configmaps" && t.verb == "create" && t.ns == registry_ns) late_regs_.insert(written_name(t, req));
}

// The uid precondition of a DELETE's options, if any.
std::optional<std::string> precondition_uid(const io::http_request& req) {
    boost::system::error_code ec;
    auto body = json::parse(req.body, ec);
    if (ec || !body.is_object()) return std::nullopt;
    const auto* uid = find_path(body.as_object(), {"preconditions", "uid"});
    if (!uid || !uid->is_string()) return std::nullopt;
    return std::string(uid->get_string());
}

void operator_world::check_write(peer& p, const target_info& t, const io::http_request& req) {
    if (t.resource == "configmaps" && t.ns == registry_ns && t.verb != "create") {
        const std::string what = p.name + " " + t.verb + " configmap " + t.name;
        auto cm = srv_.store().get(resources::configmaps(), registry_ns, t.name);
        // A delete whose uid precondition names another object is refused
        // (409): it changes nothing (a stale cache's judgement, say).
        if (auto pre = t.verb == "delete" ? precondition_uid(req) : std::nullopt; pre && cm && *pre != uid_of(*cm)) return;
        // A foreign object under a registration's name is never touched.
        if (foreign_registration_at(t.name)) violation("foreign object modified: " + what);
        // A registration is deleted only once its instance is deleting or gone.
        if (cm && t.verb == "delete") {
            auto uid = label_of(*cm, gateway::uid_label);
            auto instances = srv_.store().list(gateway::gateway_instances(), ns, {});
            if (uid && instances) {
                for (const auto& v : instances->at("items").as_array()) {
                    const auto& gi = v.as_object();
                    if (uid_of(gi) == *uid && !is_being_deleted(gi)) {
                        violation("registration of a live instance deleted: " + what + " (instance " +
                                  std::string(name_of(gi)) + ")");
                    }
                }
            }
        }
    }
    if ((t.resource == "deployments" || t.resource == "services") && t.ns == ns && !t.name.empty()) {
        // No child written by a pass that saw its instance deleting or gone.
        const auto& seen = seen_[&p];
        auto it = seen.find(t.name);
        if (it != seen.end() && (!it->second || is_being_deleted(*it->second))) {
            violation("child written for a deleting instance: " + p.name + " " + t.verb + " " + t.resource + " " +
                      t.name + " (it last read the instance " +
                      (it->second ? "at resourceVersion " + std::string(resource_version_of(*it->second)) +
                                        ", deletionTimestamp " + std::string(deletion_timestamp_of(*it->second))
                                  : std::string("gone")) +
                      ")");
        }
        // A foreign object is never modified.
        if (t.verb != "create") {
            auto child = srv_.store().get(t.resource == "deployments" ? resources::deployments() : resources::services(),
                                          ns, t.name);
            if (child) {
                auto ctl = controller_of(*child);
                if (!ctl || ctl->kind != "GatewayInstance") {
                    violation("foreign object modified: " + p.name + " " + t.verb + " " + t.resource + " " + t.name);
                }
            }
        }
    }
}

// The instance a write is about (the sharding key): the instance's own
// uid, its registration's (named after it), a child's controller owner.
std::string operator_world::primary_uid_of_write(const target_info& t, const io::http_request& req) {
    boost::system::error_code ec;
    auto parsed = json::parse(req.body, ec);
    const json::object* body = !ec && parsed.is_object() ? &parsed.as_object() : nullptr;
    if (t.resource == "gatewayinstances") {
        if (body) {
            if (auto uid = uid_of(*body); !uid.empty()) return std::string(uid);
        }
        auto live = srv_.store().get(gateway::gateway_instances(), ns, t.name);
        return live ? std::string(uid_of(*live)) : std::string();
    }
    if (t.resource == "configmaps" && t.ns == registry_ns) {
        const std::string name = written_name(t, req);
        constexpr std::string_view prefix = "gatewayinstance-";
        return name.starts_with(prefix) ? name.substr(prefix.size()) : std::string();
    }
    if ((t.resource == "deployments" || t.resource == "services") && t.ns == ns) {
        const std::string name = written_name(t, req);
        auto live = srv_.store().get(t.resource == "deployments" ? resources::deployments() : resources::services(), ns,
                                     name);
        if (auto uid = controller_uid(body, live ? &*live : nullptr); !uid.empty()) {
            return uid;
        }
        auto gi = srv_.store().get(gateway::gateway_instances(), ns, name);
        return gi ? std::string(uid_of(*gi)) : std::string();
    }
    return {};
}

// --- store-level invariants and convergence -----------------------------------

void operator_world::check_store() {
    auto instances = srv_.store().list(gateway::gateway_instances(), ns, {});
    std::map<std::string, const json::object*> by_uid;
    if (instances) {
        for (const auto& v : instances->at("items").as_array()) {
            const auto& gi = v.as_object();
            by_uid[std::string(uid_of(gi))] = &gi;
            known_uids_.insert(std::string(uid_of(gi)));
        }
    }
    apiserver::list_options lo;
    lo.label_selector = std::string(gateway::uid_label);
    auto regs = srv_.store().list(resources::configmaps(), registry_ns, lo);
    std::map<std::string, int> per_uid;
    if (regs) {
        for (const auto& v : regs->at("items").as_array()) {
            const auto& cm = v.as_object();
            auto uid = std::string(label_of(cm, gateway::uid_label).value_or(""));
            if (++per_uid[uid] > 1) violation("two registrations for instance uid " + uid);
            // A late create may commit after the cleanup ran: that orphan the
            // operator must delete (the convergence check); any other is a
            // deletion that skipped the cleanup.
            if (!by_uid.count(uid) && known_uids_.count(uid) && !late_regs_.count(std::string(name_of(cm)))) {
                violation("registration " + std::string(name_of(cm)) + " left after its instance's deletion completed");
            }
        }
    }
}

bool operator_world::converged(std::string* why) {
    auto fail = [&](std::string s) {
        if (why) *why = std::move(s);
        return false;
    };
    auto instances = srv_.store().list(gateway::gateway_instances(), ns, {});
    if (!instances) return fail("cannot list instances");
    std::set<std::string> live;
    for (const auto& v : instances->at("items").as_array()) {
        const auto& gi = v.as_object();
        const std::string name(name_of(gi));
        const std::string uid(uid_of(gi));
        live.insert(uid);
        if (is_being_deleted(gi)) return fail(name + ": still deleting");
        const auto* og = find_path(gi, {"status", "observedGeneration"});
        if (!og || !og->is_int64() || og->get_int64() != generation_of(gi)) return fail(name + ": observedGeneration");
        const auto* cs = runtime::conditions_of(gi);
        if (foreign_registration_at(gateway::registration_name(uid))) {
            // Someone else's ConfigMap holds the registration's name: reported, never taken.
            const auto* reg = cs ? runtime::find_condition(*cs, "Registered") : nullptr;
            const auto* r = reg ? reg->if_contains("reason") : nullptr;
            if (!reg || !runtime::is_condition_false(*cs, "Registered") || !r || !r->is_string() ||
                r->get_string() != gateway::reason::name_conflict) {
                return fail(name + ": its registration's name is held by a foreign ConfigMap, not reported as NameConflict");
            }
            if (runtime::is_condition_true(*cs, "Ready")) return fail(name + ": Ready with a foreign registration");
            continue;
        }
        auto dep = srv_.store().get(resources::deployments(), ns, name);
        if (!dep || !is_controlled_by(*dep, uid)) return fail(name + ": no Deployment of ours");
        const auto* want = find_path(gi, {"spec", "replicas"});
        const auto* have = find_path(*dep, {"spec", "replicas"});
        if (!want || !have || *want != *have) return fail(name + ": Deployment replicas differ from spec");
        auto svc = srv_.store().get(resources::services(), ns, name);
        if (!svc || !is_controlled_by(*svc, uid)) return fail(name + ": no Service of ours");
        auto reg = srv_.store().get(resources::configmaps(), registry_ns, gateway::registration_name(uid));
        if (!reg || !gateway::registration_belongs_to(typed::from_json<k8s::config_map>(*reg).value(), uid)) {
            return fail(name + ": no registration");
        }
        const bool ready = cs && runtime::is_condition_true(*cs, "Ready");
        if (ready != gateway::deployment_available(typed::from_json<k8s::deployment>(*dep).value())) {
            return fail(name + ": Ready does not match the Deployment");
        }
        if (!ready) return fail(name + ": not Ready");
    }
    apiserver::list_options lo;
    lo.label_selector = std::string(gateway::uid_label);
    auto regs = srv_.store().list(resources::configmaps(), registry_ns, lo);
    if (regs) {
        for (const auto& v : regs->at("items").as_array()) {
            auto uid = std::string(label_of(v.as_object(), gateway::uid_label).value_or(""));
            if (!live.count(uid)) return fail("registration of a deleted instance " + uid);
        }
    }
    return true;
}

// --- the user -------------------------------------------------------------

asio::awaitable<void> operator_world::user_step() {
    auto& c = *user_->c;
    const std::string name = "gi-" + std::to_string(rng_.below(instance_names));
    const object_key key{std::string(ns), name};
    auto existing = srv_.store().get(gateway::gateway_instances(), ns, name);
    auto report = [&](std::string what, const auto& r) {
        tr_.line(clk_.now(), "user", what + " " + name + " -> " + (r ? std::string("ok") : r.error().message()));
    };
    patch_options merge;
    merge.type = patch_type::merge;
    if (!existing) {
        auto dep = srv_.store().get(resources::deployments(), ns, name);
        if (!dep && rng_.chance(0.15)) {
            // Someone else's Deployment under an instance's name: never to be touched.
            json::object labels{{"app", "foreign"}};
            json::object container{{"name", "x"}, {"image", "x:1"}};
            json::object pod_spec{{"containers", json::array{container}}};
            json::object tmpl{{"metadata", json::object{{"labels", labels}}}, {"spec", pod_spec}};
            json::object spec{{"replicas", 1}, {"selector", json::object{{"matchLabels", labels}}}, {"template", tmpl}};
            json::object d{{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
                           {"metadata", json::object{{"name", name}, {"namespace", ns}}}, {"spec", spec}};
            auto r = co_await c.create(resources::deployments(), std::string(ns), std::move(d));
            if (r) foreign_.insert(name);
            report("create foreign Deployment", r);
            co_return;
        }
        json::object gi{{"apiVersion", "gateway.kcoro.dev/v1alpha1"},
                        {"kind", "GatewayInstance"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec", {{"image", "nginx:1.27"}, {"replicas", rng_.between(1, 3)}, {"port", 8080}}}};
        auto r = co_await c.create(gateway::gateway_instances(), std::string(ns), std::move(gi));
        report("create", r);
        if (r && rng_.chance(0.05)) {
            // Someone else's ConfigMap under its registration's name, racing the operator.
            co_await plant_foreign_registration(std::string(uid_of(**r)));
            co_return;
        }
        if (r && rng_.chance(0.2)) {
            // Changed their mind: deleted while the operator's first pass may still run.
            // Half the time at once (a script: apply, then delete), within the first pass.
            auto pause = rng_.chance(0.5) ? rng_.millis(0ms, 60ms) : rng_.millis(0ms, 1500ms);
            co_await clk_.sleep_for(pause);
            auto d = co_await c.remove(gateway::gateway_instances(), key);
            report("delete at once", d);
        }
        co_return;
    }
    if (is_being_deleted(*existing)) co_return;
    const auto x = rng_.below(100);
    if (x < 25) {
        auto body = "{\"spec\":{\"replicas\":" + std::to_string(rng_.between(1, 4)) + "}}";
        auto r = co_await c.patch(gateway::gateway_instances(), key, std::move(body), merge);
        report("edit replicas", r);
    } else if (x < 35) {
        auto body = std::string("{\"spec\":{\"image\":\"nginx:1.") + std::to_string(rng_.between(20, 29)) + "\"}}";
        auto r = co_await c.patch(gateway::gateway_instances(), key, std::move(body), merge);
        report("edit image", r);
    } else if (x < 50) {
        // Another writer: a PUT from what it read a moment ago (conflicts for
        // the operator's status writes, and for itself when stale).
        json::object obj = *existing;
        set_label(obj, "sim/touched", std::to_string(rng_.below(1000)));
        auto pause = rng_.millis(0ms, 300ms);
        co_await clk_.sleep_for(pause);
        auto r = co_await c.update(gateway::gateway_instances(), std::move(obj));
        report("relabel (PUT)", r);
    } else if (x < 65) {
        auto r = co_await c.remove(gateway::gateway_instances(), key);
        report("delete", r);
    } else if (x < 75) {
        auto r = co_await c.patch(resources::deployments(), key, "{\"spec\":{\"replicas\":7}}", merge);
        report("edit Deployment replicas", r);
    } else if (x < 85) {
        auto r = co_await c.remove(resources::services(), key);
        report("delete Service", r);
    } else if (x < 91) {
        const object_key reg{std::string(registry_ns), gateway::registration_name(uid_of(*existing))};
        auto r = co_await c.remove(resources::configmaps(), reg);
        report("delete registration", r);
    } else if (x < 95) {
        // The registration deleted and someone else's ConfigMap made under its name.
        const object_key reg{std::string(registry_ns), gateway::registration_name(uid_of(*existing))};
        auto r = co_await c.remove(resources::configmaps(), reg);
        report("delete registration", r);
        co_await plant_foreign_registration(std::string(uid_of(*existing)));
    } else {
        auto r = co_await c.remove(resources::deployments(), key);
        report("delete Deployment", r);
    }
}

asio::awaitable<void> operator_world::plant_foreign_registration(std::string uid) {
    const auto name = gateway::registration_name(uid);
    json::object cm{{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata", {{"name", name}, {"namespace", registry_ns}}},
                     {"data", {{"owner", "someone else"}}}};
    auto r = co_await user_->c->create(resources::configmaps(), std::string(registry_ns), std::move(cm));
    if (r) foreign_regs_[name] = std::string(uid_of(**r));
    tr_.line(clk_.now(), "user",
             "create foreign ConfigMap " + name + " -> " + (r ? std::string("ok") : r.error().message()));
}

bool operator_world::after_converge() {
    // The foreign registrations go once their instances reported the
    // conflict; their instances then register (the next recheck).
    bool changed = false;
    for (const auto& [name, uid] : foreign_regs_) {
        if (!foreign_registration_at(name)) continue;
        delete_options d{delete_preconditions{uid, ""}};
        auto r = run_now(admin_->c->remove(resources::configmaps(), object_key{std::string(registry_ns), name}, d));
        tr_.line(clk_.now(), "sim", "removed foreign ConfigMap " + name + (r ? "" : ": " + r.error().message()));
        changed = true;
    }
    foreign_regs_.clear();
    return changed;
}

void operator_world::before_converge() {
    // The hand-made Deployments go (so every instance can converge).
    for (const auto& name : foreign_) {
        auto r = run_now(admin_->c->remove(resources::deployments(), object_key{std::string(ns), name}));
        tr_.line(clk_.now(), "sim", "removed foreign Deployment " + name + (r ? "" : ": " + r.error().message()));
    }
}

} // namespace

std::unique_ptr<world> make_operator_world(const sim_options& o) { return std::make_unique<operator_world>(o); }

} // namespace kcoro::sim
