// Content negotiation of the Accept header, as kube-apiserver does it in two
// places:
//  1. go-restful's route matching for the built-in resources
//     (RouterJSR311.detectRoute / Route.matchesAccept): the media ranges'
//     bare types (parameters dropped) must name one the route produces
//     (application/json, application/yaml, application/vnd.kubernetes.protobuf,
//     or */*), else 406 `406: Not Acceptable\n\nAvailable representations: ...`.
//  2. the handlers (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/
//     negotiation/negotiate.go NegotiateMediaTypeOptions, rest.go
//     AllowsMediaTypeTransform): ranges in q order, each with its `as`/`g`/`v`
//     transform; the first one the endpoint allows wins (Table,
//     PartialObjectMetadata, PartialObjectMetadataList in meta.k8s.io v1 or
//     v1beta1); none → 406 `only the following media types are accepted: ...`.
// kcoro-apiserver encodes JSON only, so YAML and protobuf ranges are skipped
// (a real server would serve them; see docs/apiserver.md): client-go's
// default Accept with a protobuf ContentType, `application/vnd.kubernetes.protobuf, */*`
// (k8s.io/client-go/rest/request.go newRequest), is answered in JSON, which
// client-go decodes by the response's Content-Type. A client that accepts
// only protobuf gets the 406 below.
//
// Pure functions; thread safety: values.
#pragma once

#include <string>
#include <string_view>

namespace kcoro::apiserver::http {

enum class media_choice {
    json,                  // application/json (or */*, application/*)
    table_v1,              // application/json;as=Table;v=v1;g=meta.k8s.io
    table_v1beta1,         // ...;v=v1beta1
    partial_v1,            // application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1
    partial_v1beta1,       // ...;v=v1beta1
    partial_list_v1,       // application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1
    partial_list_v1beta1,  // ...;v=v1beta1
    not_acceptable,        // nothing servable: the handler's 406
    not_acceptable_route,  // no producible bare type at all: go-restful's 406 (built-ins only)
};

/// Negotiates `accept` for an endpoint (`builtin`: served through go-restful,
/// whose route check comes first). An empty header is JSON.
media_choice negotiate(std::string_view accept, bool builtin = true);

inline bool is_table(media_choice m) noexcept {
    return m == media_choice::table_v1 || m == media_choice::table_v1beta1;
}
inline bool is_partial(media_choice m) noexcept {
    return m == media_choice::partial_v1 || m == media_choice::partial_v1beta1;
}
inline bool is_partial_list(media_choice m) noexcept {
    return m == media_choice::partial_list_v1 || m == media_choice::partial_list_v1beta1;
}
/// "meta.k8s.io/v1" or "meta.k8s.io/v1beta1" for the transforms.
inline const char* meta_api_version(media_choice m) noexcept {
    return m == media_choice::table_v1beta1 || m == media_choice::partial_v1beta1 ||
                   m == media_choice::partial_list_v1beta1
               ? "meta.k8s.io/v1beta1"
               : "meta.k8s.io/v1";
}

/// The media types the real server lists in 406 and 415 answers.
inline constexpr std::string_view served_media_types =
    "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/// What kcoro-apiserver decodes for a built-in kind it has no protobuf
/// table for (store/proto_schema.hpp): its 415 lists only these.
inline constexpr std::string_view json_yaml_media_types = "application/json, application/yaml";

/// The handler's 406 message (negotiation.errNotAcceptable).
std::string not_acceptable_message();
/// go-restful's 406 message for a route that produces none of the ranges.
std::string route_not_acceptable_message();

} // namespace kcoro::apiserver::http
