// The members of a JSON object that its struct does not declare. Every
// described struct holds one (`kcoro::typed::unknown_fields unknown;`, not
// listed in BOOST_DESCRIBE_STRUCT): decoding keeps there what another writer
// set (a newer API version's fields, another controller's annotations live
// elsewhere but its spec extensions land here), encoding writes it back after
// the declared members, so read-modify-write loses nothing.
//
// Thread safety: a value.
#pragma once

#include <boost/json/object.hpp>

namespace kcoro::typed {

class unknown_fields : public boost::json::object {
public:
    using boost::json::object::object;
    unknown_fields() = default;
    explicit unknown_fields(boost::json::object o) : boost::json::object(std::move(o)) {}
};

} // namespace kcoro::typed
