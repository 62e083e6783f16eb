// resource.Quantity: "500m", "1Gi", "2", "1e3". On the wire a string, or a
// number where a CRD schema says x-kubernetes-int-or-string; the text is kept
// as received and written back in the same JSON kind.
//
// Thread safety: a value.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kcoro::typed {

class quantity {
public:
    quantity() = default;
    /// `text` must be a quantity (is_quantity); else the quantity is empty.
    explicit quantity(std::string_view text);

    bool empty() const noexcept { return text_.empty(); }
    const std::string& str() const noexcept { return text_; }

    static constexpr std::string_view expected = "a quantity (such as 500m or 1Gi)";
    bool assign(const boost::json::value& v);
    boost::json::value to_json() const;
    static void schema(boost::json::object& s);

    friend bool operator==(const quantity&, const quantity&) = default;

private:
    std::string text_;
    bool number_ = false; // came as a JSON number
};

/// resource.ParseQuantity's grammar: <sign><digits>[.<digits>]<suffix>, the
/// suffix one of Ki Mi Gi Ti Pi Ei m k M G T P E, or an exponent e<int>/E<int>.
bool is_quantity(std::string_view s) noexcept;

} // namespace kcoro::typed
