// The protobuf request decoder against bodies built here byte by byte from
// the wire format (varint tags, length-delimited fields) and the public field
// numbers; the expected JSON is what Go's encoding/json writes for the same
// value (kubectl 1.32's JSON bodies have this shape).
#include "store/protobuf_decoder.hpp"
#include "store/proto_wire.hpp"

#include <boost/json/serialize.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace kcoro;
using namespace kcoro::apiserver;
namespace json = boost::json;

namespace {

std::string varint(std::uint64_t v) {
    std::string out;
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
    return out;
}
std::string vi(std::uint32_t n, std::uint64_t v) { return varint(n << 3 | 0) + varint(v); }
std::string ld(std::uint32_t n, std::string_view b) { return varint(n << 3 | 2) + varint(b.size()) + std::string(b); }
std::string entry(std::uint32_t n, std::string_view k, std::string_view v) { return ld(n, ld(1, k) + ld(2, v)); }
std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
    return std::string("k8s\0", 4) + ld(1, ld(1, api_version) + ld(2, kind)) + ld(2, raw) + ld(3, "") + ld(4, "");
}
std::string decode_ok(std::string_view body, std::string_view group, std::string_view kind,
                      std::vector<std::string>* skipped = nullptr) {
    auto r = decode_protobuf_body(body, group, "v1", kind);
    REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message()));
    if (skipped) *skipped = r->skipped;
    return json::serialize(r->object);
}
std::string decode_error(std::string_view body, std::string_view group, std::string_view kind) {
    auto r = decode_protobuf_body(body, group, "v1", kind);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().http_code() == 400);
    return r.error().message();
}

// kubectl create configmap x --from-literal=a=b, written out by hand:
// ConfigMap{metadata(1){name(1)="x", creationTimestamp(8)=<empty Time>}, data(2){"a": "b"}}.
const std::string configmap_raw("\x0a\x05\x0a\x01x\x42\x00"
                                "\x12\x06\x0a\x01" "a" "\x12\x01" "b",
                                15);

// What gogo's Marshal writes for the objects kubectl's generators build:
// every non-pointer field, empty strings and zero numbers included.
constexpr std::uint64_t ts = 1767323045;  // 2026-01-02T03:04:05Z
std::string time_of(std::uint64_t seconds) { return vi(1, seconds); }
// A ResourceList entry: {key(1) name, value(2) Quantity{string(1)}}.
std::string quantity_entry(std::uint32_t n, std::string_view name, std::string_view quantity) {
    return ld(n, ld(1, name) + ld(2, ld(1, quantity)));
}
// ObjectMeta{Name: name} plus `extra` (labels, ...).
std::string gogo_meta(std::string_view name, std::string_view extra = "") {
    return ld(1, name) + ld(2, "") + ld(3, "") + ld(4, "") + ld(5, "") + ld(6, "") + vi(7, 0) + ld(8, "") +
           std::string(extra);
}
std::string gogo_container(std::string_view name, std::string_view image) {
    return ld(1, name) + ld(2, image) + ld(5, "") + ld(8, "") + ld(13, "") + ld(14, "") + vi(16, 0) + vi(17, 0) +
           vi(18, 0) + ld(20, "");
}
std::string gogo_pod_spec(std::string_view container, std::string_view restart, std::string_view dns = "") {
    return ld(2, container) + ld(3, restart) + ld(6, dns) + ld(8, "") + ld(9, "") + ld(10, "") + vi(11, 0) +
           vi(12, 0) + vi(13, 0) + ld(16, "") + ld(17, "") + ld(19, "");
}
// PodTemplateSpec{ObjectMeta{Labels}, Spec} as a template.
std::string gogo_template(std::string_view pod_spec, std::string_view labels = "") {
    return ld(1, gogo_meta("", labels)) + ld(2, pod_spec);
}

} // namespace

TEST_CASE("the envelope: magic, runtime.Unknown's typeMeta, raw, contentEncoding, contentType") {
    const std::string body = envelope("v1", "ConfigMap", configmap_raw);  // raw views into it
    auto parsed = proto::parse_envelope(body);
    REQUIRE(std::holds_alternative<proto::unknown_envelope>(parsed));
    const auto& env = std::get<proto::unknown_envelope>(parsed);
    CHECK(env.api_version == "v1");
    CHECK(env.kind == "ConfigMap");
    CHECK(env.raw == configmap_raw);
    CHECK(env.content_type.empty());
    CHECK(std::get<std::string>(proto::parse_envelope("")) == "empty data");
    CHECK(std::get<std::string>(proto::parse_envelope(std::string("k8s\0", 4))) == "empty body");
    CHECK(std::get<std::string>(proto::parse_envelope("{\"kind\":\"ConfigMap\"}")) ==
          "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
}

TEST_CASE("kubectl's ConfigMap decodes to the JSON body kubectl would have sent") {
    CHECK(decode_ok(envelope("v1", "ConfigMap", configmap_raw), "", "ConfigMap") ==
          R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},"data":{"a":"b"}})");
}

TEST_CASE("zero values: omitempty fields vanish, others stay; pointers only when sent") {
    // gogo writes every non-pointer field, empty or zero: name "", generation 0, ...
    std::string meta = ld(1, "n") + ld(2, "") + ld(3, "") + ld(4, "") + ld(5, "") + ld(6, "") + vi(7, 0) + ld(8, "") +
                       vi(10, 0);  // deletionGracePeriodSeconds: a pointer, sent as 0
    std::string raw = ld(1, meta) + vi(4, 0);  // immutable: a *bool sent as false
    CHECK(decode_ok(envelope("v1", "ConfigMap", raw), "", "ConfigMap") ==
          R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"n","creationTimestamp":null,)"
          R"("deletionGracePeriodSeconds":0},"immutable":false})");
}

TEST_CASE("every field kind: bytes maps, times, int64, repeated strings and messages, FieldsV1") {
    std::string owner = ld(1, "Deployment") + ld(3, "web") + ld(4, "u-1") + ld(5, "apps/v1") + vi(6, 1);
    std::string managed = ld(1, "kubectl") + ld(2, "Update") + ld(3, "v1") + ld(4, vi(1, 1767323045) + vi(2, 999)) +
                          ld(6, "FieldsV1") + ld(7, ld(1, R"({"f:data":{}})"));
    std::string meta = ld(1, "s") + ld(3, "ns") + vi(7, 5) + ld(8, vi(1, 1767323045)) + ld(9, vi(1, 0)) +
                       entry(11, "b", "2") + entry(11, "a", "1") + entry(11, "b", "3") +  // sorted; the last b wins
                       ld(13, owner) + ld(14, "example.com/f") + ld(14, "kubernetes") + ld(17, managed);
    std::string raw = ld(1, meta) + entry(2, "k", std::string("\x00\xff", 2)) + ld(3, "Opaque") +
                      entry(4, "plain", "text") + vi(5, 1);
    CHECK(decode_ok(envelope("v1", "Secret", raw), "", "Secret") ==
          R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"ns","generation":5,)"
          R"("creationTimestamp":"2026-01-02T03:04:05Z","deletionTimestamp":"1970-01-01T00:00:00Z",)"
          R"("labels":{"a":"1","b":"3"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment",)"
          R"("name":"web","uid":"u-1","controller":true}],"finalizers":["example.com/f","kubernetes"],)"
          R"("managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1",)"
          R"("time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},)"
          R"("immutable":true,"data":{"k":"AP8="},"stringData":{"plain":"text"},"type":"Opaque"})");
}

TEST_CASE("a Deployment as kubectl create deployment writes it: int32, IntOrString, Quantity, structs") {
    std::string labels = entry(11, "app", "web");
    std::string container = ld(1, "nginx") + ld(2, "nginx") + ld(5, "") + ld(8, "") + ld(13, "") + ld(14, "") +
                            vi(16, 0) + vi(17, 0) + vi(18, 0) + ld(20, "");
    std::string pod_spec = ld(2, container) + ld(3, "") + ld(6, "") + ld(8, "") + ld(9, "") + ld(10, "") + vi(11, 0) +
                           vi(12, 0) + vi(13, 0) + ld(16, "") + ld(17, "") + ld(19, "");
    std::string tmpl = ld(1, labels + ld(8, "")) + ld(2, pod_spec);
    std::string spec = vi(1, 1) + ld(2, entry(1, "app", "web")) + ld(3, tmpl) + ld(4, ld(1, "")) + vi(5, 0) + vi(7, 0);
    std::string raw = ld(1, ld(1, "web") + labels + ld(8, "")) + ld(2, spec) + ld(3, vi(1, 0) + vi(2, 0));
    CHECK(decode_ok(envelope("apps/v1", "Deployment", raw), "apps", "Deployment") ==
          R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","creationTimestamp":null,)"
          R"("labels":{"app":"web"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},)"
          R"("template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":)"
          R"([{"name":"nginx","image":"nginx","resources":{}}]}},"strategy":{}},"status":{}})");

    // Negative int32 (ten-byte varint), IntOrString in both forms, quantities.
    std::string rolling = ld(1, vi(1, 0) + vi(2, 1)) + ld(2, vi(1, 1) + ld(3, "25%"));
    std::string resources = ld(1, ld(1, "cpu") + ld(2, ld(1, "500m"))) + ld(2, ld(1, "memory") + ld(2, ld(1, "1Gi")));
    std::string c2 = ld(1, "c") + ld(2, "i") + ld(6, ld(1, "http") + vi(3, 8080) + ld(4, "TCP")) + ld(8, resources);
    std::string spec2 = vi(1, static_cast<std::uint64_t>(-1)) + ld(3, ld(2, ld(2, c2))) + ld(4, ld(1, "RollingUpdate") + ld(2, rolling));
    std::string out = decode_ok(envelope("apps/v1", "Deployment", ld(2, spec2)), "apps", "Deployment");
    CHECK(out.find(R"("replicas":-1)") != std::string::npos);
    CHECK(out.find(R"("rollingUpdate":{"maxUnavailable":1,"maxSurge":"25%"})") != std::string::npos);
    CHECK(out.find(R"("resources":{"limits":{"cpu":"500m"},"requests":{"memory":"1Gi"}})") != std::string::npos);
    CHECK(out.find(R"("ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}])") != std::string::npos);
    // containers is not omitempty: a template without containers writes null.
    CHECK(decode_ok(envelope("apps/v1", "Deployment", ld(2, ld(3, ld(2, "")))), "apps", "Deployment")
              .find(R"("spec":{"containers":null})") != std::string::npos);
}

TEST_CASE("inline structs join their parent: a Volume's source, a Probe's handler") {
    // ConfigMapVolumeSource's LocalObjectReference (1) is itself inline.
    std::string volume = ld(1, "cfg") + ld(2, ld(19, ld(1, ld(1, "settings")) + vi(3, 420)));
    std::string probe = ld(1, ld(2, ld(1, "/healthz") + ld(2, vi(1, 0) + vi(2, 8080)))) + vi(2, 3);
    std::string c = ld(1, "c") + ld(2, "i") + ld(10, probe);
    std::string out =
        decode_ok(envelope("apps/v1", "Deployment", ld(2, ld(3, ld(2, ld(1, volume) + ld(2, c))))), "apps", "Deployment");
    CHECK(out.find(R"("volumes":[{"name":"cfg","configMap":{"name":"settings","defaultMode":420}}])") != std::string::npos);
    CHECK(out.find(R"("livenessProbe":{"httpGet":{"path":"/healthz","port":8080},"initialDelaySeconds":3)") !=
          std::string::npos);
}

TEST_CASE("the pod template's deeper structures: security contexts, affinity, lifecycle, repeated numbers") {
    // PodSecurityContext{runAsNonRoot(3) true, runAsUser(2) 1000, supplementalGroups(4) 1, 2 unpacked then 3, 4 packed}.
    std::string psc = vi(3, 1) + vi(2, 1000) + vi(4, 1) + vi(4, 2) + ld(4, varint(3) + varint(4));
    // Affinity{nodeAffinity(1){required(1){terms(1)[{matchExpressions(1)[{key, operator, values}]}]}}}.
    std::string req = ld(1, ld(1, "zone") + ld(2, "In") + ld(3, "a"));
    std::string affinity = ld(1, ld(1, ld(1, req)));
    // Container securityContext(15){capabilities(1){drop(2)["ALL"]}, allowPrivilegeEscalation(7) false},
    // lifecycle(12){preStop(2){sleep(4){seconds(1) 5}}}.
    std::string c = ld(1, "c") + ld(2, "i") + ld(15, ld(1, ld(2, "ALL")) + vi(7, 0)) + ld(12, ld(2, ld(4, vi(1, 5))));
    std::vector<std::string> skipped;
    std::string out = decode_ok(envelope("apps/v1", "Deployment", ld(2, ld(3, ld(2, ld(2, c) + ld(14, psc) + ld(18, affinity))))),
                                "apps", "Deployment", &skipped);
    CHECK(skipped.empty());
    CHECK(out.find(R"("securityContext":{"runAsUser":1000,"runAsNonRoot":true,"supplementalGroups":[1,2,3,4]})") !=
          std::string::npos);
    CHECK(out.find(R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)"
                   R"([{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}})") != std::string::npos);
    CHECK(out.find(R"("lifecycle":{"preStop":{"sleep":{"seconds":5}}})") != std::string::npos);
    CHECK(out.find(R"("securityContext":{"capabilities":{"drop":["ALL"]},"allowPrivilegeEscalation":false})") !=
          std::string::npos);
}

TEST_CASE("fields kcoro does not decode are skipped and reported, whatever their wire type") {
    std::string raw = configmap_raw + vi(99, 7) + ld(98, "zz") + varint(97 << 3 | 5) + std::string("abcd") +
                      varint(96 << 3 | 1) + std::string("12345678") + varint(95 << 3 | 3) + vi(1, 1) +
                      varint(95 << 3 | 4);
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("v1", "ConfigMap", raw), "", "ConfigMap", &skipped) ==
          R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},"data":{"a":"b"}})");
    REQUIRE(skipped.size() == 5);
    CHECK(skipped[0] == "<root>: ConfigMap field 99");
    // Deeper: an in-tree volume plugin kcoro does not decode (a Volume's cephfs, 14).
    decode_ok(envelope("apps/v1", "Deployment", ld(2, ld(3, ld(2, ld(1, ld(1, "v") + ld(2, ld(14, ld(1, "m")))))))),
              "apps", "Deployment", &skipped);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "spec.template.spec.volumes[0]: VolumeSource field 14");
}

TEST_CASE("the envelope's kind and apiVersion win; the URL's fill in when absent") {
    std::string body = std::string("k8s\0", 4) + ld(2, configmap_raw);
    CHECK(decode_ok(body, "", "ConfigMap").starts_with(R"({"kind":"ConfigMap","apiVersion":"v1",)"));
    // A Secret sent to the configmaps endpoint stays a Secret (the handler's kind check refuses it).
    // An empty message still writes its structs: metadata, whose creationTimestamp is null.
    CHECK(decode_ok(envelope("v1", "Secret", ""), "", "ConfigMap") ==
          R"({"kind":"Secret","apiVersion":"v1","metadata":{"creationTimestamp":null}})");
}

TEST_CASE("truncated and malformed bodies: the real server's 400 texts, never a crash") {
    const std::string body = envelope("v1", "ConfigMap", configmap_raw);
    // Every prefix: a 400, or (cut at a field boundary of the Unknown, as
    // Go reads it too) a shorter valid body; never a crash.
    int refused = 0;
    for (std::size_t n = 0; n < body.size(); ++n) {
        auto r = decode_protobuf_body(std::string_view(body).substr(0, n), "", "v1", "ConfigMap");
        if (!r) {
            ++refused;
            CHECK(r.error().http_code() == 400);
        }
    }
    CHECK(refused >= static_cast<int>(body.size()) - 4);
    CHECK(decode_error(body.substr(0, 10), "", "ConfigMap") ==
          "the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b3873000a0f0a027631)");
    CHECK(decode_error(body.substr(0, 3), "", "ConfigMap") ==
          "the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a "
          "protobuf message, expected prefix [107 56 115 0] (6b3873)");
    // Longer than 30 bytes: the summary is cut (raw claims 200 bytes, 40 follow).
    CHECK(decode_error(std::string("k8s\0", 4) + varint(2 << 3 | 2) + varint(200) + std::string(40, 'x'), "", "ConfigMap") ==
          "the object provided is unrecognized (must be of type ConfigMap): unexpected EOF "
          "(6b38730012c8017878787878787878787878787878787878787878787878 ...)");
    // The object's own bytes cut short: the first form, with the kind.
    auto in_object = [](std::string raw) { return decode_error(envelope("v1", "ConfigMap", raw), "", "ConfigMap"); };
    const std::string prefix = "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: ";
    CHECK(in_object(configmap_raw.substr(0, 9)) == prefix + "unexpected EOF");
    CHECK(in_object(vi(1, 5)) == prefix + "proto: wrong wireType = 0 for field ObjectMeta");
    CHECK(in_object(ld(1, vi(1, 5))) == prefix + "proto: wrong wireType = 0 for field Name");
    CHECK(in_object(std::string("\x00", 1)) == prefix + "proto: ConfigMap: illegal tag 0 (wire type 0)");
    CHECK(in_object("\x0c") == prefix + "proto: ConfigMap: wiretype end group for non-group");
    // A known field with a wire type it does not have names the field; an
    // unknown one is skipped by wire type (skipGenerated).
    CHECK(in_object("\x0f") == prefix + "proto: wrong wireType = 7 for field ObjectMeta");
    CHECK(in_object("\x7f") == prefix + "proto: illegal wireType 7");
    CHECK(in_object(varint(99 << 3) + std::string(10, '\xff') + "\x01") == prefix + "proto: integer overflow");
    CHECK(in_object(ld(1, ld(1, "x")) + varint(99 << 3)) == prefix + "unexpected EOF");
    CHECK(in_object(varint(95 << 3 | 4)) == prefix + "proto: ConfigMap: wiretype end group for non-group");
    CHECK(in_object(varint(95 << 3 | 3) + vi(1, 1)) == prefix + "unexpected EOF");  // a group never closed
    CHECK(in_object("\x0a" + std::string(9, '\xff') + "\x01") ==
          prefix + "proto: negative length found during unmarshaling");
    CHECK(in_object(ld(1, ld(17, ld(7, ld(1, "{not json")))))
              .starts_with(prefix + "json: error calling MarshalJSON for type *v1.FieldsV1"));
}

TEST_CASE("times: seconds only for Time, microseconds for MicroTime, Go's year layout outside 0..9999") {
    // A Lease as client-go's leader election writes it (MicroTime renewTime, nanoseconds truncated).
    std::string spec = ld(1, "me") + vi(2, 15) + ld(3, vi(1, 1767323045) + vi(2, 123456789)) +
                       ld(4, vi(1, 1767323045) + vi(2, 999)) + vi(5, 0);
    CHECK(decode_ok(envelope("coordination.k8s.io/v1", "Lease", ld(1, ld(1, "l")) + ld(2, spec)), "coordination.k8s.io",
                    "Lease") ==
          R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l","creationTimestamp":null},)"
          R"("spec":{"holderIdentity":"me","leaseDurationSeconds":15,"acquireTime":"2026-01-02T03:04:05.123456Z",)"
          R"("renewTime":"2026-01-02T03:04:05.000000Z","leaseTransitions":0}})");
    // Negative nanoseconds borrow from the seconds, as time.Unix normalizes them.
    std::string neg = ld(3, vi(1, 1767323045) + vi(2, static_cast<std::uint64_t>(-1000)));
    CHECK(decode_ok(envelope("coordination.k8s.io/v1", "Lease", ld(2, neg)), "coordination.k8s.io", "Lease")
              .find(R"("acquireTime":"2026-01-02T03:04:04.999999Z")") != std::string::npos);
    // Time drops the nanoseconds; years before 0 and after 9999 as Go's layout writes them.
    auto created = [](std::int64_t seconds) {
        return decode_ok(envelope("v1", "ConfigMap", ld(1, ld(8, vi(1, static_cast<std::uint64_t>(seconds)) + vi(2, 5)))),
                         "", "ConfigMap");
    };
    CHECK(created(0).find(R"("creationTimestamp":"1970-01-01T00:00:00Z")") != std::string::npos);
    CHECK(created(-62135596800).find(R"("creationTimestamp":null)") != std::string::npos);  // time.Time{}
    CHECK(created(-62135596801).find(R"("creationTimestamp":"0000-12-31T23:59:59Z")") != std::string::npos);
    CHECK(created(253402300800).find(R"("creationTimestamp":"10000-01-01T00:00:00Z")") != std::string::npos);
    CHECK(created(-62198755200).find(R"("creationTimestamp":"-0001-01-01T00:00:00Z")") != std::string::npos);
    // A core/v1 Event as record.EventRecorder writes it.
    std::string ev = ld(1, ld(1, "e.1") + ld(3, "default")) + ld(2, ld(1, "Pod") + ld(3, "p")) + ld(3, "Started") +
                     ld(5, ld(1, "kubelet")) + ld(6, vi(1, 1767323045)) + ld(7, vi(1, 1767323045)) + vi(8, 1) +
                     ld(9, "Normal") + ld(10, "") + ld(14, "") + ld(15, "");
    CHECK(decode_ok(envelope("v1", "Event", ev), "", "Event") ==
          R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e.1","namespace":"default","creationTimestamp":null},)"
          R"("involvedObject":{"kind":"Pod","name":"p"},"reason":"Started","source":{"component":"kubelet"},)"
          R"("firstTimestamp":"2026-01-02T03:04:05Z","lastTimestamp":"2026-01-02T03:04:05Z","count":1,"type":"Normal",)"
          R"("eventTime":null,"reportingComponent":"","reportingInstance":""})");
}

TEST_CASE("invalid UTF-8 in strings becomes U+FFFD, as Go's JSON encoder writes it") {
    std::string raw = ld(1, ld(1, "x")) + entry(2, "k", "a\xff" "b\xc0\x80");
    CHECK(decode_ok(envelope("v1", "ConfigMap", raw), "", "ConfigMap").find("\"k\":\"a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\"") !=
          std::string::npos);
}

TEST_CASE("invalid UTF-8 in the envelope and in a text summary never reaches the JSON (found by the fuzz target)") {
    CHECK(decode_ok(envelope("v1", "Config\xffMap", configmap_raw), "", "ConfigMap")
              .starts_with("{\"kind\":\"Config\xef\xbf\xbdMap\",\"apiVersion\":\"v1\","));
    // A JSON-looking body is summarized as text: cut inside a character, it gets U+FFFD too.
    std::string body = std::string("{\"a\":\"") + std::string(23, 'x') + "\xc3\xa9\xc3\xa9";
    CHECK(decode_error(body, "", "ConfigMap").ends_with("xxxx\xef\xbf\xbd ...)"));
}

TEST_CASE("garbage after the magic never crashes the decoder") {
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;  // a fixed seed: the same bytes every run
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<char>(state >> 56);
    };
    const std::string good = envelope("apps/v1", "Deployment", ld(1, ld(1, "web")) + ld(2, vi(1, 2)));
    int decoded = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string body = std::string("k8s\0", 4);
        const int len = i % 64;
        for (int k = 0; k < len; ++k) body += next();
        // Half the cases mutate one byte of a valid body instead.
        if (i % 2) {
            body = good;
            body[4 + static_cast<std::size_t>(static_cast<unsigned char>(next())) % (good.size() - 4)] = next();
        }
        auto r = decode_protobuf_body(body, "apps", "v1", "Deployment");
        if (r) ++decoded;
        else CHECK(r.error().http_code() == 400);
    }
    CHECK(decoded > 0);
}

TEST_CASE("DeleteOptions decode for any group version, kinds without a table do not") {
    std::string raw = vi(1, 0) + ld(2, ld(1, "u-1")) + ld(4, "Foreground") + ld(5, "All");
    CHECK(decode_ok(envelope("apps/v1", "DeleteOptions", raw), "apps", "DeleteOptions") ==
          R"({"kind":"DeleteOptions","apiVersion":"apps/v1","gracePeriodSeconds":0,"preconditions":{"uid":"u-1"},)"
          R"("propagationPolicy":"Foreground","dryRun":["All"]})");
    CHECK(protobuf_decodable("", "ConfigMap"));
    CHECK(protobuf_decodable("apps", "Deployment"));
    CHECK(protobuf_decodable("coordination.k8s.io", "Lease"));
    CHECK(protobuf_decodable("events.k8s.io", "Event"));
    CHECK_FALSE(protobuf_decodable("apiextensions.k8s.io", "CustomResourceDefinition"));
    CHECK(summarize_body("") == "<empty>");
    CHECK(summarize_body("{\"a\":1}") == "{\"a\":1}");
}

TEST_CASE("core/v1 Pod: kubectl run, and a status as the kubelet writes it") {
    // kubectl run p --image=nginx: labels run=p, restartPolicy Always, dnsPolicy ClusterFirst.
    std::string raw = ld(1, gogo_meta("p", entry(11, "run", "p"))) +
                      ld(2, gogo_pod_spec(gogo_container("p", "nginx"), "Always", "ClusterFirst")) +
                      ld(3, ld(1, "") + ld(3, "") + ld(4, "") + ld(5, "") + ld(6, "") + ld(9, "") + ld(11, "") +
                            ld(14, ""));
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("v1", "Pod", raw), "", "Pod", &skipped) ==
          R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":null,"labels":{"run":"p"}},)"
          R"("spec":{"containers":[{"name":"p","image":"nginx","resources":{}}],"restartPolicy":"Always",)"
          R"("dnsPolicy":"ClusterFirst"},"status":{}})");
    CHECK(skipped.empty());

    std::string condition = ld(1, "Ready") + ld(2, "True") + ld(3, "") + ld(4, time_of(ts)) + ld(5, "") + ld(6, "");
    std::string terminated = vi(1, 137) + vi(2, 0) + ld(3, "OOMKilled") + ld(4, "") + ld(5, time_of(ts)) +
                             ld(6, time_of(ts + 60)) + ld(7, "containerd://a");
    std::string mount = ld(1, "data") + ld(2, "/data") + vi(3, 1) + ld(4, "Disabled");
    std::string running = ld(1, "p") + ld(2, ld(2, ld(1, time_of(ts)))) + ld(3, ld(3, terminated)) + vi(4, 1) +
                          vi(5, 1) + ld(6, "nginx") + ld(7, "") + ld(8, "containerd://b") + vi(9, 1) + ld(12, mount);
    std::string waiting = ld(1, "init") + ld(2, ld(1, ld(1, "PodInitializing") + ld(2, ""))) + ld(3, "") + vi(4, 0) +
                          vi(5, 0) + ld(6, "busybox") + ld(7, "");
    std::string status = ld(1, "Running") + ld(2, condition) + ld(3, "") + ld(4, "") + ld(5, "10.0.0.1") +
                         ld(6, "10.244.0.5") + ld(7, time_of(ts)) + ld(8, running) + ld(9, "BestEffort") +
                         ld(10, waiting) + ld(11, "") + ld(12, ld(1, "10.244.0.5")) + ld(14, "") +
                         ld(16, ld(1, "10.0.0.1"));
    std::string out = decode_ok(envelope("v1", "Pod", ld(1, gogo_meta("p")) + ld(3, status)), "", "Pod", &skipped);
    CHECK(skipped.empty());
    CHECK(out.find(
              R"("status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastProbeTime":null,)"
              R"("lastTransitionTime":"2026-01-02T03:04:05Z"}],"hostIP":"10.0.0.1","hostIPs":[{"ip":"10.0.0.1"}],)"
              R"("podIP":"10.244.0.5","podIPs":[{"ip":"10.244.0.5"}],"startTime":"2026-01-02T03:04:05Z",)"
              R"("initContainerStatuses":[{"name":"init","state":{"waiting":{"reason":"PodInitializing"}},)"
              R"("lastState":{},"ready":false,"restartCount":0,"image":"busybox","imageID":""}],)"
              R"("containerStatuses":[{"name":"p","state":{"running":{"startedAt":"2026-01-02T03:04:05Z"}},)"
              R"("lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2026-01-02T03:04:05Z",)"
              R"("finishedAt":"2026-01-02T03:05:05Z","containerID":"containerd://a"}},"ready":true,"restartCount":1,)"
              R"("image":"nginx","imageID":"","containerID":"containerd://b","started":true,)"
              R"("volumeMounts":[{"name":"data","mountPath":"/data","readOnly":true,"recursiveReadOnly":"Disabled"}]}],)"
              R"("qosClass":"BestEffort"}})") != std::string::npos);
}

TEST_CASE("batch/v1 Job and CronJob: kubectl create job / cronjob, failure and success policies, status") {
    // kubectl create job j --image=busybox: restartPolicy Never, an empty JobStatus.
    std::string job_spec = ld(6, gogo_template(gogo_pod_spec(gogo_container("j", "busybox"), "Never")));
    std::string job_status = vi(4, 0) + vi(5, 0) + vi(6, 0) + ld(7, "");
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("batch/v1", "Job", ld(1, gogo_meta("j")) + ld(2, job_spec) + ld(3, job_status)), "batch",
                    "Job", &skipped) ==
          R"({"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j","creationTimestamp":null},)"
          R"("spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":)"
          R"([{"name":"j","image":"busybox","resources":{}}],"restartPolicy":"Never"}}},"status":{}})");
    CHECK(skipped.empty());

    // kubectl create cronjob c --image=busybox --schedule="*/1 * * * *": restartPolicy OnFailure.
    std::string job_template = ld(1, gogo_meta("c")) +
                               ld(2, ld(6, gogo_template(gogo_pod_spec(gogo_container("c", "busybox"), "OnFailure"))));
    std::string cron_spec = ld(1, "*/1 * * * *") + ld(3, "") + ld(5, job_template);
    CHECK(decode_ok(envelope("batch/v1", "CronJob", ld(1, gogo_meta("c")) + ld(2, cron_spec) + ld(3, "")), "batch",
                    "CronJob") ==
          R"({"kind":"CronJob","apiVersion":"batch/v1","metadata":{"name":"c","creationTimestamp":null},)"
          R"("spec":{"schedule":"*/1 * * * *","jobTemplate":{"metadata":{"name":"c","creationTimestamp":null},)"
          R"("spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":)"
          R"([{"name":"c","image":"busybox","resources":{}}],"restartPolicy":"OnFailure"}}}}},"status":{}})");
    // A CronJob's status: active jobs, last schedule time.
    std::string cron_status = ld(1, ld(1, "Job") + ld(2, "default") + ld(3, "c-1")) + ld(4, time_of(ts));
    CHECK(decode_ok(envelope("batch/v1", "CronJob", ld(3, cron_status)), "batch", "CronJob")
              .find(R"("status":{"active":[{"kind":"Job","namespace":"default","name":"c-1"}],)"
                    R"("lastScheduleTime":"2026-01-02T03:04:05Z"})") != std::string::npos);

    // An indexed Job with a pod failure policy (exit codes packed, then none: values is not
    // omitempty) and a success policy; its status with a condition and uncounted pods.
    std::string rule1 = ld(1, "FailJob") + ld(2, ld(1, "main") + ld(2, "In") + ld(3, varint(1) + varint(42)));
    std::string rule2 = ld(1, "Ignore") + ld(3, ld(1, "DisruptionTarget") + ld(2, "True"));
    std::string rule3 = ld(1, "Count") + ld(2, ld(2, "NotIn") + vi(3, 3));
    std::string rule4 = ld(1, "Count") + ld(2, ld(2, "NotIn"));
    std::string spec = vi(2, 3) + ld(6, "") + vi(7, 6) + ld(9, "Indexed") +
                       ld(11, ld(1, rule1) + ld(1, rule2) + ld(1, rule3) + ld(1, rule4)) + vi(12, 1) +
                       ld(16, ld(1, ld(1, "0-2") + vi(2, 2)));
    std::string cond = ld(1, "Complete") + ld(2, "True") + ld(3, time_of(ts)) + ld(4, time_of(ts)) + ld(5, "") + ld(6, "");
    std::string status = ld(1, cond) + ld(2, time_of(ts)) + ld(3, time_of(ts + 1)) + vi(4, 0) + vi(5, 3) + vi(6, 0) +
                         ld(7, "0-2") + ld(8, ld(1, "u-1") + ld(2, "u-2")) + vi(9, 0) + vi(11, 0);
    std::string out = decode_ok(envelope("batch/v1", "Job", ld(2, spec) + ld(3, status)), "batch", "Job", &skipped);
    CHECK(skipped.empty());
    CHECK(out.find(R"("spec":{"completions":3,"podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":)"
                   R"({"containerName":"main","operator":"In","values":[1,42]}},{"action":"Ignore","onPodConditions":)"
                   R"([{"type":"DisruptionTarget","status":"True"}]},{"action":"Count","onExitCodes":{"operator":"NotIn",)"
                   R"("values":[3]}},{"action":"Count","onExitCodes":{"operator":"NotIn","values":null}}]},)"
                   R"("successPolicy":{"rules":[{"succeededIndexes":"0-2","succeededCount":2}]},"backoffLimit":6,)"
                   R"("backoffLimitPerIndex":1,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},)"
                   R"("completionMode":"Indexed"})") !=
          std::string::npos);
    CHECK(out.find(R"("status":{"conditions":[{"type":"Complete","status":"True","lastProbeTime":"2026-01-02T03:04:05Z",)"
                   R"("lastTransitionTime":"2026-01-02T03:04:05Z"}],"startTime":"2026-01-02T03:04:05Z",)"
                   R"("completionTime":"2026-01-02T03:04:06Z","succeeded":3,"terminating":0,"completedIndexes":"0-2",)"
                   R"("uncountedTerminatedPods":{"succeeded":["u-1"],"failed":["u-2"]},"ready":0})") != std::string::npos);
}

TEST_CASE("rbac.authorization.k8s.io/v1: kubectl create role, clusterrole, rolebinding, clusterrolebinding") {
    const std::string rbac = "rbac.authorization.k8s.io";
    // kubectl create role r --verb=get,list --resource=pods: the core group is "".
    std::string rule = ld(1, "get") + ld(1, "list") + ld(2, "") + ld(3, "pods");
    CHECK(decode_ok(envelope("rbac.authorization.k8s.io/v1", "Role", ld(1, gogo_meta("r")) + ld(2, rule)), rbac, "Role") ==
          R"({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"r","creationTimestamp":null},)"
          R"("rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})");
    // kubectl create clusterrole c --aggregation-rule=a=b: no rules (a nil slice, not omitempty).
    CHECK(decode_ok(envelope("rbac.authorization.k8s.io/v1", "ClusterRole",
                             ld(1, gogo_meta("c")) + ld(3, ld(1, entry(1, "a", "b")))),
                    rbac, "ClusterRole") ==
          R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"c",)"
          R"("creationTimestamp":null},"rules":null,"aggregationRule":{"clusterRoleSelectors":)"
          R"([{"matchLabels":{"a":"b"}}]}})");
    CHECK(decode_ok(envelope("rbac.authorization.k8s.io/v1", "ClusterRole",
                             ld(1, gogo_meta("n")) + ld(2, ld(1, "get") + ld(5, "/healthz"))),
                    rbac, "ClusterRole")
              .ends_with(R"("rules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]})"));
    // kubectl create rolebinding rb --role=r --user=u --serviceaccount=ns:sa.
    std::string role_ref = ld(1, "rbac.authorization.k8s.io") + ld(2, "Role") + ld(3, "r");
    std::string user = ld(1, "User") + ld(2, "rbac.authorization.k8s.io") + ld(3, "u") + ld(4, "");
    std::string sa = ld(1, "ServiceAccount") + ld(2, "") + ld(3, "sa") + ld(4, "ns");
    CHECK(decode_ok(envelope("rbac.authorization.k8s.io/v1", "RoleBinding",
                             ld(1, gogo_meta("rb")) + ld(2, user) + ld(2, sa) + ld(3, role_ref)),
                    rbac, "RoleBinding") ==
          R"({"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"rb",)"
          R"("creationTimestamp":null},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},)"
          R"({"kind":"ServiceAccount","name":"sa","namespace":"ns"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
          R"("kind":"Role","name":"r"}})");
    // kubectl create clusterrolebinding crb --clusterrole=view: no subjects (omitempty).
    CHECK(decode_ok(envelope("rbac.authorization.k8s.io/v1", "ClusterRoleBinding",
                             ld(1, gogo_meta("crb")) +
                                 ld(3, ld(1, "rbac.authorization.k8s.io") + ld(2, "ClusterRole") + ld(3, "view"))),
                    rbac, "ClusterRoleBinding") ==
          R"({"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"name":"crb",)"
          R"("creationTimestamp":null},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
          R"("name":"view"}})");
}

TEST_CASE("policy/v1 PodDisruptionBudget: kubectl create pdb; disruptedPods (a map of Times) is skipped") {
    // kubectl create pdb p --selector=app=web --min-available=1: gogo writes the status's numbers.
    std::string spec = ld(1, vi(1, 0) + vi(2, 1) + ld(3, "")) + ld(2, entry(1, "app", "web"));
    std::string status = vi(1, 0) + vi(3, 0) + vi(4, 0) + vi(5, 0) + vi(6, 0);
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("policy/v1", "PodDisruptionBudget", ld(1, gogo_meta("p")) + ld(2, spec) + ld(3, status)),
                    "policy", "PodDisruptionBudget", &skipped) ==
          R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"p","creationTimestamp":null},)"
          R"("spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":0,)"
          R"("currentHealthy":0,"desiredHealthy":0,"expectedPods":0}})");
    CHECK(skipped.empty());
    // --max-unavailable=50%, an eviction policy; a status with a metav1.Condition and disruptedPods.
    std::string spec2 = ld(2, entry(1, "app", "web")) + ld(3, vi(1, 1) + vi(2, 0) + ld(3, "50%")) + ld(4, "AlwaysAllow");
    std::string cond = ld(1, "DisruptionAllowed") + ld(2, "True") + vi(3, 2) + ld(4, time_of(ts)) +
                       ld(5, "SufficientPods") + ld(6, "");
    std::string status2 = vi(1, 2) + ld(2, ld(1, "p-1") + ld(2, time_of(ts))) + vi(3, 1) + vi(4, 3) + vi(5, 2) +
                          vi(6, 3) + ld(7, cond);
    std::string out = decode_ok(envelope("policy/v1", "PodDisruptionBudget", ld(2, spec2) + ld(3, status2)), "policy",
                                "PodDisruptionBudget", &skipped);
    CHECK(out.find(R"("spec":{"selector":{"matchLabels":{"app":"web"}},"maxUnavailable":"50%",)"
                   R"("unhealthyPodEvictionPolicy":"AlwaysAllow"})") != std::string::npos);
    CHECK(out.find(R"("status":{"observedGeneration":2,"disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,)"
                   R"("expectedPods":3,"conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":2,)"
                   R"("lastTransitionTime":"2026-01-02T03:04:05Z","reason":"SufficientPods","message":""}]})") !=
          std::string::npos);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "status: PodDisruptionBudgetStatus field 2");
}

TEST_CASE("networking.k8s.io/v1 Ingress: kubectl create ingress with a rule, TLS, a default backend") {
    // kubectl create ingress simple --rule="foo.com/bar=svc1:8080,tls=my-cert": pathType Exact.
    std::string backend = ld(4, ld(1, "svc1") + ld(2, ld(1, "") + vi(2, 8080)));
    std::string path = ld(1, "/bar") + ld(2, backend) + ld(3, "Exact");
    std::string rule = ld(1, "foo.com") + ld(2, ld(1, ld(1, path)));
    std::string tls = ld(1, "foo.com") + ld(2, "my-cert");
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("networking.k8s.io/v1", "Ingress",
                             ld(1, gogo_meta("simple")) + ld(2, ld(2, tls) + ld(3, rule)) + ld(3, ld(1, ""))),
                    "networking.k8s.io", "Ingress", &skipped) ==
          R"({"kind":"Ingress","apiVersion":"networking.k8s.io/v1","metadata":{"name":"simple","creationTimestamp":null},)"
          R"("spec":{"tls":[{"hosts":["foo.com"],"secretName":"my-cert"}],"rules":[{"host":"foo.com","http":{"paths":)"
          R"([{"path":"/bar","pathType":"Exact","backend":{"service":{"name":"svc1","port":{"number":8080}}}}]}}]},)"
          R"("status":{"loadBalancer":{}}})");
    CHECK(skipped.empty());
    // --class=nginx --default-backend=def:http; a rule without a host; a status with a port error.
    std::string def = ld(4, ld(1, "def") + ld(2, ld(1, "http") + vi(2, 0)));
    std::string resource = ld(1, "k8s.example.com") + ld(2, "Bucket") + ld(3, "b");
    std::string rule2 = ld(1, "") + ld(2, ld(1, ld(1, ld(1, "/") + ld(2, ld(3, resource)) + ld(3, "Prefix"))));
    std::string lb = ld(1, ld(1, "10.0.0.9") + ld(2, "") + ld(4, vi(1, 443) + ld(2, "TCP") + ld(3, "refused")));
    std::string out = decode_ok(envelope("networking.k8s.io/v1", "Ingress",
                                         ld(2, ld(1, def) + ld(3, rule2) + ld(4, "nginx")) + ld(3, ld(1, lb))),
                                "networking.k8s.io", "Ingress");
    CHECK(out.find(R"("spec":{"ingressClassName":"nginx","defaultBackend":{"service":{"name":"def","port":{"name":"http"}}},)"
                   R"("rules":[{"http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"resource":)"
                   R"({"apiGroup":"k8s.example.com","kind":"Bucket","name":"b"}}}]}}]})") != std::string::npos);
    CHECK(out.find(R"("status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.9","ports":[{"port":443,"protocol":"TCP",)"
                   R"("error":"refused"}]}]}})") != std::string::npos);
}

TEST_CASE("apps/v1 ReplicaSet, StatefulSet (volume claim templates, strategies, ordinals), DaemonSet") {
    const std::string labels = entry(11, "app", "db");
    const std::string tmpl = gogo_template(gogo_pod_spec(gogo_container("db", "postgres"), ""), labels);
    const std::string tmpl_json = R"("template":{"metadata":{"creationTimestamp":null,"labels":{"app":"db"}},)"
                                  R"("spec":{"containers":[{"name":"db","image":"postgres","resources":{}}]}})";
    std::vector<std::string> skipped;

    std::string pvc = ld(1, gogo_meta("data")) +
                      ld(2, ld(1, "ReadWriteOnce") + ld(2, ld(2, ld(1, "storage") + ld(2, ld(1, "1Gi")))) + ld(3, "")) +
                      ld(3, ld(1, ""));
    std::string sts_spec = vi(1, 3) + ld(2, entry(1, "app", "db")) + ld(3, tmpl) + ld(4, pvc) + ld(5, "db") +
                           ld(6, "Parallel") +
                           ld(7, ld(1, "RollingUpdate") + ld(2, vi(1, 0) + ld(2, vi(1, 1) + vi(2, 0) + ld(3, "50%")))) +
                           vi(9, 0) + ld(10, ld(1, "Delete") + ld(2, "Retain")) + ld(11, vi(1, 5));
    std::string sts_status = vi(1, 0) + vi(2, 0) + vi(3, 0) + vi(4, 0) + vi(5, 0) + ld(6, "") + ld(7, "") + vi(11, 0);
    CHECK(decode_ok(envelope("apps/v1", "StatefulSet", ld(1, gogo_meta("db")) + ld(2, sts_spec) + ld(3, sts_status)),
                    "apps", "StatefulSet", &skipped) ==
          R"({"kind":"StatefulSet","apiVersion":"apps/v1","metadata":{"name":"db","creationTimestamp":null},)"
          R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"db"}},)" + tmpl_json +
              R"(,"volumeClaimTemplates":[{"metadata":{"name":"data","creationTimestamp":null},"spec":{"accessModes":)"
              R"(["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}},"status":{}}],"serviceName":"db",)"
              R"("podManagementPolicy":"Parallel","updateStrategy":{"type":"RollingUpdate","rollingUpdate":)"
              R"({"partition":0,"maxUnavailable":"50%"}},"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete",)"
              R"("whenScaled":"Retain"},"ordinals":{"start":5}},"status":{"replicas":0,"availableReplicas":0}})");
    CHECK(skipped.empty());

    std::string rs_cond =
        ld(1, "ReplicaFailure") + ld(2, "True") + ld(3, time_of(ts)) + ld(4, "FailedCreate") + ld(5, "quota");
    std::string rs_status = vi(1, 0) + vi(2, 0) + vi(3, 1) + vi(4, 0) + vi(5, 0) + ld(6, rs_cond);
    CHECK(decode_ok(envelope("apps/v1", "ReplicaSet",
                             ld(1, gogo_meta("db")) + ld(2, vi(1, 2) + ld(2, entry(1, "app", "db")) + ld(3, tmpl) + vi(4, 0)) +
                                 ld(3, rs_status)),
                    "apps", "ReplicaSet") ==
          R"({"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"db","creationTimestamp":null},)"
          R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"db"}},)" + tmpl_json +
              R"(},"status":{"replicas":0,"observedGeneration":1,"conditions":[{"type":"ReplicaFailure","status":"True",)"
              R"("lastTransitionTime":"2026-01-02T03:04:05Z","reason":"FailedCreate","message":"quota"}]}})");

    std::string ds_spec = ld(1, entry(1, "app", "db")) + ld(2, tmpl) +
                          ld(3, ld(1, "RollingUpdate") + ld(2, ld(1, vi(1, 0) + vi(2, 1)) + ld(2, vi(1, 0) + vi(2, 0)))) +
                          vi(4, 0) + vi(6, 10);
    std::string ds_status = vi(1, 0) + vi(2, 0) + vi(3, 0) + vi(4, 0) + vi(5, 0) + vi(6, 0) + vi(7, 0) + vi(8, 0);
    CHECK(decode_ok(envelope("apps/v1", "DaemonSet", ld(1, gogo_meta("db")) + ld(2, ds_spec) + ld(3, ds_status)), "apps",
                    "DaemonSet") ==
          R"({"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"db","creationTimestamp":null},)"
          R"("spec":{"selector":{"matchLabels":{"app":"db"}},)" + tmpl_json +
              R"(,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},)"
              R"("revisionHistoryLimit":10},"status":{"currentNumberScheduled":0,"numberMisscheduled":0,)"
              R"("desiredNumberScheduled":0,"numberReady":0}})");
}

TEST_CASE("core/v1 PersistentVolumeClaim and Endpoints, discovery.k8s.io/v1 EndpointSlice") {
    std::string pvc_spec = ld(1, "ReadWriteOnce") + ld(2, ld(2, ld(1, "storage") + ld(2, ld(1, "1Gi")))) + ld(3, "") +
                           ld(5, "standard") + ld(6, "Filesystem");
    std::string pvc_cond = ld(1, "Resizing") + ld(2, "True") + ld(3, "") + ld(4, time_of(ts)) + ld(5, "") + ld(6, "");
    std::string pvc_status = ld(1, "Bound") + ld(2, "ReadWriteOnce") + ld(3, ld(1, "storage") + ld(2, ld(1, "1Gi"))) +
                             ld(4, pvc_cond) + entry(7, "storage", "ControllerResizeInProgress") +
                             ld(9, ld(1, "") + ld(2, "Pending"));
    CHECK(decode_ok(envelope("v1", "PersistentVolumeClaim", ld(1, gogo_meta("data")) + ld(2, pvc_spec) + ld(3, pvc_status)),
                    "", "PersistentVolumeClaim") ==
          R"({"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":{"name":"data","creationTimestamp":null},)"
          R"("spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},)"
          R"("storageClassName":"standard","volumeMode":"Filesystem"},"status":{"phase":"Bound","accessModes":)"
          R"(["ReadWriteOnce"],"capacity":{"storage":"1Gi"},"conditions":[{"type":"Resizing","status":"True",)"
          R"("lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z"}],"allocatedResourceStatuses":)"
          R"({"storage":"ControllerResizeInProgress"},"modifyVolumeStatus":{"status":"Pending"}}})");

    std::string address = ld(1, "10.0.0.1") + ld(2, ld(1, "Pod") + ld(2, "default") + ld(3, "p")) + ld(3, "") + ld(4, "n1");
    std::string port = ld(1, "http") + vi(2, 80) + ld(3, "TCP") + ld(4, "http");
    CHECK(decode_ok(envelope("v1", "Endpoints", ld(1, gogo_meta("web")) + ld(2, ld(1, address) + ld(3, port))), "",
                    "Endpoints") ==
          R"({"kind":"Endpoints","apiVersion":"v1","metadata":{"name":"web","creationTimestamp":null},"subsets":)"
          R"([{"addresses":[{"ip":"10.0.0.1","nodeName":"n1","targetRef":{"kind":"Pod","namespace":"default",)"
          R"("name":"p"}}],"ports":[{"name":"http","port":80,"protocol":"TCP","appProtocol":"http"}]}]})");

    // EndpointSlice: its EndpointPort has pointers only (unlike core/v1's); endpoints and
    // ports are not omitempty.
    std::string endpoint = ld(1, "10.0.0.1") + ld(2, vi(1, 1) + vi(2, 1) + vi(3, 0)) + entry(5, "k", "v") +
                           ld(6, "n1") + ld(7, "a") + ld(8, ld(1, ld(1, "a")));
    std::string slice_port = ld(1, "http") + ld(2, "TCP") + vi(3, 80);
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("discovery.k8s.io/v1", "EndpointSlice",
                             ld(1, gogo_meta("web-1")) + ld(2, endpoint) + ld(3, slice_port) + ld(4, "IPv4")),
                    "discovery.k8s.io", "EndpointSlice", &skipped) ==
          R"({"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"web-1",)"
          R"("creationTimestamp":null},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":)"
          R"({"ready":true,"serving":true,"terminating":false},"deprecatedTopology":{"k":"v"},"nodeName":"n1",)"
          R"("zone":"a","hints":{"forZones":[{"name":"a"}]}}],"ports":[{"name":"http","protocol":"TCP","port":80}]})");
    CHECK(skipped.empty());
    CHECK(decode_ok(envelope("discovery.k8s.io/v1", "EndpointSlice", ld(4, "IPv6")), "discovery.k8s.io", "EndpointSlice") ==
          R"({"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"creationTimestamp":null},)"
          R"("addressType":"IPv6","endpoints":null,"ports":null})");
}

TEST_CASE("the kinds kubectl's imperative commands write are decodable") {
    const std::pair<const char*, const char*> kinds[] = {
        {"", "Pod"}, {"", "PersistentVolumeClaim"}, {"", "Endpoints"}, {"batch", "Job"}, {"batch", "CronJob"},
        {"rbac.authorization.k8s.io", "Role"}, {"rbac.authorization.k8s.io", "ClusterRole"},
        {"rbac.authorization.k8s.io", "RoleBinding"}, {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
        {"policy", "PodDisruptionBudget"}, {"networking.k8s.io", "Ingress"}, {"apps", "ReplicaSet"},
        {"apps", "StatefulSet"}, {"apps", "DaemonSet"}, {"discovery.k8s.io", "EndpointSlice"}};
    for (const auto& [group, kind] : kinds) {
        CAPTURE(kind);
        CHECK(protobuf_decodable(group, kind));
    }
    CHECK_FALSE(protobuf_decodable("batch", "Pod"));  // kinds are looked up with their group
}

TEST_CASE("authorization.k8s.io/v1 reviews as kubectl auth can-i sends them") {
    const std::string az = "authorization.k8s.io";
    std::vector<std::string> skipped;
    // gogo writes SubjectAccessReviewStatus{} as allowed(1) false, reason(2) "", evaluationError(3) "", denied(4) false.
    const std::string sar_status = vi(1, 0) + ld(2, "") + ld(3, "") + vi(4, 0);
    // kubectl auth can-i list pods -n default: ResourceAttributes{Namespace, Verb, Group, Resource,
    // Subresource, Name}, every string written; the selectors are nil pointers.
    std::string attrs = ld(1, "default") + ld(2, "list") + ld(3, "") + ld(4, "") + ld(5, "pods") + ld(6, "") + ld(7, "");
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview",
                             ld(1, gogo_meta("")) + ld(2, ld(1, attrs)) + ld(3, sar_status)),
                    az, "SelfSubjectAccessReview", &skipped) ==
          R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"default","verb":"list",)"
          R"("resource":"pods"}},"status":{"allowed":false}})");
    CHECK(skipped.empty());
    // kubectl auth can-i get /healthz: NonResourceAttributes{Verb, Path}.
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview",
                             ld(1, gogo_meta("")) + ld(2, ld(2, ld(1, "/healthz") + ld(2, "get"))) + ld(3, sar_status)),
                    az, "SelfSubjectAccessReview") ==
          R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"}},)"
          R"("status":{"allowed":false}})");
    // kubectl auth can-i --list -n default: the status's slices are nil (null, not omitempty).
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview",
                             ld(1, gogo_meta("")) + ld(2, ld(1, "default")) + ld(3, vi(3, 0) + ld(4, ""))),
                    az, "SelfSubjectRulesReview", &skipped) ==
          R"({"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"spec":{"namespace":"default"},"status":{"resourceRules":null,)"
          R"("nonResourceRules":null,"incomplete":false}})");
    CHECK(skipped.empty());
    // Empty message: the required spec and the status are structs, written as {}.
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview", ""), az, "SelfSubjectRulesReview") ==
          R"({"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"spec":{},"status":{"resourceRules":null,"nonResourceRules":null,)"
          R"("incomplete":false}})");
    // A rules review status as the server answers it.
    std::string rule = ld(1, "get") + ld(1, "list") + ld(2, "") + ld(3, "pods") + ld(4, "p");
    std::string nrule = ld(1, "get") + ld(2, "/healthz");
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview",
                             ld(3, ld(1, rule) + ld(2, nrule) + vi(3, 1) + ld(4, "webhook"))),
                    az, "SelfSubjectRulesReview")
              .find(R"("status":{"resourceRules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"],)"
                    R"("resourceNames":["p"]}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}],)"
                    R"("incomplete":true,"evaluationError":"webhook"}})") != std::string::npos);
    // incomplete is a varint on the wire, whatever its struct tag says.
    CHECK(decode_error(envelope("authorization.k8s.io/v1", "SelfSubjectRulesReview", ld(3, ld(3, ""))), az,
                       "SelfSubjectRulesReview") ==
          "SelfSubjectRulesReview in version \"v1\" cannot be handled as a SelfSubjectRulesReview: "
          "proto: wrong wireType = 2 for field Incomplete");
}

TEST_CASE("SubjectAccessReview and LocalSubjectAccessReview: user, groups, uid, selectors; extra is skipped") {
    const std::string az = "authorization.k8s.io";
    std::string field_req = ld(1, "spec.nodeName") + ld(2, "In") + ld(3, "n1") + ld(3, "n2");
    std::string label_req = ld(1, "app") + ld(2, "NotIn") + ld(3, "web");
    std::string attrs = ld(1, "ns") + ld(2, "list") + ld(3, "apps") + ld(4, "v1") + ld(5, "deployments") +
                        ld(6, "scale") + ld(7, "web") + ld(8, ld(1, "") + ld(2, field_req)) +
                        ld(9, ld(1, "tier=db") + ld(2, label_req));
    // extra(5): map entry {key "scopes", value ExtraValue{items(1) "a", "b"}}.
    std::string extra = ld(5, ld(1, "scopes") + ld(2, ld(1, "a") + ld(1, "b")));
    std::string spec = ld(1, attrs) + ld(3, "jane") + ld(4, "dev") + ld(4, "system:authenticated") + extra + ld(6, "u-1");
    std::string status = vi(1, 1) + ld(2, "RBAC: allowed by RoleBinding") + ld(3, "") + vi(4, 0);
    std::vector<std::string> skipped;
    const std::string body_json =
        R"("metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"namespace":"ns","verb":"list",)"
        R"("group":"apps","version":"v1","resource":"deployments","subresource":"scale","name":"web",)"
        R"("fieldSelector":{"requirements":[{"key":"spec.nodeName","operator":"In","values":["n1","n2"]}]},)"
        R"("labelSelector":{"rawSelector":"tier=db","requirements":[{"key":"app","operator":"NotIn",)"
        R"("values":["web"]}]}},"user":"jane","groups":["dev","system:authenticated"],"uid":"u-1"},)"
        R"("status":{"allowed":true,"reason":"RBAC: allowed by RoleBinding"}})";
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SubjectAccessReview",
                             ld(1, gogo_meta("")) + ld(2, spec) + ld(3, status)),
                    az, "SubjectAccessReview", &skipped) ==
          R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)" + body_json);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "spec: SubjectAccessReviewSpec field 5");
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "LocalSubjectAccessReview",
                             ld(1, gogo_meta("")) + ld(2, spec) + ld(3, status)),
                    az, "LocalSubjectAccessReview", &skipped) ==
          R"({"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)" + body_json);
    REQUIRE(skipped.size() == 1);
    // A user without groups, denied.
    CHECK(decode_ok(envelope("authorization.k8s.io/v1", "SubjectAccessReview",
                             ld(2, ld(2, ld(1, "/metrics") + ld(2, "get")) + ld(3, "bob") + ld(6, "")) +
                                 ld(3, vi(1, 0) + ld(2, "") + ld(3, "") + vi(4, 1))),
                    az, "SubjectAccessReview") ==
          R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"},)"
          R"("user":"bob"},"status":{"allowed":false,"denied":true}})");
}

TEST_CASE("authentication.k8s.io/v1 SelfSubjectReview (kubectl auth whoami) and TokenReview") {
    const std::string an = "authentication.k8s.io";
    std::vector<std::string> skipped;
    // kubectl auth whoami creates &SelfSubjectReview{}: gogo writes metadata and status{userInfo{"", ""}}.
    CHECK(decode_ok(envelope("authentication.k8s.io/v1", "SelfSubjectReview",
                             ld(1, gogo_meta("")) + ld(2, ld(1, ld(1, "") + ld(2, "")))),
                    an, "SelfSubjectReview", &skipped) ==
          R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"status":{"userInfo":{}}})");
    CHECK(skipped.empty());
    CHECK(decode_ok(envelope("authentication.k8s.io/v1", "SelfSubjectReview", ""), an, "SelfSubjectReview") ==
          R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"status":{"userInfo":{}}})");
    // The answer's userInfo; extra (4) is skipped.
    std::string user = ld(1, "kubernetes-admin") + ld(2, "") + ld(3, "kubeadm:cluster-admins") +
                       ld(3, "system:authenticated") + ld(4, ld(1, "k") + ld(2, ld(1, "v")));
    CHECK(decode_ok(envelope("authentication.k8s.io/v1", "SelfSubjectReview", ld(2, ld(1, user))), an,
                    "SelfSubjectReview", &skipped) ==
          R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":)"
          R"({"creationTimestamp":null},"status":{"userInfo":{"username":"kubernetes-admin",)"
          R"("groups":["kubeadm:cluster-admins","system:authenticated"]}}})");
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0] == "status.userInfo: UserInfo field 4");

    // TokenReview{Spec{Token, Audiences}}: gogo writes the empty status: authenticated(1) false,
    // user(2) {"", ""}, error(3) "".
    std::string tr_status = vi(1, 0) + ld(2, ld(1, "") + ld(2, "")) + ld(3, "");
    CHECK(decode_ok(envelope("authentication.k8s.io/v1", "TokenReview",
                             ld(1, gogo_meta("")) + ld(2, ld(1, "abc.def") + ld(2, "https://kubernetes.default.svc")) +
                                 ld(3, tr_status)),
                    an, "TokenReview", &skipped) ==
          R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},)"
          R"("spec":{"token":"abc.def","audiences":["https://kubernetes.default.svc"]},"status":{"user":{}}})");
    CHECK(skipped.empty());
    std::string tr_answer = vi(1, 1) + ld(2, ld(1, "system:serviceaccount:ns:sa") + ld(2, "u-9") + ld(3, "g")) +
                            ld(3, "") + ld(4, "api");
    CHECK(decode_ok(envelope("authentication.k8s.io/v1", "TokenReview", ld(2, ld(1, "t")) + ld(3, tr_answer)), an,
                    "TokenReview") ==
          R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},)"
          R"("spec":{"token":"t"},"status":{"authenticated":true,"user":{"username":"system:serviceaccount:ns:sa",)"
          R"("uid":"u-9","groups":["g"]},"audiences":["api"]}})");
}

TEST_CASE("the review kinds kubectl auth sends are decodable, in their own groups") {
    const std::pair<const char*, const char*> kinds[] = {
        {"authorization.k8s.io", "SelfSubjectAccessReview"}, {"authorization.k8s.io", "SubjectAccessReview"},
        {"authorization.k8s.io", "LocalSubjectAccessReview"}, {"authorization.k8s.io", "SelfSubjectRulesReview"},
        {"authentication.k8s.io", "SelfSubjectReview"}, {"authentication.k8s.io", "TokenReview"}};
    for (const auto& [group, kind] : kinds) {
        CAPTURE(kind);
        CHECK(protobuf_decodable(group, kind));
    }
    CHECK_FALSE(protobuf_decodable("authentication.k8s.io", "SubjectAccessReview"));
    CHECK_FALSE(protobuf_decodable("rbac.authorization.k8s.io", "SelfSubjectAccessReview"));
}

TEST_CASE("core/v1 ResourceQuota: kubectl create quota, scope selectors, status") {
    std::vector<std::string> skipped;
    // kubectl create quota q --hard=pods=10,cpu=2 --scopes=BestEffort (no namespace flag): gogo writes
    // the hard map sorted by key, the scopes, no scopeSelector (nil) and the empty status.
    std::string spec = quantity_entry(1, "cpu", "2") + quantity_entry(1, "pods", "10") + ld(2, "BestEffort");
    CHECK(decode_ok(envelope("v1", "ResourceQuota", ld(1, gogo_meta("q")) + ld(2, spec) + ld(3, "")), "",
                    "ResourceQuota", &skipped) ==
          R"({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q","creationTimestamp":null},)"
          R"("spec":{"hard":{"cpu":"2","pods":"10"},"scopes":["BestEffort"]},"status":{}})");
    CHECK(skipped.empty());

    // A scope selector (values omitted for Exists) and the status the quota controller writes.
    std::string selector = ld(1, ld(1, "PriorityClass") + ld(2, "In") + ld(3, "high") + ld(3, "low")) +
                           ld(1, ld(1, "CrossNamespacePodAffinity") + ld(2, "Exists"));
    std::string status = quantity_entry(1, "requests.memory", "1Gi") + quantity_entry(2, "requests.memory", "512Mi");
    CHECK(decode_ok(envelope("v1", "ResourceQuota",
                             ld(1, gogo_meta("q")) + ld(2, quantity_entry(1, "requests.memory", "1Gi") + ld(3, selector)) +
                                 ld(3, status)),
                    "", "ResourceQuota", &skipped) ==
          R"({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q","creationTimestamp":null},)"
          R"("spec":{"hard":{"requests.memory":"1Gi"},"scopeSelector":{"matchExpressions":[{"scopeName":)"
          R"("PriorityClass","operator":"In","values":["high","low"]},{"scopeName":"CrossNamespacePodAffinity",)"
          R"("operator":"Exists"}]}},"status":{"hard":{"requests.memory":"1Gi"},"used":{"requests.memory":"512Mi"}}})");
    CHECK(skipped.empty());
    // An empty scope selector is still sent (a pointer); an empty message writes its structs.
    CHECK(decode_ok(envelope("v1", "ResourceQuota", ld(2, ld(3, ""))), "", "ResourceQuota") ==
          R"({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"creationTimestamp":null},)"
          R"("spec":{"scopeSelector":{}},"status":{}})");
    CHECK(protobuf_decodable("", "ResourceQuota"));
}

TEST_CASE("core/v1 LimitRange: every ResourceList of a LimitRangeItem") {
    std::string container = ld(1, "Container") + quantity_entry(2, "cpu", "1") + quantity_entry(3, "cpu", "100m") +
                            quantity_entry(4, "cpu", "500m") + quantity_entry(4, "memory", "256Mi") +
                            quantity_entry(5, "cpu", "200m") + quantity_entry(6, "cpu", "4");
    std::string pod = ld(1, "Pod") + quantity_entry(2, "memory", "1Gi");
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("v1", "LimitRange", ld(1, gogo_meta("limits")) + ld(2, ld(1, container) + ld(1, pod))), "",
                    "LimitRange", &skipped) ==
          R"({"kind":"LimitRange","apiVersion":"v1","metadata":{"name":"limits","creationTimestamp":null},)"
          R"("spec":{"limits":[{"type":"Container","max":{"cpu":"1"},"min":{"cpu":"100m"},)"
          R"("default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"200m"},)"
          R"("maxLimitRequestRatio":{"cpu":"4"}},{"type":"Pod","max":{"memory":"1Gi"}}]}})");
    CHECK(skipped.empty());
    // limits is not omitempty: an empty spec writes null.
    CHECK(decode_ok(envelope("v1", "LimitRange", ld(1, gogo_meta("limits")) + ld(2, "")), "", "LimitRange") ==
          R"({"kind":"LimitRange","apiVersion":"v1","metadata":{"name":"limits","creationTimestamp":null},)"
          R"("spec":{"limits":null}})");
    CHECK(protobuf_decodable("", "LimitRange"));
}

TEST_CASE("core/v1 Node: a fake node as a test writes it, and the kubelet's status fields") {
    // Node{Name n1, a hostname label; Spec.Taints (one NoExecute with TimeAdded); Status.Capacity,
    // Allocatable, a Ready condition, addresses}: gogo writes every non-pointer field, the empty
    // daemonEndpoints and nodeInfo included.
    std::string taints = ld(5, ld(1, "dedicated") + ld(2, "gpu") + ld(3, "NoSchedule")) +
                         ld(5, ld(1, "node.kubernetes.io/unreachable") + ld(2, "") + ld(3, "NoExecute") +
                                   ld(4, time_of(ts)));
    std::string spec = ld(1, "") + ld(2, "") + ld(3, "") + vi(4, 0) + taints;
    std::string condition = ld(1, "Ready") + ld(2, "True") + ld(3, time_of(ts)) + ld(4, time_of(ts)) +
                            ld(5, "KubeletReady") + ld(6, "kubelet is posting ready status");
    std::string empty_info;
    for (std::uint32_t n = 1; n <= 10; ++n) empty_info += ld(n, "");
    std::string status = quantity_entry(1, "cpu", "4") + quantity_entry(1, "memory", "8Gi") +
                         quantity_entry(1, "pods", "110") + quantity_entry(2, "cpu", "3900m") +
                         quantity_entry(2, "memory", "7Gi") + quantity_entry(2, "pods", "110") + ld(3, "") +
                         ld(4, condition) + ld(5, ld(1, "InternalIP") + ld(2, "10.0.0.1")) +
                         ld(5, ld(1, "Hostname") + ld(2, "n1")) + ld(6, ld(1, vi(1, 0))) + ld(7, empty_info);
    const std::string empty_info_json =
        R"("nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"",)"
        R"("containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"",)"
        R"("architecture":""})";
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("v1", "Node",
                             ld(1, gogo_meta("n1", entry(11, "kubernetes.io/hostname", "n1"))) + ld(2, spec) +
                                 ld(3, status)),
                    "", "Node", &skipped) ==
          R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","creationTimestamp":null,"labels":)"
          R"({"kubernetes.io/hostname":"n1"}},"spec":{"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"},)"
          R"({"key":"node.kubernetes.io/unreachable","effect":"NoExecute","timeAdded":"2026-01-02T03:04:05Z"}]},)"
          R"("status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"3900m",)"
          R"("memory":"7Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True",)"
          R"("lastHeartbeatTime":"2026-01-02T03:04:05Z","lastTransitionTime":"2026-01-02T03:04:05Z",)"
          R"("reason":"KubeletReady","message":"kubelet is posting ready status"}],"addresses":[{"type":"InternalIP",)"
          R"("address":"10.0.0.1"},{"type":"Hostname","address":"n1"}],"daemonEndpoints":{"kubeletEndpoint":)"
          R"({"Port":0}},)" + empty_info_json + "}}");
    CHECK(skipped.empty());

    // Node{}: the status's structs are written whole, as encoding/json writes them.
    CHECK(decode_ok(envelope("v1", "Node", ""), "", "Node") ==
          R"({"kind":"Node","apiVersion":"v1","metadata":{"creationTimestamp":null},"spec":{},"status":)"
          R"({"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},)" + empty_info_json + "}}");

    // The rarer fields: podCIDRs, providerID, unschedulable, configSource, externalID; nodeInfo,
    // images, volumes, config, runtime handlers, features.
    std::string cm_source = ld(2, ld(1, "kube-system") + ld(2, "kubelet") + ld(3, "u-1") + ld(4, "7") + ld(5, "kubelet"));
    std::string spec2 = ld(1, "10.244.0.0/24") + ld(2, "ext-1") + ld(3, "kind://docker/kind/n1") + vi(4, 1) +
                        ld(6, cm_source) + ld(7, "10.244.0.0/24") + ld(7, "fd00::/64");
    std::string info = ld(1, "m") + ld(2, "s") + ld(3, "b") + ld(4, "6.1.0") + ld(5, "Debian GNU/Linux 12") +
                       ld(6, "containerd://1.7.0") + ld(7, "v1.32.13") + ld(8, "") + ld(9, "linux") + ld(10, "amd64");
    std::string status2 = ld(3, "") + ld(6, ld(1, vi(1, 10250))) + ld(7, info) +
                          ld(8, ld(1, "registry.k8s.io/pause:3.10") + ld(1, "registry.k8s.io/pause@sha256:ee") +
                                    vi(2, 320368)) +
                          ld(9, "kubernetes.io/csi/d^v1") +
                          ld(10, ld(1, "kubernetes.io/csi/d^v1") + ld(2, "/dev/sdb")) +
                          ld(11, ld(2, cm_source) + ld(4, "failed")) +
                          ld(12, ld(1, "") + ld(2, vi(1, 1) + vi(2, 0))) + ld(12, ld(1, "runc")) + ld(13, vi(1, 1));
    CHECK(decode_ok(envelope("v1", "Node", ld(1, gogo_meta("n1")) + ld(2, spec2) + ld(3, status2)), "", "Node",
                    &skipped) ==
          R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","creationTimestamp":null},"spec":)"
          R"({"podCIDR":"10.244.0.0/24","podCIDRs":["10.244.0.0/24","fd00::/64"],"providerID":"kind://docker/kind/n1",)"
          R"("unschedulable":true,"configSource":{"configMap":{"namespace":"kube-system","name":"kubelet","uid":"u-1",)"
          R"("resourceVersion":"7","kubeletConfigKey":"kubelet"}},"externalID":"ext-1"},"status":)"
          R"({"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"machineID":"m","systemUUID":"s",)"
          R"("bootID":"b","kernelVersion":"6.1.0","osImage":"Debian GNU/Linux 12","containerRuntimeVersion":)"
          R"("containerd://1.7.0","kubeletVersion":"v1.32.13","kubeProxyVersion":"","operatingSystem":"linux",)"
          R"("architecture":"amd64"},"images":[{"names":["registry.k8s.io/pause:3.10",)"
          R"("registry.k8s.io/pause@sha256:ee"],"sizeBytes":320368}],"volumesInUse":["kubernetes.io/csi/d^v1"],)"
          R"("volumesAttached":[{"name":"kubernetes.io/csi/d^v1","devicePath":"/dev/sdb"}],"config":{"active":)"
          R"({"configMap":{"namespace":"kube-system","name":"kubelet","uid":"u-1","resourceVersion":"7",)"
          R"("kubeletConfigKey":"kubelet"}},"error":"failed"},"runtimeHandlers":[{"name":"","features":)"
          R"({"recursiveReadOnlyMounts":true,"userNamespaces":false}},{"name":"runc"}],)"
          R"("features":{"supplementalGroupsPolicy":true}}})");
    CHECK(skipped.empty());
    CHECK(protobuf_decodable("", "Node"));
}

TEST_CASE("networking.k8s.io/v1 NetworkPolicy: peers, ports with IntOrString and endPort, policy types") {
    const std::string nw = "networking.k8s.io";
    // IntOrString as gogo writes it: type(1), intVal(2), strVal(3), all three.
    auto port = [](std::string_view protocol, std::string intorstr, std::string end = "") {
        return ld(1, protocol) + ld(2, intorstr) + end;
    };
    std::string tcp5432 = port("TCP", vi(1, 0) + vi(2, 5432) + ld(3, ""));
    std::string from = ld(2, ld(1, entry(1, "role", "api"))) +
                       ld(2, ld(1, entry(1, "role", "web")) + ld(2, entry(1, "team", "a"))) +
                       ld(2, ld(3, ld(1, "10.0.0.0/8") + ld(2, "10.1.0.0/16")));
    std::string ingress = ld(1, tcp5432) + from;
    std::string egress = ld(1, port("UDP", vi(1, 1) + vi(2, 0) + ld(3, "dns"))) +
                         ld(1, port("TCP", vi(1, 0) + vi(2, 32000) + ld(3, ""), vi(3, 32768))) +
                         ld(2, ld(3, ld(1, "0.0.0.0/0")));
    std::string spec = ld(1, entry(1, "app", "db")) + ld(2, ingress) + ld(3, egress) + ld(4, "Ingress") +
                       ld(4, "Egress");
    std::vector<std::string> skipped;
    CHECK(decode_ok(envelope("networking.k8s.io/v1", "NetworkPolicy", ld(1, gogo_meta("db")) + ld(2, spec)), nw,
                    "NetworkPolicy", &skipped) ==
          R"({"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1","metadata":{"name":"db",)"
          R"("creationTimestamp":null},"spec":{"podSelector":{"matchLabels":{"app":"db"}},"ingress":[{"ports":)"
          R"([{"protocol":"TCP","port":5432}],"from":[{"podSelector":{"matchLabels":{"role":"api"}}},)"
          R"({"podSelector":{"matchLabels":{"role":"web"}},"namespaceSelector":{"matchLabels":{"team":"a"}}},)"
          R"({"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}]}],"egress":[{"ports":[{"protocol":"UDP",)"
          R"("port":"dns"},{"protocol":"TCP","port":32000,"endPort":32768}],"to":[{"ipBlock":{"cidr":"0.0.0.0/0"}}]}],)"
          R"("policyTypes":["Ingress","Egress"]}})");
    CHECK(skipped.empty());
    // Deny all ingress: the empty podSelector is a struct, always written; an empty rule and an
    // empty peer selector (sent, so present) stay objects.
    CHECK(decode_ok(envelope("networking.k8s.io/v1", "NetworkPolicy",
                             ld(1, gogo_meta("deny")) + ld(2, ld(1, "") + ld(3, ld(2, ld(2, ""))) + ld(4, "Ingress"))),
                    nw, "NetworkPolicy") ==
          R"({"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1","metadata":{"name":"deny",)"
          R"("creationTimestamp":null},"spec":{"podSelector":{},"egress":[{"to":[{"namespaceSelector":{}}]}],)"
          R"("policyTypes":["Ingress"]}})");
    CHECK(decode_ok(envelope("networking.k8s.io/v1", "NetworkPolicy", ""), nw, "NetworkPolicy") ==
          R"({"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1","metadata":{"creationTimestamp":null},)"
          R"("spec":{"podSelector":{}}})");
    // endPort is a varint on the wire, whatever its struct tag says.
    CHECK(decode_error(envelope("networking.k8s.io/v1", "NetworkPolicy", ld(2, ld(2, ld(1, ld(3, ""))))), nw,
                       "NetworkPolicy") ==
          "NetworkPolicy in version \"v1\" cannot be handled as a NetworkPolicy: "
          "proto: wrong wireType = 2 for field EndPort");
    CHECK(protobuf_decodable(nw, "NetworkPolicy"));
    CHECK_FALSE(protobuf_decodable("", "NetworkPolicy"));
}
