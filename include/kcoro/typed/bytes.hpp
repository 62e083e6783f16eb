// []byte fields (Secret.data, ConfigMap.binaryData): base64 on the wire, raw
// bytes in the struct.
//
// Thread safety: a value.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kcoro::typed {

class bytes {
public:
    bytes() = default;
    explicit bytes(std::string raw) : raw_(std::move(raw)) {}

    bool empty() const noexcept { return raw_.empty(); }
    const std::string& str() const noexcept { return raw_; }

    static constexpr std::string_view expected = "base64 data";
    bool assign(const boost::json::value& v);
    boost::json::value to_json() const;
    static void schema(boost::json::object& s);

    friend bool operator==(const bytes&, const bytes&) = default;

private:
    std::string raw_;
};

} // namespace kcoro::typed
