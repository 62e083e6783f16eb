#include <kcoro/typed/codec.hpp>
#include <kcoro/typed/declare.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

namespace json = boost::json;
namespace typed = kcoro::typed;

namespace codec_sample {

enum class service_type { cluster_ip, node_port, load_balancer };
BOOST_DESCRIBE_ENUM(service_type, cluster_ip, node_port, load_balancer)
KCORO_ENUM_NAMES(service_type, {"cluster_ip", "ClusterIP"})

enum class phase { pending, running, true_ };
BOOST_DESCRIBE_ENUM(phase, pending, running, true_)

struct item {
    std::string name;
    std::int32_t count = 0;
    typed::unknown_fields unknown;
    friend bool operator==(const item&, const item&) = default;
};
BOOST_DESCRIBE_STRUCT(item, (), (name, count))

struct inner {
    std::string note;
    typed::unknown_fields unknown;
    friend bool operator==(const inner&, const inner&) = default;
};
BOOST_DESCRIBE_STRUCT(inner, (), (note))

struct all_types {
    std::string text;
    bool flag = false;
    std::int32_t small = 0;
    std::int64_t big = 0;
    std::uint32_t unsigned_ = 0;
    double ratio = 0;
    service_type service = service_type::cluster_ip;
    phase state = phase::pending;
    std::optional<std::int32_t> maybe;
    std::vector<std::string> words;
    std::vector<item> items;
    std::map<std::string, std::int64_t> counts;
    inner nested;
    std::optional<inner> maybe_nested;
    json::value raw;
    json::object raw_object;
    json::array raw_array;
    typed::quantity amount;
    typed::int_or_string port;
    typed::timestamp since;
    typed::bytes blob;
    std::string namespace_;
    std::string cluster_ip;
    typed::unknown_fields unknown;
    friend bool operator==(const all_types&, const all_types&) = default;
};
BOOST_DESCRIBE_STRUCT(all_types, (),
                      (text, flag, small, big, unsigned_, ratio, service, state, maybe, words, items, counts,
                       nested, maybe_nested, raw, raw_object, raw_array, amount, port, since, blob,
                       namespace_, cluster_ip))
KCORO_FIELDS(all_types, field("cluster_ip").name("clusterIP"))

struct defaults {
    std::string image = "nginx";
    std::int32_t replicas = 1;
    bool on = true;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(defaults, (), (image, replicas, on))

struct emission {
    std::string empty_text;
    std::int32_t zero = 0;
    std::int32_t zero_omitted = 0;
    bool off = false;
    std::vector<std::string> none;
    std::vector<std::string> none_kept;
    std::string required_text;
    inner empty_inner;
    std::optional<inner> present_inner;
    std::optional<std::int32_t> present_zero;
    typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(emission, (),
                      (empty_text, zero, zero_omitted, off, none, none_kept, required_text, empty_inner,
                       present_inner, present_zero))
KCORO_FIELDS(emission, field("zero_omitted").omit_empty(), field("none_kept").emit_empty(),
             field("required_text").required())

struct widget {
    typed::unknown_fields unknown;
    std::string size;
};
BOOST_DESCRIBE_STRUCT(widget, (), (size))
KCORO_RESOURCE(widget, resource("example.com", "v1", "Widget", "widgets"))

} // namespace codec_sample

namespace {

template <class T> typed::decode_result<T> decode(std::string_view text) {
    return typed::from_json<T>(json::parse(text));
}

template <class T> std::string errors_of(std::string_view text) {
    auto r = decode<T>(text);
    return r ? std::string("decoded") : typed::describe(r.error());
}

} // namespace

TEST_CASE("every type mapping decodes, and encodes back to the same JSON") {
    constexpr std::string_view text = R"({
      "text":"hello","flag":true,"small":-7,"big":9007199254740993,"unsigned":4000000000,"ratio":0.25,
      "service":"NodePort","state":"True","maybe":0,"words":["a","b"],"items":[{"name":"x","count":2}],
      "counts":{"a":1,"b":2},"nested":{"note":"n"},"maybeNested":{},"raw":[1,{"k":null}],
      "rawObject":{"any":{"deep":[true]}},"rawArray":[1,"two"],"amount":"500m","port":"http",
      "since":"2026-03-02T09:14:07+02:00","blob":"AAECAw==","namespace":"ns","clusterIP":"10.0.0.1"})";
    auto r = decode<codec_sample::all_types>(text);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : typed::describe(r.error())));
    const auto& v = *r;
    CHECK(v.text == "hello");
    CHECK(v.flag);
    CHECK(v.small == -7);
    CHECK(v.big == 9007199254740993);
    CHECK(v.unsigned_ == 4000000000u);
    CHECK(v.ratio == 0.25);
    CHECK(v.service == codec_sample::service_type::node_port);
    CHECK(v.state == codec_sample::phase::true_);
    CHECK(v.maybe == 0);
    CHECK(v.words == std::vector<std::string>{"a", "b"});
    CHECK(v.items == std::vector<codec_sample::item>{{"x", 2, {}}});
    CHECK(v.counts == std::map<std::string, std::int64_t>{{"a", 1}, {"b", 2}});
    CHECK(v.nested.note == "n");
    REQUIRE(v.maybe_nested.has_value());
    CHECK(v.raw == json::parse(R"([1,{"k":null}])"));
    CHECK(v.raw_object.at("any").at("deep").as_array().size() == 1);
    CHECK(v.raw_array.size() == 2);
    CHECK(v.amount.str() == "500m");
    CHECK(v.port.string_value() == "http");
    CHECK(v.since.str() == "2026-03-02T09:14:07+02:00");
    CHECK(v.blob.str() == std::string("\0\1\2\3", 4));
    CHECK(v.namespace_ == "ns");
    CHECK(v.cluster_ip == "10.0.0.1");
    CHECK(v.unknown.empty());
    CHECK(typed::to_json(v) == json::parse(text));
}

TEST_CASE("names: camelCase of the member, a trailing underscore escapes a keyword, explicit names win") {
    codec_sample::all_types v;
    v.maybe_nested = codec_sample::inner{"x", {}};
    v.namespace_ = "ns";
    v.cluster_ip = "ip";
    v.unsigned_ = 1;
    auto o = typed::to_object(v);
    CHECK(o.contains("maybeNested"));
    CHECK(o.contains("namespace"));
    CHECK(o.contains("clusterIP"));
    CHECK(o.contains("unsigned"));
    CHECK_FALSE(o.contains("cluster_ip"));
    CHECK_FALSE(o.contains("clusterIp"));
    CHECK(typed::to_json(codec_sample::phase::running) == "Running");
    CHECK(typed::to_json(codec_sample::phase::true_) == "True");
    CHECK(typed::to_json(codec_sample::service_type::cluster_ip) == "ClusterIP");
    CHECK(typed::to_json(codec_sample::service_type::load_balancer) == "LoadBalancer");
}

TEST_CASE("tolerant: missing and null members keep their defaults") {
    auto r = decode<codec_sample::defaults>(R"({"replicas":null})");
    REQUIRE(r.has_value());
    CHECK(r->image == "nginx");
    CHECK(r->replicas == 1);
    CHECK(r->on);
    auto empty = decode<codec_sample::all_types>("{}");
    REQUIRE(empty.has_value());
    CHECK(*empty == codec_sample::all_types{});
    auto null_root = decode<codec_sample::defaults>("null");
    REQUIRE(null_root.has_value());
    CHECK(null_root->replicas == 1);
}

TEST_CASE("unknown members are kept at every level and written back") {
    constexpr std::string_view text = R"({"text":"t","future":{"a":[1,2]},"items":[{"name":"x","extra":true}],
      "nested":{"note":"n","added":"by another writer"}})";
    auto r = decode<codec_sample::all_types>(text);
    REQUIRE(r.has_value());
    CHECK(r->unknown.at("future").at("a").as_array().size() == 2);
    CHECK(r->items[0].unknown.at("extra") == true);
    CHECK(r->nested.unknown.at("added") == "by another writer");
    auto changed = *r;
    changed.text = "changed";
    changed.items[0].count = 5;
    auto out = typed::to_object(changed);
    CHECK(out.at("text") == "changed");
    CHECK(out.at("future") == json::parse(R"({"a":[1,2]})"));
    CHECK(out.at("items").at(0).at("extra") == true);
    CHECK(out.at("items").at(0).at("count") == 5);
    CHECK(out.at("nested").at("added") == "by another writer");
    // A declared member always wins over an unknown one of the same name.
    changed.unknown["text"] = "stale";
    CHECK(typed::to_object(changed).at("text") == "changed");
}

TEST_CASE("present but empty members survive a round trip as they were") {
    constexpr std::string_view text =
        R"({"text":"","words":[],"counts":{},"nested":{},"maybe":null,"since":null,
      "rawObject":{},"amount":null})";
    auto r = decode<codec_sample::all_types>(text);
    REQUIRE(r.has_value());
    auto expected = json::parse(text).as_object();
    // numbers, booleans and enums are always written
    auto written =
        json::parse(R"({"flag":false,"small":0,"big":0,"unsigned":0,"ratio":0.0,"service":"ClusterIP",
                                   "state":"Pending"})");
    for (auto& kv : written.as_object())
        expected[kv.key()] = kv.value();
    CHECK(typed::to_json(*r) == expected);
    // Once set, the member is written from the struct.
    auto v = *r;
    v.words = {"w"};
    v.nested.note = "n";
    auto o = typed::to_object(v);
    CHECK(o.at("words") == json::parse(R"(["w"])"));
    CHECK(o.at("nested") == json::parse(R"({"note":"n"})"));
}

TEST_CASE("encoding omits empty strings, lists, maps and structs; writes numbers, booleans, required") {
    codec_sample::emission e;
    auto o = typed::to_object(e);
    CHECK(o == json::parse(R"({"zero":0,"off":false,"noneKept":[],"requiredText":""})"));
    e.present_inner = codec_sample::inner{};
    e.present_zero = 0;
    e.zero_omitted = 3;
    o = typed::to_object(e);
    CHECK(o.at("presentInner") == json::object{});
    CHECK(o.at("presentZero") == 0);
    CHECK(o.at("zeroOmitted") == 3);
}

TEST_CASE("a resource writes apiVersion and kind first, and checks them when present") {
    codec_sample::widget w;
    w.size = "L";
    auto o = typed::to_object(w);
    REQUIRE(o.size() == 3);
    CHECK(o.begin()->key() == "apiVersion");
    CHECK(o.at("apiVersion") == "example.com/v1");
    CHECK(o.at("kind") == "Widget");
    auto ok = decode<codec_sample::widget>(R"({"apiVersion":"example.com/v1","kind":"Widget","size":"M"})");
    REQUIRE(ok.has_value());
    CHECK(ok->unknown.empty());
    CHECK(decode<codec_sample::widget>(R"({"size":"M"})").has_value()); // list items lack them
    CHECK(errors_of<codec_sample::widget>(R"({"apiVersion":"example.com/v2","kind":"Gadget"})") ==
          "apiVersion: expected \"example.com/v1\", got \"example.com/v2\"; kind: expected \"Widget\", got "
          "\"Gadget\"");
    CHECK(errors_of<codec_sample::widget>(R"({"kind":7})") == "kind: expected \"Widget\", got 7");
}

TEST_CASE("errors name the path and what was expected") {
    CHECK(errors_of<codec_sample::all_types>(R"({"small":"two"})") == "small: expected an integer, got \"two\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"small":3000000000})") ==
          "small: expected a 32-bit integer, got 3000000000");
    CHECK(errors_of<codec_sample::all_types>(R"({"small":1.5})") == "small: expected an integer, got 1.5E0");
    CHECK(errors_of<codec_sample::all_types>(R"({"small":3.0})") == "decoded");
    CHECK(errors_of<codec_sample::all_types>(R"({"unsigned":-1})") ==
          "unsigned: expected an unsigned 32-bit integer, got -1");
    CHECK(errors_of<codec_sample::all_types>(R"({"big":18446744073709551615})") ==
          "big: expected an integer, got 18446744073709551615");
    CHECK(errors_of<codec_sample::all_types>(R"({"text":5})") == "text: expected a string, got 5");
    CHECK(errors_of<codec_sample::all_types>(R"({"flag":"yes"})") == "flag: expected a boolean, got \"yes\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"ratio":"half"})") == "ratio: expected a number, got \"half\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"service":"Ingress"})") ==
          "service: expected one of ClusterIP, NodePort, LoadBalancer, got \"Ingress\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"service":1})") ==
          "service: expected one of ClusterIP, NodePort, LoadBalancer, got 1");
    CHECK(errors_of<codec_sample::all_types>(R"({"words":"a"})") == "words: expected a list, got \"a\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"words":["a",2]})") == "words[1]: expected a string, got 2");
    CHECK(errors_of<codec_sample::all_types>(R"({"items":[{},{"count":[]}]})") ==
          "items[1].count: expected an integer, got a list");
    CHECK(errors_of<codec_sample::all_types>(R"({"counts":{"app":"x"}})") ==
          "counts[app]: expected an integer, got \"x\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"counts":[]})") == "counts: expected an object, got a list");
    CHECK(errors_of<codec_sample::all_types>(R"({"nested":"n"})") == "nested: expected an object, got \"n\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"maybeNested":{"note":false}})") ==
          "maybeNested.note: expected a string, got false");
    CHECK(errors_of<codec_sample::all_types>(R"({"rawObject":[1]})") ==
          "rawObject: expected an object, got a list");
    CHECK(errors_of<codec_sample::all_types>(R"({"rawArray":{}})") == "rawArray: expected a list, got an object");
    CHECK(errors_of<codec_sample::all_types>(R"({"amount":"lots"})") ==
          "amount: expected a quantity (such as 500m or 1Gi), got \"lots\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"port":true})") ==
          "port: expected an integer or a string, got true");
    CHECK(errors_of<codec_sample::all_types>(R"({"since":"yesterday"})") ==
          "since: expected an RFC 3339 time, got \"yesterday\"");
    CHECK(errors_of<codec_sample::all_types>(R"({"blob":"%%%"})") == "blob: expected base64 data, got \"%%%\"");
    CHECK(errors_of<codec_sample::all_types>("[]") == "expected an object, got a list");
    std::string long_text(200, 'x');
    auto msg = errors_of<codec_sample::all_types>(R"({"small":")" + long_text + "\"}");
    CHECK(msg.size() < 120);
    CHECK(msg.find("...\"") != std::string::npos);
}

TEST_CASE("every error is reported, in document order, up to a bound") {
    CHECK(errors_of<codec_sample::all_types>(R"({"text":1,"flag":2,"items":[{"name":3}]})") ==
          "text: expected a string, got 1; flag: expected a boolean, got 2; items[0].name: expected a "
          "string, got 3");
    json::array many;
    for (int i = 0; i < 100; ++i)
        many.emplace_back(i);
    json::object o{{"words", many}};
    auto r = typed::from_json<codec_sample::all_types>(o);
    REQUIRE_FALSE(r.has_value());
    REQUIRE(r.error().size() == typed::max_decode_errors + 1);
    CHECK(r.error().back().message == "and 36 more errors");
    CHECK(r.error().back().type == typed::field_error_type::too_many);
}

TEST_CASE("a part of an object decodes with its paths prefixed") {
    auto v = json::parse(R"({"spec":{"items":[{"count":"x"}]}})");
    auto r = typed::from_json<codec_sample::all_types>(v.at("spec"), "spec");
    REQUIRE_FALSE(r.has_value());
    CHECK(typed::describe(r.error()) == "spec.items[0].count: expected an integer, got \"x\"");
}

TEST_CASE("decode() goes as far as it can: failed members keep their defaults") {
    codec_sample::all_types v;
    v.text = "stale";
    auto errors =
        typed::decode(json::parse(R"({"small":"two","items":[{"name":"ok","count":"bad"}],"big":5})"), v);
    REQUIRE(errors.size() == 2);
    CHECK(v.text.empty()); // reset first
    CHECK(v.big == 5);
    CHECK(v.small == 0);
    CHECK(v.items.at(0).name == "ok");
    CHECK(v.items.at(0).count == 0);
}

TEST_CASE("unsigned 64-bit members take the whole range") {
    auto r = typed::from_json<std::vector<std::uint64_t>>(json::parse("[18446744073709551615, 0]"));
    REQUIRE(r.has_value());
    CHECK(r->at(0) == 18446744073709551615ull);
    CHECK(typed::to_json(*r) == json::parse("[18446744073709551615, 0]"));
    auto neg = typed::from_json<std::vector<std::uint64_t>>(json::parse("[-1]"));
    REQUIRE_FALSE(neg.has_value());
    CHECK(typed::describe(neg.error()) == "[0]: expected an unsigned integer, got -1");
}
