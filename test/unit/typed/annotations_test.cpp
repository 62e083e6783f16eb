#include <kcoro/typed/annotations.hpp>
#include <kcoro/typed/detail/names.hpp>
#include <kcoro/typed/unknown_fields.hpp>

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>

#include <doctest/doctest.h>

#include <string>

namespace typed = kcoro::typed;
using typed::field;

namespace annotations_sample {
struct s {
    std::string service_type;
    std::string namespace_;
    std::string cluster_ip;
    std::string x;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(s, (), (service_type, namespace_, cluster_ip, x))
KCORO_FIELDS(s, field("cluster_ip").name("clusterIP").description("d"),
             field("x").required().minimum(1).maximum(2))

enum class e { cluster_ip, rolling_update, true_, a };
BOOST_DESCRIBE_ENUM(e, cluster_ip, rolling_update, true_, a)
KCORO_ENUM_NAMES(e, {"cluster_ip", "ClusterIP"})

struct bad {
    std::string a;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(bad, (), (a))
KCORO_FIELDS(bad, field("b")) // names no member

struct clash {
    std::string a_b;
    std::string aB;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(clash, (), (a_b, aB))
} // namespace annotations_sample

namespace d = kcoro::typed::detail;

// The names are compile-time constants.
static_assert(d::member_names<annotations_sample::s>::value[0] == "serviceType");
static_assert(d::member_names<annotations_sample::s>::value[1] == "namespace");
static_assert(d::member_names<annotations_sample::s>::value[2] == "clusterIP");
static_assert(d::enum_names<annotations_sample::e>::names[0] == "ClusterIP");
static_assert(d::enum_names<annotations_sample::e>::names[1] == "RollingUpdate");
static_assert(d::enum_names<annotations_sample::e>::names[2] == "True");
static_assert(d::enum_names<annotations_sample::e>::names[3] == "A");
static_assert(d::annotations_valid<annotations_sample::s>());
static_assert(!d::annotations_valid<annotations_sample::bad>(), "a table naming no member is refused");
static_assert(!d::annotations_valid<annotations_sample::clash>(), "two members with one JSON name are refused");

TEST_CASE("case conversion") {
    CHECK(d::convert_case<32>("service_type", false).view() == "serviceType");
    CHECK(d::convert_case<32>("a_b_c", false).view() == "aBC");
    CHECK(d::convert_case<32>("template_", false).view() == "template");
    CHECK(d::convert_case<32>("_leading", false).view() == "leading");
    CHECK(d::convert_case<32>("plain", false).view() == "plain");
    CHECK(d::convert_case<32>("if_not_present", true).view() == "IfNotPresent");
    CHECK(d::convert_case<32>("false_", true).view() == "False");
}

TEST_CASE("a field's annotations are found by member name; others get none") {
    constexpr auto ip = d::annotation_of<annotations_sample::s>("cluster_ip");
    static_assert(ip.name == "clusterIP");
    CHECK(ip.description == "d");
    constexpr auto x = d::annotation_of<annotations_sample::s>("x");
    CHECK(x.required);
    CHECK(x.minimum == 1);
    CHECK(x.maximum == 2);
    constexpr auto none = d::annotation_of<annotations_sample::s>("service_type");
    CHECK_FALSE(none.required);
    CHECK(none.name.empty());
}

TEST_CASE("field builders chain and keep every fact") {
    constexpr auto f = field("env").max_items(64).min_items(1).list_map("name").description("e").emit_empty();
    CHECK(f.info.max_items == 64u);
    CHECK(f.info.min_items == 1u);
    CHECK(f.info.list_type == "map");
    CHECK(f.info.list_map_key_count == 1);
    CHECK(f.info.list_map_keys[0] == "name");
    CHECK(f.info.emit_empty);
    constexpr auto g = field("s")
                           .one_of("True", "False", "Unknown")
                           .pattern("^x$")
                           .format("f")
                           .min_length(1)
                           .max_length(3)
                           .exclusive_minimum(0)
                           .exclusive_maximum(9)
                           .default_json("\"True\"")
                           .omit_empty()
                           .preserve_unknown_fields()
                           .min_properties(1)
                           .max_properties(2)
                           .defaulted();
    CHECK(g.info.one_of_count == 3);
    CHECK(g.info.one_of[2] == "Unknown");
    CHECK(g.info.pattern == "^x$");
    CHECK(g.info.exclusive_minimum);
    CHECK(g.info.exclusive_maximum);
    CHECK(g.info.default_json == "\"True\"");
    CHECK(g.info.omit_empty);
    CHECK(g.info.preserve_unknown_fields);
    CHECK(g.info.defaulted);
    CHECK(g.info.min_properties == 1u);
    CHECK(g.info.max_properties == 2u);
}

TEST_CASE("resource builders") {
    constexpr auto r = typed::resource("g.io", "v1", "Thing", "things")
                           .cluster_scoped()
                           .singular("thing1")
                           .list_kind("ThingCollection")
                           .short_names("th", "t")
                           .categories("all")
                           .status_subresource()
                           .column("Age", "date", ".metadata.creationTimestamp", "how old")
                           .description("things");
    CHECK(r.info.scope == typed::scope::cluster);
    CHECK(r.info.short_name_count == 2);
    CHECK(r.info.short_names[1] == "t");
    CHECK(r.info.category_count == 1);
    CHECK(r.info.status_subresource);
    CHECK(r.info.column_count == 1);
    CHECK(r.info.columns[0].description == "how old");
    CHECK(r.info.singular == "thing1");
    CHECK(r.info.list_kind == "ThingCollection");
}
