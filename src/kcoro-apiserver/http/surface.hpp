// Which method/path combinations exist, and what the real server answers for
// the others (pure). Two handlers serve resources in kube-apiserver:
//  - go-restful, for the built-in group versions (staging/src/k8s.io/
//    apiserver/pkg/server/handler.go director + serviceErrorHandler,
//    endpoints/installer.go routes): a path under a web service root
//    (/api, /api/v1, /apis/<builtin group>[/<version>]) without a route is a
//    JSON 404 `the server could not find the requested resource`; a route
//    without the method (POST on a named path, HEAD anywhere, PUT on a
//    collection...) is a JSON 405 `the server does not allow this method on
//    the requested resource` (NewGenericServerResponse; no Allow header:
//    kube-apiserver's error handler drops go-restful's).
//  - crdHandler, for custom resources (staging/src/k8s.io/apiextensions-
//    apiserver/pkg/apiserver/customresource_handler.go): an unknown resource,
//    version or scope falls through to the not-found handler; HEAD is a GET
//    (RequestInfo's verb); an unknown subresource is NotFound on the
//    resource; a verb the (sub)resource lacks is 405 `<verb> is not
//    supported on resources of kind "<resource>.<group>"`; POST to a named
//    path creates from the body (the name in the URL is not used); PUT or
//    PATCH without a name is 400 `name must be provided`.
// Every other path ends at the not-found handler: 404, text/plain
// `404 page not found` (http.NotFound via notfoundhandler.go).
#pragma once

#include "http/route.hpp"
#include "store/resource_registry.hpp"

#include <string_view>

namespace kcoro::apiserver::http {

enum class surface_answer {
    serve,
    not_found_text,       // 404 page not found (text/plain)
    not_found_json,       // go-restful 404 Status
    not_found_resource,   // NotFound Status on the resource and name (crdHandler's unknown subresource)
    method_not_allowed,   // go-restful 405 Status
    method_not_supported, // crdHandler 405: "<verb> is not supported on resources of kind ..."
    name_required,        // 400 "name must be provided"
};

/// What the server does with `r` (parsed from `method` and the target).
surface_answer check_surface(std::string_view method, const route& r, const resource_registry& reg);

} // namespace kcoro::apiserver::http
