#include <kcoro/typed/schema_check.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <regex>

namespace kcoro::typed::detail {

struct compiled_pattern::impl {
    std::regex re;
};

compiled_pattern::compiled_pattern(std::string_view pattern) {
    try {
        impl_ = std::make_unique<impl>(impl{std::regex(std::string(pattern), std::regex::ECMAScript)});
    } catch (const std::regex_error&) {
        impl_.reset();  // the schema's own mistake: the API server refuses such a CRD
    }
}

compiled_pattern::~compiled_pattern() = default;

bool compiled_pattern::search(std::string_view s) const {
    return impl_ && std::regex_search(s.begin(), s.end(), impl_->re);
}

// The messages follow apiextensions-apiserver's schema validation (kube-openapi
// validate/errors), as kcoro-apiserver's store/schema_validation.cpp writes them.

void check_number(std::int64_t v, const field_info& a, const path& p, field_errors& out) {
    if (a.maximum) {
        const bool bad = a.exclusive_maximum ? v >= *a.maximum : v > *a.maximum;
        if (bad) {
            out.push_back({render(p), field_error_type::invalid,
                           std::string("should be less than ") + (a.exclusive_maximum ? "" : "or equal to ") +
                               std::to_string(*a.maximum)});
        }
    }
    if (a.minimum) {
        const bool bad = a.exclusive_minimum ? v <= *a.minimum : v < *a.minimum;
        if (bad) {
            out.push_back({render(p), field_error_type::invalid,
                           std::string("should be greater than ") + (a.exclusive_minimum ? "" : "or equal to ") +
                               std::to_string(*a.minimum)});
        }
    }
}

void check_string(const std::string& s, const field_info& a, const compiled_pattern* re, bool member,
                  const path& p, field_errors& out) {
    if (s.empty()) {
        // Empty is absent (encoding omits it): only `required` applies.
        if (member && a.required) {
            out.push_back({render(p), field_error_type::required, "Required value"});
        }
        return;
    }
    if (a.min_length && s.size() < *a.min_length) {
        out.push_back({render(p), field_error_type::invalid,
                       "should be at least " + std::to_string(*a.min_length) + " chars long"});
    }
    if (a.max_length && s.size() > *a.max_length) {
        out.push_back({render(p), field_error_type::too_long,
                       "may not be more than " + std::to_string(*a.max_length) + " bytes"});
    }
    if (re) {
        if (s.size() > max_pattern_input) {
            out.push_back({render(p), field_error_type::invalid,
                           "is too long to be matched against pattern '" + std::string(a.pattern) + "'"});
        } else if (!re->search(s)) {
            out.push_back({render(p), field_error_type::invalid, "should match '" + std::string(a.pattern) + "'"});
        }
    }
    if (a.one_of_count > 0) {
        bool found = false;
        for (std::size_t i = 0; i < a.one_of_count; ++i) {
            found = found || a.one_of[i] == s;
        }
        if (!found) {
            std::string msg = "Unsupported value: " + boost::json::serialize(boost::json::value(s)) +
                              ": supported values: ";
            for (std::size_t i = 0; i < a.one_of_count; ++i) {
                msg += (i ? ", \"" : "\"") + std::string(a.one_of[i]) + "\"";
            }
            out.push_back({render(p), field_error_type::not_supported, std::move(msg)});
        }
    }
}

void check_count(std::size_t n, const field_info& a, bool is_list, const path& p, field_errors& out) {
    const auto& lo = is_list ? a.min_items : a.min_properties;
    const auto& hi = is_list ? a.max_items : a.max_properties;
    if (hi && n > *hi) {
        out.push_back({render(p), field_error_type::too_many,
                       "must have at most " + std::to_string(*hi) + " items"});
    }
    if (lo && n < *lo) {
        out.push_back({render(p), field_error_type::invalid,
                       "should have at least " + std::to_string(*lo) + (is_list ? " items" : " properties")});
    }
}

} // namespace kcoro::typed::detail
