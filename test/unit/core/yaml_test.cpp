#include <kcoro/core/yaml.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <doctest/doctest.h>

#include <cmath>
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
    same("- - x\n  - y\n- z\n", R"([["x","y"],"z"])");
}

TEST_CASE("compact sequence of mappings and sequences at the parent key's level") {
    same("items:\n- name: a\n  value: 1\n- name: b\n  list:\n  - x\n  - y\nafter: true\n",
         R"({"items":[{"name":"a","value":1},{"name":"b","list":["x","y"]}],"after":true})");
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

TEST_CASE("core schema resolution; keys and quoted values stay strings") {
    same("a: ~\nb: null\nc:\nd: True\ne: FALSE\nf: 42\ng: -7\nh: 0x1F\ni: 0o17\nj: 1.5\nk: 1e3\nl: .inf\nm: -.Inf\n"
         "n: '42'\no: \"true\"\np: yes\nq: 1.2.3\nr: +5\ns: 0.\nt: 12abc\n",
         R"({"a":null,"b":null,"c":null,"d":true,"e":false,"f":42,"g":-7,"h":31,"i":15,"j":1.5,"k":1000.0,
             "l":1e999,"m":-1e999,"n":"42","o":"true","p":"yes","q":"1.2.3","r":5,"s":0.0,"t":"12abc"})");
    same("1: a\ntrue: b\nnull: c\n", R"({"1":"a","true":"b","null":"c"})");
    json::value v = yaml("x: .nan\nbig: 18446744073709551615\nhuge: 99999999999999999999\nneg: -9999999999999999999\n");
    CHECK(std::isnan(v.at("x").as_double()));
    CHECK(v.at("big").as_uint64() == 18446744073709551615ull);
    CHECK(v.at("huge").is_double());
    CHECK(v.at("neg").is_double());
    same("a: !!str 123\nb: !!int 7\n", R"({"a":"123","b":7})");
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
f: "\ud83d\ude00"
)",
         R"({"a":"tab\there \"q\" \\ A\u00e9\ud83d\ude00 /","b":"it's # not a comment","c":"line1\nline2",
             "d":"folded over\nlines","e":"joinedhere","f":"\ud83d\ude00"})");
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

TEST_CASE("broken input names line and column") {
    CHECK(error_of("a: 1\n  b: 2\n") == "yaml: line 2, column 4: mapping values are not allowed here");
    CHECK(error_of("a:\n    b: 1\n  c: 2\n") == "yaml: line 3, column 3: bad indentation of a mapping entry");
    CHECK(error_of("a: \"open\nb: 2\n") == "yaml: line 1, column 4: unterminated double-quoted scalar");
    CHECK(error_of("a:\n\tb: 1\n") == "yaml: line 2, column 1: tab character used for indentation");
    CHECK(error_of("a: b: c\n") == "yaml: line 1, column 5: mapping values are not allowed here");
    CHECK(error_of("a: 1\na: 2\n") == "yaml: line 2, column 1: duplicate mapping key \"a\"");
    CHECK(error_of("a: [1, 2\n") == "yaml: line 1, column 4: unterminated flow sequence");
    CHECK(error_of("a: {x: 1\n") == "yaml: line 1, column 4: unterminated flow mapping");
    CHECK(error_of("a: &x 1\n") == "yaml: line 1, column 4: anchors (&name) are not supported");
    CHECK(error_of("a: *x\n") == "yaml: line 1, column 4: aliases (*name) are not supported");
    CHECK(error_of("? a\n: b\n") == "yaml: line 1, column 1: complex mapping keys (?) are not supported");
    CHECK(error_of("a: \"\\q\"\n") == "yaml: line 1, column 5: invalid escape sequence \\q");
    CHECK(error_of("- a\nb: 1\n") == "yaml: line 2, column 1: unexpected content after the document's root node");
    CHECK(error_of("a: 1\n- b\n") == "yaml: line 2, column 1: a sequence entry where a mapping key was expected");
    CHECK(error_of("a: 1\nplain\n") == "yaml: line 2, column 1: could not find expected ':'");
    CHECK(error_of("a: |x\n") == "yaml: line 1, column 5: invalid block scalar header");
    CHECK(error_of("a: [1] x\n") == "yaml: line 1, column 8: unexpected content after the value");
    CHECK(error_of("a: \"\\ud800\"\n") == "yaml: line 1, column 5: invalid Unicode escape");
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
