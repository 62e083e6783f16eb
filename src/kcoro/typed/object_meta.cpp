#include <kcoro/typed/object_meta.hpp>

#include <algorithm>

namespace kcoro::typed {

bool object_meta::has_finalizer(std::string_view f) const noexcept {
    return std::find(finalizers.begin(), finalizers.end(), f) != finalizers.end();
}

bool object_meta::add_finalizer(std::string_view f) {
    if (has_finalizer(f))
        return false;
    finalizers.emplace_back(f);
    return true;
}

bool object_meta::remove_finalizer(std::string_view f) {
    auto it = std::remove(finalizers.begin(), finalizers.end(), f);
    if (it == finalizers.end())
        return false;
    finalizers.erase(it, finalizers.end());
    return true;
}

const owner_reference* object_meta::controller() const noexcept {
    for (const auto& r : owner_references) {
        if (r.controller.value_or(false))
            return &r;
    }
    return nullptr;
}

bool object_meta::is_controlled_by(std::string_view owner_uid) const noexcept {
    const auto* c = controller();
    return c && c->uid == owner_uid;
}

} // namespace kcoro::typed
