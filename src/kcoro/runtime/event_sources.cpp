#include <kcoro/runtime/event_sources.hpp>

#include <kcoro/runtime/controller.hpp>

#include <algorithm>
#include <memory>
#include <utility>

namespace kcoro::runtime {

// Here rather than in controller.cpp so that a controller used without
// informers does not link the informer.
handler_id controller::watch(informer& inf, event_handlers h) { return inf.add_handlers(guard(std::move(h))); }

std::optional<object_key> controller_owner_key(const boost::json::object& obj, const group_kind& owner,
                                               bool owner_cluster_scoped) {
    auto ref = controller_of(obj);
    if (!ref || ref->name.empty()) {
        return std::nullopt;
    }
    if (ref->kind != owner.kind || group_version::parse(ref->api_version).group != owner.group) {
        return std::nullopt;
    }
    object_key key;
    key.name = ref->name;
    if (!owner_cluster_scoped) {
        key.ns = std::string(namespace_of(obj));
    }
    return key;
}

namespace {

// One mapping from an object to keys, shared by the three handlers.
using keys_of = std::function<std::vector<object_key>(const boost::json::object&)>;

event_handlers make_handlers(controller& c, keys_of keys, predicate p) {
    auto shared = std::make_shared<std::pair<keys_of, predicate>>(std::move(keys), std::move(p));
    event_handlers h;
    h.on_add = [&c, shared](const object_ptr& o) {
        if (!o || !shared->second.on_create(*o)) return;
        for (auto& k : shared->first(*o)) c.enqueue(k);
    };
    h.on_update = [&c, shared](const object_ptr& old_obj, const object_ptr& o) {
        if (!o) return;
        const boost::json::object empty;
        const auto& before = old_obj ? *old_obj : empty;
        if (!shared->second.on_update(before, *o)) return;
        auto keys = shared->first(*o);
        if (old_obj) {
            // An update that moved the mapping (new owner, new labels): both
            // the old and the new targets must look again.
            for (auto& k : shared->first(*old_obj)) {
                if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
            }
        }
        for (auto& k : keys) c.enqueue(k);
    };
    h.on_delete = [&c, shared](const object_ptr& o, bool) {
        if (!o || !shared->second.on_delete(*o)) return;
        for (auto& k : shared->first(*o)) c.enqueue(k);
    };
    return h;
}

} // namespace

event_handlers enqueue_for_object(controller& c, predicate p) {
    // The key of the old state is the key of the new one: without an update
    // predicate the old state is never read.
    const bool reads_old = static_cast<bool>(p.update);
    auto h = make_handlers(c, [](const boost::json::object& o) { return std::vector<object_key>{key_of(o)}; },
                           std::move(p));
    h.reads_old_object = reads_old;
    return h;
}

event_handlers enqueue_for_owner(controller& c, group_kind owner, predicate p, bool owner_cluster_scoped) {
    return make_handlers(
        c,
        [owner = std::move(owner), owner_cluster_scoped](const boost::json::object& o) {
            std::vector<object_key> out;
            if (auto k = controller_owner_key(o, owner, owner_cluster_scoped)) out.push_back(std::move(*k));
            return out;
        },
        std::move(p));
}

event_handlers enqueue_from_map(controller& c, map_func fn, predicate p) {
    return make_handlers(
        c,
        [fn = std::move(fn)](const boost::json::object& o) {
            try {
                return fn(o);
            } catch (...) {
                return std::vector<object_key>{};  // a throwing map function maps nothing
            }
        },
        std::move(p));
}

} // namespace kcoro::runtime
