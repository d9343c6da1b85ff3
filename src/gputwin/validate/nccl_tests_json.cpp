#include "gputwin/validate/nccl_tests_json.hpp"

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

std::optional<double> optional_number(const JsonField& parent, std::string_view key) {
  if (auto field = parent.optional_child(key)) return field->number();
  return std::nullopt;
}

CollectiveTiming timing_of(const JsonField& timing) {
  CollectiveTiming result;
  result.time_us = optional_number(timing, "time");
  if (auto value = optional_number(timing, "alg_bw"))
    result.algorithm_bandwidth = gigabytes_per_second(*value);
  if (auto value = optional_number(timing, "bus_bw")) result.bus_bandwidth = gigabytes_per_second(*value);
  // nccl-tests writes nwrong as a double (0.0); it counts elements.
  if (auto wrong = optional_number(timing, "nwrong")) {
    if (*wrong < 0) timing.child("nwrong").fail("expected a count >= 0");
    result.wrong = static_cast<std::int64_t>(*wrong);
  }
  return result;
}

CollectiveRow row_of(const JsonField& result) {
  CollectiveRow row;
  const std::int64_t size = result.child("size").integer();
  if (size < 0) result.child("size").fail("expected a size in bytes >= 0");
  row.size = bytes(static_cast<double>(size));
  row.count = result.child("count").integer();
  if (auto type = result.optional_child("type")) row.type = type->string();
  if (auto redop = result.optional_child("redop")) row.reduction = text_value(redop->string());
  // The root is written as padded text ("    -1").
  if (auto root = result.optional_child("root")) {
    const auto value = root->json().is_string() ? parse_integer(trim(root->string())) : root->integer();
    if (!value || *value < -1 || *value > 1'000'000) root->fail("expected a rank or -1");
    row.root = static_cast<int>(*value);
  }
  row.out_of_place = timing_of(result.child("out_of_place"));
  if (auto in_place = result.optional_child("in_place")) row.in_place = timing_of(*in_place);
  return row;
}

std::optional<std::string> collective_of(const JsonField& root) {
  const auto args = root.optional_child("args");
  if (!args || args->array_size() == 0) return std::nullopt;
  std::string binary = args->element(0).string();
  binary = binary.substr(binary.find_last_of('/') + 1);
  constexpr std::string_view kSuffix = "_perf";
  if (binary.size() > kSuffix.size() && binary.substr(binary.size() - kSuffix.size()) == kSuffix)
    return binary.substr(0, binary.size() - kSuffix.size());
  return std::nullopt;
}

// -J lists one device per process; each process drives nthreads x ngpus GPUs. Empty when the config does
// not say, or says something implausible (bounds far above any real run keep the product from overflowing).
std::optional<int> ranks_of(const JsonField& config, std::size_t processes) {
  constexpr std::int64_t kMostPerProcess = 1024;
  const auto gpus = config.optional_child("ngpus");
  const auto threads = config.optional_child("nthreads");
  const std::int64_t gpu_count = gpus ? gpus->integer() : 0;
  const std::int64_t thread_count = threads ? threads->integer() : 0;
  if (gpu_count < 1 || gpu_count > kMostPerProcess || thread_count < 1 || thread_count > kMostPerProcess ||
      processes < 1 || processes > 1'000'000)
    return std::nullopt;
  return static_cast<int>(static_cast<std::int64_t>(processes) * gpu_count * thread_count);
}

NcclTestsRun run_of(std::string_view text, const std::string& source) {
  const nlohmann::json document = parse_json(text, source);
  const JsonField root = JsonField::root(document, source, text);
  if (!root.json().is_object() || !root.has("results"))
    root.fail("not nccl-tests -J output: expected an object with a 'results' array");
  NcclTestsRun run;
  run.source = source;
  run.collective = collective_of(root);
  if (auto version = root.optional_child("nccl_version"))
    run.nccl_version = static_cast<int>(version->integer());
  if (auto config = root.optional_child("config"))
    if (auto devices = config->optional_child("devices"))
      for (std::size_t i = 0; i < devices->array_size(); ++i)
        run.devices.push_back(devices->element(i).child("device_info").string());
  if (auto config = root.optional_child("config")) run.ranks = ranks_of(*config, run.devices.size());
  const JsonField results = root.child("results");
  for (std::size_t i = 0; i < results.array_size(); ++i) run.rows.push_back(row_of(results.element(i)));
  if (auto average = root.optional_child("average_bus_bandwidth"))
    run.average_bus_bandwidth = gigabytes_per_second(average->child("bandwidth").number());
  if (auto bounds = root.optional_child("out_of_bounds"))
    run.out_of_bounds = bounds->child("count").integer();
  return run;
}

}  // namespace

Result<NcclTestsRun> NcclTestsJson::read_file(const std::string& path) {
  return guarded_parse<NcclTestsRun>(path, [&] {
    const std::string text = read_input_file(path);
    return run_of(text, path);
  });
}

Result<NcclTestsRun> NcclTestsJson::parse(std::string_view text, const std::string& source) {
  return guarded_parse<NcclTestsRun>(source, [&] { return run_of(text, source); });
}

}  // namespace gputwin::validate
