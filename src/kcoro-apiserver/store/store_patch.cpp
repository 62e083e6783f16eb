// object_store: PATCH. The patch is applied to the stored object, then the
// result goes through the update path (preconditions, subresource rules,
// validation, generation), as kube-apiserver's patcher does.
#include "store/object_store.hpp"
#include "store/status_errors.hpp"
#include "store/store_impl.hpp"

#include <kcoro/core/json_merge_patch.hpp>
#include <kcoro/core/json_patch.hpp>

#include <boost/json/parse.hpp>

namespace kcoro::apiserver {
namespace json = boost::json;

namespace {

result<json::value> parse_body(std::string_view body) {
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec) return errors::bad_request("error decoding patch: " + ec.message());
    return v;
}

} // namespace

result<json::object> object_store::patch(const request_context& ctx, const group_version_resource& gvr,
                                         std::string_view ns_in, std::string_view name, patch_type type,
                                         std::string_view body, subresource sub, bool force, bool* created) {
    (void)force;  // server-side apply conflicts: see docs/apiserver.md
    if (created) *created = false;
    auto& im = *impl_;
    const auto* def = im.def_or_null(gvr);
    if (!def) return errors::not_found(gvr, name);
    if (type == patch_type::strategic && !def->strategic_merge) {
        return errors::unsupported_media_type("application/strategic-merge-patch+json");
    }
    std::string ns = def->namespaced ? std::string(ns_in) : std::string{};
    auto old = im.find(*def, ns, name);
    if (!old) {
        if (type != patch_type::apply || sub != subresource::none) return errors::not_found(def->gvr, name);
        // Server-side apply creates a missing object.
        auto applied = parse_body(body);
        if (!applied) return applied.error();
        if (!applied->is_object()) return errors::bad_request("the applied configuration must be an object");
        auto& obj = applied->as_object();
        if (auto n = name_of(obj); !n.empty() && n != name) {
            return errors::bad_request("the name of the object (" + std::string(n) +
                                       ") does not match the name on the URL (" + std::string(name) + ")");
        }
        mutable_metadata(obj)["name"] = std::string(name);
        auto r = create(ctx, gvr, ns, std::move(obj));
        if (r && created) *created = true;
        return r;
    }
    json::value current(*impl::present(old, *def));
    json::value patched;
    switch (type) {
    case patch_type::json: {
        auto r = apply_json_patch(current, body);
        if (!r) return r.error();
        patched = std::move(*r);
        break;
    }
    case patch_type::merge:
    case patch_type::strategic:  // strategic: merge semantics until the SMP engine is wired (docs)
    case patch_type::apply: {    // apply: merge of the applied configuration (docs)
        auto p = parse_body(body);
        if (!p) return p.error();
        if (!p->is_object()) return errors::bad_request("the patch must be a JSON object");
        patched = apply_merge_patch(current, *p);
        break;
    }
    }
    if (!patched.is_object()) return errors::bad_request("the patched document is not an object");
    return im.do_update(ctx, *def, ns, name, std::move(patched.as_object()), sub, nullptr);
}

} // namespace kcoro::apiserver
