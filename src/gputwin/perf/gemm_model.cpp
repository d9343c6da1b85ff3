#include "gputwin/perf/gemm_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// C is written in bf16 by every recipe modelled (fp8 GEMMs output bf16).
constexpr double kOutputBytes = 2;

GemmModel read_gemm_model(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"precisions", "architectures", "attention", "quantisation", "grouped_gemm", "notes"});
  std::map<std::string, GemmPrecision> precisions;
  for (const auto& [name, field] : root.child("precisions").entries()) {
    field.expect_keys({"peak", "element_bytes", "quantised", "source"});
    precisions[name] =
        GemmPrecision{name, field.child("peak").text(), field.child("element_bytes").positive_number(),
                      field.child("quantised").boolean()};
  }
  std::vector<GemmArchitecture> architectures;
  for (const YamlField& row : root.child("architectures").items()) {
    row.expect_keys({"architecture", "accelerators", "peak_fraction", "source"});
    GemmArchitecture a;
    a.name = row.child("architecture").text();
    if (const auto ids = row.optional_child("accelerators")) {
      for (const YamlField& id : ids->items()) a.accelerators.push_back(id.text());
    }
    if (const auto fraction = row.optional_child("peak_fraction")) {
      a.peak_fraction = fraction->positive_number();
      if (*a.peak_fraction > 1) fraction->fail("must be a fraction of peak (0..1]");
    }
    a.source = row.child("source").text_or_list();
    architectures.push_back(std::move(a));
  }
  const YamlField attention = root.child("attention");
  attention.expect_keys({"tile_tokens", "backward_to_forward_flops", "source"});
  const YamlField quantisation = root.child("quantisation");
  quantisation.expect_keys({"cast_bytes_per_element", "source"});
  GemmModel model(std::move(precisions), std::move(architectures),
                  attention.child("tile_tokens").positive_number(),
                  attention.child("backward_to_forward_flops").positive_number(),
                  quantisation.child("cast_bytes_per_element").number());
  GroupedGemmTiling tiling;
  if (const auto grouped = root.optional_child("grouped_gemm")) {
    grouped->expect_keys({"tile_m", "tile_n", "source", "sm_counts"});
    tiling.tile_m = grouped->child("tile_m").positive_number();
    tiling.tile_n = grouped->child("tile_n").positive_number();
    (void)grouped->child("source").text_or_list();  // required, documentation only
    for (const YamlField& row : grouped->child("sm_counts").items()) {
      row.expect_keys({"accelerators", "sms", "source"});
      const double sms = row.child("sms").positive_number();
      if (sms != static_cast<double>(static_cast<int>(sms))) row.child("sms").fail("must be a whole number");
      (void)row.child("source").text_or_list();  // required, documentation only
      for (const YamlField& id : row.child("accelerators").items()) {
        if (!tiling.sms.emplace(id.text(), static_cast<int>(sms)).second) id.fail("listed twice");
      }
    }
  }
  model.set_grouped_tiling(std::move(tiling));
  return model;
}

}  // namespace

double GemmDevice::gemm_s(double m, double n, double k) const {
  const double bytes = (m * k + k * n) * element_bytes + m * n * kOutputBytes;
  return 2 * m * n * k / (peak_flops * peak_fraction) + bytes / memory_bytes_per_s;
}

double GemmDevice::grouped_gemm_s(double groups, double m, double n, double k) const {
  if (groups <= 0 || m <= 0) return 0;
  const double bytes = groups * ((m * k + k * n) * element_bytes + m * n * kOutputBytes);
  const double rate = peak_flops * peak_fraction;
  if (sms <= 0) return groups * 2 * m * n * k / rate + bytes / memory_bytes_per_s;
  // A partly filled expert: the average group holds m rows, but the rows are whole tokens; tiles of a group
  // are ceil(m / tile_m) x ceil(n / tile_n).
  const double tiles = groups * std::ceil(m / tile_m) * std::ceil(n / tile_n);
  const double waves = std::ceil(tiles / sms);
  // Each wave: every SM computes one tile_m x tile_n x k tile at 1/sms of the achieved rate.
  const double compute = waves * sms * 2 * tile_m * tile_n * k / rate;
  return compute + bytes / memory_bytes_per_s;
}

double GemmDevice::bf16_gemm_s(double m, double n, double k) const {
  const double bytes = (m * k + k * n + m * n) * kOutputBytes;
  return 2 * m * n * k / (bf16_peak_flops * peak_fraction) + bytes / memory_bytes_per_s;
}

double GemmDevice::gemm_efficiency(double m, double n, double k) const {
  return 2 * m * n * k / gemm_s(m, n, k) / peak_flops;
}

double GemmDevice::attention_forward_s(double model_flops, double sequence) const {
  // The tiles on the causal diagonal are computed whole but count half: sequence / tile of them, each tile^2
  // / 2 wasted, against sequence^2 / 2 counted: a share tile / sequence of extra work.
  const double causal_waste = 1 + attention_tile / std::max(1.0, sequence);
  return model_flops * causal_waste / (bf16_peak_flops * peak_fraction);
}

double GemmDevice::attention_backward_s(double model_flops, double sequence) const {
  return attention_backward_ratio * attention_forward_s(model_flops, sequence);
}

GemmModel::GemmModel(std::map<std::string, GemmPrecision> precisions,
                     std::vector<GemmArchitecture> architectures, double attention_tile,
                     double attention_backward_ratio, double cast_bytes_per_element)
    : precisions_(std::move(precisions)),
      architectures_(std::move(architectures)),
      attention_tile_(attention_tile),
      attention_backward_ratio_(attention_backward_ratio),
      cast_bytes_per_element_(cast_bytes_per_element) {}

const GemmArchitecture* GemmModel::architecture_of(const Accelerator& accelerator) const {
  for (const auto& a : architectures_) {
    if (std::find(a.accelerators.begin(), a.accelerators.end(), accelerator.info.id) != a.accelerators.end())
      return &a;
  }
  for (const auto& a : architectures_) {
    if (a.accelerators.empty() && a.name == accelerator.architecture) return &a;
  }
  return nullptr;
}

const GemmPrecision* GemmModel::precision(const std::string& name) const {
  const auto it = precisions_.find(name);
  return it == precisions_.end() ? nullptr : &it->second;
}

void GemmModel::set_peak_fraction(const std::string& architecture, double fraction) {
  for (auto& a : architectures_) {
    if (a.name == architecture) a.peak_fraction = fraction;
  }
}

Result<GemmDevice> GemmModel::device(const Accelerator& accelerator,
                                     const std::string& precision_name) const {
  const std::string& id = accelerator.info.id;
  const GemmPrecision* p = precision(precision_name);
  if (p == nullptr)
    return InputErrors{InputError{{}, "precision", "no GEMM precision '" + precision_name + "'"}};
  const GemmArchitecture* a = architecture_of(accelerator);
  if (a == nullptr || !a->peak_fraction) {
    return InputErrors{InputError{{},
                                  "architecture",
                                  id + ": GEMM efficiency of architecture '" + accelerator.architecture +
                                      "' is unknown (set peak_fraction in data/perf/gemm-efficiency.yaml)"}};
  }
  const auto peak = accelerator.dense_compute.find(p->peak_key);
  const auto bf16 = accelerator.dense_compute.find("bf16");
  if (peak == accelerator.dense_compute.end() || !peak->second || bf16 == accelerator.dense_compute.end() ||
      !bf16->second) {
    return InputErrors{InputError{{}, "dense_compute", id + " publishes no dense " + p->peak_key + " rate"}};
  }
  GemmDevice d;
  d.architecture = a->name;
  d.precision = p->name;
  d.peak_flops = peak->second->base();
  d.bf16_peak_flops = bf16->second->base();
  d.memory_bytes_per_s = in_gigabytes_per_second(accelerator.memory_bandwidth) * 1e9;
  d.peak_fraction = *a->peak_fraction;
  d.element_bytes = p->element_bytes;
  d.quantised = p->quantised;
  d.attention_tile = attention_tile_;
  d.attention_backward_ratio = attention_backward_ratio_;
  d.tile_m = tiling_.tile_m;
  d.tile_n = tiling_.tile_n;
  if (const auto sms = tiling_.sms.find(id); sms != tiling_.sms.end()) d.sms = sms->second;
  return d;
}

Result<GemmModel> load_gemm_model(const std::string& path) {
  return result_of<GemmModel>([&] { return read_gemm_model(path); });
}

}  // namespace gputwin
