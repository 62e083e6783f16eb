// Defaults and validation of the kinds that carry a pod template or are a
// pod (core/v1 Pod, apps/v1 ReplicaSet, StatefulSet, DaemonSet, batch/v1 Job,
// CronJob), after v1.32's pkg/apis/{core,apps,batch}/v1/defaults.go,
// pkg/apis/{apps,batch}/validation/validation.go and the strategies'
// PrepareForCreate (pkg/registry/...). Pure functions on JSON values, called
// from builtin_rules.cpp's default_and_validate_builtin. `old` is null on
// create.
#pragma once

#include <kcoro/core/label_selector.hpp>
#include <kcoro/core/status.hpp>

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kcoro::apiserver {

/// SetDefaults_PodSpec and the container defaults (pod templates and pods).
void default_pod_spec(boost::json::object& pod_spec);
/// The selector a metav1.LabelSelector means; nullopt when it does not parse.
std::optional<label_selector> selector_of(const boost::json::object& sel);
/// Go's %#v of a map[string]string, as validation messages print labels.
std::string go_string_map(const boost::json::object* m);

/// Go's %#v of a *metav1.LabelSelector (how an Invalid value prints it).
std::string go_label_selector(const boost::json::object& sel);
/// The apps kinds' selector checks on `spec` (required unless
/// `selector_required` is false, parses, not empty: "empty selector is
/// invalid for <word>", matches the template's labels).
void check_selector(const boost::json::object& spec, std::string_view word, bool selector_required,
                    std::vector<status_cause>& causes);

std::vector<status_cause> pod_rules(boost::json::object& obj, const boost::json::object* old);
std::vector<status_cause> replica_set_rules(boost::json::object& obj, const boost::json::object* old);
std::vector<status_cause> stateful_set_rules(boost::json::object& obj, const boost::json::object* old);
std::vector<status_cause> daemon_set_rules(boost::json::object& obj, const boost::json::object* old);
std::vector<status_cause> job_rules(boost::json::object& obj, const boost::json::object* old);
std::vector<status_cause> cron_job_rules(boost::json::object& obj, const boost::json::object* old);

} // namespace kcoro::apiserver
