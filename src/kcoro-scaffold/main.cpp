// kcoro-scaffold: a new operator project on kcoro, as `kubebuilder init`
// and `kubebuilder create api` make one (docs/using-kcoro.md, "A new operator").
//
//   kcoro-scaffold init --name widget-operator --group example.com --kind Widget
//                       [--version v1alpha1] [--plural widgets] [--output DIR] [--force]
//
// Writes DIR (default ./<name>): meson.build and CMakeLists.txt, the typed
// resource and its generated CRD, the reconciler (finalizer, apply_owned,
// status), main.cpp on the manager, a test on kcoro::testing, deploy/
// (CRD, RBAC, Deployment, kustomization), a Containerfile and a README.
// Exit codes: 0 written, 1 cannot write, 2 bad command line.
#include "scaffold.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#ifndef KCORO_VERSION
#error "KCORO_VERSION must be defined by the build"
#endif

namespace fs = std::filesystem;

namespace {

constexpr const char* usage =
    "usage: kcoro-scaffold init --name NAME --group GROUP --kind KIND [--version v1alpha1]\n"
    "                           [--plural PLURAL] [--output DIR] [--force]\n"
    "Creates an operator project on kcoro " KCORO_VERSION " in DIR (default ./NAME).\n";

int usage_error(const std::string& message) {
    std::cerr << "kcoro-scaffold: " << message << "\n" << usage;
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << usage;
        return args.empty() ? 2 : 0;
    }
    if (args[0] != "init") return usage_error("unknown command \"" + args[0] + "\"");
    kcoro::scaffold::project_params p;
    p.kcoro_version = KCORO_VERSION;
    std::string output;
    bool force = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const auto& a = args[i];
        auto value = [&](std::string& into) {
            if (i + 1 >= args.size()) return false;
            into = args[++i];
            return true;
        };
        bool ok = true;
        if (a == "--name") ok = value(p.name);
        else if (a == "--group") ok = value(p.group);
        else if (a == "--version") ok = value(p.version);
        else if (a == "--kind") ok = value(p.kind);
        else if (a == "--plural") ok = value(p.plural);
        else if (a == "--output") ok = value(output);
        else if (a == "--force") force = true;
        else if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        } else return usage_error("unknown flag " + a);
        if (!ok) return usage_error("missing value for " + a);
    }
    auto files = kcoro::scaffold::plan(p, kcoro::scaffold::embedded_templates());
    if (!files) return usage_error(files.error().message().substr(std::string("kcoro-scaffold: ").size()));

    const fs::path dir = output.empty() ? fs::path(p.name) : fs::path(output);
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec) && !force) {
        std::cerr << "kcoro-scaffold: " << dir.string() << " exists and is not empty (--force writes into it)\n";
        return 1;
    }
    for (const auto& f : *files) {
        const fs::path path = dir / f.path;
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            std::cerr << "kcoro-scaffold: cannot create " << path.parent_path().string() << ": " << ec.message() << "\n";
            return 1;
        }
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << f.contents;
        out.close();
        if (!out) {
            std::cerr << "kcoro-scaffold: cannot write " << path.string() << "\n";
            return 1;
        }
        if (f.executable) {
            fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                            fs::perm_options::add, ec);
        }
    }
    std::cout << "kcoro-scaffold: wrote " << files->size() << " files to " << dir.string() << "\n"
              << "next: cd " << dir.string() << " && meson setup build && meson test -C build\n";
    return 0;
}
