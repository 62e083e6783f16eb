// kube-apiserver's Table printers for the built-in kinds that table.cpp does
// not print itself: pods, endpoints, persistentvolumeclaims, nodes,
// resourcequotas, serviceaccounts, replicasets, statefulsets, daemonsets,
// jobs, cronjobs, endpointslices, ingresses, networkpolicies, rolebindings,
// clusterrolebindings, poddisruptionbudgets (the column definitions and print
// functions of pkg/printers/internalversion/printers.go, v1.32), and
// limitranges, roles, clusterroles, which have no printer there and get the
// default table convertor's Name and "Created At" (k8s.io/apiserver
// pkg/registry/rest/table.go).
//
// Columns as printers.go declares them (Age is a "string" column there);
// cells as its print functions compute them with options.Wide (the server
// always prints wide, so priority 1 cells are always present).
//
// Pure functions; thread safety: values.
#pragma once

#include "http/table.hpp"

#include <kcoro/core/time.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string_view>
#include <vector>

namespace kcoro::apiserver::http {

/// The columns of the kind's printer, Name first; empty for a kind not
/// printed here.
std::vector<table_column> builtin_printer_columns(std::string_view group, std::string_view resource);

/// One cell of a column from builtin_printer_columns (null for anything else).
boost::json::value builtin_printer_cell(std::string_view group, std::string_view resource, std::string_view column,
                                        const boost::json::object& obj, wall_time now);

} // namespace kcoro::apiserver::http
