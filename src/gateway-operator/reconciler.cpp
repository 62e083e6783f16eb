#include "reconciler.hpp"

#include "desired_state.hpp"

#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/finalizer.hpp>
#include <kcoro/typed/validation.hpp>

#include <boost/json/serialize.hpp>

namespace gateway {
namespace json = boost::json;
namespace asio = boost::asio;
namespace runtime = kcoro::runtime;
using kcoro::error;
using kcoro::object_key;
using kcoro::object_ptr;
using kcoro::result;
using kcoro::runtime::reconcile_result;

namespace {

// How a step ended.
enum class step { ok, stop };  // stop: a problem is recorded; write status, then end the pass

std::string describe_object(std::string_view kind, std::string_view ns, std::string_view name) {
    return std::string(kind) + " " + std::string(ns) + "/" + std::string(name);
}

} // namespace

struct reconciler::pass {
    runtime::reconcile_context ctx;
    object_key key;
    object_ptr instance;
    std::string uid;
    std::optional<gateway_spec> spec;
    observed_facts facts;
    object_ptr deployment;        // keeps facts.deployment alive
    std::optional<error> failure; // a retryable error to return once the status is written
    kcoro::logger log;
    step outcome = step::ok;

    void wrote(const kcoro::group_version_resource& gvr, const object_key& k, runtime::write_op op,
               std::string subresource, const json::object& before, const json::object& after) const {
        ctx.note_write({gvr, k, op, std::move(subresource), runtime::is_noop_write(before, after)});
    }
};

reconciler::reconciler(kcoro::client::client& client, kcoro::io::clock& clock, reconciler_options opts)
    : client_(client), clock_(clock), opts_(std::move(opts)) {}

void reconciler::event(const pass& p, std::string_view type, std::string_view reason, std::string_view action,
                       std::string note) const {
    p.log.info(note, {{"event", reason}});
    if (on_event_ && p.instance) {
        on_event_(*p.instance, gateway_event{std::string(type), std::string(reason), std::string(action), std::move(note)});
    }
}

// Records a failed API call: Forbidden becomes a Degraded condition (and is
// retried with backoff), anything else ends the pass with the error.
static step record_failure(auto& p, const error& err, std::string_view what) {
    auto e = err.with_context(what);
    if (kcoro::is_forbidden(err)) {
        p.facts.degraded = problem{std::string(reason::forbidden), e.message()};
    }
    p.failure = e;
    return step::stop;
}

asio::awaitable<result<reconcile_result>> reconciler::reconcile(runtime::reconcile_context ctx) {
    // The cached registrations that name this key, taken before the instance
    // is read: each was created by a pass that had read its instance, so an
    // instance missing from (or of another uid in) the read that follows is
    // gone for good, and its registration an orphan.
    std::vector<object_ptr> claims;
    if (cache_.registrations_of) {
        claims = cache_.registrations_of(ctx.key);
    }
    auto got = co_await client_.get(gateway_instances(), ctx.key);
    if (!got && !kcoro::is_not_found(got.error())) {
        co_return got.error().with_context("get GatewayInstance " + ctx.key.str());
    }
    if (!claims.empty()) {
        // What an instance gone from this key left (none now lives here, or
        // one of another uid).
        const std::string_view live_uid = got ? kcoro::uid_of(**got) : std::string_view{};
        auto swept = sweep(ctx, orphaned_registrations(claims, live_uid, cache_.instance_cached));
        if (auto r = co_await std::move(swept); !r) {
            co_return r.error();
        }
    }
    if (!got) {
        co_return runtime::success();  // gone: nothing to converge
    }
    pass p;
    p.key = ctx.key;
    p.instance = *got;
    p.uid = std::string(kcoro::uid_of(*p.instance));
    p.log = ctx.log.with_values({{"uid", p.uid}});
    p.ctx = std::move(ctx);

    if ((opts_.defects & defect_registration_before_finalizer) && !kcoro::is_being_deleted(*p.instance)) {
        // The defect: something external before the finalizer.
        auto parsed = kcoro::typed::decode_valid<gateway_instance>(*p.instance);
        if (parsed) {
            p.spec = std::move(parsed->spec);
            if (auto r = co_await ensure_registration(p); !r) {
                co_return r.error();
            }
            p.outcome = step::ok;
            p.failure.reset();
            p.facts = observed_facts{};
        }
    }
    // The finalizer is persisted before the apply step creates anything
    // external, so a deletion can never skip the cleanup of what follows.
    runtime::finalizer_reconcile work = [this, &p](runtime::finalizer_event ev,
                                                   object_ptr obj) -> asio::awaitable<result<reconcile_result>> {
        p.instance = std::move(obj);
        if (ev == runtime::finalizer_event::cleanup) {
            co_return co_await cleanup(p);
        }
        co_return co_await converge(p);
    };
    co_return co_await runtime::finalizer(client_, gateway_instances(), p.instance, std::string(finalizer),
                                          std::move(work), p.ctx.helpers);
}

asio::awaitable<result<reconcile_result>> reconciler::converge(pass& p) {
    p.facts.generation = kcoro::generation_of(*p.instance);
    // Decoded and checked: the schema's bounds (the CRD's, from the same
    // annotations) and validate()'s cross-item rules.
    auto parsed = kcoro::typed::decode_valid<gateway_instance>(*p.instance);
    if (!parsed) {
        // Terminal until the spec changes: no retry storm, the status says why.
        auto msg = kcoro::typed::describe(parsed.error());
        p.facts.degraded = problem{std::string(reason::invalid_spec), msg};
        event(p, "Warning", reason::invalid_spec, "Reconcile", "invalid spec: " + msg);
        auto written = co_await write_status(p);
        if (!written) {
            co_return written.error();
        }
        co_return runtime::terminal_error("invalid spec: " + msg);
    }
    p.spec = std::move(parsed->spec);
    p.facts.spec = p.spec;
    p.facts.endpoint = endpoint_of(p.key.name, p.key.ns, p.spec->port);
    p.facts.registration_name = registration_name(p.uid);

    if (auto r = co_await ensure_registration(p); !r) {
        co_return r.error();
    }
    if (p.outcome == step::ok) {
        if (auto r = co_await ensure_child(p, true); !r) {
            co_return r.error();
        }
    }
    if (p.outcome == step::ok) {
        if (auto r = co_await ensure_child(p, false); !r) {
            co_return r.error();
        }
    }
    co_return co_await write_status(p);
}

bool reconciler::is_ours(const json::object& registration, std::string_view uid) const {
    return (opts_.defects & defect_no_uid_check) || registration_belongs_to(registration, uid);  // the defect: no check
}

asio::awaitable<result<void>> reconciler::sweep(const runtime::reconcile_context& ctx, std::vector<object_ptr> orphans) {
    const auto cms = kcoro::resources::configmaps();
    for (const auto& cm : orphans) {
        const auto rkey = kcoro::key_of(*cm);
        // The uid precondition: only the object judged, never one made since.
        const kcoro::delete_options dopts{kcoro::delete_preconditions{std::string(kcoro::uid_of(*cm)), ""}};
        auto r = co_await client_.remove(cms, rkey, dopts);
        if (!r) {
            // Gone already, or another object holds the name now (409): not ours to judge.
            if (kcoro::is_not_found(r.error()) || kcoro::is_conflict(r.error())) {
                continue;
            }
            co_return r.error().with_context("delete orphaned registration " + rkey.str());
        }
        ctx.note_write({cms, rkey, runtime::write_op::deleted, "", false});
        ctx.log.info("deleted the registration of an instance that is gone",
                     {{"registration", rkey.str()}, {"instanceUID", std::string(kcoro::label_of(*cm, uid_label).value_or(""))}});
    }
    co_return result<void>{};
}

asio::awaitable<result<void>> reconciler::ensure_registration(pass& p) {
    const auto cms = kcoro::resources::configmaps();
    const object_key rkey{opts_.registry_namespace, registration_name(p.uid)};
    const auto desired = desired_registration(*p.instance, *p.spec, opts_.registry_namespace);
    const auto what = describe_object("ConfigMap", rkey.ns, rkey.name);

    for (int attempt = 0; attempt < 2; ++attempt) {
        // First from the cache (a miss is answered by the create below);
        // after an AlreadyExists, read back from the API.
        object_ptr current;
        if (attempt == 0 && cache_.registration) {
            current = cache_.registration(rkey);
        } else {
            auto got = co_await client_.get(cms, rkey);
            if (got) {
                current = *got;
            } else if (!kcoro::is_not_found(got.error())) {
                p.outcome = record_failure(p, got.error(), "get " + what);
                p.facts.registration_problem = p.facts.degraded;
                co_return result<void>{};
            }
        }
        if (current) {
            if (!is_ours(*current, p.uid)) {
                auto msg = what + " exists and is not the registration of this instance";
                p.facts.degraded = problem{std::string(reason::name_conflict), msg};
                p.facts.registration_problem = p.facts.degraded;
                event(p, "Warning", reason::name_conflict, "Register", msg);
                p.outcome = step::stop;
                co_return result<void>{};
            }
            if (auto repair = registration_repair(*current, desired)) {
                kcoro::patch_options opts;
                opts.type = kcoro::patch_type::merge;
                opts.field_manager = opts_.field_manager;
                auto r = co_await client_.patch(cms, rkey, json::serialize(*repair), opts);
                if (!r) {
                    p.outcome = record_failure(p, r.error(), "repair " + what);
                    p.facts.registration_problem = p.facts.degraded;
                    co_return result<void>{};
                }
                p.wrote(cms, rkey, runtime::write_op::patched, "", *current, **r);
                event(p, "Normal", "RepairedRegistration", "Patch", "repaired " + what);
            }
            p.facts.registered = true;
            co_return result<void>{};
        }
        kcoro::create_options copts;
        copts.field_manager = opts_.field_manager;
        auto created = co_await client_.create(cms, rkey.ns, desired, copts);
        if (created) {
            p.ctx.note_write({cms, rkey, runtime::write_op::created, "", false});
            p.facts.registered = true;
            event(p, "Normal", "Registered", "Create", "created " + what);
            co_return result<void>{};
        }
        if (!kcoro::is_already_exists(created.error()) || (opts_.defects & defect_already_exists_is_failure)) {
            p.outcome = record_failure(p, created.error(), "create " + what);
            p.facts.registration_problem = p.facts.degraded;
            co_return result<void>{};
        }
        // AlreadyExists: an earlier pass (or a lost response) created it, or
        // someone else's object holds the name: read back and verify.
    }
    p.outcome = record_failure(p, error(kcoro::api_errc::conflict, what + " keeps changing"), "register");
    co_return result<void>{};
}

asio::awaitable<result<void>> reconciler::ensure_child(pass& p, bool is_deployment) {
    const auto gvr = is_deployment ? kcoro::resources::deployments() : kcoro::resources::services();
    const std::string kind_name = is_deployment ? "Deployment" : "Service";
    auto desired = is_deployment ? desired_deployment(*p.instance, *p.spec) : desired_service(*p.instance, *p.spec);
    const auto what = describe_object(kind_name, p.key.ns, p.key.name);

    auto written = co_await runtime::apply_owned(client_, p.ctx, gvr, std::move(desired), p.instance);
    if (!written) {
        if (runtime::is_name_conflict(written.error())) {
            // Never adopt or overwrite someone else's object.
            auto msg = what + " exists and is not controlled by this GatewayInstance";
            p.facts.degraded = problem{std::string(reason::name_conflict), msg};
            event(p, "Warning", reason::name_conflict, "Reconcile", msg);
            p.outcome = step::stop;
            co_return result<void>{};
        }
        p.outcome = record_failure(p, written.error(), "apply " + what);
        co_return result<void>{};
    }
    switch (written->op) {
    case runtime::write_op::created:
        event(p, "Normal", "Created" + kind_name, "Create", "created " + what);
        break;
    case runtime::write_op::applied:
    case runtime::write_op::patched:  // a replaced item put back (apply_owned.hpp)
        event(p, "Normal", "Repaired" + kind_name, "Apply", "repaired drift of " + what + ": " + written->drift);
        break;
    default:
        break;
    }
    if (is_deployment) {
        p.deployment = written->object;
        p.facts.deployment = p.deployment.get();
    } else {
        p.facts.service_ready = true;
    }
    co_return result<void>{};
}

asio::awaitable<result<reconcile_result>> reconciler::write_status(pass& p) {
    if (p.failure && !kcoro::is_forbidden(*p.failure)) {
        // Conflicts, timeouts, server errors: nothing new to report; retry.
        co_return *p.failure;
    }
    auto decision = compute_status(*p.instance, p.facts, clock_.wall_now());
    if (opts_.defects & defect_status_every_pass) decision.changed = true;  // the defect
    if (decision.changed) {
        json::object updated = *p.instance;
        updated["status"] = decision.status;
        kcoro::update_options opts;
        opts.field_manager = opts_.field_manager;
        auto r = co_await client_.update_status(gateway_instances(), std::move(updated), opts);
        if (!r) {
            // Conflict: the instance changed since we read it; the next pass recomputes.
            co_return r.error().with_context("update status of GatewayInstance " + p.key.str());
        }
        p.wrote(gateway_instances(), p.key, runtime::write_op::updated, "status", *p.instance, **r);
        p.instance = *r;
    }
    if (p.failure) {
        // Forbidden: reported in the status and as a Warning, retried with backoff.
        event(p, "Warning", reason::forbidden, "Reconcile", p.failure->message());
        co_return *p.failure;
    }
    if (p.facts.degraded) {
        // A NameConflict needs a human; look again later, without a retry storm.
        co_return runtime::requeue_after(opts_.recheck / 10);
    }
    if (!decision.ready) {
        co_return runtime::requeue_after(opts_.rollout_poll);
    }
    co_return runtime::requeue_after(opts_.recheck);
}

asio::awaitable<result<reconcile_result>> reconciler::cleanup(pass& p) {
    const auto cms = kcoro::resources::configmaps();
    const object_key rkey{opts_.registry_namespace, registration_name(p.uid)};
    auto got = co_await client_.get(cms, rkey);
    if (got) {
        if (is_ours(**got, p.uid)) {
            const kcoro::delete_options dopts{kcoro::delete_preconditions{std::string(kcoro::uid_of(**got)), ""}};
            auto r = co_await client_.remove(cms, rkey, dopts);
            if (!r && !kcoro::is_not_found(r.error())) {
                co_return r.error().with_context("delete registration " + rkey.str());
            }
            p.ctx.note_write({cms, rkey, runtime::write_op::deleted, "", false});
            event(p, "Normal", "Deregistered", "Delete", "deleted registration " + rkey.str());
        }
    } else if (!kcoro::is_not_found(got.error())) {
        co_return got.error().with_context("get registration " + rkey.str());
    }
    co_return runtime::success();  // finalizer() removes our finalizer next
}

} // namespace gateway
