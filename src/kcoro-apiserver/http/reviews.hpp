// The review APIs, which are created and answered, never stored
// (pkg/registry/authorization/{selfsubjectaccessreview,subjectaccessreview,
// localsubjectaccessreview,selfsubjectrulesreview}/rest.go and
// pkg/registry/authentication/selfsubjectreview/rest.go, v1.32):
// `kubectl auth can-i` (also --list) and `kubectl auth whoami`.
//
// Pure over the access control's decision and the store; thread safety: the
// server's one thread.
#pragma once

#include "http/auth.hpp"
#include "store/object_store.hpp"

#include <boost/json/object.hpp>

#include <optional>

namespace kcoro::apiserver::http {

/// True for the review resources (authorization.k8s.io/v1 selfsubjectaccessreviews,
/// subjectaccessreviews, localsubjectaccessreviews, selfsubjectrulesreviews;
/// authentication.k8s.io/v1 selfsubjectreviews).
bool is_review(const group_version_resource& gvr);

/// The answer to a create of a review: the review with its status, or the
/// validation error. `user` is the requesting user (after impersonation);
/// `ns` the URL's namespace (localsubjectaccessreviews). The access reviews
/// answer the object they were sent, so it carries the managedFields the
/// create handler's field manager recorded (`field_manager`, at `now`); the
/// rules and self reviews answer a new object, without.
result<boost::json::object> answer_review(const access_control& access, const object_store& store,
                                          const group_version_resource& gvr, std::string_view ns,
                                          const user_info& user, boost::json::object body, wall_time now,
                                          std::string_view field_manager);

} // namespace kcoro::apiserver::http
