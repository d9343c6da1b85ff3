#include "gputwin/perf/collectives_validation.hpp"

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/nccl_tests_loop.hpp"

namespace gputwin {

void read_collective_setting(const YamlField& field, PublishedCollectivePoint& point) {
  if (const auto system = field.optional_child("system")) point.system = system->text();
  if (const auto accelerator = field.optional_child("accelerator")) point.accelerator = accelerator->text();
  if (point.system.empty() == point.accelerator.empty()) field.fail("give either a system or an accelerator");
  if (const auto gpus = field.optional_child("gpus")) point.gpus = static_cast<int>(gpus->positive_integer());
  if (const auto nodes = field.optional_child("nodes"))
    point.nodes = static_cast<int>(nodes->positive_integer());
  if (const auto nics = field.optional_child("nics_per_node")) {
    point.nics_per_node = static_cast<int>(nics->positive_integer());
    point.nic_gbps = field.child("nic_gbps").positive_number();
  }
  if (const auto per_process = field.optional_child("gpus_per_process"))
    point.gpus_per_process = static_cast<int>(per_process->positive_integer());
  const YamlField op = field.child("op");
  const auto parsed = collective_from_name(op.text());
  if (!parsed) op.fail("unknown collective '" + op.text() + "'");
  point.op = *parsed;
}

namespace {

PublishedCollectivePoint read_point(const YamlField& field, bool multi_node, const std::string& set) {
  field.expect_keys({"name", "source", "system", "accelerator", "gpus", "nodes", "nics_per_node", "nic_gbps",
                     "gpus_per_process", "op", "algorithm", "bytes", "busbw_gbps", "time_us", "known_gap", "scale_up_domain",
                     "confidence"});
  PublishedCollectivePoint point;
  point.multi_node = multi_node;
  point.set = set;
  if (const auto domain = field.optional_child("scale_up_domain"))
    point.scale_up_domain = static_cast<int>(domain->positive_integer());
  if (const auto confidence = field.optional_child("confidence")) point.confidence = confidence->text();
  point.name = field.child("name").text();
  point.source = field.child("source").text();
  read_collective_setting(field, point);
  if (const auto algorithm = field.optional_child("algorithm")) {
    point.algorithm = algorithm_from_name(algorithm->text());
    if (!point.algorithm) algorithm->fail("unknown algorithm '" + algorithm->text() + "'");
  }
  if (const auto gap = field.optional_child("known_gap")) point.known_gap = gap->text();
  point.bytes = field.child("bytes").positive_number();
  if (const auto time = field.optional_child("time_us")) {
    if (field.optional_child("busbw_gbps")) time->fail("give busbw_gbps or time_us, not both");
    point.time_us = time->positive_number();
    return point;
  }
  const auto range = field.child("busbw_gbps").items();
  if (range.size() != 2) field.child("busbw_gbps").fail("expected [min, max]");
  point.busbw_min_gbps = range[0].positive_number();
  point.busbw_max_gbps = range[1].positive_number();
  return point;
}

Result<PerfHardware> hardware_for(const Catalog& catalog, const PublishedCollectivePoint& point) {
  auto hw = point.system.empty() ? perf_hardware_of_accelerator(catalog, point.accelerator, point.gpus)
                                 : perf_hardware_of_system(catalog, point.system, point.nodes);
  if (!hw.ok()) return hw;
  PerfHardware value = std::move(hw).value();
  value.nodes = point.nodes;
  if (point.nics_per_node > 0) {
    value.nics_per_node = point.nics_per_node;
    value.nic_speed = gigabits_per_second(point.nic_gbps);
    value.fabric_tiers = point.nodes > 1 ? 2 : 0;
  }
  if (point.scale_up_domain > 0) {
    value.scale_up_domain = point.scale_up_domain;
    return checked_domain(std::move(value));
  }
  return value;
}

}  // namespace

double ValidationRow::error_percent() const {
  return error_percent(predicted_busbw_gbps, predicted_time_us);
}

double ValidationRow::one_operation_error_percent() const {
  return error_percent(estimate.busbw_gbps, estimate.time_us);
}

double ValidationRow::error_percent(double busbw_gbps, double time_us) const {
  if (point.time_us) return (*point.time_us / time_us - 1) * 100;
  const double p = busbw_gbps;
  if (p < point.busbw_min_gbps) return (p - point.busbw_min_gbps) / point.busbw_min_gbps * 100;
  if (p > point.busbw_max_gbps) return (p - point.busbw_max_gbps) / point.busbw_max_gbps * 100;
  return 0;
}

Result<std::vector<PublishedCollectivePoint>> load_published_collectives(const std::string& path) {
  try {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"single_node", "multi_node", "evaluation"});
    std::vector<PublishedCollectivePoint> points;
    for (const auto& item : root.child("single_node").items())
      points.push_back(read_point(item, false, "fit"));
    for (const auto& item : root.child("multi_node").items()) points.push_back(read_point(item, true, "fit"));
    if (const auto evaluation = root.optional_child("evaluation")) {
      for (const auto& item : evaluation->items()) {
        PublishedCollectivePoint point = read_point(item, false, "evaluation");
        point.multi_node = point.nodes > 1;
        points.push_back(std::move(point));
      }
    }
    return points;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

Result<ValidationRow> validate_collective_point(const Catalog& catalog, const CollectiveModel& model,
                                                const PublishedCollectivePoint& point) {
  const auto hw = hardware_for(catalog, point);
  if (!hw.ok()) return hw.errors();
  const PerfHardware& hardware = hw.value();
  ValidationRow row;
  row.point = point;
  const CollectiveGroup group{hardware.gpus_per_node * point.nodes, hardware.gpus_per_node};
  row.estimate = estimate_collective(hardware, model, point.op, ByteSize::from_base(point.bytes), group,
                                     CollectiveChoice{point.algorithm, std::nullopt});
  // The published points are nccl-tests outputs with its default loop (the held-out runs print iters: 20),
  // launched with the GPUs per process their headers give.
  const NcclTestsLoopSettings loop{model.nccl_tests_loop.iters, false, point.gpus_per_process,
                                   model.nccl_tests_loop.host_launch_us_per_gpu};
  const NcclTestsTime printed = nccl_tests_time(row.estimate, model, loop);
  row.predicted_time_us = printed.time_us;
  row.predicted_busbw_gbps = printed.algbw_gbps(point.bytes) * busbw_factor(point.op, group.ranks);
  row.pipelined = printed.pipelined;
  return row;
}

}  // namespace gputwin
