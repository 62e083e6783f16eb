// Fuzz target: field selector parsing and matching (apiserver store). The
// first byte picks the resource (which fields are selectable depends on it),
// the rest is the selector. Properties: never throws or crashes; a failure
// is a 400; every parsed requirement names a field the resource supports;
// an object carrying the value each requirement names matches exactly when
// the requirements agree with each other; exact_name pins metadata.name.
#include "store/field_selector.hpp"

#include <kcoro/core/error.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "property violated: %s\n", what);
        std::abort();
    }
}

// Sets `field` of a stored (core/v1) object as field_value reads it.
void set_field(boost::json::object& obj, const std::string& field, const std::string& value) {
    auto dot = field.find('.');
    if (field == "source") {
        obj["source"].emplace_object()["component"] = value;
    } else if (dot == std::string::npos) {
        obj[field] = value;
    } else {
        auto& parent = obj[field.substr(0, dot)];
        if (!parent.is_object()) parent.emplace_object();
        parent.get_object()[field.substr(dot + 1)] = value;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using kcoro::apiserver::field_selector;
    static constexpr std::pair<const char*, const char*> resources[] = {
        {"", "configmaps"}, {"", "events"}, {"events.k8s.io", "events"}, {"", "secrets"}, {"", "namespaces"}};
    if (size == 0) return 0;
    const auto& [group, resource] = resources[data[0] % std::size(resources)];
    std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto s = field_selector::parse(text, group, resource);
    if (!s) {
        check(s.error().http_code() == 400, "a parse failure that is not a 400");
        return 0;
    }
    // events.k8s.io selectors are rewritten to the stored core/v1 names.
    const std::string_view stored_group = std::string_view(group) == "events.k8s.io" ? "" : group;
    std::map<std::string, std::string> wanted;  // the first `=` value per field
    for (const auto& r : s->requirements()) {
        check(field_selector::supported(r.field, stored_group, resource), "a requirement on an unsupported field");
        if (r.equals) wanted.emplace(r.field, r.value);
    }
    boost::json::object obj;
    for (const auto& [f, v] : wanted) set_field(obj, f, v);
    auto value_of = [&](const std::string& f) {
        auto it = wanted.find(f);
        return it == wanted.end() ? std::string() : it->second;
    };
    bool agree = true;
    for (const auto& r : s->requirements()) {
        std::string actual = value_of(r.field);
        // An event's source is source.component, else reportingComponent
        // (pkg/registry/core/event/strategy.go ToSelectableFields).
        if (r.field == "source" && actual.empty()) actual = value_of("reportingComponent");
        agree = agree && ((actual == r.value) == r.equals);
    }
    check(s->matches(obj) == agree, "matching disagrees with the requirements");
    if (const auto* name = s->exact_name()) {
        boost::json::object other;
        other["metadata"].emplace_object()["name"] = *name + "x";
        check(!s->matches(other), "exact_name does not pin metadata.name");
    }
    return 0;
}

#ifndef KCORO_LIBFUZZER
#include "fuzz_driver.hpp"
int main(int argc, char** argv) { return kcoro::fuzz::run_driver(argc, argv, LLVMFuzzerTestOneInput); }
#endif
