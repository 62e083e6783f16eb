#include <kcoro/client/write_origin.hpp>

namespace kcoro::client {

boost::asio::any_io_executor with_write_origin(boost::asio::any_io_executor ex, const write_origin* origin) {
    if (!origin) return ex;
    // Wrapping an origin_executor again replaces its origin rather than
    // nesting wrappers (write_origin_of reads the outermost only).
    if (const auto* o = ex.target<origin_executor>()) return origin_executor(o->inner(), origin);
    if (const auto* io = ex.target<boost::asio::io_context::executor_type>()) return origin_executor(*io, origin);
    return ex;
}

const write_origin* write_origin_of(const boost::asio::any_io_executor& ex) noexcept {
    const auto* o = ex.target<origin_executor>();
    return o ? o->origin() : nullptr;
}

} // namespace kcoro::client
