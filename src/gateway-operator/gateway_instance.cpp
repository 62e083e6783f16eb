#include "gateway_instance.hpp"

#include <kcoro/typed/codec.hpp>

namespace gateway {

kcoro::group_version_resource gateway_instances() {
    return kcoro::typed::resource_traits<gateway_instance>::gvr();
}

std::string_view to_string(service_type t) noexcept {
    return kcoro::typed::enum_name(t);
}

} // namespace gateway
