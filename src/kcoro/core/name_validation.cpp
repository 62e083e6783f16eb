#include <kcoro/core/name_validation.hpp>

namespace kcoro {
namespace {

bool lower_alnum(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) noexcept { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

bool is_label(std::string_view v) noexcept {
    if (v.empty() || !lower_alnum(v.front()) || !lower_alnum(v.back())) {
        return false;
    }
    for (char c : v) {
        if (!lower_alnum(c) && c != '-') {
            return false;
        }
    }
    return true;
}

bool is_subdomain(std::string_view v) noexcept {
    if (v.empty()) {
        return false;
    }
    std::size_t start = 0;
    while (true) {
        auto dot = v.find('.', start);
        auto part = v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (!is_label(part)) {
            return false;
        }
        if (dot == std::string_view::npos) {
            return true;
        }
        start = dot + 1;
    }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_qualified_part(std::string_view v) noexcept {
    if (v.empty() || !alnum(v.front()) || !alnum(v.back())) {
        return false;
    }
    for (char c : v) {
        if (!alnum(c) && c != '-' && c != '_' && c != '.') {
            return false;
        }
    }
    return true;
}

std::string max_len_msg(std::size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

constexpr std::string_view label_msg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view subdomain_msg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view qualified_msg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view label_value_msg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

} // namespace

std::vector<std::string> validate_dns1123_label(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > 63) {
        errs.push_back(max_len_msg(63));
    }
    if (!is_label(value)) {
        errs.emplace_back(label_msg);
    }
    return errs;
}

std::vector<std::string> validate_dns1035_label(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > 63) {
        errs.push_back(max_len_msg(63));
    }
    if (!is_label(value) || !(value.front() >= 'a' && value.front() <= 'z')) {
        errs.emplace_back(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
            "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
            "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
    }
    return errs;
}

std::vector<std::string> validate_dns1123_subdomain(std::string_view value) {
    std::vector<std::string> errs;
    if (value.size() > 253) {
        errs.push_back(max_len_msg(253));
    }
    if (!is_subdomain(value)) {
        errs.emplace_back(subdomain_msg);
    }
    return errs;
}

std::vector<std::string> validate_qualified_name(std::string_view value) {
    std::vector<std::string> errs;
    auto name = value;
    if (auto slash = value.find('/'); slash != std::string_view::npos) {
        auto prefix = value.substr(0, slash);
        name = value.substr(slash + 1);
        if (prefix.empty()) {
            errs.emplace_back("prefix part must be non-empty");
        } else {
            for (auto& e : validate_dns1123_subdomain(prefix)) {
                errs.push_back("prefix part " + e);
            }
        }
        if (name.find('/') != std::string_view::npos) {
            errs.emplace_back(
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
                "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return errs;
        }
    }
    if (name.empty()) {
        errs.emplace_back("name part must be non-empty");
    } else {
        if (name.size() > 63) {
            errs.emplace_back("name part " + max_len_msg(63));
        }
        if (!is_qualified_part(name)) {
            errs.emplace_back(qualified_msg);
        }
    }
    return errs;
}

std::vector<std::string> validate_label_value(std::string_view value) {
    std::vector<std::string> errs;
    if (value.empty()) {
        return errs;
    }
    if (value.size() > 63) {
        errs.push_back(max_len_msg(63));
    }
    if (!is_qualified_part(value)) {
        errs.emplace_back(label_value_msg);
    }
    return errs;
}

} // namespace kcoro
