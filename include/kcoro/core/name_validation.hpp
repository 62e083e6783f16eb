// Name and label validation as apimachinery's validation package does it
// (k8s.io/apimachinery/pkg/util/validation). Each function returns the error
// messages the real server uses (empty = valid), so callers can build 422
// causes with the same texts.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kcoro {

/// RFC 1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters
/// (namespaces, services).
std::vector<std::string> validate_dns1123_label(std::string_view value);
/// RFC 1035 label: [a-z]([-a-z0-9]*[a-z0-9])?, at most 63 (service names).
std::vector<std::string> validate_dns1035_label(std::string_view value);
/// RFC 1123 subdomain: labels joined by '.', at most 253 characters (most objects).
std::vector<std::string> validate_dns1123_subdomain(std::string_view value);
/// Qualified name: [prefix/]name (label keys, annotation keys, finalizers).
std::vector<std::string> validate_qualified_name(std::string_view value);
/// Label value: empty or ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63.
std::vector<std::string> validate_label_value(std::string_view value);

} // namespace kcoro
