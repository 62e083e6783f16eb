// metav1.LabelSelector, typed (the string form is core/label_selector.hpp).
#pragma once

#include <kcoro/typed/declare.hpp>

namespace kcoro::k8s {

struct label_selector_requirement {
    std::string key;
    std::string operator_; // In, NotIn, Exists, DoesNotExist
    std::vector<std::string> values;
    typed::unknown_fields unknown;
    friend bool operator==(const label_selector_requirement&, const label_selector_requirement&) = default;
};
BOOST_DESCRIBE_STRUCT(label_selector_requirement, (), (key, operator_, values))

struct label_selector {
    std::map<std::string, std::string> match_labels;
    std::vector<label_selector_requirement> match_expressions;
    typed::unknown_fields unknown;
    friend bool operator==(const label_selector&, const label_selector&) = default;
};
BOOST_DESCRIBE_STRUCT(label_selector, (), (match_labels, match_expressions))

} // namespace kcoro::k8s
