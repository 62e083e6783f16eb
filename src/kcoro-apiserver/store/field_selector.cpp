#include "store/field_selector.hpp"
#include "store/status_errors.hpp"

#include <kcoro/core/object.hpp>

namespace kcoro::apiserver {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

} // namespace

result<field_selector> field_selector::parse(std::string_view text) {
    field_selector sel;
    if (trim(text).empty()) {
        return sel;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        auto comma = text.find(',', start);
        auto part = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        field_requirement r;
        std::size_t op_pos;
        std::size_t op_len;
        if ((op_pos = part.find("!=")) != std::string_view::npos) {
            r.equals = false;
            op_len = 2;
        } else if ((op_pos = part.find("==")) != std::string_view::npos) {
            op_len = 2;
        } else if ((op_pos = part.find('=')) != std::string_view::npos) {
            op_len = 1;
        } else {
            return errors::bad_request("invalid selector: '" + std::string(text) +
                                       "'; can't understand '" + std::string(part) + "'");
        }
        r.field = std::string(trim(part.substr(0, op_pos)));
        r.value = std::string(trim(part.substr(op_pos + op_len)));
        if (r.field != "metadata.name" && r.field != "metadata.namespace") {
            // The message kube-apiserver gives for a field the resource does not index.
            return errors::bad_request("field label not supported: " + r.field);
        }
        sel.requirements_.push_back(std::move(r));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return sel;
}

bool field_selector::matches(const boost::json::object& obj) const noexcept {
    for (const auto& r : requirements_) {
        std::string_view actual = r.field == "metadata.name" ? name_of(obj) : namespace_of(obj);
        if ((actual == r.value) != r.equals) {
            return false;
        }
    }
    return true;
}

const std::string* field_selector::exact_name() const noexcept {
    for (const auto& r : requirements_) {
        if (r.equals && r.field == "metadata.name") return &r.value;
    }
    return nullptr;
}

} // namespace kcoro::apiserver
