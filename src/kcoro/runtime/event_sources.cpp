#include <kcoro/runtime/event_sources.hpp>

#include <kcoro/runtime/controller.hpp>
#include <kcoro/runtime/shard_ring.hpp>

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

// A key to enqueue and, when the event tells it, the hash a sharded
// controller gates it on (docs/sharding.md).
struct target {
    object_key key;
    std::optional<std::uint64_t> hash;
    friend bool operator==(const target& a, const target& b) { return a.key == b.key; }
};

// One mapping from an object to keys, shared by the three handlers. `hashed`
// is whether the controller is sharded (only then are hashes computed).
using keys_of = std::function<std::vector<target>(const boost::json::object&, bool hashed)>;

void push(controller& c, const target& t) {
    if (t.hash) {
        c.enqueue_hashed(t.key, *t.hash);
    } else {
        c.enqueue(t.key);
    }
}

event_handlers make_handlers(controller& c, keys_of keys, predicate p) {
    auto shared = std::make_shared<std::pair<keys_of, predicate>>(std::move(keys), std::move(p));
    event_handlers h;
    h.on_add = [&c, shared](const object_ptr& o) {
        if (!o || !shared->second.on_create(*o)) return;
        for (auto& k : shared->first(*o, c.sharded())) push(c, k);
    };
    h.on_update = [&c, shared](const object_ptr& old_obj, const object_ptr& o) {
        if (!o) return;
        const boost::json::object empty;
        const auto& before = old_obj ? *old_obj : empty;
        if (!shared->second.on_update(before, *o)) return;
        const bool hashed = c.sharded();
        auto keys = shared->first(*o, hashed);
        if (old_obj) {
            // An update that moved the mapping (new owner, new labels): both
            // the old and the new targets must look again.
            for (auto& k : shared->first(*old_obj, hashed)) {
                if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
            }
        }
        for (auto& k : keys) push(c, k);
    };
    h.on_delete = [&c, shared](const object_ptr& o, bool) {
        if (!o || !shared->second.on_delete(*o)) return;
        for (auto& k : shared->first(*o, c.sharded())) push(c, k);
    };
    return h;
}

std::optional<std::uint64_t> uid_hash(std::string_view uid) {
    if (uid.empty()) return std::nullopt;
    return fnv1a64(uid);
}

} // namespace

event_handlers enqueue_for_object(controller& c, predicate p) {
    // The key of the old state is the key of the new one: without an update
    // predicate the old state is never read.
    const bool reads_old = static_cast<bool>(p.update);
    // Sharded: the object's own uid (KEP-5866 hashes metadata.uid).
    auto h = make_handlers(
        c,
        [](const boost::json::object& o, bool hashed) {
            return std::vector<target>{{key_of(o), hashed ? uid_hash(uid_of(o)) : std::nullopt}};
        },
        std::move(p));
    h.reads_old_object = reads_old;
    return h;
}

event_handlers enqueue_for_owner(controller& c, group_kind owner, predicate p, bool owner_cluster_scoped) {
    return make_handlers(
        c,
        // Sharded: children follow their owner, hashed by the controller
        // owner reference's uid (the owner's metadata.uid).
        [owner = std::move(owner), owner_cluster_scoped](const boost::json::object& o, bool hashed) {
            std::vector<target> out;
            if (auto k = controller_owner_key(o, owner, owner_cluster_scoped)) {
                std::optional<std::uint64_t> h;
                if (hashed) {
                    if (auto ref = controller_of(o)) h = uid_hash(ref->uid);
                }
                out.push_back({std::move(*k), h});
            }
            return out;
        },
        std::move(p));
}

uid_map_func with_no_uid(map_func fn) {
    return [fn = std::move(fn)](const boost::json::object& o) {
        std::vector<mapped_key> out;
        for (auto& k : fn(o)) out.emplace_back(std::move(k));
        return out;
    };
}

event_handlers enqueue_from_map(controller& c, map_func fn, predicate p) {
    // Sharded: no uid from the event; enqueue() reads the key's hash from
    // the primary cache, so only keys this replica owns are queued.
    return enqueue_from_uid_map(c, with_no_uid(std::move(fn)), std::move(p));
}

event_handlers enqueue_from_uid_map(controller& c, uid_map_func fn, predicate p) {
    return make_handlers(
        c,
        // Sharded: the primary's uid where the object tells it, so that a key
        // whose primary is not cached (deleted) still reaches its owner.
        [fn = std::move(fn)](const boost::json::object& o, bool hashed) {
            std::vector<target> out;
            try {
                for (auto& k : fn(o)) {
                    out.push_back({std::move(k.key), hashed ? uid_hash(k.primary_uid) : std::nullopt});
                }
            } catch (...) {
                out.clear();  // a throwing map function maps nothing
            }
            return out;
        },
        std::move(p));
}

} // namespace kcoro::runtime
