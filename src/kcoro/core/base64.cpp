#include <kcoro/core/base64.hpp>

#include <cstdint>

namespace kcoro {
namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+') {
        return 62;
    }
    if (c == '/') {
        return 63;
    }
    return -1;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                          (static_cast<std::uint8_t>(bytes[i + 1]) << 8) | static_cast<std::uint8_t>(bytes[i + 2]);
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(alphabet[(v >> 6) & 63]);
        out.push_back(alphabet[v & 63]);
    }
    std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i]) << 16);
        if (rest == 2) {
            v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1]) << 8);
        }
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(rest == 2 ? alphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 4 * 3);
    std::uint32_t acc = 0;
    int bits = 0;     // sextets in acc
    int padding = 0;  // '=' seen
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        }
        if (c == '=') {
            ++padding;
            continue;
        }
        int v = value_of(c);
        if (v < 0 || padding > 0) {
            return std::nullopt; // a foreign character, or data after padding
        }
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        if (++bits == 4) {
            out.push_back(static_cast<char>((acc >> 16) & 0xFF));
            out.push_back(static_cast<char>((acc >> 8) & 0xFF));
            out.push_back(static_cast<char>(acc & 0xFF));
            acc = 0;
            bits = 0;
        }
    }
    // A final group of 1 sextet is never valid; padding must complete the group.
    if (bits == 1 || (padding > 0 && bits + padding != 4) || (bits == 0 && padding > 0)) {
        return std::nullopt;
    }
    if (bits == 2) {
        out.push_back(static_cast<char>((acc >> 4) & 0xFF));
    } else if (bits == 3) {
        out.push_back(static_cast<char>((acc >> 10) & 0xFF));
        out.push_back(static_cast<char>((acc >> 2) & 0xFF));
    }
    return out;
}

} // namespace kcoro
