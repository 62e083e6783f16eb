// @@name@@-crdgen: writes deploy/crd/ from the typed @@kind@@.
//   @@name@@-crdgen --output-dir deploy/crd   regenerate
//   @@name@@-crdgen --check deploy/crd        fail when the committed file is stale
#include "api/@@kind_snake@@_types.hpp"

#include <kcoro/typed/crdgen.hpp>

int main(int argc, char** argv) {
    kcoro::typed::crdgen_options o;
    o.program = "@@name@@-crdgen";
    o.source = "src/api/@@kind_snake@@_types.hpp";
    o.regenerate = "build/@@name@@-crdgen --output-dir deploy/crd";
    return kcoro::typed::crdgen_main<@@namespace@@::@@version@@::@@kind_snake@@>(argc, argv, o);
}
