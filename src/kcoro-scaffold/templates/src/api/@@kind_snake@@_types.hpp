// The @@kind@@ resource (@@group@@/@@version@@) as a typed struct: the one
// place its fields, defaults, bounds and CRD facts are written.
// deploy/crd/@@group@@_@@plural@@.yaml is generated from it
// (@@name@@-crdgen --output-dir deploy/crd; the crd-up-to-date test fails
// when the committed file is stale). What a schema cannot say goes in
// validate(). See kcoro's docs/typed.md.
#pragma once

#include <kcoro/typed/condition.hpp>
#include <kcoro/typed/declare.hpp>
#include <kcoro/typed/field_error.hpp>
#include <kcoro/typed/object_meta.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace @@namespace@@::@@version@@ {

struct @@kind_snake@@_spec {
    std::string message;
    std::int32_t copies = 1;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(@@kind_snake@@_spec, (), (message, copies))
KCORO_FIELDS(@@kind_snake@@_spec,
             field("message").required().min_length(1).max_length(1024).description("What the child ConfigMap holds."),
             field("copies").defaulted().minimum(1).maximum(10).description("How many times the message is written."))

struct @@kind_snake@@_status {
    std::int64_t observed_generation = 0;
    std::vector<kcoro::typed::condition> conditions;
    kcoro::typed::unknown_fields unknown;
    friend bool operator==(const @@kind_snake@@_status&, const @@kind_snake@@_status&) = default;
};
BOOST_DESCRIBE_STRUCT(@@kind_snake@@_status, (), (observed_generation, conditions))
KCORO_FIELDS(@@kind_snake@@_status, field("observed_generation").omit_empty(), field("conditions").list_map("type"))

struct @@kind_snake@@ {
    kcoro::typed::object_meta metadata;
    @@kind_snake@@_spec spec;
    @@kind_snake@@_status status;
    kcoro::typed::unknown_fields unknown;
};
BOOST_DESCRIBE_STRUCT(@@kind_snake@@, (), (metadata, spec, status))
KCORO_FIELDS(@@kind_snake@@, field("spec").required())
KCORO_RESOURCE(@@kind_snake@@, resource("@@group@@", "@@version@@", "@@kind@@", "@@plural@@")
    .status_subresource()
    .column("Copies", "integer", ".spec.copies")
    .column("Age", "date", ".metadata.creationTimestamp")
    .description("@@kind@@ is the Schema for the @@plural@@ API."))

/// Cross-field rules (the schema has the rest): none yet.
kcoro::typed::field_errors validate(const @@kind_snake@@& obj);

} // namespace @@namespace@@::@@version@@
