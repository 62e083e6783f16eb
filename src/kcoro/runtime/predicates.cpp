#include <kcoro/runtime/predicates.hpp>

#include <algorithm>

#include <kcoro/core/object.hpp>

namespace kcoro::runtime {

namespace json = boost::json;

namespace {

bool same_map(const json::object* a, const json::object* b) noexcept {
    // A missing map and an empty one are the same labels.
    bool a_empty = !a || a->empty();
    bool b_empty = !b || b->empty();
    if (a_empty || b_empty) {
        return a_empty == b_empty;
    }
    return *a == *b;
}

} // namespace

bool generation_changed(const json::object& old_obj, const json::object& new_obj) noexcept {
    return generation_of(old_obj) != generation_of(new_obj);
}

bool resource_version_changed(const json::object& old_obj, const json::object& new_obj) noexcept {
    return resource_version_of(old_obj) != resource_version_of(new_obj);
}

bool labels_changed(const json::object& old_obj, const json::object& new_obj) noexcept {
    return !same_map(labels_of(old_obj), labels_of(new_obj));
}

bool annotations_changed(const json::object& old_obj, const json::object& new_obj) noexcept {
    return !same_map(annotations_of(old_obj), annotations_of(new_obj));
}

predicate generation_changed_predicate() {
    return {{}, [](const json::object& o, const json::object& n) { return generation_changed(o, n); }, {}, {}};
}

predicate resource_version_changed_predicate() {
    return {{}, [](const json::object& o, const json::object& n) { return resource_version_changed(o, n); }, {}, {}};
}

predicate labels_changed_predicate() {
    return {{}, [](const json::object& o, const json::object& n) { return labels_changed(o, n); }, {}, {}};
}

predicate annotations_changed_predicate() {
    return {{}, [](const json::object& o, const json::object& n) { return annotations_changed(o, n); }, {}, {}};
}

predicate label_selector_predicate(label_selector selector) {
    auto match = [selector](const json::object& o) { return selector.matches_object(o); };
    return {match,
            [match](const json::object& o, const json::object& n) { return match(o) || match(n); },
            match, match};
}

predicate all_of(std::vector<predicate> ps) {
    // A kind of event none of the predicates filters is not filtered: no
    // update predicate means handlers need not decode the old state.
    const bool filters_update = std::any_of(ps.begin(), ps.end(), [](const predicate& p) { return bool(p.update); });
    predicate out{[ps](const json::object& o) {
                for (const auto& p : ps) if (!p.on_create(o)) return false;
                return true;
            },
            [ps](const json::object& o, const json::object& n) {
                for (const auto& p : ps) if (!p.on_update(o, n)) return false;
                return true;
            },
            [ps](const json::object& o) {
                for (const auto& p : ps) if (!p.on_delete(o)) return false;
                return true;
            },
            [ps](const json::object& o) {
                for (const auto& p : ps) if (!p.on_generic(o)) return false;
                return true;
            }};
    if (!filters_update) {
        out.update = nullptr;
    }
    return out;
}

predicate any_of(std::vector<predicate> ps) {
    return {[ps](const json::object& o) {
                for (const auto& p : ps) if (p.on_create(o)) return true;
                return false;
            },
            [ps](const json::object& o, const json::object& n) {
                for (const auto& p : ps) if (p.on_update(o, n)) return true;
                return false;
            },
            [ps](const json::object& o) {
                for (const auto& p : ps) if (p.on_delete(o)) return true;
                return false;
            },
            [ps](const json::object& o) {
                for (const auto& p : ps) if (p.on_generic(o)) return true;
                return false;
            }};
}

} // namespace kcoro::runtime
