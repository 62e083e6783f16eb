// kcoro-ctl's command line, parsed into a value (pure; no I/O).
#pragma once

#include <kcoro/core/error.hpp>
#include <kcoro/core/request_options.hpp>

#include <string>
#include <vector>

namespace kcoro::ctl {

enum class command { get, list, watch, create, apply, patch, remove };

struct ctl_args {
    command cmd = command::get;
    std::string resource;   // as typed: "cm", "deployments.apps"
    std::string name;
    std::string file;       // -f
    std::string kubeconfig;
    std::string context;
    std::string ns;         // -n; empty = the config's namespace
    bool all_namespaces = false;  // -A (list, watch)
    bool output_json = false;     // -o json
    std::string selector;   // -l
    std::string patch;      // -p
    patch_type type = patch_type::strategic_merge;  // kubectl's default
    bool force_conflicts = false;
    std::string resource_version;  // watch --resource-version
};

/// argv without the program name. Errors are invalid_argument with a usage hint.
result<ctl_args> parse_args(const std::vector<std::string>& argv);

/// Usage text.
const char* usage() noexcept;

} // namespace kcoro::ctl
