#include <kcoro/core/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace json = boost::json;
using kcoro::parse_yaml;
using kcoro::parse_yaml_documents;

namespace {

json::value yaml(std::string_view text) {
    auto r = parse_yaml(text);
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
    return *r;
}

// Parses and compares with the JSON text (shows both on failure).
void same(std::string_view text, std::string_view expected_json) {
    json::value got = yaml(text);
    json::value want = json::parse(expected_json);
    CHECK_MESSAGE(got == want, (json::serialize(got) + " != " + json::serialize(want)));
}

std::string error_of(std::string_view text) {
    auto r = parse_yaml_documents(text);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == kcoro::kcoro_errc::decode_error);
    return r.error().message();
}

} // namespace

TEST_CASE("block mappings and sequences, nested") {
    same("a: 1\nb:\n  c: x\n  d:\n    - 1\n    - two\n", R"({"a":1,"b":{"c":"x","d":[1,"two"]}})");
    same("- a\n- b\n-\n  - c\n", R"(["a","b",["c"]])");
    same("- - x\n  - w\n- z\n", R"([["x","w"],"z"])");
}

TEST_CASE("compact sequence of mappings and sequences at the parent key's level") {
    same("items:\n- name: a\n  value: 1\n- name: b\n  list:\n  - x\n  - w\nafter: true\n",
         R"({"items":[{"name":"a","value":1},{"name":"b","list":["x","w"]}],"after":true})");
}

TEST_CASE("a kubeconfig as kubectl config view --raw writes it") {
    const char* text = R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: TFMwdExTMUNSVWRKVGc9PQ==
    server: https://127.0.0.1:6443
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    namespace: dev
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
)";
    json::value v = yaml(text);
    const auto& o = v.as_object();
    CHECK(o.at("current-context") == "kind-kind");
    CHECK(o.at("preferences").as_object().empty());
    CHECK(o.at("clusters").at(0).at("cluster").at("server") == "https://127.0.0.1:6443");
    CHECK(o.at("contexts").at(0).at("context").at("namespace") == "dev");
    CHECK(o.at("users").at(0).at("user").at("client-key-data") == "a2V5");
}

TEST_CASE("an exec user as cloud CLIs write it, with null and quoted values") {
    const char* text = "users:\n"
                       "- name: \"arn:aws:eks:eu-west-1:1:cluster/x\"\n"
                       "  user:\n"
                       "    exec:\n"
                       "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                       "      args:\n"
                       "      - --region\n"
                       "      - eu-west-1\n"
                       "      command: aws\n"
                       "      env:\n"
                       "      - name: AWS_PROFILE\n"
                       "        value: 'prod'\n"
                       "      interactiveMode: IfAvailable\n"
                       "      provideClusterInfo: false\n"
                       "      installHint: null\n";
    json::value v = yaml(text);
    const auto& exec = v.at("users").at(0).at("user").at("exec");
    CHECK(v.at("users").at(0).at("name") == "arn:aws:eks:eu-west-1:1:cluster/x");
    CHECK(exec.at("args") == json::parse(R"(["--region","eu-west-1"])"));
    CHECK(exec.at("env").at(0).at("value") == "prod");
    CHECK(exec.at("provideClusterInfo") == false);
    CHECK(exec.at("installHint").is_null());
}

TEST_CASE("scalars resolve as sigs.k8s.io/yaml resolves them (goyaml.v2 resolve.go); quoted values stay strings") {
    same("a: ~\nb: null\nc:\nd: True\ne: FALSE\nf: 42\ng: -7\nh: 0x1F\ni: 0o17\nj: 1.5\nk: 1e3\nl: .inf\nm: -.Inf\n"
         "n1: '42'\no: \"true\"\nq: 1.2.3\nr: +5\ns: 0.\nt: 12abc\nu: +.inf\n",
         R"({"a":null,"b":null,"c":null,"d":true,"e":false,"f":42,"g":-7,"h":31,"i":15,"j":1.5,"k":1000.0,
             "l":1e999,"m":-1e999,"n1":"42","o":"true","q":"1.2.3","r":5,"s":0.0,"t":"12abc","u":1e999})");
    // YAML 1.1's booleans, as kubectl reads them (kubernetes/kubernetes#34146): quote to keep a string.
    same("a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: N\ng: 'yes'\nh: yES\n",
         R"({"a":true,"b":false,"c":true,"d":false,"e":true,"f":false,"g":"yes","h":"yES"})");
    // Go's integer syntax after dropping '_': a leading 0 is octal; 08 is no octal but a float.
    same("a: 0123\nb: 1_000\nc: 0b101\nd: -0x10\ne: 08\nf: 0\ng: -0\nh: 0x\ni: 2024-01-02\nj: 1:20\n",
         R"({"a":83,"b":1000,"c":5,"d":-16,"e":8.0,"f":0,"g":0,"h":"0x","i":"2024-01-02","j":"1:20"})");
    json::value v = yaml("x: .nan\nbig: 18446744073709551615\nhuge: 99999999999999999999\nneg: -9999999999999999999\n"
                         "hex: 0x1FFFFFFFFFFFFFFFF\nmin: -9223372036854775808\nover: 1e400\nunder: 1e-400\n");
    CHECK(std::isnan(v.at("x").as_double()));
    CHECK(v.at("big").as_uint64() == 18446744073709551615ull);
    CHECK(v.at("huge").as_double() == 1e20);
    CHECK(v.at("neg").as_double() == -1e19);
    CHECK(v.at("hex").as_double() == 36893488147419103231.0);
    CHECK(v.at("min").as_int64() == std::numeric_limits<std::int64_t>::min());
    CHECK(v.at("over") == "1e400");  // ParseFloat's ErrRange: not a float, so the text
    CHECK(v.at("under").as_double() == 0.0);
}

TEST_CASE("tags: !!str keeps the text, typed tags must match, unknown tags give the text") {
    same("a: !!str 123\nb: !!int 7\nc: !!float 7\nd: !!bool yes\ne: !custom 12\nf: ! 12\ng: !!binary |\n  aGVs\n  bG8=\n",
         R"({"a":"123","b":7,"c":7.0,"d":true,"e":"12","f":"12","g":"aGVsbG8="})");
    CHECK(error_of("a: !!int abc\n") == "yaml: line 1, column 4: cannot decode !!str `abc` as a !!int");
}

TEST_CASE("mapping keys become member names as convertToJSONableObject writes them") {
    same("1: a\ntrue: b\n0x10: c\n1.5: d\n1e6: e\n0.1: f\n3.14159265358979: g\n'null': h\nyes_no: i\n",
         R"({"1":"a","true":"b","16":"c","1.5":"d","1e+06":"e","0.1":"f","3.1415927":"g","null":"h","yes_no":"i"})");
    same("y: 1\nn: 2\n", R"({"true":1,"false":2})");
    CHECK(error_of("true: 1\nyes: 2\n") == "yaml: line 2, column 1: duplicate mapping key \"true\"");
    CHECK(error_of("null: c\n") == "yaml: line 1, column 1: a null mapping key (JSON member names are strings)");
    same("? a\n: b\n", R"({"a":"b"})");
    CHECK(error_of("? [a]\n: b\n") ==
          "yaml: line 1, column 3: a mapping key must be a scalar (JSON member names are strings)");
}

TEST_CASE("anchors, aliases and merge keys") {
    same("base: &b {x: 1, y2: [1, 2]}\ncopy: *b\nlist: [&s str, *s]\n",
         R"({"base":{"x":1,"y2":[1,2]},"copy":{"x":1,"y2":[1,2]},"list":["str","str"]})");
    same("defaults: &d\n  image: nginx\n  port: 80\nsvc:\n  <<: *d\n  port: 8080\n",
         R"({"defaults":{"image":"nginx","port":80},"svc":{"port":8080,"image":"nginx"}})");
    same("a: &a {p: 1, q: 1}\nb: &b {q: 2, r: 2}\nc:\n  <<: [*a, *b]\n", R"({"a":{"p":1,"q":1},"b":{"q":2,"r":2},"c":{"p":1,"q":1,"r":2}})");
    same("k: &k key\n*k : v\n", R"({"k":"key","key":"v"})");
    // An anchor is redefined by a later one of the same name; documents do not share anchors.
    same("- &a 1\n- *a\n- &a 2\n- *a\n", "[1,1,2,2]");
    CHECK(error_of("a: &x 1\n---\nb: *x\n") == "yaml: line 3, column 4: unknown anchor 'x' referenced");
    CHECK(error_of("a: *x\n") == "yaml: line 1, column 4: unknown anchor 'x' referenced");
    CHECK(error_of("a: &s str\nb:\n  <<: *s\n") ==
          "yaml: line 3, column 3: map merge requires map or sequence of maps as the value");
}

TEST_CASE("alias bombs are refused before they are expanded") {
    // A billion laughs: nine levels of ten aliases each.
    std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        std::string prev(1, static_cast<char>(c - 1));
        bomb += std::string(1, c) + ": &" + std::string(1, c) + " [";
        for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
        bomb += "]\n";
    }
    CHECK(error_of(bomb).find("document contains excessive aliasing") != std::string::npos);
    // Ordinary reuse is fine: a 2,000-node anchor referenced 10 times.
    std::string reuse = "base: &b [";
    for (int i = 0; i < 2000; ++i) reuse += (i ? ", " : "") + std::to_string(i);
    reuse += "]\nuses: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n";
    CHECK(yaml(reuse).at("uses").as_array().size() == 10);
    // Aliases count for the nesting bound.
    std::string deep = "a: &a " + std::string(200, '[') + std::string(200, ']') + "\nb: " + std::string(100, '[') +
                       "*a" + std::string(100, ']') + "\n";
    CHECK(error_of(deep).find("nesting deeper than 256 levels") != std::string::npos);
}

TEST_CASE("plain scalars with colons, hashes and folding over lines") {
    same("url: https://h:6443/x#frag # comment\nk: a:b\n", R"({"url":"https://h:6443/x#frag","k":"a:b"})");
    same("text: one\n  two\n\n  three\nnext: 1\n", R"({"text":"one two\nthree","next":1})");
    same("- a\n  b\n- c\n", R"(["a b","c"])");
}

TEST_CASE("quoted scalars and escapes") {
    same(R"(a: "tab\there \"q\" \\ \x41\u00e9\U0001F600 \/"
b: 'it''s # not a comment'
c: "line1\nline2"
d: "folded
  over  

  lines"
e: "joined\
  here"
)",
         R"({"a":"tab\there \"q\" \\ A\u00e9\ud83d\ude00 /","b":"it's # not a comment","c":"line1\nline2",
             "d":"folded over\nlines","e":"joinedhere"})");
}

TEST_CASE("literal and folded block scalars with chomping") {
    same("a: |\n  line1\n    indented\n  line3\n\nb: 1\n", R"({"a":"line1\n  indented\nline3\n","b":1})");
    same("a: |-\n  x\n  y\n\n\nb: 1\n", R"({"a":"x\ny","b":1})");
    same("a: |+\n  x\n\n\nb: 1\n", R"({"a":"x\n\n\n","b":1})");
    same("a: >\n  folded\n  line\n\n  next\n    more\n  last\n", R"({"a":"folded line\nnext\n  more\nlast\n"})");
    same("a: >-\n  one\n  two\n", R"({"a":"one two"})");
    same("a: |2\n    two extra\n  base\n", R"({"a":"  two extra\nbase\n"})");
    same("a: |\nb: 2\n", R"({"a":"","b":2})");
    same("- |\n  in seq\n- x\n", R"(["in seq\n","x"])");
    same("a: | # comment\n  no newline at end", R"({"a":"no newline at end"})");
    same("cert: |\n  -----BEGIN CERTIFICATE-----\n  MIIB\n  -----END CERTIFICATE-----\n",
         R"({"cert":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"})");
}

TEST_CASE("flow collections, also across lines") {
    same("a: {x: 1, 'y': [1, 2, {z: null}], \"w\": \"v\"}\nb: []\nc: {}\n",
         R"({"a":{"x":1,"y":[1,2,{"z":null}],"w":"v"},"b":[],"c":{}})");
    same("a: [one,\n  two, # comment\n  three]\n", R"({"a":["one","two","three"]})");
    same(R"({"apiVersion": "v1", "kind": "List", "items": [ ]})", R"({"apiVersion":"v1","kind":"List","items":[]})");
    same("[a: 1, b]\n", R"([{"a":1},"b"])");
    same("{a, b: 2,}\n", R"({"a":null,"b":2})");
}

TEST_CASE("comments, CRLF, BOM and directives") {
    same("# head\n\na: 1 # c\n  # indented comment\nb: 2", R"({"a":1,"b":2})");
    same("\xEF\xBB\xBF%YAML 1.2\n---\r\na: 1\r\n# tail\r\nb:   # empty\r\n", R"({"a":1,"b":null})");
}

TEST_CASE("multi-document streams") {
    auto docs = parse_yaml_documents("a: 1\n---\nb: 2\n...\n---\n- x\n---\n");
    REQUIRE(docs.has_value());
    REQUIRE(docs->size() == 4);
    CHECK((*docs)[0] == json::parse(R"({"a":1})"));
    CHECK((*docs)[1] == json::parse(R"({"b":2})"));
    CHECK((*docs)[2] == json::parse(R"(["x"])"));
    CHECK((*docs)[3].is_null());
    auto empty = parse_yaml_documents("# only a comment\n\n");
    REQUIRE(empty.has_value());
    CHECK(empty->empty());
    auto inline_doc = parse_yaml_documents("--- |\n  text\n--- {a: 1}\n");
    REQUIRE(inline_doc.has_value());
    REQUIRE(inline_doc->size() == 2);
    CHECK((*inline_doc)[0] == "text\n");
    CHECK(yaml("").is_null());
    CHECK_FALSE(parse_yaml("a: 1\n---\nb: 2\n").has_value());
}

TEST_CASE("broken input names line and column (libyaml's problem, and what it was reading)") {
    CHECK(error_of("a: 1\n  b: 2\n") == "yaml: line 2, column 4: mapping values are not allowed in this context");
    CHECK(error_of("a:\n    b: 1\n  c: 2\n") ==
          "yaml: line 3, column 3: did not find expected key while parsing a block mapping at line 1, column 1");
    CHECK(error_of("a: \"open\nb: 2\n") ==
          "yaml: line 3, column 1: found unexpected end of stream while scanning a quoted scalar at line 1, column 4");
    CHECK(error_of("a:\n\tb: 1\n") ==
          "yaml: line 2, column 1: found character that cannot start any token while scanning for the next token");
    CHECK(error_of("a: b: c\n") == "yaml: line 1, column 5: mapping values are not allowed in this context");
    CHECK(error_of("a: 1\na: 2\n") == "yaml: line 2, column 1: duplicate mapping key \"a\"");
    CHECK(error_of("a: [1, 2\n") ==
          "yaml: line 2, column 1: did not find expected ',' or ']' while parsing a flow sequence at line 1, column 4");
    CHECK(error_of("a: {x: 1\n") ==
          "yaml: line 2, column 1: did not find expected ',' or '}' while parsing a flow mapping at line 1, column 4");
    CHECK(error_of("a: \"\\q\"\n") ==
          "yaml: line 1, column 5: found unknown escape character while parsing a quoted scalar at line 1, column 4");
    CHECK(error_of("- a\nb: 1\n") ==
          "yaml: line 2, column 1: did not find expected '-' indicator while parsing a block collection at line 1, column 1");
    CHECK(error_of("a: 1\n- b\n") ==
          "yaml: line 2, column 1: did not find expected key while parsing a block mapping at line 1, column 1");
    CHECK(error_of("a: 1\nplain\n") ==
          "yaml: line 3, column 1: could not find expected ':' while scanning a simple key at line 2, column 1");
    CHECK(error_of("a: |x\n") == "yaml: line 1, column 5: did not find expected comment or line break while "
                                 "scanning a block scalar at line 1, column 4");
    CHECK(error_of("a: [1] x\n") ==
          "yaml: line 1, column 8: did not find expected key while parsing a block mapping at line 1, column 1");
    // Surrogates are no code points: libyaml (and so go-yaml) refuses them, paired or not.
    CHECK(error_of("a: \"\\ud800\"\n") == "yaml: line 1, column 7: found invalid Unicode character escape code "
                                          "while parsing a quoted scalar at line 1, column 4");
    CHECK(error_of("a: \"\\ud83d\\ude00\"\n").find("invalid Unicode character escape code") != std::string::npos);
    // Reader errors carry a byte offset only: the position is counted from it.
    CHECK(error_of(std::string("a: 1\nb: x\x01y\n")) ==
          "yaml: line 2, column 5: control characters are not allowed");
    CHECK(error_of("a: \xff\n") == "yaml: line 1, column 4: invalid leading UTF-8 octet");
}

TEST_CASE("hostile nesting is bounded, never a stack overflow") {
    std::string flow(100000, '[');
    CHECK(error_of(flow).find("nesting deeper than 256 levels") != std::string::npos);
    std::string block;
    for (int i = 0; i < 2000; ++i) {
        block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    }
    CHECK(error_of(block).find("nesting deeper") != std::string::npos);
    std::string dashes;
    for (int i = 0; i < 2000; ++i) {
        dashes += "- ";
    }
    CHECK(error_of(dashes + "x\n").find("nesting deeper") != std::string::npos);
    std::string ok;
    for (int i = 0; i < 100; ++i) {
        ok += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    }
    CHECK(parse_yaml(ok).has_value());
}

TEST_CASE("plain_scalars_as_strings keeps the text of typed-looking scalars") {
    auto r = parse_yaml("a: 0123\nb: true\nc: ~\nd: 1.50\ne: [0x1, 'q']\n", kcoro::yaml_options{.plain_scalars_as_strings = true});
    REQUIRE(r.has_value());
    CHECK(*r == json::parse(R"({"a":"0123","b":"true","c":null,"d":"1.50","e":["0x1","q"]})"));
}

TEST_CASE("a multi-document manifest as kubectl apply -f reads it") {
    auto docs = parse_yaml_documents(R"(# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  labels: {app: demo}
data:
  script.sh: |
    #!/bin/sh
    echo "a: b"   # not a comment

    exit 0
  key: "value: with colon"
---
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
        - name: app
          image: nginx:1.25
          command: ["sh", "-c"]
          env:
          - name: A
            value: "1"
          ports:
            - containerPort: 8080
              protocol: TCP
      volumes: []
)");
    REQUIRE_MESSAGE(docs.has_value(), (docs ? std::string() : docs.error().message()));
    REQUIRE(docs->size() == 2);
    CHECK((*docs)[0].at("data").at("script.sh") == "#!/bin/sh\necho \"a: b\"   # not a comment\n\nexit 0\n");
    CHECK((*docs)[0].at("data").at("key") == "value: with colon");
    const auto& c = (*docs)[1].at("spec").at("template").at("spec").at("containers").at(0);
    CHECK(c.at("image") == "nginx:1.25");
    CHECK(c.at("command") == json::parse(R"(["sh","-c"])"));
    CHECK(c.at("env").at(0).at("value") == "1");
    CHECK(c.at("ports") == json::parse(R"([{"containerPort":8080,"protocol":"TCP"}])"));
    CHECK((*docs)[1].at("spec").at("template").at("spec").at("volumes").as_array().empty());
}
