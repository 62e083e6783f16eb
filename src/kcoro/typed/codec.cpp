#include <kcoro/typed/codec.hpp>

#include <boost/json/serialize.hpp>

#include <limits>
#include <vector>

namespace kcoro::typed::detail {
namespace json = boost::json;

std::string render(const path& p) {
    std::vector<const path*> chain;
    for (const path* s = &p; s; s = s->parent) {
        if (s->k != path::kind::root)
            chain.push_back(s);
    }
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const path& s = **it;
        switch (s.k) {
        case path::kind::field:
            if (!out.empty())
                out += '.';
            out += s.name;
            break;
        case path::kind::index:
            out += '[' + std::to_string(s.index) + ']';
            break;
        case path::kind::key:
            out += '[';
            out += s.name;
            out += ']';
            break;
        case path::kind::root:
            break;
        }
    }
    return out;
}

std::string brief(const json::value& v) {
    constexpr std::size_t max_text = 64;
    switch (v.kind()) {
    case json::kind::object:
        return "an object";
    case json::kind::array:
        return "a list";
    case json::kind::string: {
        std::string s = json::serialize(v.get_string());
        if (s.size() > max_text) {
            s.resize(max_text - 4);
            s += "...\"";
        }
        return s;
    }
    default:
        return json::serialize(v);
    }
}

bool integral(const json::value& v, std::int64_t& out) noexcept {
    if (v.is_int64()) {
        out = v.get_int64();
        return true;
    }
    if (v.is_uint64() &&
        v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        out = static_cast<std::int64_t>(v.get_uint64());
        return true;
    }
    if (v.is_double()) {
        double d = v.get_double();
        if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d))) {
            out = static_cast<std::int64_t>(d);
            return true;
        }
    }
    return false;
}

void decode_context::fail(const path& p, std::string message) {
    if (errors_.size() >= max_decode_errors) {
        ++dropped_;
        return;
    }
    errors_.push_back({render(p), field_error_type::invalid, std::move(message)});
}

void decode_context::expected(const path& p, std::string_view what, const json::value& got) {
    if (errors_.size() >= max_decode_errors) {
        ++dropped_;
        return;
    }
    std::string m = "expected ";
    m += what;
    m += ", got ";
    m += brief(got);
    fail(p, std::move(m));
}

void decode_context::finish() {
    if (dropped_ > 0) {
        errors_.push_back(
            {"", field_error_type::too_many, "and " + std::to_string(dropped_) + " more errors"});
    }
}

std::string one_of_message(const std::string_view* names, std::size_t n, const json::value& got) {
    std::string m = "expected one of ";
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0)
            m += ", ";
        m += names[i];
    }
    m += ", got ";
    m += brief(got);
    return m;
}

} // namespace kcoro::typed::detail
