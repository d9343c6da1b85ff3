#include "gputwin/perf/gemm_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// C is written in bf16 by every recipe modelled (fp8 GEMMs output bf16).
constexpr double kOutputBytes = 2;

// One list of TFLOP/s per sequence length, as fractions of `peak_tflops`.
std::vector<double> fractions_of(const YamlField& list, std::size_t count, double peak_tflops) {
  std::vector<double> out;
  for (const YamlField& v : list.items()) {
    const double tflops = v.positive_number();
    if (tflops > peak_tflops) v.fail("faster than the reference peak");
    out.push_back(tflops / peak_tflops);
  }
  if (out.size() != count) list.fail("needs one value per sequence length");
  return out;
}

// A kernel's rates: per pass (forward causal, forward and backward unmasked), or, where the source publishes
// only the forward + backward pair's rate (FLOPs 3.5 x forward over their summed time), that rate for both
// passes, causal and unmasked: the pair's time is then exactly the published one; how it splits between the
// passes (what a recomputed forward costs) is not published.
void read_pass_rates(const YamlField& row, double peak, AttentionKernel& k) {
  const auto combined_causal = row.optional_child("forward_backward_causal_tflops");
  const auto combined = row.optional_child("forward_backward_tflops");
  const bool per_pass = row.optional_child("forward_causal_tflops") || row.optional_child("forward_tflops") ||
                        row.optional_child("backward_tflops");
  if (!combined_causal && !combined) {
    k.forward_causal = fractions_of(row.child("forward_causal_tflops"), k.sequence.size(), peak);
    k.forward = fractions_of(row.child("forward_tflops"), k.sequence.size(), peak);
    k.backward = fractions_of(row.child("backward_tflops"), k.sequence.size(), peak);
    return;
  }
  if (per_pass) row.fail("give per-pass rates or forward_backward rates, not both");
  if (!combined_causal) (void)row.child("forward_backward_causal_tflops");  // fails, naming the field
  if (!combined) (void)row.child("forward_backward_tflops");
  k.forward_causal = fractions_of(*combined_causal, k.sequence.size(), peak);
  k.forward = k.backward = fractions_of(*combined, k.sequence.size(), peak);
}

std::vector<AttentionKernel> read_kernels(const YamlField& list) {
  std::vector<AttentionKernel> kernels;
  for (const YamlField& row : list.items()) {
    row.expect_keys({"kernel", "architecture", "default", "reference_peak_tflops", "head_dim", "sequence",
                     "forward_causal_tflops", "forward_tflops", "backward_tflops",
                     "forward_backward_causal_tflops", "forward_backward_tflops", "source"});
    AttentionKernel k;
    k.name = row.child("kernel").text();
    k.architecture = row.child("architecture").text();
    if (const auto d = row.optional_child("default")) k.is_default = d->boolean();
    k.head_dim = row.child("head_dim").positive_number();
    const double peak = row.child("reference_peak_tflops").positive_number();
    double previous = 0;
    for (const YamlField& v : row.child("sequence").items()) {
      const double s = v.positive_number();
      if (s <= previous) v.fail("sequence lengths must increase");
      k.sequence.push_back(previous = s);
    }
    read_pass_rates(row, peak, k);
    (void)row.child("source").text_or_list();  // required: where the figures were read
    for (const auto& other : kernels) {
      if (other.name == k.name && other.architecture == k.architecture && other.head_dim == k.head_dim)
        row.child("kernel").fail("listed twice at head dim " + row.child("head_dim").text());
      if (other.is_default && k.is_default && other.architecture == k.architecture && other.name != k.name)
        row.child("default").fail("a second default kernel for " + k.architecture);
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

// `precision_rates`: per architecture, each measured precision's achieved fraction of its own peak relative
// to the reference precision's, from the same GEMMs' measured times.
void read_precision_rates(const YamlField& list, const std::map<std::string, GemmPrecision>& precisions,
                          std::vector<GemmArchitecture>& architectures) {
  for (const YamlField& row : list.items()) {
    row.expect_keys({"architecture", "measured_on", "reference", "peak_tflops", "layer_ms", "source"});
    const YamlField name = row.child("architecture");
    const auto a = std::find_if(architectures.begin(), architectures.end(),
                                [&](const GemmArchitecture& x) { return x.name == name.text(); });
    if (a == architectures.end()) name.fail("no such architecture in `architectures`");
    if (!a->precision_rates.empty()) name.fail("measured twice");
    (void)row.child("measured_on").text();
    (void)row.child("source").text_or_list();
    std::map<std::string, double> peaks;
    for (const auto& [key, value] : row.child("peak_tflops").entries()) peaks[key] = value.positive_number();
    // Achieved share of its own peak per unit time: the GEMMs' FLOPs are the same for every precision, so
    // the rate ratio is (t_reference x peak_reference) / (t x peak).
    std::map<std::string, double> time_x_peak;
    for (const auto& [precision, value] : row.child("layer_ms").entries()) {
      const auto p = precisions.find(precision);
      if (p == precisions.end()) value.fail("no precision '" + precision + "' in `precisions`");
      const auto peak = peaks.find(p->second.peak_key);
      if (peak == peaks.end()) value.fail("peak_tflops has no '" + p->second.peak_key + "' rate");
      time_x_peak[precision] = value.positive_number() * peak->second;
    }
    const YamlField reference = row.child("reference");
    const auto ref = time_x_peak.find(reference.text());
    if (ref == time_x_peak.end()) reference.fail("the reference precision needs a layer_ms time");
    for (const auto& [precision, product] : time_x_peak)
      a->precision_rates[precision] = ref->second / product;
  }
}

// `sustained_rates`: per architecture, each part's measured max-achievable GEMM TFLOP/s by peak key, and the
// part the fitted fraction refers to (with its peaks, to take its measured share of them).
void read_sustained_rates(const YamlField& list, std::vector<GemmArchitecture>& architectures) {
  for (const YamlField& row : list.items()) {
    row.expect_keys(
        {"architecture", "reference", "reference_peak_tflops", "max_achievable_tflops", "source"});
    const YamlField name = row.child("architecture");
    const auto a = std::find_if(architectures.begin(), architectures.end(),
                                [&](const GemmArchitecture& x) { return x.name == name.text(); });
    if (a == architectures.end()) name.fail("no such architecture in `architectures`");
    if (!a->reference_part.empty()) name.fail("measured twice");
    (void)row.child("source").text_or_list();  // required
    for (const auto& [key, value] : row.child("reference_peak_tflops").entries())
      a->reference_peak_tflops[key] = value.positive_number();
    for (const auto& [part, rates] : row.child("max_achievable_tflops").entries()) {
      for (const auto& [key, value] : rates.entries())
        a->sustained_tflops[part][key] = value.positive_number();
    }
    const YamlField reference = row.child("reference");
    a->reference_part = reference.text();
    const auto ref = a->sustained_tflops.find(a->reference_part);
    if (ref == a->sustained_tflops.end()) reference.fail("the reference part needs max_achievable_tflops");
    for (const auto& [key, tflops] : ref->second) {
      if (!a->reference_peak_tflops.count(key))
        reference.fail("reference_peak_tflops has no '" + key + "' rate");
    }
  }
}

// Linear in log2(x) between the points, held at the ends.
double interpolate_log2(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  std::size_t i = 1;
  while (xs[i] < x) ++i;
  const double t = (std::log2(x) - std::log2(xs[i - 1])) / (std::log2(xs[i]) - std::log2(xs[i - 1]));
  return ys[i - 1] + t * (ys[i] - ys[i - 1]);
}

GemmModel read_gemm_model(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"precisions", "architectures", "precision_rates", "sustained_rates", "attention",
                    "quantisation", "grouped_gemm", "notes"});
  std::map<std::string, GemmPrecision> precisions;
  for (const auto& [name, field] : root.child("precisions").entries()) {
    field.expect_keys({"peak", "element_bytes", "quantised", "cast_bytes_per_element", "source"});
    precisions[name] =
        GemmPrecision{name, field.child("peak").text(), field.child("element_bytes").positive_number(),
                      field.child("quantised").boolean(), std::nullopt};
    if (const auto cast = field.optional_child("cast_bytes_per_element"))
      precisions[name].cast_bytes_per_element = cast->positive_number();
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
  if (const auto rates = root.optional_child("precision_rates"))
    read_precision_rates(*rates, precisions, architectures);
  if (const auto sustained = root.optional_child("sustained_rates"))
    read_sustained_rates(*sustained, architectures);
  const YamlField attention = root.child("attention");
  attention.expect_keys({"tile_tokens", "backward_to_forward_flops", "source", "kernels"});
  const YamlField quantisation = root.child("quantisation");
  quantisation.expect_keys({"cast_bytes_per_element", "source", "by_scaling"});
  GemmModel model(std::move(precisions), std::move(architectures),
                  attention.child("tile_tokens").positive_number(),
                  attention.child("backward_to_forward_flops").positive_number(),
                  quantisation.child("cast_bytes_per_element").number());
  if (const auto by_scaling = quantisation.optional_child("by_scaling")) {
    std::map<std::string, double> bytes;
    for (const auto& [name, field] : by_scaling->entries()) {
      if (!is_fp8_scaling(name)) field.fail("not an FP8 scaling: " + name + " (delayed, current)");
      field.expect_keys({"cast_bytes_per_element", "measured", "source"});
      bytes[name] = field.child("cast_bytes_per_element").positive_number();
      (void)field.child("source").text_or_list();  // required
    }
    model.set_scaling_cast_bytes(std::move(bytes));
  }
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
  if (const auto kernels = attention.optional_child("kernels"))
    model.set_attention_kernels(read_kernels(*kernels));
  return model;
}

}  // namespace

double GemmArchitecture::rate_of(const std::string& precision) const {
  const auto it = precision_rates.find(precision);
  return it == precision_rates.end() ? 1.0 : it->second;
}

// AMD, "Measuring Max-Achievable FLOPs - Part 2" (ROCm blog, 28 Feb 2025), Table 1: parts sharing one
// datasheet peak sustain different clocks under GEMM load (MI325X at 1,000 W vs MI300X at 750 W). The
// architecture's fitted fraction is the reference part's; another part runs at it x (its measured share of
// its own peak) / (the reference part's share of its peak).
double GemmArchitecture::sustained_factor(const Accelerator& accelerator, const std::string& peak_key) const {
  const auto part = sustained_tflops.find(accelerator.info.id);
  const auto ref = sustained_tflops.find(reference_part);
  if (part == sustained_tflops.end() || ref == sustained_tflops.end()) return 1.0;
  const auto measured = part->second.find(peak_key);
  const auto ref_measured = ref->second.find(peak_key);
  const auto peak = accelerator.dense_compute.find(peak_key);
  if (measured == part->second.end() || ref_measured == ref->second.end() ||
      peak == accelerator.dense_compute.end() || !peak->second)
    return 1.0;
  const double share = measured->second / in_teraflops(*peak->second);
  return share / (ref_measured->second / reference_peak_tflops.at(peak_key));
}

double GemmDevice::gemm_s(double m, double n, double k) const {
  const double bytes = (m * k + k * n) * element_bytes + m * n * kOutputBytes;
  return 2 * m * n * k / (peak_flops * peak_fraction * precision_rate) + bytes / memory_bytes_per_s;
}

double GemmDevice::grouped_gemm_s(double groups, double m, double n, double k) const {
  if (groups <= 0 || m <= 0) return 0;
  const double bytes = groups * ((m * k + k * n) * element_bytes + m * n * kOutputBytes);
  const double rate = peak_flops * peak_fraction * precision_rate;
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
  return 2 * m * n * k / (bf16_peak_flops * peak_fraction * bf16_rate) + bytes / memory_bytes_per_s;
}

double GemmDevice::gemm_efficiency(double m, double n, double k) const {
  return 2 * m * n * k / gemm_s(m, n, k) / peak_flops;
}

double AttentionKernel::fraction(double sequence_tokens, bool causal, bool backward_pass) const {
  const double forward_fraction =
      interpolate_log2(sequence, causal ? forward_causal : forward, sequence_tokens);
  if (!backward_pass) return forward_fraction;
  const double unmasked = interpolate_log2(sequence, backward, sequence_tokens);
  return causal ? unmasked * forward_fraction / interpolate_log2(sequence, forward, sequence_tokens)
                : unmasked;
}

double GemmDevice::attention_fraction(double sequence, bool causal, bool backward_pass) const {
  const std::vector<AttentionKernel>& t = attention_tables;
  if (t.empty()) return attention_kernel->fraction(sequence, causal, backward_pass);
  const double d = attention_head_dim;
  if (t.size() == 1 || d <= t.front().head_dim) return t.front().fraction(sequence, causal, backward_pass);
  if (d >= t.back().head_dim) return t.back().fraction(sequence, causal, backward_pass);
  std::size_t i = 0;
  while (t[i + 1].head_dim < d) ++i;
  const double w = (d - t[i].head_dim) / (t[i + 1].head_dim - t[i].head_dim);
  return (1 - w) * t[i].fraction(sequence, causal, backward_pass) +
         w * t[i + 1].fraction(sequence, causal, backward_pass);
}

double GemmDevice::attention_forward_s(double model_flops, double sequence, double causal_share) const {
  if (attention_kernel) {
    const double masked = causal_share * model_flops / attention_fraction(sequence, true, false);
    const double unmasked = (1 - causal_share) * model_flops / attention_fraction(sequence, false, false);
    return (masked + unmasked) / bf16_peak_flops;
  }
  // The tiles on the causal diagonal are computed whole but count half: sequence / tile of them, each tile^2
  // / 2 wasted, against sequence^2 / 2 counted: a share tile / sequence of extra work.
  const double causal_waste = 1 + causal_share * attention_tile / std::max(1.0, sequence);
  return model_flops * causal_waste / (bf16_peak_flops * peak_fraction);
}

double GemmDevice::attention_backward_s(double model_flops, double sequence, double causal_share) const {
  if (attention_kernel) {
    const double flops = attention_backward_ratio * model_flops;
    const double masked = causal_share * flops / attention_fraction(sequence, true, true);
    const double unmasked = (1 - causal_share) * flops / attention_fraction(sequence, false, true);
    return (masked + unmasked) / bf16_peak_flops;
  }
  return attention_backward_ratio * attention_forward_s(model_flops, sequence, causal_share);
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

bool GemmModel::has_attention_kernel(const std::string& name) const {
  return std::any_of(kernels_.begin(), kernels_.end(),
                     [&](const AttentionKernel& k) { return k.name == name; });
}

std::string GemmModel::attention_kernel_names() const {
  std::set<std::string> names;
  for (const AttentionKernel& k : kernels_) names.insert(k.name);
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

bool is_fp8_scaling(const std::string& name) { return name == "delayed" || name == "current"; }

std::optional<double> GemmModel::scaling_cast_bytes(const std::string& scaling) const {
  const auto it = scaling_cast_bytes_.find(scaling);
  if (it == scaling_cast_bytes_.end()) return std::nullopt;
  return it->second;
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

Result<GemmDevice> GemmModel::device(const Accelerator& accelerator, const std::string& precision_name,
                                     const std::string& attention_kernel) const {
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
  // The part's sustained clock: bf16's in the fraction (attention and the bf16 pieces run there), the
  // precision's own relative to it in the precision's rate.
  const double bf16_sustained = a->sustained_factor(accelerator, "bf16");
  d.peak_fraction = *a->peak_fraction * bf16_sustained;
  d.precision_rate = a->rate_of(p->name) * a->sustained_factor(accelerator, p->peak_key) / bf16_sustained;
  d.bf16_rate = a->rate_of("bf16");
  d.element_bytes = p->element_bytes;
  d.quantised = p->quantised;
  d.cast_bytes_per_element = p->cast_bytes_per_element.value_or(cast_bytes_per_element_);
  d.attention_tile = attention_tile_;
  d.attention_backward_ratio = attention_backward_ratio_;
  d.tile_m = tiling_.tile_m;
  d.tile_n = tiling_.tile_n;
  if (const auto sms = tiling_.sms.find(id); sms != tiling_.sms.end()) d.sms = sms->second;
  // The kernel by name (or the architecture's default), then every head dimension measured for it.
  std::string kernel = attention_kernel;
  for (const AttentionKernel& k : kernels_) {
    if (k.architecture == a->name && attention_kernel.empty() && k.is_default) kernel = k.name;
  }
  for (const AttentionKernel& k : kernels_) {
    if (k.architecture == a->name && k.name == kernel) d.attention_tables.push_back(k);
  }
  if (!attention_kernel.empty() && d.attention_tables.empty()) {
    // A kernel named for an architecture it has no published speed on would be timed by the generic rule
    // under its name: refused instead.
    return InputErrors{InputError{{},
                                  "attention_kernel",
                                  id + ": no published speed of attention kernel '" + attention_kernel +
                                      "' on architecture '" + a->name +
                                      "' (data/perf/gemm-efficiency.yaml attention.kernels)"}};
  }
  std::sort(d.attention_tables.begin(), d.attention_tables.end(),
            [](const AttentionKernel& x, const AttentionKernel& y) { return x.head_dim < y.head_dim; });
  if (!d.attention_tables.empty()) {
    // The table named in rules and reports: the one nearest the usual head dimension 128.
    d.attention_kernel = *std::min_element(
        d.attention_tables.begin(), d.attention_tables.end(),
        [](const auto& x, const auto& y) { return std::abs(x.head_dim - 128) < std::abs(y.head_dim - 128); });
  }
  return d;
}

Result<GemmModel> load_gemm_model(const std::string& path) {
  return result_of<GemmModel>([&] { return read_gemm_model(path); });
}

}  // namespace gputwin
