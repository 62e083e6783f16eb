// The CustomResourceDefinition of a typed resource (apiextensions.k8s.io/v1),
// with the full openAPIV3Schema of schema.hpp, the names, scope, printer
// columns and the status subresource that KCORO_RESOURCE declares. One
// version per CRD: the type's.
//
// Generation time only; pure; thread-safe.
#pragma once

#include <kcoro/typed/schema.hpp>

#include <boost/json/object.hpp>

#include <string>

namespace kcoro::typed {

namespace detail {
/// The CRD around an openAPIV3Schema, from the resource's facts.
boost::json::object make_crd(const resource_info& info, const std::string& name, const std::string& singular,
                             const std::string& list_kind, boost::json::object schema);
} // namespace detail

template <resource_type T> boost::json::object crd() {
    using traits = resource_traits<T>;
    return detail::make_crd(traits::info, traits::resource_name(), traits::singular(), traits::list_kind(),
                            resource_schema<T>());
}

/// controller-gen's file name: "<group>_<plural>.yaml".
template <resource_type T> std::string crd_file_name() {
    return std::string(resource_traits<T>::group) + "_" + std::string(resource_traits<T>::plural) + ".yaml";
}

} // namespace kcoro::typed
