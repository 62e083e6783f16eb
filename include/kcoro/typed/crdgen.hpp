// The body of a CRD generator program (controller-gen's `crd` step for
// typed kcoro resources). An operator lists its resource types:
//
//   int main(int argc, char** argv) {
//       kcoro::typed::crdgen_options o;
//       o.program = "gateway-operator-crdgen";
//       o.regenerate = "scripts/kcoro-dev crds";
//       return kcoro::typed::crdgen_main<gateway::v1alpha1::gateway_instance>(argc, argv, o);
//   }
//
// and gets:
//   PROGRAM                    every CRD on stdout, `---`-separated
//   PROGRAM --output-dir DIR   writes DIR/<group>_<plural>.yaml for each
//   PROGRAM --check DIR        exit 1 when a file in DIR differs from what
//                              --output-dir would write, naming the file, the
//                              first differing line and the command that
//                              regenerates it (a CI check)
// Exit codes: 0 done / up to date, 1 out of date or an I/O failure, 2 usage.
#pragma once

#include <kcoro/core/yaml_writer.hpp>
#include <kcoro/typed/crd.hpp>

#include <array>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace kcoro::typed {

struct crdgen_options {
    std::string program = "crdgen"; // in the header comment and the help
    std::string source;             // where the types are declared, for the header comment
    std::string regenerate;         // the command printed when --check fails
};

struct generated_file {
    std::string name; // "gateway.kcoro.dev_gatewayinstances.yaml"
    std::string text; // header comment + YAML
};

/// The header comment of a generated file.
std::string generated_header(const crdgen_options& o);

template <resource_type T> generated_file crd_file(const crdgen_options& o) {
    return {crd_file_name<T>(), generated_header(o) + to_yaml(crd<T>())};
}

/// The command line over already generated files; `out` and `err` for tests.
int run_crdgen(std::span<const generated_file> files, std::span<const std::string_view> args,
               const crdgen_options& o, std::ostream& out, std::ostream& err);
/// The same with std::cout and std::cerr.
int run_crdgen(std::span<const generated_file> files, int argc, char** argv, const crdgen_options& o);

template <resource_type... Ts> int crdgen_main(int argc, char** argv, const crdgen_options& o) {
    std::array<generated_file, sizeof...(Ts)> files{crd_file<Ts>(o)...};
    return run_crdgen(files, argc, argv, o);
}

} // namespace kcoro::typed
