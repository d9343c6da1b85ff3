#include "gputwin/validate/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <tuple>

#include "gputwin/catalog/mig_rules.hpp"
#include "gputwin/validate/finding_collector.hpp"

namespace gputwin::validate {
namespace {

using Values = FindingValues;

std::string count_text(const std::optional<std::int64_t>& count) {
  return count ? std::to_string(*count) : "n/a";
}

std::string joined(const std::vector<std::string>& words, std::string_view separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : std::string(separator)) + word;
  return text;
}

bool contains(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

struct GpuContext {
  const FleetNode& node;
  const GpuFacts& gpu;
  [[nodiscard]] SourceLocation where() const {
    return {gpu.source.empty() ? node.facts->source : gpu.source, gpu.line, 0};
  }
};

void check_memory_errors(const GpuContext& at, Findings& out) {
  const GpuFacts& gpu = at.gpu;
  if (gpu.ecc.volatile_uncorrectable.value_or(0) > 0 || gpu.ecc.aggregate_uncorrectable.value_or(0) > 0)
    out.add("ecc-uncorrectable", at.node.name, gpu.index, at.where(),
            {{"volatile", count_text(gpu.ecc.volatile_uncorrectable)},
             {"aggregate", count_text(gpu.ecc.aggregate_uncorrectable)}});
  if (gpu.retired_pages.pending.value_or(false))
    out.add("retired-pages-pending", at.node.name, gpu.index, at.where(),
            {{"single_bit", count_text(gpu.retired_pages.single_bit_ecc)},
             {"double_bit", count_text(gpu.retired_pages.double_bit_ecc)}});
  const Values remapped = {{"uncorrectable", count_text(gpu.row_remapping.uncorrectable)},
                           {"correctable", count_text(gpu.row_remapping.correctable)}};
  if (gpu.row_remapping.pending.value_or(false))
    out.add("row-remap-pending", at.node.name, gpu.index, at.where(), remapped);
  if (gpu.row_remapping.failure.value_or(false))
    out.add("row-remap-failure", at.node.name, gpu.index, at.where(), remapped);
}

// An idle GPU lowers its link generation; only a GPU in one of the data's working performance states is
// judged.
bool link_generation_judged(const GpuFacts& gpu, const CheckRule& rule) {
  if (!gpu.performance_state) return false;
  if (gpu.active_clock_event_reasons && contains(*gpu.active_clock_event_reasons, "gpu_idle")) return false;
  return contains(rule.word_parameters.at("judged_performance_states"), *gpu.performance_state);
}

void check_pcie(const GpuContext& at, Findings& out) {
  const PcieLink& pcie = at.gpu.pcie;
  if (pcie.width_current && pcie.width_max && *pcie.width_current < *pcie.width_max)
    out.add("pcie-width-below-max", at.node.name, at.gpu.index, at.where(),
            {{"width", std::to_string(*pcie.width_current)}, {"max_width", std::to_string(*pcie.width_max)}});
  if (pcie.generation_current && pcie.generation_max && *pcie.generation_current < *pcie.generation_max &&
      link_generation_judged(at.gpu, out.rule("pcie-generation-below-max")))
    out.add("pcie-generation-below-max", at.node.name, at.gpu.index, at.where(),
            {{"generation", std::to_string(*pcie.generation_current)},
             {"max_generation", std::to_string(*pcie.generation_max)},
             {"pstate", *at.gpu.performance_state}});
}

void check_clocks_and_power(const GpuContext& at, Findings& out) {
  const GpuFacts& gpu = at.gpu;
  if (gpu.active_clock_event_reasons) {
    std::vector<std::string> held_by;
    for (const std::string& reason : *gpu.active_clock_event_reasons)
      if (contains(out.rule("clocks-throttled").word_parameters.at("reasons"), reason))
        held_by.push_back(reason);
    if (!held_by.empty())
      out.add("clocks-throttled", at.node.name, gpu.index, at.where(), {{"reasons", joined(held_by, ", ")}});
  }
  const auto limit = gpu.power.limit ? gpu.power.limit : gpu.power.enforced_limit;
  if (limit && gpu.power.default_limit && *limit < *gpu.power.default_limit)
    out.add("power-limit-below-default", at.node.name, gpu.index, at.where(),
            {{"limit", fmt::format("{:g} W", in_watts(*limit))},
             {"default_limit", fmt::format("{:g} W", in_watts(*gpu.power.default_limit))}});
  if (gpu.persistence_mode == false) out.add("persistence-mode-off", at.node.name, gpu.index, at.where(), {});
}

void check_xid(const GpuContext& at, Findings& out) {
  const int xid = at.gpu.last_xid.value_or(0);
  if (xid == 0) return;
  const bool critical = contains(out.rule("xid-critical").word_parameters.at("xids"), std::to_string(xid));
  out.add(critical ? "xid-critical" : "xid-reported", at.node.name, at.gpu.index, at.where(),
          {{"xid", std::to_string(xid)}});
}

// The GPU's own limit when it reports one, else the data's.
void check_temperature(const GpuContext& at, std::string_view sensor, const std::optional<double>& measured,
                       const std::optional<double>& own_limit, std::string_view data_limit, Findings& out) {
  if (!measured) return;
  const CheckRule& rule = out.rule("temperature-above-limit");
  const double limit = own_limit.value_or(rule.number_parameters.at(std::string(data_limit)));
  if (*measured <= limit) return;
  out.add(rule.id, at.node.name, at.gpu.index, at.where(),
          {{"sensor", std::string(sensor)},
           {"measured", fmt::format("{:g}", *measured)},
           {"limit", fmt::format("{:g}", limit)},
           {"limit_source", own_limit ? "reported by the GPU" : "the checks data's default"}});
}

void check_link_errors(const GpuContext& at, Findings& out) {
  const CheckRule& replays = out.rule("pcie-replays");
  const double max_replays = replays.number_parameters.at("max_replays");
  if (at.gpu.pcie_replays && static_cast<double>(*at.gpu.pcie_replays) > max_replays)
    out.add(replays.id, at.node.name, at.gpu.index, at.where(),
            {{"replays", std::to_string(*at.gpu.pcie_replays)}, {"limit", fmt::format("{:g}", max_replays)}});
  const NvlinkErrors& nvlink = at.gpu.nvlink_errors;
  std::vector<std::string> errors;
  for (const auto& [name, count] :
       {std::pair{"CRC flit", nvlink.crc_flit}, std::pair{"CRC data", nvlink.crc_data},
        std::pair{"replay", nvlink.replay}, std::pair{"recovery", nvlink.recovery}})
    if (count.value_or(0) > 0) errors.push_back(fmt::format("{} {}", *count, name));
  if (!errors.empty())
    out.add("nvlink-errors", at.node.name, at.gpu.index, at.where(), {{"errors", joined(errors, ", ")}});
}

void check_health_counters(const GpuContext& at, Findings& out) {
  check_xid(at, out);
  check_temperature(at, "GPU", at.gpu.temperature_celsius, at.gpu.max_operating_temperature_celsius,
                    "gpu_limit_celsius", out);
  check_temperature(at, "memory", at.gpu.memory_temperature_celsius,
                    at.gpu.memory_max_operating_temperature_celsius, "memory_limit_celsius", out);
  check_link_errors(at, out);
}

// Outputs of one node that report a fact differently (merge_node_facts kept one value and named both).
void check_disagreements(const FleetNode& node, Findings& out) {
  if (!node.facts) return;
  for (const FactDisagreement& disagreement : node.facts->disagreements)
    out.add("sources-disagree", node.name, disagreement.gpu, {node.facts->source, 0, 0},
            {{"fact", disagreement.fact},
             {"used", disagreement.used},
             {"used_at", disagreement.used_at},
             {"other", disagreement.other},
             {"other_at", disagreement.other_at}});
}

double nearest_nominal(double gigabytes, const std::vector<double>& nominal) {
  double best = nominal.front();
  for (double each : nominal)
    if (std::abs(each - gigabytes) < std::abs(best - gigabytes)) best = each;
  return best;
}

std::string memory_list(const std::vector<double>& sizes) {
  std::string text;
  for (double size : sizes) text += fmt::format("{}{:g}", text.empty() ? "" : "+", size);
  return text + " GB";
}

void check_mig(const GpuContext& at, const IntendedMig& intended, Findings& out) {
  const std::string expected =
      fmt::format("{} ({} instances, {})", intended.layout, intended.instance_memory_gb.size(),
                  memory_list(intended.instance_memory_gb));
  if (at.gpu.mig_enabled != true) {
    const std::string mode = at.gpu.mig_enabled ? "mode disabled" : "mode not reported";
    out.add("mig-layout-mismatch", at.node.name, at.gpu.index, at.where(),
            {{"measured", mode}, {"expected", expected}});
    return;
  }
  std::vector<double> measured;
  for (const MigDevice& device : at.gpu.mig_devices)
    if (device.memory_total)
      measured.push_back(nearest_nominal(in_gigabytes(*device.memory_total), intended.profile_memory_gb));
  std::sort(measured.rbegin(), measured.rend());
  if (measured == intended.instance_memory_gb && measured.size() == at.gpu.mig_devices.size()) return;
  out.add("mig-layout-mismatch", at.node.name, at.gpu.index, at.where(),
          {{"measured", fmt::format("{} instances ({})", at.gpu.mig_devices.size(),
                                    measured.empty() ? "no sizes" : memory_list(measured))},
           {"expected", expected}});
}

void check_gpus(const FleetNode& node, const CheckOptions& options, Findings& out) {
  if (!node.facts) return;
  for (const GpuFacts& gpu : node.facts->gpus) {
    const GpuContext at{node, gpu};
    check_memory_errors(at, out);
    check_pcie(at, out);
    check_clocks_and_power(at, out);
    check_health_counters(at, out);
    if (options.mig) check_mig(at, *options.mig, out);
  }
  check_disagreements(node, out);
}

void check_diag(const FleetNode& node, const DcgmDiagReport& report, Findings& out) {
  if (report.runtime_error)
    out.add("dcgm-diag-fail", node.name, std::nullopt, {report.source, 0, 0},
            {{"category", "run"}, {"test", "dcgmi diag"}, {"detail", ": " + *report.runtime_error}});
  for (const DiagTest& test : report.tests)
    for (const DiagResult& result : test.results) {
      const char* rule = result.status == "Fail"   ? "dcgm-diag-fail"
                         : result.status == "Warn" ? "dcgm-diag-warn"
                                                   : nullptr;
      if (rule == nullptr) continue;
      std::string detail = joined(result.warnings, "; ");
      if (detail.empty() && result.info) detail = *result.info;
      // DCGM 4.x also tests CPUs and NVSwitches: their ids are no GPU indexes, so they go into the message.
      const bool on_gpus = !result.entity_group || *result.entity_group == "GPU";
      if (!on_gpus)
        for (int id : result.entity_ids)
          detail = *result.entity_group + " " + std::to_string(id) + (detail.empty() ? "" : ": " + detail);
      const Values values = {
          {"category", test.category}, {"test", test.name}, {"detail", detail.empty() ? "" : ": " + detail}};
      if (result.entity_ids.empty() || !on_gpus)
        out.add(rule, node.name, std::nullopt, {report.source, 0, 0}, values);
      else
        for (int gpu : result.entity_ids) out.add(rule, node.name, gpu, {report.source, 0, 0}, values);
    }
}

void check_nccl_results(const FleetNode& node, const NcclTestsRun& run, Findings& out) {
  std::int64_t wrong = 0;
  const CollectiveRow* first_wrong = nullptr;
  for (const CollectiveRow& row : run.rows) {
    const std::int64_t here = row.out_of_place.wrong.value_or(0) + row.in_place.wrong.value_or(0);
    if (here > 0 && first_wrong == nullptr) first_wrong = &row;
    wrong += here;
  }
  const std::int64_t bounds = run.out_of_bounds.value_or(0);
  if (wrong == 0 && bounds == 0) return;
  out.add("nccl-wrong-results", node.name, std::nullopt, {run.source, first_wrong ? first_wrong->line : 0, 0},
          {{"collective", collective_of_run(run).value_or("nccl-tests")},
           {"wrong", std::to_string(wrong)},
           {"size", first_wrong ? fmt::format("{:.0f}", first_wrong->size.base()) : "any"},
           {"bounds", bounds > 0 ? fmt::format("; {} out-of-bounds values", bounds) : ""}});
}

void check_nccl_busbw(const FleetNode& node, const NcclTestsRun& run, const CheckOptions& options,
                      Findings& out) {
  const auto largest = largest_message(run);
  if (!largest) return;
  const std::string collective = collective_of_run(run).value_or("");
  const SourceLocation where{run.source, largest->line, 0};
  const auto not_compared = [&](const std::string& reason) {
    out.add("nccl-busbw-not-compared", node.name, std::nullopt, where,
            {{"collective", collective.empty() ? "nccl-tests" : collective}, {"reason", reason}});
  };
  if (!options.predict_busbw) return;  // no design: the report says so once, for all runs
  if (collective.empty()) return not_compared("neither the output nor the file name names the collective");
  if (options.design && gpu_model_differs(node, *options.design))
    return not_compared("the node's GPUs are not the designed model, see gpu-model-mismatch");
  const BusbwPrediction expected = options.predict_busbw(collective, rank_count(run), largest->bytes);
  if (!expected.busbw_gbps) return not_compared(expected.reason);
  const CheckRule& rule = out.rule("nccl-busbw-below-prediction");
  const double margin = options.busbw_margin.value_or(rule.fraction_parameters.at("margin"));
  if (largest->busbw_gbps >= *expected.busbw_gbps * (1 - margin)) return;
  out.add(rule.id, node.name, std::nullopt, where,
          {{"collective", collective},
           {"ranks", std::to_string(rank_count(run))},
           {"size", std::to_string(largest->bytes)},
           {"measured", fmt::format("{:.2f}", largest->busbw_gbps)},
           {"expected", fmt::format("{:.2f}", *expected.busbw_gbps)},
           {"shortfall", fmt::format("{:.1f} %", 100 * (1 - largest->busbw_gbps / *expected.busbw_gbps))},
           {"margin", fmt::format("{:g} %", 100 * margin)}});
}

void check_inputs(const FleetNode& node, Findings& out) {
  for (const InputError& error : node.errors)
    out.add("input-unreadable", node.name, std::nullopt, error.where,
            {{"error", error.field.empty() ? error.message : error.field + ": " + error.message}});
  for (const FleetFile& file : node.files)
    if (file.kind == FileKind::unknown && !file.unknown_reason.empty())
      out.add("input-not-understood", node.name, std::nullopt, {file.path, 0, 0},
              {{"reason", file.unknown_reason}});
  if (!has_readable_capture(node)) {
    out.add("node-without-capture", node.name, std::nullopt,
            {node.path.empty() ? node.name : node.path, 0, 0},
            {{"files", node.files.size() == 1 ? "1 file" : fmt::format("{} files", node.files.size())}});
  }
}

// One fleet-wide value (a driver version) per member (a node, or a GPU of one model): members holding
// anything but the most common value are named. When several values tie for most common there is no norm to
// name a minority against, so every member is named with the tied values.
struct Member {
  const FleetNode* node;
  std::optional<int> gpu;
  SourceLocation where;
  std::string value;
};

void name_minority(const std::string& what, const std::string& scope, const std::vector<Member>& members,
                   Findings& out) {
  std::map<std::string, int> counts;
  for (const Member& member : members) ++counts[member.value];
  if (counts.size() < 2) return;
  int most = 0;
  for (const auto& [value, count] : counts) most = std::max(most, count);
  std::vector<std::string> most_common;
  for (const auto& [value, count] : counts)
    if (count == most) most_common.push_back(value);
  const bool tie = most_common.size() > 1;
  const std::string expected = tie ? "(a tie: " + joined(most_common, ", ") + ")" : most_common.front();
  for (const Member& member : members)
    if (tie || member.value != most_common.front())
      out.add("version-mismatch", member.node->name, member.gpu, member.where,
              {{"what", what},
               {"measured", member.value},
               {"expected", expected},
               {"majority", std::to_string(most)},
               {"total", std::to_string(members.size())},
               {"scope", scope}});
}

void check_versions(const Fleet& fleet, Findings& out) {
  std::vector<Member> drivers;
  std::vector<Member> cudas;
  std::map<std::string, std::vector<Member>> vbios_by_model;
  for (const FleetNode& node : fleet.nodes) {
    if (!node.facts) continue;
    const SourceLocation file{node.facts->source, 0, 0};
    if (node.facts->driver_version)
      drivers.push_back({&node, std::nullopt, file, *node.facts->driver_version});
    if (node.facts->cuda_version) cudas.push_back({&node, std::nullopt, file, *node.facts->cuda_version});
    for (const GpuFacts& gpu : node.facts->gpus)
      if (gpu.vbios_version)
        vbios_by_model[gpu.model].push_back(
            {&node, gpu.index, {node.facts->source, gpu.line, 0}, *gpu.vbios_version});
  }
  name_minority("driver", "nodes", drivers, out);
  name_minority("CUDA", "nodes", cudas, out);
  for (const auto& [model, members] : vbios_by_model) name_minority("VBIOS", model + " GPUs", members, out);
}

bool finding_order(const Finding& a, const Finding& b) {
  return std::make_tuple(-static_cast<int>(a.severity), std::cref(a.node), a.gpu.value_or(-1),
                         std::cref(a.rule), std::cref(a.where.file), a.where.line) <
         std::make_tuple(-static_cast<int>(b.severity), std::cref(b.node), b.gpu.value_or(-1),
                         std::cref(b.rule), std::cref(b.where.file), b.where.line);
}

}  // namespace

IntendedMig intended_mig(const std::string& layout, const MigProfileSet& set) {
  const MigLayout parsed = parse_mig_layout(layout, set);
  IntendedMig intended;
  intended.layout = layout;
  for (const MigInstance& instance : parsed.instances)
    intended.instance_memory_gb.push_back(
        in_gigabytes(set.profiles[instance.profile].memory.value_or(ByteSize())));
  std::sort(intended.instance_memory_gb.rbegin(), intended.instance_memory_gb.rend());
  for (const MigProfile& profile : set.profiles)
    if (profile.memory) intended.profile_memory_gb.push_back(in_gigabytes(*profile.memory));
  if (intended.profile_memory_gb.empty())
    throw std::invalid_argument("the MIG profile set '" + set.info.id +
                                "' publishes no instance memory sizes");
  return intended;
}

std::vector<Finding> evaluate_checks(const Fleet& fleet, const ChecksData& checks,
                                     const CheckOptions& options) {
  Findings out(checks);
  for (const FleetNode& node : fleet.nodes) {
    check_inputs(node, out);
    check_gpus(node, options, out);
    check_reporting(node, options, out);
    for (const DcgmDiagReport& report : node.diag_reports) check_diag(node, report, out);
    for (const NcclTestsRun& run : node.nccl_runs) {
      check_nccl_results(node, run, out);
      check_nccl_busbw(node, run, options, out);
    }
  }
  check_versions(fleet, out);
  if (options.design) check_against_design(fleet, *options.design, out);
  std::vector<Finding> findings = out.take();
  std::stable_sort(findings.begin(), findings.end(), finding_order);
  return findings;
}

}  // namespace gputwin::validate
