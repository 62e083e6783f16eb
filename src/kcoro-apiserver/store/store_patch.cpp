// object_store: PATCH. The patch is applied to the stored object, then the
// result goes through the update path (preconditions, subresource rules,
// validation, generation), as kube-apiserver's patcher does.
#include "store/builtin_decoder.hpp"
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

#include "server_side_apply.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/json_patch.hpp>
#include <kcoro/core/strategic_merge_patch.hpp>
#include <kcoro/core/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

result<json::value> parse_body(std::string_view body) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec) return errors::bad_request("error decoding patch: " + ec.message());
    return v;
}

// An apply body is YAML (JSON being a subset of it).
result<json::object> parse_applied(std::string_view body) {
    auto v = parse_yaml(body);
    if (!v) return errors::bad_request("error decoding YAML: " + v.error().message());
    if (!v->is_object()) return errors::bad_request("the applied configuration must be an object");
    return std::move(v->as_object());
}

// A plain Go error from the field manager: 500, no reason, its text.
error apply_type_error(std::string message) {
    status s;
    s.outcome = "Failure";
    s.code = 500;
    s.message = std::move(message);
    return error::from_status(std::move(s));
}

field_scope scope_for(const resource_def& def, subresource sub) {
    if (!def.has_status) return field_scope::all;
    return sub == subresource::status ? field_scope::status_subresource : field_scope::main_without_status;
}

} // namespace

result<json::object> object_store::patch(const request_context& ctx, const group_version_resource& gvr,
                                         std::string_view ns_in, std::string_view name, patch_type type,
                                         std::string_view body, subresource sub, bool force, bool* created) {
    if (created) *created = false;
    auto& im = *impl_;
    const auto* def = im.def_or_null(gvr);
    if (!def) return errors::not_found(gvr, name);
    if (type == patch_type::strategic && !def->strategic_merge) return strategic_merge_unsupported();
    if (type == patch_type::apply && ctx.field_manager.empty()) return field_manager_required();
    std::string ns = def->namespaced ? std::string(ns_in) : std::string{};
    apply_options ao;
    ao.manager = ctx.field_manager;
    ao.force = force;
    ao.now = ctx.now;
    ao.scope = scope_for(*def, sub);
    auto old = im.find(*def, ns, name);
    if (!old) {
        if (type != patch_type::apply || sub != subresource::none) return errors::not_found(def->gvr, name);
        // Server-side apply creates a missing object.
        auto applied = parse_applied(body);
        if (!applied) return applied.error();
        if (auto n = name_of(*applied); !n.empty() && n != name) {
            return errors::bad_request("the name of the object (" + std::string(n) +
                                       ") does not match the name on the URL (" + std::string(name) + ")");
        }
        mutable_metadata(*applied)["name"] = std::string(name);
        {
            json::object named = *applied;
            if (def->namespaced && namespace_of(named).empty()) mutable_metadata(named)["namespace"] = ns;
            if (auto bad = apply_configuration_error(*def, named)) return apply_type_error(*bad);
        }
        auto merged = server_side_apply(json::object{}, *applied, ao);
        if (!merged) return merged.error();
        auto r = im.do_create(ctx, *def, ns, std::move(*merged), true);
        if (r && created) *created = true;
        return r;
    }
    json::object current = *impl::present(old, *def);
    json::value patched;
    bool managed_done = false;
    switch (type) {
    case patch_type::json: {
        auto r = apply_json_patch(json::value(current), body);
        if (!r) return r.error();
        patched = std::move(*r);
        break;
    }
    case patch_type::merge: {
        auto p = parse_body(body);
        if (!p) return p.error();
        patched = apply_merge_patch(json::value(current), *p);
        break;
    }
    case patch_type::strategic: {
        auto r = apply_strategic_merge_patch(current, body);
        if (!r) return r.error();
        patched = std::move(*r);
        break;
    }
    case patch_type::apply: {
        auto applied = parse_applied(body);
        if (!applied) return applied.error();
        {
            json::object named = *applied;
            if (name_of(named).empty()) mutable_metadata(named)["name"] = std::string(name);
            if (def->namespaced && namespace_of(named).empty()) mutable_metadata(named)["namespace"] = ns;
            if (auto bad = apply_configuration_error(*def, named)) return apply_type_error(*bad);
        }
        auto r = server_side_apply(current, *applied, ao);
        if (!r) return r.error();
        patched = std::move(*r);
        managed_done = true;
        break;
    }
    }
    if (!patched.is_object()) return errors::bad_request("the patched document is not an object");
    if (type == patch_type::apply) {
        // Apply configurations are not decoded into the Go type here (see
        // docs/patches.md): what the type lacks is dropped without a word.
        request_context quiet = ctx;
        quiet.field_validation = "Ignore";
        if (auto e = im.decode(quiet, *def, patched.as_object(), nullptr)) return *e;
    } else {
        // The patched object is decoded into the Go type; a failure names the
        // field `patch` (handlers/patch.go): the patch map as Go prints it for
        // a strategic merge, the patched JSON for the other two.
        std::string shown = type == patch_type::strategic ? strategic_patch_as_go_map(body) : json::serialize(patched);
        if (auto e = im.decode(ctx, *def, patched.as_object(), &shown)) return *e;
    }
    return im.do_update(ctx, *def, ns, name, std::move(patched.as_object()), sub, nullptr, managed_done);
}

} // namespace kcoro::apiserver
