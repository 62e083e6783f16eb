// kcoro-scaffold's pure core: the project's parameters, the names derived
// from them, and the rendering of templates (templates.hpp) into files.
// main.cpp only parses flags and writes what plan() returns.
//
// Placeholders are @@key@@ with key in [a-z_A-Z]; anything else is literal
// text (a JSONPath's "@.type" or an e-mail address stay as they are). An
// unknown key is an error naming it and the template, so a typo in a
// template fails the scaffold's unit test instead of reaching a project.
//
// Pure; values.
#pragma once

#include "templates.hpp"

#include <kcoro/core/error.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::scaffold {

struct project_params {
    std::string name = "";           // "widget-operator": project, binary, namespace prefix
    std::string group = "";          // "example.com"
    std::string version = "v1alpha1";
    std::string kind = "";           // "Widget"
    std::string plural = "";         // "" = derived ("widgets")
    std::string kcoro_version = "";  // the kcoro the project asks for (">=" this)
};

/// Checks the parameters as Kubernetes and C++ need them (a DNS-1123 label
/// for the name, a DNS subdomain with a dot for the group, v1 / v1beta2 /
/// v2alpha1 versions, a PascalCase kind, a lower-case plural).
result<void> validate(const project_params& p);

/// Every placeholder's value: name, NAME_UPPER, namespace (the name in
/// snake_case), group, version, kind, kind_snake, singular, plural,
/// kcoro_version, kcoro_major_minor. Call after validate().
std::map<std::string, std::string, std::less<>> placeholders(const project_params& p);

/// "Widget" -> "widget", "DataStore" -> "data_store", "HTTPRoute" -> "http_route".
std::string snake_case(std::string_view pascal);
/// English plural as kubebuilder makes it: "policy" -> "policies", "ingress" -> "ingresses".
std::string plural_of(std::string_view singular);

/// `text` with every placeholder replaced; an unknown one is an error.
result<std::string> render(std::string_view text, const std::map<std::string, std::string, std::less<>>& values,
                           std::string_view origin);

struct output_file {
    std::string path;  // relative to the project directory
    std::string contents;
    bool executable = false;  // under scripts/
};

/// The project: every template rendered, paths too ("dot-x" names become ".x").
result<std::vector<output_file>> plan(const project_params& p, const std::vector<template_file>& templates);

} // namespace kcoro::scaffold
