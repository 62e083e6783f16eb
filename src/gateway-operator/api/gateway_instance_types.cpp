#include "api/gateway_instance_types.hpp"

#include <set>

namespace gateway::v1alpha1 {

kcoro::typed::field_errors validate(const gateway_instance& gi) {
    kcoro::typed::field_errors errors;
    const auto env = kcoro::typed::field_path("spec").child("env");
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < gi.spec.env.size(); ++i) {
        const auto& name = gi.spec.env[i].name;
        if (!seen.insert(name).second) {
            errors.push_back({env.index(i).child("name").str(), kcoro::typed::field_error_type::duplicate,
                              "duplicate name \"" + name + "\""});
        }
    }
    return errors;
}

} // namespace gateway::v1alpha1
