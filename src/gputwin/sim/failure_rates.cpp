#include "gputwin/sim/failure_rates.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/replay_models.hpp"

namespace gputwin {
namespace {

const char* const kComponents[] = {"gpu", "gpu_memory", "nic", "network", "host", "software"};

std::optional<CountedUnit> counted_unit(std::string_view name) {
  if (name == "gpu") return CountedUnit::gpu;
  if (name == "node") return CountedUnit::node;
  if (name == "nic") return CountedUnit::nic;
  if (name == "switch") return CountedUnit::switch_;
  if (name == "domain") return CountedUnit::domain;
  return std::nullopt;
}

// A rate file's periods are the words hour, day and month, read with failure_options' unit table.
std::optional<double> hours_of_period(std::string_view name) {
  if (name != "hour" && name != "day" && name != "month") return std::nullopt;
  return *seconds_per_rate_unit(name) / 3600;
}

struct RateUnit {
  CountedUnit counted = CountedUnit::node;
  std::string counted_name;
  double period_hours = 1;
};

constexpr const char* kUnitHelp =
    "expected per_<gpu|node|nic|switch|domain>_<hour|day|month>, such as per_gpu_hour or per_node_day";

RateUnit rate_unit(const YamlField& field) {
  const std::string text = field.text();
  const auto first = text.find('_');
  const auto last = text.rfind('_');
  if (text.rfind("per_", 0) != 0 || first == last)
    field.fail("unknown rate unit '" + text + "'; " + kUnitHelp);
  const std::string counted = text.substr(first + 1, last - first - 1);
  const auto unit = counted_unit(counted);
  if (!unit) field.fail("unknown counted component '" + counted + "' in unit '" + text + "'; " + kUnitHelp);
  const auto period = hours_of_period(text.substr(last + 1));
  if (!period) field.fail("unknown period in unit '" + text + "'; " + kUnitHelp);
  return {*unit, counted, *period};
}

FailureScope scope_of(const YamlField& field) {
  const std::string text = field.text();
  if (text == "node") return FailureScope::node;
  if (text == "leaf_switch") return FailureScope::leaf_switch;
  if (text == "scale_up_domain") return FailureScope::scale_up_domain;
  if (text == "job_on_node") return FailureScope::job_on_node;
  field.fail("unknown scope '" + text + "'; expected node, leaf_switch, scale_up_domain or job_on_node");
}

double hours_of(const YamlField& field) {
  const std::string text = field.text();
  if (text == "0") return 0;
  const auto hours = parse_hours(text);
  if (!hours)
    field.fail("expected a duration with its unit (s, min, h, d), such as 48h or 90min, got '" + text + "'");
  return *hours;
}

struct Exposure {
  double hours = 0;
  std::map<std::string, double> units;  // counted unit name -> how many were watched
};

std::map<std::string, Exposure> read_exposures(const YamlField& root) {
  std::map<std::string, Exposure> exposures;
  const auto field = root.optional_child("exposures");
  if (!field) return exposures;
  for (const auto& [name, entry] : field->entries()) {
    entry.expect_keys({"source", "confidence", "hours", "units", "notes"});
    Exposure exposure;
    exposure.hours = entry.child("hours").positive_number();
    for (const auto& [unit, count] : entry.child("units").entries()) {
      if (!counted_unit(unit))
        count.fail("unknown counted component '" + unit + "'; expected gpu, node, nic, switch or domain");
      exposure.units[unit] = count.positive_number();
    }
    exposures[name] = exposure;
  }
  return exposures;
}

FailureRate read_row(const YamlField& row, const std::map<std::string, Exposure>& exposures) {
  row.expect_keys({"id", "component", "category", "scope", "count", "exposure", "value", "unit", "repair",
                   "repair_confidence", "distribution", "weibull_shape", "source", "confidence"});
  FailureRate rate;
  rate.id = row.child("id").text();
  const YamlField component = row.child("component");
  rate.component = component.text();
  bool known = false;
  for (const char* name : kComponents) known = known || rate.component == name;
  if (!known)
    component.fail("unknown component '" + rate.component +
                   "'; expected gpu, gpu_memory, nic, network, host or software");
  rate.category = row.child("category").text();
  rate.scope = scope_of(row.child("scope"));
  rate.source = row.child("source").text_or_list();
  rate.confidence = row.child("confidence").text();

  const bool has_count = row.has("count");
  const bool has_value = row.has("value");
  if (has_count == has_value) row.fail("give either count (with exposure) or value, each with its unit");
  if (!row.has("unit")) {
    (has_count ? row.child("count") : row.child("value"))
        .fail("a rate needs its unit: add unit: per_<gpu|node|nic|switch|domain>_<hour|day|month>");
  }
  const RateUnit unit = rate_unit(row.child("unit"));
  rate.counted = unit.counted;
  if (has_count) {
    const YamlField count = row.child("count");
    rate.count = count.number();
    if (rate.count < 0) count.fail("must not be negative");
    const YamlField exposure_field = row.child("exposure");
    const auto exposure = exposures.find(exposure_field.text());
    if (exposure == exposures.end())
      exposure_field.fail("unknown exposure '" + exposure_field.text() + "'; define it under exposures");
    const auto watched = exposure->second.units.find(unit.counted_name);
    if (watched == exposure->second.units.end()) {
      row.child("unit").fail("exposure '" + exposure_field.text() + "' does not say how many " +
                             unit.counted_name + "s were watched");
    }
    rate.rate_per_unit_hour = rate.count / (watched->second * exposure->second.hours);
  } else {
    const YamlField value = row.child("value");
    if (!(value.number() >= 0)) value.fail("must not be negative");
    rate.rate_per_unit_hour = value.number() / unit.period_hours;
  }

  const bool hardware = rate.scope != FailureScope::job_on_node;
  if (const auto repair = row.optional_child("repair")) {
    rate.repair_hours = hours_of(*repair);
    if (hardware && !(rate.repair_hours > 0)) {
      repair->fail(std::string("must be greater than zero for scope ") + scope_name(rate.scope) +
                   " (the struck hardware is out until repaired)");
    }
    if (!hardware && rate.repair_hours != 0)
      repair->fail("scope job_on_node restarts the job only: no repair");
  } else if (hardware) {
    row.fail(std::string("missing repair: scope ") + scope_name(rate.scope) +
             " takes hardware out until repaired");
  }
  if (const auto distribution = row.optional_child("distribution")) {
    if (distribution->one_of({"exponential", "weibull"}) == "weibull") {
      rate.weibull_shape = row.child("weibull_shape").positive_number();
    }
  }
  return rate;
}

}  // namespace

const char* scope_name(FailureScope scope) {
  switch (scope) {
    case FailureScope::node:
      return "node";
    case FailureScope::leaf_switch:
      return "leaf_switch";
    case FailureScope::scale_up_domain:
      return "scale_up_domain";
    case FailureScope::job_on_node:
      return "job_on_node";
  }
  return "?";
}

std::optional<double> parse_hours(std::string_view text) {
  std::string compact;  // "1.5 h" as "1.5h": the one duration reader takes no space before the unit
  for (char c : text)
    if (c != ' ') compact += c;
  try {
    return parse_duration_s(compact, "") / 3600;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

const FailureProfile* FailureRates::profile(std::string_view name) const {
  for (const auto& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string FailureRates::profile_names() const {
  std::string names;
  for (const auto& p : profiles) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

namespace {

FailureRates read_failure_rates(const YamlDocument& document) {
  const YamlField root = document.root();
  root.expect_keys({"title", "exposures", "repair_defaults_note", "profiles", "replacement_thresholds",
                    "job_defaults", "node_repair_default"});
  const auto exposures = read_exposures(root);
  FailureRates rates;
  for (const auto& [profile_name, entry] : root.child("profiles").entries()) {
    entry.expect_keys({"description", "set", "rows"});
    FailureProfile profile;
    profile.name = profile_name;
    profile.description = entry.child("description").text();
    profile.set = entry.child("set").one_of({"fit", "evaluation"});
    for (const YamlField& row : entry.child("rows").items()) profile.rows.push_back(read_row(row, exposures));
    if (profile.rows.empty()) entry.child("rows").fail("a profile needs at least one row");
    rates.profiles.push_back(std::move(profile));
  }
  if (const auto thresholds = root.optional_child("replacement_thresholds")) {
    for (const YamlField& row : thresholds->items()) {
      row.expect_keys({"generation", "mechanism", "limit", "meaning", "source", "confidence"});
      rates.replacement_thresholds.push_back({row.child("generation").text(), row.child("mechanism").text(),
                                              static_cast<int>(row.child("limit").positive_integer()),
                                              row.child("source").text()});
    }
  }
  const YamlField defaults = root.child("job_defaults");
  defaults.expect_keys({"checkpoint_write", "restart", "source", "confidence"});
  rates.job_defaults.checkpoint_write_hours = hours_of(defaults.child("checkpoint_write"));
  rates.job_defaults.restart_hours = hours_of(defaults.child("restart"));
  rates.job_defaults.source = defaults.child("source").text();
  if (const auto repair = root.optional_child("node_repair_default")) {
    repair->expect_keys({"repair", "source", "confidence"});
    const YamlField hours = repair->child("repair");
    NodeRepairDefault node_repair{hours_of(hours), repair->child("source").text(),
                                  repair->child("confidence").text()};
    if (!(node_repair.repair_hours > 0))
      hours.fail("must be greater than zero (a failed node is out until repaired)");
    rates.node_repair_default = node_repair;
  }
  return rates;
}

}  // namespace

Result<FailureRates> parse_failure_rates(const std::string& text, const std::string& name) {
  return result_of<FailureRates>([&] { return read_failure_rates(YamlDocument::parse(text, name)); });
}

Result<FailureRates> load_failure_rates(const std::string& path) {
  return result_of<FailureRates>([&] { return read_failure_rates(YamlDocument::load(path)); });
}

namespace {

double units_per_node(CountedUnit counted, const ClusterShape& shape) {
  switch (counted) {
    case CountedUnit::gpu:
      return shape.gpus_per_node;
    case CountedUnit::node:
      return 1.0;
    case CountedUnit::nic:
      return shape.nics_per_node;
    case CountedUnit::switch_:
      return static_cast<double>(shape.leaves_per_node) / shape.nodes_per_leaf;
    case CountedUnit::domain:
      return 1.0 / shape.nodes_per_domain;
  }
  return 1.0;
}

double nodes_per_scope_unit(FailureScope scope, const ClusterShape& shape) {
  switch (scope) {
    case FailureScope::node:
    case FailureScope::job_on_node:
      return 1.0;
    case FailureScope::leaf_switch:
      return static_cast<double>(shape.nodes_per_leaf) / shape.leaves_per_node;
    case FailureScope::scale_up_domain:
      return shape.nodes_per_domain;
  }
  return 1.0;
}

}  // namespace

std::vector<FailureProcess> failure_processes(const FailureProfile& profile, const ClusterShape& shape) {
  std::vector<FailureProcess> processes;
  processes.reserve(profile.rows.size());
  for (const FailureRate& row : profile.rows) {
    FailureProcess process;
    process.cause = row.id;
    process.category = row.category;
    process.scope = row.scope;
    process.rate_per_unit_hour =
        row.rate_per_unit_hour * units_per_node(row.counted, shape) * nodes_per_scope_unit(row.scope, shape);
    process.weibull_shape = row.weibull_shape;
    process.repair_hours = row.repair_hours;
    process.source = profile.name + ": " + row.source;
    processes.push_back(std::move(process));
  }
  return processes;
}

std::optional<ClusterShape> cluster_shape(const Cluster& cluster, int nodes_per_leaf) {
  const NodeType* node = cluster.sole_node_type();
  if (node == nullptr || node->gpus == 0) return std::nullopt;
  ClusterShape shape;
  shape.gpus_per_node = node->gpus;
  const auto compute = node->nics.find(NetworkRole::compute);
  shape.nics_per_node = compute == node->nics.end() ? 1 : compute->second.ports;
  shape.nodes_per_leaf = nodes_per_leaf;
  if (const Fabric* fabric = cluster.fabric(NetworkRole::compute);
      fabric != nullptr && fabric->leaf_downlinks > 0) {
    const bool rail = fabric->topology == "rail_optimized";
    shape.nodes_per_leaf =
        rail ? fabric->leaf_downlinks : std::max(1, fabric->leaf_downlinks / fabric->node_slots);
    shape.leaves_per_node = rail ? fabric->rails : 1;
  }
  if (const ScaleUpDomain* domain = cluster.first_node_domain(); domain != nullptr) {
    shape.nodes_per_domain = std::max<int>(1, static_cast<int>(domain->nodes.size()));
  }
  return shape;
}

ClusterShape cluster_shape(const ReplayTopology& topology) {
  auto largest_group = [](const std::vector<int>& group_of_node) {
    std::map<int, int> members;
    for (int group : group_of_node) ++members[group];
    int largest = 1;
    for (const auto& [group, count] : members) largest = std::max(largest, count);
    return largest;
  };
  ClusterShape shape;
  shape.gpus_per_node = topology.gpus_per_node;
  shape.nics_per_node = topology.gpus_per_node;
  shape.nodes_per_leaf = largest_group(topology.leaf_of_node);
  shape.leaves_per_node = 1;
  shape.nodes_per_domain = largest_group(topology.domain_of_node);
  return shape;
}

}  // namespace gputwin
