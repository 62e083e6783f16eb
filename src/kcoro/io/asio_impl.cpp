// Asio and Asio's SSL, separately compiled (BOOST_ASIO_SEPARATE_COMPILATION,
// meson.build's kcoro_defines): their non-template code is built here once,
// into libkcoro, instead of in every translation unit that includes them.
// Every program that links kcoro takes Asio from here.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
