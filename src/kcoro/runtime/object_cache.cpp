#include <kcoro/runtime/object_cache.hpp>

#include <algorithm>
#include <ostream>
#include <tuple>
#include <utility>

namespace kcoro::runtime {

namespace json = boost::json;

namespace {

bool same_object(const object_ptr& a, const object_ptr& b) noexcept {
    return a == b || (a && b && *a == *b);
}

// The built-in index at position 0.
std::vector<std::string> controller_uid_values(const json::object& o) {
    std::vector<std::string> out;
    if (auto ref = controller_of(o)) {
        out.push_back(std::move(ref->uid));
    }
    return out;
}

} // namespace

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

bool operator==(const cache_notification& a, const cache_notification& b) noexcept {
    return a.type == b.type && a.tombstone == b.tombstone && same_object(a.old_object, b.old_object) &&
           same_object(a.object, b.object);
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

// --- ordering ---------------------------------------------------------------
bool object_cache::ref_less::operator()(const index_ref& a, const index_ref& b) const noexcept {
    if (a.value != b.value) {
        return a.value < b.value;
    }
    return key_less{}(*a.item, *b.item);
}
bool object_cache::ref_less::operator()(const index_ref& a, std::string_view b) const noexcept {
    return a.value < b;
}
bool object_cache::ref_less::operator()(std::string_view a, const index_ref& b) const noexcept {
    return a < b.value;
}

// --- construction and indexes -------------------------------------------------
object_cache::object_cache(cache_options opts) : opts_(std::move(opts)) {
    indexes_.push_back({std::string(controller_uid_index), controller_uid_values, {}});
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
    } else if (keeps_managers()) {
        out = keep_managed_fields_transform(obj, *opts_.kept_managers);
    } else if (opts_.metadata_only) {
        out = metadata_only_transform(obj);
    } else {
        out = strip_managed_fields_transform(obj);
    }
    return out ? out : obj;
}

bool object_cache::keeps_managers() const noexcept {
    return !opts_.metadata_only && opts_.kept_managers && !opts_.kept_managers->empty();
}

compact_filter object_cache::filter() const noexcept {
    if (opts_.transform || keeps_managers()) {
        return compact_filter::none;  // the hook decided what to keep
    }
    return opts_.metadata_only ? compact_filter::metadata_only : compact_filter::strip_managed_fields;
}

std::vector<std::vector<std::string>> object_cache::index_values_of(const json::object& obj) const {
    std::vector<std::vector<std::string>> out(indexes_.size());
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        try {
            out[i] = indexes_[i].fn(obj);
        } catch (...) {
            out[i].clear();  // an index function that throws indexes nothing
        }
    }
    return out;
}

object_cache::prepared object_cache::prepare(const object_ptr& raw, bool want_view) {
    prepared p;
    if (opts_.transform || keeps_managers()) {
        p.view = transform(raw);
        p.block = compact_object::make(*p.view, compact_filter::none, index_values_of(*p.view), scratch_);
        return p;
    }
    // Built-in filters: the text is written without what they drop, from the
    // object as decoded (no copy). The object the handlers and the user
    // indexes see is the filtered one, decoded back only when something was
    // dropped and someone looks.
    const auto f = filter();
    const bool changed = filter_changes(*raw, f);
    const bool user_indexes = indexes_.size() > 1;
    if (!changed) {
        p.view = raw;
        p.block = compact_object::make(*raw, f, index_values_of(*raw), scratch_);
        return p;
    }
    if (!user_indexes) {
        // The controller reference lives in metadata, which both filters keep.
        p.block = compact_object::make(*raw, f, index_values_of(*raw), scratch_);
        if (want_view) {
            p.view = p.block.decode();
        }
        return p;
    }
    const std::vector<std::vector<std::string>> none;
    auto text_only = compact_object::make(*raw, f, none, scratch_);
    p.view = text_only.decode();
    p.block = text_only.with_values(index_values_of(*p.view));
    return p;
}

const compact_object& object_cache::fresh(const slot& s) {
    // A block made before an index was added lacks its values.
    if (s.obj.index_count() != indexes_.size()) {
        auto obj = s.obj.decode();
        bytes_ -= s.obj.bytes();
        s.obj = s.obj.with_values(index_values_of(*obj));
        bytes_ += s.obj.bytes();
    }
    return s.obj;
}

void object_cache::index_slot(const slot& s) {
    const auto& obj = fresh(s);
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        for (auto v : obj.values(i)) {
            indexes_[i].refs.insert({v, &s});
        }
    }
}

void object_cache::unindex_slot(const slot& s) {
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        for (auto v : s.obj.values(i)) {
            indexes_[i].refs.erase(index_ref{v, &s});
        }
    }
}

void object_cache::reindex_all() {
    for (auto& ix : indexes_) {
        ix.refs.clear();
    }
    for (const auto& s : items_) {
        index_slot(s);
    }
}

bool object_cache::add_index(std::string name, index_func fn) {
    if (name == namespace_index || name == controller_uid_index || !fn) {
        return false;
    }
    // The refs hold views into the blocks, which are about to be rebuilt.
    for (auto& ix : indexes_) {
        ix.refs.clear();
    }
    bool replaced = false;
    for (std::size_t i = 1; i < indexes_.size(); ++i) {
        if (indexes_[i].name == name) {
            indexes_[i].fn = std::move(fn);
            replaced = true;
            // Recompute every block's values (fresh() only sees a count change).
            for (const auto& s : items_) {
                auto obj = s.obj.decode();
                bytes_ -= s.obj.bytes();
                s.obj = s.obj.with_values(index_values_of(*obj));
                bytes_ += s.obj.bytes();
            }
            for (const auto& s : pending_) {
                s.obj = s.obj.with_values(index_values_of(*s.obj.decode()));
            }
            break;
        }
    }
    if (!replaced) {
        indexes_.push_back({std::move(name), std::move(fn), {}});
    }
    reindex_all();
    return true;
}

// --- writers --------------------------------------------------------------
void object_cache::apply_one(const object_ptr& raw, const notification_sink& sink) {
    if (!raw) {
        return;
    }
    auto p = prepare(raw, static_cast<bool>(sink));
    auto it = items_.find(key_view{p.block.namespace_(), p.block.name()});
    if (it == items_.end()) {
        bytes_ += p.block.bytes();
        auto [pos, inserted] = items_.insert(slot{std::move(p.block), ++last_stamp_});
        index_slot(*pos);
        if (sink) {
            sink({notification_type::added, nullptr, p.view, false});
        }
        return;
    }
    object_ptr old = sink && old_objects_ ? it->obj.decode() : nullptr;
    unindex_slot(*it);
    bytes_ -= it->obj.bytes();
    it->obj = std::move(p.block);
    it->stamp = ++last_stamp_;
    bytes_ += it->obj.bytes();
    index_slot(*it);
    if (sink) {
        sink({notification_type::updated, std::move(old), p.view, false});
    }
}

void object_cache::remove_one(const object_ptr& raw, const notification_sink& sink) {
    if (!raw) {
        return;
    }
    auto it = items_.find(key_view{namespace_of(*raw), name_of(*raw)});
    if (it == items_.end()) {
        return;
    }
    unindex_slot(*it);
    bytes_ -= it->obj.bytes();
    items_.erase(it);
    if (sink) {
        sink({notification_type::deleted, nullptr, transform(raw), false});
    }
}

void object_cache::replace(item_set next, const notification_sink& sink) {
    for (auto& ix : indexes_) {
        ix.refs.clear();
    }
    item_set previous = std::exchange(items_, std::move(next));
    for (const auto& s : items_) {
        index_slot(s);  // may rebuild a block that lacks a newer index's values
    }
    bytes_ = 0;
    for (const auto& s : items_) {
        bytes_ += s.obj.bytes();
    }
    synced_ = true;
    if (!sink) {
        return;
    }
    // Adds and updates in key order, then the tombstones; each object is
    // decoded just for its notification.
    for (const auto& s : items_) {
        auto was = previous.find(key_less::view(s));
        if (was == previous.end()) {
            sink({notification_type::added, nullptr, s.obj.decode(), false});
        } else {
            sink({notification_type::updated, old_objects_ ? was->obj.decode() : nullptr, s.obj.decode(), false});
        }
    }
    // Vanished while we were not watching: deliver the last state we knew.
    for (const auto& s : previous) {
        if (!items_.contains(key_less::view(s))) {
            sink({notification_type::deleted, nullptr, s.obj.decode(), true});
        }
    }
}

void object_cache::put(item_set& set, compact_object block) {
    auto it = set.lower_bound(key_view{block.namespace_(), block.name()});
    if (it != set.end() && it->obj.namespace_() == block.namespace_() && it->obj.name() == block.name()) {
        it->obj = std::move(block);  // listed twice: the later state
        it->stamp = ++last_stamp_;
        return;
    }
    set.insert(it, slot{std::move(block), ++last_stamp_});
}

void object_cache::handle(const watcher_event& e, const notification_sink& sink) {
    switch (e.type) {
    case watcher_event_type::init_start:
        pending_.clear();
        return;
    case watcher_event_type::init_apply:
        if (e.object) {
            put(pending_, prepare(e.object, false).block);
        }
        return;
    case watcher_event_type::init_done:
        replace(std::exchange(pending_, item_set{}), sink);
        return;
    case watcher_event_type::apply:
        apply_one(e.object, sink);
        return;
    case watcher_event_type::deleted:
        remove_one(e.object, sink);
        return;
    }
}

std::vector<cache_notification> object_cache::handle(const watcher_event& e) {
    std::vector<cache_notification> out;
    handle(e, [&out](const cache_notification& n) { out.push_back(n); });
    return out;
}

cache_notification object_cache::apply(object_ptr obj) {
    cache_notification out;
    apply_one(obj, [&out](const cache_notification& n) { out = n; });
    return out;
}

std::vector<cache_notification> object_cache::remove(object_ptr obj) {
    std::vector<cache_notification> out;
    remove_one(obj, [&out](const cache_notification& n) { out.push_back(n); });
    return out;
}

std::vector<cache_notification> object_cache::replace_all(std::vector<object_ptr> objs) {
    item_set next;
    for (const auto& o : objs) {
        if (!o) {
            continue;
        }
        put(next, prepare(o, false).block);
    }
    std::vector<cache_notification> out;
    out.reserve(next.size());
    replace(std::move(next), [&out](const cache_notification& n) { out.push_back(n); });
    return out;
}

// --- readers ----------------------------------------------------------------
std::uint64_t object_cache::stamp(const object_key& key) const noexcept {
    auto it = items_.find(key);
    return it == items_.end() ? 0 : it->stamp;
}

object_ptr object_cache::get(const object_key& key) const {
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->obj.decode();
}

std::vector<object_ptr> object_cache::list() const {
    std::vector<object_ptr> out;
    out.reserve(items_.size());
    for (const auto& s : items_) {
        out.push_back(s.obj.decode());
    }
    return out;
}

void object_cache::for_each(const std::function<void(const object_ptr&)>& f) const {
    for (const auto& s : items_) {
        f(s.obj.decode());
    }
}

std::vector<object_key> object_cache::keys() const {
    std::vector<object_key> out;
    out.reserve(items_.size());
    for (const auto& s : items_) {
        out.push_back(s.obj.key());
    }
    return out;
}

std::vector<object_ptr> object_cache::lookup(std::size_t ix, std::string_view value) const {
    std::vector<object_ptr> out;
    auto [first, last] = indexes_[ix].refs.equal_range(value);
    for (auto it = first; it != last; ++it) {
        out.push_back(it->item->obj.decode());
    }
    return out;
}

std::vector<object_ptr> object_cache::list_namespace(std::string_view ns) const {
    // The keys are sorted by namespace first: the namespace is a range.
    std::vector<object_ptr> out;
    for (auto it = items_.lower_bound(key_view{ns, ""});
         it != items_.end() && it->obj.namespace_() == ns; ++it) {
        out.push_back(it->obj.decode());
    }
    return out;
}

std::vector<object_ptr> object_cache::list_controlled_by(std::string_view owner_uid) const {
    return lookup(0, owner_uid);
}

std::vector<object_ptr> object_cache::by_index(std::string_view name, std::string_view value) const {
    if (name == namespace_index) {
        return list_namespace(value);
    }
    for (std::size_t i = 0; i < indexes_.size(); ++i) {
        if (indexes_[i].name == name) {
            return lookup(i, value);
        }
    }
    return {};
}

} // namespace kcoro::runtime
