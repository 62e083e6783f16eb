#include "scaffold.hpp"

#include <cctype>

namespace kcoro::scaffold {

namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

error bad(std::string message) { return error(kcoro_errc::invalid_config, "kcoro-scaffold: " + std::move(message)); }

// A DNS-1123 label: lower-case alphanumerics and '-', starting and ending
// alphanumeric, at most 63 characters (apimachinery's IsDNS1123Label).
bool is_dns_label(std::string_view s) {
    if (s.empty() || s.size() > 63 || !is_lower_alnum(s.front()) || !is_lower_alnum(s.back())) return false;
    for (char c : s) {
        if (!is_lower_alnum(c) && c != '-') return false;
    }
    return true;
}

} // namespace

std::string snake_case(std::string_view pascal) {
    std::string out;
    for (std::size_t i = 0; i < pascal.size(); ++i) {
        const char c = pascal[i];
        const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
        if (upper && i > 0) {
            const bool prev_lower = std::islower(static_cast<unsigned char>(pascal[i - 1])) != 0 ||
                                    std::isdigit(static_cast<unsigned char>(pascal[i - 1])) != 0;
            const bool next_lower = i + 1 < pascal.size() && std::islower(static_cast<unsigned char>(pascal[i + 1])) != 0;
            // "DataStore" -> data_store; "HTTPRoute" -> http_route (the
            // boundary before the last capital of an acronym).
            if (prev_lower || (next_lower && std::isupper(static_cast<unsigned char>(pascal[i - 1])) != 0)) {
                out.push_back('_');
            }
        }
        out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

std::string plural_of(std::string_view s) {
    // The rules of kubebuilder's flect-based pluralizer for the common cases.
    std::string w(s);
    auto ends = [&](std::string_view suffix) { return w.size() >= suffix.size() && w.ends_with(suffix); };
    if (ends("s") || ends("x") || ends("z") || ends("ch") || ends("sh")) return w + "es";
    if (ends("y") && w.size() > 1 && std::string_view("aeiou").find(w[w.size() - 2]) == std::string_view::npos) {
        return w.substr(0, w.size() - 1) + "ies";
    }
    return w + "s";
}

result<void> validate(const project_params& p) {
    if (!is_dns_label(p.name)) {
        return bad("--name " + (p.name.empty() ? std::string("is required") : "\"" + p.name + "\"") +
                   ": a DNS-1123 label (lower-case letters, digits and '-', starting with a letter, at most 63)");
    }
    if (!std::isalpha(static_cast<unsigned char>(p.name.front()))) {
        return bad("--name \"" + p.name + "\": must start with a letter (it names a C++ namespace)");
    }
    if (p.group.empty() || p.group.find('.') == std::string::npos || p.group.size() > 253) {
        return bad("--group " + (p.group.empty() ? std::string("is required") : "\"" + p.group + "\"") +
                   ": a DNS subdomain with at least one dot, such as example.com");
    }
    std::size_t start = 0;
    while (start <= p.group.size()) {
        auto dot = p.group.find('.', start);
        auto label = std::string_view(p.group).substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!is_dns_label(label)) return bad("--group \"" + p.group + "\": \"" + std::string(label) + "\" is not a DNS label");
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    // v1, v2beta1, v1alpha3 (apimachinery's version ordering accepts these).
    bool version_ok = p.version.size() >= 2 && p.version[0] == 'v' && std::isdigit(static_cast<unsigned char>(p.version[1]));
    if (version_ok) {
        std::size_t i = 1;
        while (i < p.version.size() && std::isdigit(static_cast<unsigned char>(p.version[i]))) ++i;
        std::string_view rest = std::string_view(p.version).substr(i);
        if (!rest.empty()) {
            std::string_view level = rest.starts_with("alpha") ? "alpha" : rest.starts_with("beta") ? "beta" : "";
            rest.remove_prefix(level.size());
            version_ok = !level.empty() && !rest.empty() &&
                         rest.find_first_not_of("0123456789") == std::string_view::npos;
        }
    }
    if (!version_ok) return bad("--version \"" + p.version + "\": such as v1, v1beta1 or v1alpha1");
    bool kind_ok = !p.kind.empty() && std::isupper(static_cast<unsigned char>(p.kind.front())) && p.kind.size() <= 63;
    for (char c : p.kind) kind_ok = kind_ok && std::isalnum(static_cast<unsigned char>(c));
    if (!kind_ok) {
        return bad("--kind " + (p.kind.empty() ? std::string("is required") : "\"" + p.kind + "\"") +
                   ": PascalCase letters and digits, such as Widget");
    }
    if (!p.plural.empty() && !is_dns_label(p.plural)) return bad("--plural \"" + p.plural + "\": a lower-case DNS label");
    return {};
}

std::map<std::string, std::string, std::less<>> placeholders(const project_params& p) {
    std::map<std::string, std::string, std::less<>> v;
    std::string ns = p.name;
    for (auto& c : ns) c = c == '-' ? '_' : c;
    std::string upper = ns;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string singular = p.kind;
    for (auto& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    v["name"] = p.name;
    v["NAME_UPPER"] = upper;
    v["namespace"] = ns;
    v["group"] = p.group;
    v["version"] = p.version;
    v["kind"] = p.kind;
    v["kind_snake"] = snake_case(p.kind);
    v["singular"] = singular;
    v["plural"] = p.plural.empty() ? plural_of(singular) : p.plural;
    v["kcoro_version"] = p.kcoro_version;
    auto second_dot = p.kcoro_version.find('.', p.kcoro_version.find('.') + 1);
    v["kcoro_major_minor"] = p.kcoro_version.substr(0, second_dot);
    return v;
}

result<std::string> render(std::string_view text, const std::map<std::string, std::string, std::less<>>& values,
                           std::string_view origin) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        auto at = text.find("@@", i);
        if (at == std::string_view::npos) {
            out.append(text.substr(i));
            break;
        }
        out.append(text.substr(i, at - i));
        std::size_t j = at + 2;
        while (j < text.size() && (std::isalpha(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
        if (j > at + 2 && text.substr(j, 2) == "@@") {
            auto key = text.substr(at + 2, j - at - 2);
            auto it = values.find(key);
            if (it == values.end()) {
                return bad(std::string(origin) + ": unknown placeholder @@" + std::string(key) + "@@");
            }
            out.append(it->second);
            i = j + 2;
        } else {
            out.append("@@");  // not a placeholder: literal text
            i = at + 2;
        }
    }
    return out;
}

result<std::vector<output_file>> plan(const project_params& p, const std::vector<template_file>& templates) {
    if (auto ok = validate(p); !ok) return ok.error();
    const auto values = placeholders(p);
    std::vector<output_file> files;
    for (const auto& t : templates) {
        auto path = render(t.path, values, t.path);
        if (!path) return path.error();
        // "dot-gitignore" -> ".gitignore": no hidden files among the templates.
        std::string& rel = *path;
        auto slash = rel.rfind('/');
        auto base = slash == std::string::npos ? 0 : slash + 1;
        if (rel.compare(base, 4, "dot-") == 0) rel.replace(base, 4, ".");
        auto body = render(t.contents, values, t.path);
        if (!body) return body.error();
        output_file f;
        f.executable = rel.starts_with("scripts/");
        f.path = std::move(rel);
        f.contents = std::move(*body);
        files.push_back(std::move(f));
    }
    return files;
}

} // namespace kcoro::scaffold
