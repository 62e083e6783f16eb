#include <kcoro/core/request_options.hpp>

#include <doctest/doctest.h>

#include <string_view>

using namespace kcoro;
using sv = std::string_view;

TEST_CASE("patch content types are the four the API server accepts") {
    CHECK(sv(content_type_of(patch_type::merge)) == "application/merge-patch+json");
    CHECK(sv(content_type_of(patch_type::json)) == "application/json-patch+json");
    CHECK(sv(content_type_of(patch_type::strategic_merge)) == "application/strategic-merge-patch+json");
    CHECK(sv(content_type_of(patch_type::apply)) == "application/apply-patch+yaml");
}

TEST_CASE("enum spellings match metav1") {
    CHECK(sv(to_string(version_match::unset)).empty());
    CHECK(sv(to_string(version_match::not_older_than)) == "NotOlderThan");
    CHECK(sv(to_string(version_match::exact)) == "Exact");
    CHECK(sv(to_string(deletion_propagation::unset)).empty());
    CHECK(sv(to_string(deletion_propagation::orphan)) == "Orphan");
    CHECK(sv(to_string(deletion_propagation::background)) == "Background");
    CHECK(sv(to_string(deletion_propagation::foreground)) == "Foreground");
}

TEST_CASE("defaults are what client-go sends by default") {
    list_options l;
    CHECK(l.limit == 0);
    CHECK(l.resource_version_match == version_match::unset);
    watch_options w;
    CHECK(w.allow_watch_bookmarks);
    CHECK_FALSE(w.send_initial_events);
    CHECK_FALSE(w.timeout_seconds);
    patch_options p;
    CHECK(p.type == patch_type::merge);
    CHECK_FALSE(p.force);
    delete_options d;
    CHECK_FALSE(d.preconditions);
    CHECK(d.propagation_policy == deletion_propagation::unset);
}
