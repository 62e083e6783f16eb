#include <kcoro/core/request_options.hpp>

namespace kcoro {

const char* to_string(version_match m) noexcept {
    switch (m) {
    case version_match::unset: return "";
    case version_match::not_older_than: return "NotOlderThan";
    case version_match::exact: return "Exact";
    }
    return "";
}

const char* to_string(deletion_propagation p) noexcept {
    switch (p) {
    case deletion_propagation::unset: return "";
    case deletion_propagation::orphan: return "Orphan";
    case deletion_propagation::background: return "Background";
    case deletion_propagation::foreground: return "Foreground";
    }
    return "";
}

const char* content_type_of(patch_type t) noexcept {
    switch (t) {
    case patch_type::merge: return "application/merge-patch+json";
    case patch_type::json: return "application/json-patch+json";
    case patch_type::strategic_merge: return "application/strategic-merge-patch+json";
    case patch_type::apply: return "application/apply-patch+yaml";
    }
    return "application/merge-patch+json";
}

} // namespace kcoro
