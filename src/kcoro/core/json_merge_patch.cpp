#include <kcoro/core/json_merge_patch.hpp>

#include <boost/json/object.hpp>

namespace kcoro {
namespace json = boost::json;

namespace {

// Values added by a patch keep no nulls (RFC 7386 §2: MergePatch({}, v)).
json::value strip_nulls(const json::value& v) {
    if (!v.is_object()) {
        return v;
    }
    json::object out;
    for (const auto& [k, child] : v.get_object()) {
        if (!child.is_null()) {
            out[k] = strip_nulls(child);
        }
    }
    return out;
}

bool is_number(const json::value& v) noexcept { return v.is_int64() || v.is_uint64() || v.is_double(); }

} // namespace

void apply_merge_patch_in_place(json::value& target, const json::value& patch) {
    if (!patch.is_object()) {
        target = patch;
        return;
    }
    if (!target.is_object()) {
        target = json::object{};
    }
    auto& t = target.get_object();
    for (const auto& [k, pv] : patch.get_object()) {
        if (pv.is_null()) {
            t.erase(k);
            continue;
        }
        auto it = t.find(k);
        if (it == t.end()) {
            t[k] = strip_nulls(pv);
        } else if (pv.is_object()) {
            apply_merge_patch_in_place(it->value(), pv);
        } else {
            it->value() = pv;
        }
    }
}

json::value apply_merge_patch(const json::value& target, const json::value& patch) {
    json::value out = target;
    apply_merge_patch_in_place(out, patch);
    return out;
}

json::value create_merge_patch(const json::value& from, const json::value& to) {
    if (!to.is_object()) {
        // A non-object patch replaces the whole target (RFC 7386 section 2),
        // so `to` itself is the only patch that yields `to`, even when `from`
        // equals it: `{}` would turn a scalar or array into an object. (Found
        // by libFuzzer on document `2`, patch `2`.) evanphx/json-patch's
        // CreateMergePatch, which kubectl uses, refuses non-objects instead.
        return to;
    }
    if (!from.is_object()) {
        return to;  // MergePatch(non-object, to) == MergePatch({}, to) == to (no nulls in `to`)
    }
    json::object patch;
    const auto& f = from.get_object();
    const auto& t = to.get_object();
    for (const auto& [k, fv] : f) {
        if (!t.contains(k)) {
            patch[k] = nullptr;
        }
        (void)fv;
    }
    for (const auto& [k, tv] : t) {
        const auto* fv = f.if_contains(k);
        if (!fv) {
            patch[k] = tv;
        } else if (fv->is_object() && tv.is_object()) {
            json::value sub = create_merge_patch(*fv, tv);
            if (!sub.get_object().empty()) {
                patch[k] = std::move(sub);
            }
        } else if (!json_equal(*fv, tv)) {
            patch[k] = tv;
        }
    }
    return patch;
}

json::value create_repair_merge_patch(const json::value& live, const json::value& desired) {
    if (!desired.is_object()) {
        // As in create_merge_patch: only the value itself replaces a
        // non-object; `{}` would turn `live` into an object.
        return desired;
    }
    if (!live.is_object()) {
        return strip_nulls(desired);
    }
    json::object patch;
    const auto& l = live.get_object();
    for (const auto& [k, dv] : desired.get_object()) {
        const auto* lv = l.if_contains(k);
        if (dv.is_null()) {
            if (lv) patch[k] = nullptr;
        } else if (!lv) {
            patch[k] = strip_nulls(dv);
        } else if (dv.is_object() && lv->is_object()) {
            json::value sub = create_repair_merge_patch(*lv, dv);
            if (!sub.get_object().empty()) patch[k] = std::move(sub);
        } else if (!json_equal(*lv, dv)) {
            patch[k] = dv;
        }
    }
    return patch;
}

bool json_equal(const json::value& a, const json::value& b) noexcept {
    if (is_number(a) && is_number(b)) {
        if (a.is_double() || b.is_double()) {
            return a.to_number<double>() == b.to_number<double>();
        }
        return a == b;  // Boost.JSON compares int64 with uint64 by value
    }
    if (a.kind() != b.kind()) {
        return false;
    }
    if (a.is_array()) {
        const auto& x = a.get_array();
        const auto& y = b.get_array();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!json_equal(x[i], y[i])) return false;
        }
        return true;
    }
    if (a.is_object()) {
        const auto& x = a.get_object();
        const auto& y = b.get_object();
        if (x.size() != y.size()) return false;
        for (const auto& [k, v] : x) {
            const auto* w = y.if_contains(k);
            if (!w || !json_equal(v, *w)) return false;
        }
        return true;
    }
    return a == b;
}

} // namespace kcoro
