// Beast, separately compiled (BOOST_BEAST_SEPARATE_COMPILATION, meson.build's
// kcoro_defines): its non-template code (the HTTP parser, fields, status and
// verb tables) is built here once, into libkcoro. Every program that links
// kcoro takes Beast from here.
#include <boost/beast/src.hpp>
