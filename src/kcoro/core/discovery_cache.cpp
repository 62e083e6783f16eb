#include <kcoro/core/discovery_cache.hpp>

#include <algorithm>

namespace kcoro {

namespace {

bool iequals(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(x) == lower(y);
           });
}

bool names_it(const resource_info& r, std::string_view name) noexcept {
    if (iequals(r.gvr.resource, name) || iequals(r.kind, name)) {
        return true;  // plural, kind, and (case-insensitively) the singular
    }
    return std::any_of(r.short_names.begin(), r.short_names.end(),
                       [&](const std::string& s) { return iequals(s, name); });
}

} // namespace

void discovery_cache::set_group_version(const group_version& gv, std::vector<resource_info> resources) {
    // Keep the position of a group version that is refreshed, so resolution
    // order does not change under the caller.
    auto first = std::find_if(entries_.begin(), entries_.end(), [&](const resource_info& r) {
        return r.gvr.group == gv.group && r.gvr.version == gv.version;
    });
    auto pos = static_cast<std::size_t>(first - entries_.begin());
    std::erase_if(entries_, [&](const resource_info& r) {
        return r.gvr.group == gv.group && r.gvr.version == gv.version;
    });
    pos = std::min(pos, entries_.size());
    entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(pos), std::make_move_iterator(resources.begin()),
                    std::make_move_iterator(resources.end()));
}

std::optional<resource_info> discovery_cache::find(const group_version_kind& gvk) const {
    for (const auto& r : entries_) {
        if (r.gvr.group == gvk.group && r.gvr.version == gvk.version && r.kind == gvk.kind) {
            return r;
        }
    }
    return std::nullopt;
}

std::optional<resource_info> discovery_cache::find(const group_version_resource& gvr) const {
    for (const auto& r : entries_) {
        if (r.gvr == gvr) {
            return r;
        }
    }
    return std::nullopt;
}

std::optional<resource_info> discovery_cache::resolve(std::string_view name) const {
    if (name.empty()) {
        return std::nullopt;
    }
    // Unqualified first: "deploy", "ConfigMap".
    for (const auto& r : entries_) {
        if (names_it(r, name)) {
            return r;
        }
    }
    // "<name>.<group>" (the group may contain dots) or "<name>.<version>.<group>".
    for (auto dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', dot + 1)) {
        auto head = name.substr(0, dot);
        auto rest = name.substr(dot + 1);
        for (const auto& r : entries_) {
            if (!names_it(r, head)) {
                continue;
            }
            if (iequals(r.gvr.group, rest)) {
                return r;
            }
            auto vdot = rest.find('.');
            if (vdot != std::string_view::npos && iequals(r.gvr.version, rest.substr(0, vdot)) &&
                iequals(r.gvr.group, rest.substr(vdot + 1))) {
                return r;
            }
        }
    }
    return std::nullopt;
}

} // namespace kcoro
