// Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`
// answered with a meta.k8s.io Table, as kube-apiserver does for `kubectl get`,
// and content negotiation of the Accept header.
//
// Columns: custom resources get Name plus their version's
// additionalPrinterColumns (Age, from .metadata.creationTimestamp, when the
// CRD declares none), as the apiextensions table convertor does; built-ins
// get the leading columns of kube-apiserver's printers for the kinds served
// here (ConfigMap Data, Secret Type/Data, Namespace Status, Deployment
// Ready/Up-to-date/Available, Service Type/Cluster-IP, Lease Holder) and Age;
// events get the event printer's columns (Last Seen, Type, Reason, Object,
// Message; Subobject, Source, First Seen, Count, Name at priority 1).
// Date cells are human durations ("5m", "2d3h"; HumanDuration of
// k8s.io/apimachinery), JSONPath columns support dotted paths with [n]
// indices. Rows carry the object as PartialObjectMetadata (includeObject
// Metadata, the default), the whole object (Object) or nothing (None).
//
// Pure functions; thread safety: values.
#pragma once

#include "http/negotiation.hpp"

#include <kcoro/core/time.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

/// HumanDuration (k8s.io/apimachinery/pkg/util/duration).
std::string human_duration(std::chrono::seconds d);

struct table_column {
    std::string name;        // "Name"
    std::string type;        // string, integer, number, boolean, date
    std::string format;      // "name" for the Name column
    std::string description;
    int priority = 0;
    std::string json_path;   // ".spec.size"; empty for computed columns
};

/// The columns for a kind. `printer_columns` is the CRD version's
/// additionalPrinterColumns (null when the resource is a built-in).
std::vector<table_column> table_columns(std::string_view group, std::string_view resource,
                                        const boost::json::array* printer_columns, bool is_custom);

struct table_options {
    std::string api_version = "meta.k8s.io/v1";
    std::string include_object = "Metadata";  // None, Metadata, Object
    wall_time now{};
    bool no_headers = false;
};

/// A Table of `items` (objects with apiVersion/kind); `list_meta` becomes its
/// metadata (resourceVersion, continue, remainingItemCount).
boost::json::object make_table(const std::vector<table_column>& columns, std::string_view group,
                               std::string_view resource, const std::vector<const boost::json::object*>& items,
                               boost::json::object list_meta, const table_options& opts);

} // namespace kcoro::apiserver::http
