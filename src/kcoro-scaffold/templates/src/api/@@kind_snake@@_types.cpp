#include "api/@@kind_snake@@_types.hpp"

namespace @@namespace@@::@@version@@ {

kcoro::typed::field_errors validate(const @@kind_snake@@&) { return {}; }

} // namespace @@namespace@@::@@version@@
