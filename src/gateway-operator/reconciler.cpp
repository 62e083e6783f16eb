#include "reconciler.hpp"

#include "desired_state.hpp"

#include <kcoro/client/typed_client.hpp>
#include <kcoro/core/object.hpp>
#include <kcoro/runtime/apply_owned.hpp>
#include <kcoro/runtime/controller_helpers.hpp>
#include <kcoro/runtime/finalizer.hpp>
#include <kcoro/typed/validation.hpp>

namespace gateway {
namespace asio = boost::asio;
namespace k8s = kcoro::k8s;
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

// The instance as far as it decodes (an invalid spec still has its
// metadata and status): for the status write, which the server takes
// only the status of.
gateway_instance decoded_as_far_as_it_goes(const boost::json::object& obj) {
    gateway_instance gi;
    (void)kcoro::typed::decode(obj, gi);
    return gi;
}

} // namespace

struct reconciler::pass {
    runtime::reconcile_context ctx;
    object_key key;
    object_ptr instance;                // as read (the finalizer helper works on it)
    std::optional<gateway_instance> gi; // decoded and checked (converge)
    std::string uid;
    observed_facts facts;
    std::optional<error> failure;       // a retryable error to return once the status is written
    kcoro::logger log;
    step outcome = step::ok;
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
    std::vector<k8s::config_map> claims;
    if (cache_.registrations_of) {
        claims = cache_.registrations_of(ctx.key);
    }
    auto got = co_await client_.get(gateway_instances(), ctx.key);
    if (!got && !kcoro::is_not_found(got.error())) {
        co_return got.error().with_context("get GatewayInstance " + ctx.key.str());
    }
    if (got && ctx.owns_uid && !ctx.owns_uid(kcoro::uid_of(**got))) {
        // Sharded (docs/sharding.md): the key holds an instance created again
        // under this name, whose uid another replica owns (this pass came
        // from the old instance's events). Its owner converges it and sweeps
        // what the old one left.
        co_return runtime::success();
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
        if (auto parsed = kcoro::typed::decode_valid<gateway_instance>(*p.instance)) {
            p.gi = std::move(*parsed);
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
    p.gi = std::move(*parsed);
    p.facts.spec = p.gi->spec;
    p.facts.endpoint = endpoint_of(p.key.name, p.key.ns, p.gi->spec.port);
    p.facts.registration_name = registration_name(p.uid);

    if (auto r = co_await ensure_registration(p); !r) {
        co_return r.error();
    }
    if (p.outcome == step::ok) {
        if (auto r = co_await ensure_deployment(p); !r) {
            co_return r.error();
        }
    }
    if (p.outcome == step::ok) {
        if (auto r = co_await ensure_service(p); !r) {
            co_return r.error();
        }
    }
    co_return co_await write_status(p);
}

bool reconciler::is_ours(const k8s::config_map& registration, std::string_view uid) const {
    return (opts_.defects & defect_no_uid_check) || registration_belongs_to(registration, uid);  // the defect: no check
}

asio::awaitable<result<void>> reconciler::sweep(const runtime::reconcile_context& ctx,
                                                std::vector<k8s::config_map> orphans) {
    const auto cms = kcoro::resources::configmaps();
    for (const auto& cm : orphans) {
        const object_key rkey{cm.metadata.namespace_, cm.metadata.name};
        // The uid precondition: only the object judged, never one made since.
        const kcoro::delete_options dopts{kcoro::delete_preconditions{cm.metadata.uid, ""}};
        auto r = co_await client_.remove(cms, rkey, dopts);
        if (!r) {
            // Gone already, or another object holds the name now (409): not ours to judge.
            if (kcoro::is_not_found(r.error()) || kcoro::is_conflict(r.error())) {
                continue;
            }
            co_return r.error().with_context("delete orphaned registration " + rkey.str());
        }
        ctx.note_write({cms, rkey, runtime::write_op::deleted, "", false});
        auto uid = cm.metadata.labels.find(std::string(uid_label));
        ctx.log.info("deleted the registration of an instance that is gone",
                     {{"registration", rkey.str()},
                      {"instanceUID", uid == cm.metadata.labels.end() ? std::string() : uid->second}});
    }
    co_return result<void>{};
}

asio::awaitable<result<void>> reconciler::ensure_registration(pass& p) {
    const auto cms = kcoro::resources::configmaps();
    const auto desired = desired_registration(*p.gi, opts_.registry_namespace);
    const object_key rkey{desired.metadata.namespace_, desired.metadata.name};
    const auto what = describe_object("ConfigMap", rkey.ns, rkey.name);

    for (int attempt = 0; attempt < 2; ++attempt) {
        // First from the cache (a miss is answered by the create below);
        // after an AlreadyExists, read back from the API.
        std::optional<k8s::config_map> current;
        if (attempt == 0 && cache_.registration) {
            current = cache_.registration(rkey);
        } else {
            auto got = co_await kcoro::client::get<k8s::config_map>(client_, rkey);
            if (got) {
                current = std::move(*got);
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
                opts.field_manager = opts_.field_manager;
                auto r = co_await kcoro::client::merge_patch<k8s::config_map>(client_, rkey, std::move(*repair), opts);
                if (!r) {
                    p.outcome = record_failure(p, r.error(), "repair " + what);
                    p.facts.registration_problem = p.facts.degraded;
                    co_return result<void>{};
                }
                const bool noop = r->metadata.resource_version == current->metadata.resource_version;
                p.ctx.note_write({cms, rkey, runtime::write_op::patched, "", noop});
                event(p, "Normal", "RepairedRegistration", "Patch", "repaired " + what);
            }
            p.facts.registered = true;
            co_return result<void>{};
        }
        kcoro::create_options copts;
        copts.field_manager = opts_.field_manager;
        auto created = co_await kcoro::client::create<k8s::config_map>(client_, desired, copts);
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

result<void> reconciler::applied(pass& p, std::string_view kind, const result<runtime::write_result>& written) {
    const auto what = describe_object(kind, p.key.ns, p.key.name);
    if (!written) {
        if (runtime::is_name_conflict(written.error())) {
            // Never adopt or overwrite someone else's object.
            auto msg = what + " exists and is not controlled by this GatewayInstance";
            p.facts.degraded = problem{std::string(reason::name_conflict), msg};
            event(p, "Warning", reason::name_conflict, "Reconcile", msg);
            p.outcome = step::stop;
            return {};
        }
        p.outcome = record_failure(p, written.error(), "apply " + what);
        return {};
    }
    switch (written->op) {
    case runtime::write_op::created:
        event(p, "Normal", "Created" + std::string(kind), "Create", "created " + what);
        break;
    case runtime::write_op::applied:
    case runtime::write_op::patched:  // a replaced item put back (apply_owned.hpp)
        event(p, "Normal", "Repaired" + std::string(kind), "Apply", "repaired drift of " + what + ": " + written->drift);
        break;
    default:
        break;
    }
    return {};
}

asio::awaitable<result<void>> reconciler::ensure_deployment(pass& p) {
    auto written = co_await runtime::apply_owned(client_, p.ctx, desired_deployment(*p.gi), p.instance);
    auto r = applied(p, "Deployment", written);
    if (written && written->object) {
        // Its status, read through the typed struct (what apply_owned answered or read).
        k8s::deployment d;
        (void)kcoro::typed::decode(*written->object, d);
        p.facts.deployment = std::move(d);
    }
    co_return r;
}

asio::awaitable<result<void>> reconciler::ensure_service(pass& p) {
    auto written = co_await runtime::apply_owned(client_, p.ctx, desired_service(*p.gi), p.instance);
    auto r = applied(p, "Service", written);
    if (written) {
        p.facts.service_ready = true;
    }
    co_return r;
}

asio::awaitable<result<reconcile_result>> reconciler::write_status(pass& p) {
    if (p.failure && !kcoro::is_forbidden(*p.failure)) {
        // Conflicts, timeouts, server errors: nothing new to report; retry.
        co_return *p.failure;
    }
    auto instance = p.gi ? *p.gi : decoded_as_far_as_it_goes(*p.instance);
    auto decision = compute_status(instance.status, p.facts, clock_.wall_now());
    if (opts_.defects & defect_status_every_pass) decision.changed = true;  // the defect
    if (decision.changed) {
        // The status subresource: the server takes only the status, and the
        // resourceVersion read is the precondition (409 when stale).
        const auto before = instance.metadata.resource_version;
        instance.status = std::move(decision.status);
        kcoro::update_options opts;
        opts.field_manager = opts_.field_manager;
        auto r = co_await kcoro::client::update_status<gateway_instance>(client_, std::move(instance), opts);
        if (!r) {
            // Conflict: the instance changed since we read it; the next pass recomputes.
            co_return r.error().with_context("update status of GatewayInstance " + p.key.str());
        }
        p.ctx.note_write(
            {gateway_instances(), p.key, runtime::write_op::updated, "status", r->metadata.resource_version == before});
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
    auto got = co_await kcoro::client::get<k8s::config_map>(client_, rkey);
    if (got) {
        if (is_ours(*got, p.uid)) {
            const kcoro::delete_options dopts{kcoro::delete_preconditions{got->metadata.uid, ""}};
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
