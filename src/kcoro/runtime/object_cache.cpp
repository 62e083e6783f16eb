#include <kcoro/runtime/object_cache.hpp>

#include <algorithm>
#include <ostream>
#include <utility>

namespace kcoro::runtime {

namespace json = boost::json;

object_ptr strip_managed_fields_transform(object_ptr obj) {
    if (!obj || !managed_fields_of(*obj)) {
        return obj;  // nothing to strip: share, do not copy
    }
    auto copy = std::make_shared<json::object>(*obj);
    strip_managed_fields(*copy);
    return copy;
}

object_ptr keep_managed_fields_transform(object_ptr obj, const std::vector<std::string>& managers) {
    if (!obj) {
        return obj;
    }
    const auto* mf = managed_fields_of(*obj);
    const bool ours_only = mf && mf->is_array() && std::all_of(mf->get_array().begin(), mf->get_array().end(), [&](const json::value& e) {
        const auto* m = e.is_object() ? e.get_object().if_contains("manager") : nullptr;
        return m && m->is_string() && std::find(managers.begin(), managers.end(), std::string_view(m->get_string())) != managers.end();
    });
    if (ours_only) {
        return obj;  // share, do not copy
    }
    json::array kept;
    if (mf && mf->is_array()) {
        for (const auto& e : mf->get_array()) {
            const auto* m = e.is_object() ? e.get_object().if_contains("manager") : nullptr;
            if (m && m->is_string() &&
                std::find(managers.begin(), managers.end(), std::string_view(m->get_string())) != managers.end()) {
                kept.push_back(e);
            }
        }
    }
    auto copy = std::make_shared<json::object>(*obj);
    mutable_metadata(*copy)["managedFields"] = std::move(kept);
    return copy;
}

object_ptr metadata_only_transform(object_ptr obj) {
    if (!obj) {
        return obj;
    }
    auto out = std::make_shared<json::object>();
    for (std::string_view k : {"apiVersion", "kind", "metadata"}) {
        if (const auto* v = obj->if_contains(k)) {
            out->emplace(k, *v);
        }
    }
    strip_managed_fields(*out);
    return out;
}

std::ostream& operator<<(std::ostream& os, const cache_notification& n) {
    switch (n.type) {
    case notification_type::added: os << "added"; break;
    case notification_type::updated: os << "updated"; break;
    case notification_type::deleted: os << (n.tombstone ? "deleted(tombstone)" : "deleted"); break;
    }
    if (n.object) {
        os << "(" << key_of(*n.object) << "@" << resource_version_of(*n.object) << ")";
    }
    return os;
}

object_cache::object_cache(cache_options opts) : opts_(std::move(opts)) {
    indexes_.push_back({std::string(namespace_index),
                        [](const json::object& o) { return std::vector<std::string>{std::string(namespace_of(o))}; },
                        {}});
    indexes_.push_back({std::string(controller_uid_index),
                        [](const json::object& o) {
                            std::vector<std::string> out;
                            if (auto ref = controller_of(o)) {
                                out.push_back(ref->uid);
                            }
                            return out;
                        },
                        {}});
}

object_ptr object_cache::transform(object_ptr obj) const {
    if (!obj) {
        return obj;
    }
    object_ptr out;
    if (opts_.transform) {
        try {
            out = opts_.transform(obj);
        } catch (...) {
            out = obj;  // a throwing hook must not take the informer down
        }
    } else if (opts_.metadata_only) {
        out = metadata_only_transform(obj);
    } else {
        out = strip_managed_fields_transform(obj);
    }
    return out ? out : obj;
}

std::vector<std::string> object_cache::index_values_of(const index& ix, const json::object& obj) const {
    try {
        return ix.fn(obj);
    } catch (...) {
        return {};
    }
}

void object_cache::index_entry(const object_key& key, entry& e) {
    e.index_values.resize(indexes_.size());
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        e.index_values[i] = index_values_of(indexes_[i], *e.object);
        for (const auto& v : e.index_values[i]) {
            indexes_[i].values[v].insert(key);
        }
    }
}

void object_cache::unindex_entry(const object_key& key, const entry& e) {
    for (std::size_t i = 0; i < indexes_.size() && i < e.index_values.size(); ++i) {
        for (const auto& v : e.index_values[i]) {
            auto it = indexes_[i].values.find(v);
            if (it != indexes_[i].values.end()) {
                it->second.erase(key);
                if (it->second.empty()) {
                    indexes_[i].values.erase(it);
                }
            }
        }
    }
}

bool object_cache::add_index(std::string name, index_func fn) {
    if (name == namespace_index || name == controller_uid_index || !fn) {
        return false;
    }
    for (std::size_t i = 2; i < indexes_.size(); ++i) {
        if (indexes_[i].name == name) {
            for (auto& [key, e] : items_) {
                unindex_entry(key, e);
            }
            indexes_.erase(indexes_.begin() + static_cast<std::ptrdiff_t>(i));
            for (auto& [key, e] : items_) {
                e.index_values.erase(e.index_values.begin() + static_cast<std::ptrdiff_t>(i));
            }
            break;
        }
    }
    indexes_.push_back({std::move(name), std::move(fn), {}});
    auto& ix = indexes_.back();
    for (auto& [key, e] : items_) {
        e.index_values.resize(indexes_.size());
        e.index_values.back() = index_values_of(ix, *e.object);
        for (const auto& v : e.index_values.back()) {
            ix.values[v].insert(key);
        }
    }
    return true;
}

cache_notification object_cache::apply(object_ptr obj) {
    obj = transform(std::move(obj));
    if (!obj) {
        return {};
    }
    auto key = key_of(*obj);
    auto it = items_.find(key);
    if (it == items_.end()) {
        entry e{obj, {}};
        index_entry(key, e);
        items_.emplace(key, std::move(e));
        return {notification_type::added, nullptr, obj, false};
    }
    auto old = it->second.object;
    unindex_entry(key, it->second);
    it->second.object = obj;
    index_entry(key, it->second);
    return {notification_type::updated, old, obj, false};
}

std::vector<cache_notification> object_cache::remove(object_ptr obj) {
    if (!obj) {
        return {};
    }
    auto key = key_of(*obj);
    auto it = items_.find(key);
    if (it == items_.end()) {
        return {};
    }
    unindex_entry(key, it->second);
    items_.erase(it);
    return {{notification_type::deleted, nullptr, transform(std::move(obj)), false}};
}

std::vector<cache_notification> object_cache::replace_all(std::vector<object_ptr> objs) {
    std::vector<cache_notification> out;
    out.reserve(objs.size());
    std::set<object_key> seen;
    for (auto& o : objs) {
        if (!o) {
            continue;
        }
        auto n = apply(std::move(o));
        seen.insert(key_of(*n.object));
        out.push_back(std::move(n));
    }
    // Vanished while we were not watching: deliver the last state we knew.
    for (auto it = items_.begin(); it != items_.end();) {
        if (seen.contains(it->first)) {
            ++it;
            continue;
        }
        out.push_back({notification_type::deleted, nullptr, it->second.object, true});
        unindex_entry(it->first, it->second);
        it = items_.erase(it);
    }
    synced_ = true;
    return out;
}

std::vector<cache_notification> object_cache::handle(const watcher_event& e) {
    switch (e.type) {
    case watcher_event_type::init_start:
        pending_.clear();
        return {};
    case watcher_event_type::init_apply:
        if (e.object) {
            pending_.push_back(e.object);
        }
        return {};
    case watcher_event_type::init_done: {
        auto objs = std::move(pending_);
        pending_.clear();
        return replace_all(std::move(objs));
    }
    case watcher_event_type::apply:
        if (!e.object) {
            return {};
        }
        return {apply(e.object)};
    case watcher_event_type::deleted:
        return remove(e.object);
    }
    return {};
}

object_ptr object_cache::get(const object_key& key) const {
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second.object;
}

std::vector<object_ptr> object_cache::list() const {
    std::vector<object_ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, e] : items_) {
        out.push_back(e.object);
    }
    return out;
}

std::vector<object_key> object_cache::keys() const {
    std::vector<object_key> out;
    out.reserve(items_.size());
    for (const auto& [key, e] : items_) {
        out.push_back(key);
    }
    return out;
}

std::vector<object_ptr> object_cache::lookup(std::size_t ix, std::string_view value) const {
    std::vector<object_ptr> out;
    auto it = indexes_[ix].values.find(std::string(value));
    if (it == indexes_[ix].values.end()) {
        return out;
    }
    for (const auto& key : it->second) {
        out.push_back(items_.at(key).object);
    }
    return out;
}

std::vector<object_ptr> object_cache::list_namespace(std::string_view ns) const {
    return lookup(0, ns);
}

std::vector<object_ptr> object_cache::list_controlled_by(std::string_view owner_uid) const {
    return lookup(1, owner_uid);
}

std::vector<object_ptr> object_cache::by_index(std::string_view name, std::string_view value) const {
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        if (indexes_[i].name == name) {
            return lookup(i, value);
        }
    }
    return {};
}

} // namespace kcoro::runtime
