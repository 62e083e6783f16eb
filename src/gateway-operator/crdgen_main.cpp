// gateway-operator-crdgen: writes deploy/crd/ from the typed GatewayInstance.
//   gateway-operator-crdgen --output-dir deploy/crd   regenerate
//   gateway-operator-crdgen --check deploy/crd        CI: fail when stale
#include <kcoro/typed/crdgen.hpp>

#include "api/gateway_instance_types.hpp"

int main(int argc, char** argv) {
    kcoro::typed::crdgen_options o;
    o.program = "gateway-operator-crdgen";
    o.source = "src/gateway-operator/api/gateway_instance_types.hpp";
    o.regenerate = "scripts/kcoro-dev crds";
    return kcoro::typed::crdgen_main<gateway::v1alpha1::gateway_instance>(argc, argv, o);
}
