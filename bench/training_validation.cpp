// Prints the training validation tables: every row of data/reference/training-runs.yaml (fit set, then
// evaluation set) with predicted and published tokens/s per GPU and the error, or why it is not predicted;
// the mean and worst |error| of each set and of each GEMM architecture (AMD's apart); the per-architecture
// fit re-run (fit set only); every evaluation row worse than 20 % with its stated reason
// (data/reference/training-gaps.yaml); then every published A100 run of data/reference/training.yaml
// (Megatron-LM Table 1, Korthikanti et al. Table 5) and the held-out check on them (the ampere fraction
// fitted on one table, the other predicted).
//
//   build-train/bench/training_validation        (Markdown tables, pasted into docs/accuracy.md)
//   build-train/bench/training_validation --fit  (re-runs fit_gemm_calibration: the fitted constants)
//   build-train/bench/training_validation --moe  (every MoE fit row's step-time terms, compute split by kind)
//   build-train/bench/training_validation --moe-shapes  (the MoE residual in five forms, each fitted on the MoE
//                                                         fit rows: which form the rows support)
//   build-train/bench/training_validation --groups  (mean and worst |error| by set, GPU, dense/MoE, model)
//   build-train/bench/training_validation --attention  (every predicted row's attention and context-parallel
//                                                        share of the step, with its error: the diagnosis)
//   build-train/bench/training_validation --sweeps  (rows of one source that differ in sequence or cp: how
//                                                     the published and predicted time per token grow)
#include "gputwin/perf/training_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstddef>
#include <functional>
#include <iostream>
#include <limits>
#include <map>

#include "gputwin/perf/pipeline_schedule.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/training_runs.hpp"

namespace {

std::string path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

void print_table(const std::vector<gputwin::RunPrediction>& rows, const std::string& table) {
  const bool table1 = table == "megatron_table_1";
  std::cout << (table1
                    ? "| model | tp | pp | GPUs | batch | published TFLOP/s/GPU | predicted | iteration s "
                      "(published) | "
                      "predicted s | error |\n|---|---|---|---|---|---|---|---|---|---|\n"
                    : "| run | tp | pp | v | GPUs | batch | published s | predicted s | error | MFU pred. |\n"
                      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& row : rows) {
    if (row.run.table != table) continue;
    const auto& c = row.run.config;
    if (table1) {
      const double predicted_tflops =
          row.run.published_tflops_per_gpu * row.run.published_step_s / row.estimate.step_time_s;
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.0f} | {:.0f} | {:.2f} | {:.2f} | {:+.1f} % |\n",
                               row.run.label, c.tp, c.pp, row.run.gpus, c.global_batch,
                               row.run.published_tflops_per_gpu, predicted_tflops, row.run.published_step_s,
                               row.estimate.step_time_s, 100 * row.error);
    } else {
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:+.1f} % | {:.1f} % |\n",
                               row.run.label, c.tp, c.pp, c.virtual_stages, row.run.gpus, c.global_batch,
                               row.run.published_step_s, row.estimate.step_time_s, 100 * row.error,
                               100 * row.estimate.mfu);
    }
  }
  const auto summary = gputwin::summarize(rows, table);
  std::cout << fmt::format("\n{}: {} rows, mean |error| {:.2f} %, max |error| {:.2f} %\n\n", table,
                           summary.rows, 100 * summary.mean_abs_error, 100 * summary.max_abs_error);
}

void print_reference_set(const std::vector<gputwin::ReferencePrediction>& rows, const std::string& set) {
  std::cout
      << "| run | GPU | GPUs | tp pp v cp | mb | zero | recompute | prec. | published | predicted | error |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  int skipped = 0;
  for (const auto& row : rows) {
    if (row.run.set != set) continue;
    const auto& c = row.run.config;
    if (!row.run.predictable) {
      ++skipped;
      std::cout << fmt::format("| {} | {} | {} | | | | | {} | {} | not predicted | {} |\n", row.run.id,
                               row.run.gpu, row.run.gpus, row.run.precision,
                               row.run.published_tokens_per_s_per_gpu > 0
                                   ? fmt::format("{:.0f}", row.run.published_tokens_per_s_per_gpu)
                                   : std::string("-"),
                               row.run.why_not);
      continue;
    }
    std::cout << fmt::format(
        "| {} | {} | {} | {} {} {} {} | {} | {} | {} | {} | {:.0f} | {:.0f} | {:+.1f} % |\n", row.run.id,
        row.run.gpu, row.run.gpus, c.tp, c.pp, c.virtual_stages, c.cp, c.micro_batch, c.zero,
        gputwin::recompute_name(c.recompute), row.run.precision, row.run.published_tokens_per_s_per_gpu,
        row.predicted_tokens_per_s_per_gpu, 100 * row.error);
  }
  const auto summary = gputwin::summarize_set(rows, set);
  std::cout << fmt::format(
      "\n{} set: {} rows predicted ({} not), mean |error| {:.2f} %, worst |error| {:.2f} %\n", set,
      summary.rows, skipped, 100 * summary.mean_abs_error, 100 * summary.max_abs_error);
  for (const char* arch : {"hopper", "blackwell", "blackwell-ultra", "cdna3", "cdna4"}) {
    const auto a = gputwin::summarize_set(rows, set, arch);
    if (a.rows > 0)
      std::cout << fmt::format("  {}: {} rows, mean |error| {:.2f} %, worst {:.2f} %\n", arch, a.rows,
                               100 * a.mean_abs_error, 100 * a.max_abs_error);
  }
  std::cout << "\n";
}

// Every evaluation row worse than 20 % (the per-row goal) with the reason
// data/reference/training-gaps.yaml gives for it, or "no reason stated".
void print_gap_reasons(const std::vector<gputwin::ReferencePrediction>& rows,
                       const std::vector<gputwin::KnownGap>& gaps) {
  std::cout << "Evaluation rows worse than 20 % and why (data/reference/training-gaps.yaml):\n\n";
  for (const auto& row : rows) {
    if (!row.run.predictable || row.run.set != "evaluation" || std::abs(row.error) <= 0.20) continue;
    const gputwin::KnownGap* gap = gputwin::known_gap_of(gaps, row.run.id);
    std::cout << fmt::format(
        "- {} {:+.1f} %: {}\n", row.run.id, 100 * row.error,
        gap == nullptr ? std::string("no reason stated") : fmt::format("[{}] {}", gap->id, gap->reason));
  }
  std::cout << "\n";
}

// The MoE host wait the whole step carries: compute_parts count the steady phase (m micro-batches); the
// pipeline bubble carries the same share of each stage time, so the wait in it is the steady wait x b / m.
double whole_step_moe_wait(const gputwin::ReferencePrediction& row) {
  double steady_wait = 0;
  for (const auto& t : row.estimate.compute_parts)
    if (t.name == "MoE host wait") steady_wait = t.seconds;
  const auto& c = row.estimate.config;
  const double m = c.micro_batches();
  const double bubble =
      gputwin::pipeline_schedule_of(c)->bubble_stage_times(c.pp, c.virtual_stages, c.micro_batches());
  return steady_wait * (m + bubble) / m;
}

// The same row per MoE layer pass (one micro-batch's forward and backward through one MoE layer on the
// slowest rank): the published step, the model without its fitted host wait (GPU work and exposed
// communication), the wait it charges, and the wait that would make the row exact (published - the rest;
// negative: the rest alone is already slower than published), and the model's FLOPs per token (to set
// beside a source's TFLOP/s / tokens/s; the error itself compares tokens/s). The bottom-up view of the wait.
void print_moe_layer_pass(const gputwin::ReferencePrediction& row, double published_step, double passes) {
  const double wait = whole_step_moe_wait(row);
  const double rest = row.estimate.step_time_s - wait;
  std::cout << fmt::format(
      "    per MoE layer pass: published {:.2f} ms, model without the wait {:.2f} ms ({:.0f} % of "
      "published), wait charged {:.2f} ms, wait that would fit {:.2f} ms; model FLOPs per token {:.2f} G\n",
      1e3 * published_step / passes, 1e3 * rest / passes, 100 * rest / published_step, 1e3 * wait / passes,
      1e3 * (published_step - rest) / passes,
      row.estimate.model_flops_per_step /
          (1e9 * row.estimate.config.global_batch * row.estimate.config.sequence));
}

// `--moe`: every predicted MoE row of the fit set with its step-time terms (seconds per step; compute and
// recompute split into dense GEMMs, grouped expert GEMMs, attention, elementwise, casts, MoE permute, MoE
// host wait and the output layer), the published step time, and what is missing per MoE layer and micro-batch
// on the slowest rank (published - predicted, over (m + bubble) x MoE layers on that rank): the evidence
// behind the MoE terms of the model.
void print_moe_breakdown(const std::vector<gputwin::ReferencePrediction>& rows) {
  for (const auto& row : rows) {
    if (!row.run.predictable || row.run.set != "fit" || !row.run.model.is_moe()) continue;
    const auto& c = row.estimate.config;
    const double published_step = static_cast<double>(c.global_batch) * c.sequence /
                                  (row.run.published_tokens_per_s_per_gpu * row.run.gpus);
    const double m = c.micro_batches();
    const double bubble =
        gputwin::pipeline_schedule_of(c)->bubble_stage_times(c.pp, c.virtual_stages, c.micro_batches());
    const double moe_layers = static_cast<double>(c.layers_per_stage(row.run.model)) *
                              row.run.model.moe_layer_count() / row.run.model.layers;
    std::cout << fmt::format(
        "{} ({}, tp {} pp {} v {} ep {} mb {} m {:.0f}): published {:.3f} s, predicted {:.3f} s, {:+.1f} %; "
        "missing {:.3f} ms per MoE layer and micro-batch\n",
        row.run.id, row.run.precision, c.tp, c.pp, c.virtual_stages, c.ep, c.micro_batch, m, published_step,
        row.estimate.step_time_s, 100 * row.error,
        1e3 * (published_step - row.estimate.step_time_s) / ((m + bubble) * moe_layers));
    // Compute and recompute split by kind (GEMMs, grouped expert GEMMs, attention, permute, host wait, ...),
    // then every other term, each with its share of the predicted step.
    auto line = [&](const gputwin::TimeTerm& t) {
      if (t.seconds > 0)
        std::cout << fmt::format("    {:<32} {:8.3f} s {:5.1f} %\n", t.name, t.seconds,
                                 100 * t.seconds / row.estimate.step_time_s);
    };
    for (const auto& t : row.estimate.compute_parts) line(t);
    for (const auto& t : row.estimate.terms)
      if (t.name != "compute" && t.name != "recompute") line(t);
    print_moe_layer_pass(row, published_step, (m + bubble) * moe_layers);
  }
}

// `--moe-shapes`: which form of the MoE residual the fit rows support. The stored model pays a fitted wait
// per MoE layer and forward pass; here each MoE fit row's step without that wait (the rest of the model as it
// is) gets instead one of five forms, each with one value for recipes with and one for recipes without CUDA
// graphs, fitted by grid on the MoE fit rows only, and the mean |error| of tokens/s per GPU printed: a
// diagnosis (docs/accuracy.md, the MoE residual), never an input.
struct MoeRow {
  double published = 0;    // s per step
  double without = 0;      // predicted s per step without the host wait
  double forwards = 0;  // MoE layer forward passes per step on the slowest rank, the bubble's (m + b) / m in
  double tokens = 0;       // per micro-batch and GPU
  double routed = 0;       // tokens x top-k
  double expert_gemm = 0;  // s per step, the grouped expert GEMMs
  bool graphed = false;
  bool flex = false;     // the flex (HybridEP) dispatcher
  bool overlap = false;  // the all-to-all overlapped with another micro-batch
};

std::vector<MoeRow> moe_fit_rows(const std::vector<gputwin::ReferencePrediction>& rows,
                                 const gputwin::TrainingCalibration& k) {
  std::vector<MoeRow> out;
  for (const auto& row : rows) {
    if (!row.run.predictable || row.run.set != "fit" || !row.run.model.is_moe()) continue;
    const auto& c = row.estimate.config;
    MoeRow r;
    r.published = static_cast<double>(c.global_batch) * c.sequence /
                  (row.run.published_tokens_per_s_per_gpu * row.run.gpus);
    r.graphed = c.moe_cuda_graphs;
    r.flex = c.expert_dispatch_dedup;
    r.overlap = c.expert_comm_overlap;
    const double wait = r.graphed ? k.moe_layer_host_graphed_s : k.moe_layer_host_s;
    const double host = whole_step_moe_wait(row);
    for (const auto& t : row.estimate.compute_parts)
      if (t.name == "grouped expert GEMMs") r.expert_gemm = t.seconds;
    if (wait <= 0) continue;
    r.without = row.estimate.step_time_s - host;
    r.forwards = host / wait;
    r.tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
    r.routed = r.tokens * row.run.model.moe.experts_per_token;
    out.push_back(r);
  }
  return out;
}

// The stored form (a wait per MoE layer and forward pass) fitted separately for each kind of recipe the
// setup distinguishes (CUDA graphs, dispatcher, all-to-all overlap): how much of the residual the recipe kind
// alone carries. No fit row ran a full-iteration graph (Megatron-Bridge added them after 26.04), so every kind
// here synchronises with the host once per MoE layer and forward pass. A diagnosis, never an input.
void print_moe_wait_by_recipe_kind(const std::vector<MoeRow>& rows) {
  const auto kind = [](const MoeRow& r) {
    return std::string(r.graphed ? "graphs" : "no graphs") + (r.flex ? ", flex" : ", alltoall") +
           (r.overlap ? ", a2a overlap" : "");
  };
  std::map<std::string, std::vector<const MoeRow*>> kinds;
  for (const auto& r : rows) kinds[kind(r)].push_back(&r);
  std::cout << "\n| recipe kind | rows | wait fitted on them | their mean |error| | at no wait |\n"
               "|---|---|---|---|---|\n";
  double total = 0;
  for (const auto& [name, members] : kinds) {
    const auto sum_at = [&](double wait) {
      double sum = 0;
      for (const MoeRow* r : members) sum += std::abs(r->published / (r->without + wait * r->forwards) - 1);
      return sum;
    };
    const double wait = gputwin::best_moe_host_wait(sum_at);  // the fit's own grid
    const double best = sum_at(wait);
    total += best;
    const double n = static_cast<double>(members.size());
    std::cout << fmt::format("| {} | {} | {:.2f} ms | {:.2f} % | {:.2f} % |\n", name, members.size(),
                             1e3 * wait, 100 * best / n, 100 * sum_at(0) / n);
  }
  std::cout << fmt::format("| all, one wait per kind | {} | - | {:.2f} % | - |\n", rows.size(),
                           100 * total / static_cast<double>(rows.size()));
}

void print_moe_shapes(const std::vector<gputwin::ReferencePrediction>& rows,
                      const gputwin::TrainingCalibration& k) {
  const auto fit_rows = moe_fit_rows(rows, k);
  struct Shape {
    const char* name;
    double top;  // grid 0 .. top, 161 steps, for each of the two values; 0: the fit's host-wait grid
    std::function<double(const MoeRow&, double)> step;
  };
  const std::vector<Shape> shapes = {
      {"per MoE layer and forward pass (the stored form)", 0,
       [](const MoeRow& r, double v) { return r.without + v * r.forwards; }},
      {"per token, MoE layer and forward pass", 2e-6,
       [](const MoeRow& r, double v) { return r.without + v * r.forwards * r.tokens; }},
      {"per routed row, MoE layer and forward pass", 4e-7,
       [](const MoeRow& r, double v) { return r.without + v * r.forwards * r.routed; }},
      {"grouped expert GEMMs slower by a factor (1 + v)", 4.0,
       [](const MoeRow& r, double v) { return r.without + v * r.expert_gemm; }},
      {"host-bound forward: max(0, v - the layer's forward, a third of its step share)", 0.06,
       [](const MoeRow& r, double v) {
         return r.without + r.forwards * std::max(0.0, v - r.without / r.forwards / 3);
       }},
  };
  const auto mean_error = [&](const Shape& s, double graphed, double plain) {
    double sum = 0;
    for (const auto& r : fit_rows) sum += std::abs(r.published / s.step(r, r.graphed ? graphed : plain) - 1);
    return sum / static_cast<double>(fit_rows.size());
  };
  // A row reads one of the two values, so each is fitted on its own rows, as fit_gemm_calibration does.
  const auto best_value = [&](const Shape& s, bool graphed) {
    const auto sum_at = [&](double v) {
      double sum = 0;
      for (const auto& r : fit_rows)
        if (r.graphed == graphed) sum += std::abs(r.published / s.step(r, v) - 1);
      return sum;
    };
    if (s.top == 0) return gputwin::best_moe_host_wait(sum_at);
    double best = 0, best_sum = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= 160; ++i)
      if (const double v = s.top * i / 160, e = sum_at(v); e < best_sum - 1e-12) best = v, best_sum = e;
    return best;
  };
  std::cout << fmt::format(
      "MoE fit rows: {}\n\n| form | value, graphed recipes | value, others | mean |error| |\n"
      "|---|---|---|---|\n",
      fit_rows.size());
  for (const auto& s : shapes) {
    const double graphed = best_value(s, true), plain = best_value(s, false);
    std::cout << fmt::format("| {} | {:.4g} | {:.4g} | {:.2f} % |\n", s.name, graphed, plain,
                             100 * mean_error(s, graphed, plain));
  }
  std::cout << fmt::format("| none (the model without the wait) | - | - | {:.2f} % |\n",
                           100 * mean_error(shapes[0], 0, 0));
  print_moe_wait_by_recipe_kind(fit_rows);
}

// `--attention`: every predicted row (both sets) with its sequence, cp, the attention kernels' share of the
// predicted step and the exposed context-parallel exchange's, and the error: where attention timing matters.
void print_attention_shares(const std::vector<gputwin::ReferencePrediction>& rows) {
  std::cout << "| run | set | seq | cp | kernel | attention share | CP comm share | error |\n"
               "|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    if (!row.run.predictable) continue;
    const auto& e = row.estimate;
    double cp_comm = 0;
    for (const auto& t : e.terms)
      if (t.name == "context-parallel communication") cp_comm = t.seconds;
    std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.1f} % | {:.1f} % | {:+.1f} % |\n", row.run.id,
                             row.run.set, e.config.sequence, e.config.cp, e.attention_rule,
                             100 * e.attention_s / e.step_time_s, 100 * cp_comm / e.step_time_s,
                             100 * row.error);
  }
}

// `--sweeps`: rows of one source that differ only in sequence length or context parallelism (same model, GPU
// type and count, precision, recomputation, tp and pp), in order of the predicted attention time per token. For each
// consecutive pair: how much the published and the predicted time per token and GPU grow, the predicted
// attention's part of that growth, and the factor k the predicted attention growth would need for the
// published one, with the model's other terms as they are: k = (published growth - (predicted growth -
// attention growth)) / attention growth. A diagnosis of the published rows against the model, never an input
// (docs/accuracy.md: what grows with the sequence).
struct SweepKey {
  std::string source, model, gpu, precision, recompute;
  int gpus = 0, tp = 0, pp = 0;
  auto operator<=>(const SweepKey&) const = default;
};

double attention_s_per_token(const gputwin::ReferencePrediction& row) {
  return row.estimate.attention_s / row.estimate.step_time_s / row.predicted_tokens_per_s_per_gpu;
}

void print_sweep_pair(const gputwin::ReferencePrediction& a, const gputwin::ReferencePrediction& b) {
  const double published = 1 / b.run.published_tokens_per_s_per_gpu - 1 / a.run.published_tokens_per_s_per_gpu;
  const double predicted = 1 / b.predicted_tokens_per_s_per_gpu - 1 / a.predicted_tokens_per_s_per_gpu;
  const double attention = attention_s_per_token(b) - attention_s_per_token(a);
  std::cout << fmt::format("| {} -> {} | {}/{} -> {}/{} | {:.1f} | {:.1f} | {:.1f} | {:.2f} | {:.2f} |\n",
                           a.run.id, b.run.id, a.estimate.config.sequence, a.estimate.config.cp,
                           b.estimate.config.sequence, b.estimate.config.cp, 1e6 * published, 1e6 * predicted,
                           1e6 * attention, published / predicted,
                           (published - (predicted - attention)) / attention);
}

void print_sweeps(const std::vector<gputwin::ReferencePrediction>& rows) {
  std::map<SweepKey, std::vector<const gputwin::ReferencePrediction*>> sweeps;
  for (const auto& row : rows) {
    if (!row.run.predictable) continue;
    const auto& c = row.estimate.config;
    sweeps[{row.run.source, row.run.model_id, row.run.gpu, row.run.precision,
            std::string(gputwin::recompute_name(c.recompute)), row.run.gpus, c.tp, c.pp}]
        .push_back(&row);
  }
  std::cout << "Growth of the time per token and GPU between rows of one source that differ in sequence or cp "
               "(us; k: the factor the predicted attention growth needs)\n\n"
               "| rows | seq/cp | published | predicted | of which attention | published / predicted | k |\n"
               "|---|---|---|---|---|---|---|\n";
  for (auto& [key, sweep] : sweeps) {
    std::sort(sweep.begin(), sweep.end(), [](const auto* x, const auto* y) {
      return attention_s_per_token(*x) < attention_s_per_token(*y);
    });
    for (std::size_t i = 1; i < sweep.size(); ++i) {
      const auto &a = *sweep[i - 1], &b = *sweep[i];
      const bool shape_differs = a.estimate.config.sequence != b.estimate.config.sequence ||
                                 a.estimate.config.cp != b.estimate.config.cp;
      if (shape_differs && attention_s_per_token(b) > 1.05 * attention_s_per_token(a)) print_sweep_pair(a, b);
    }
  }
}

// `--groups`: mean and worst |error| of each set by GEMM architecture, dense / MoE and model: the before /
// after table of docs/accuracy.md.
void print_groups(const std::vector<gputwin::ReferencePrediction>& rows) {
  struct Sum {
    int rows = 0;
    double sum = 0, worst = 0;
  };
  std::map<std::string, Sum> groups;
  for (const auto& row : rows) {
    if (!row.run.predictable) continue;
    const std::string kind = row.run.model.is_moe() ? "MoE" : "dense";
    for (const std::string& key :
         {fmt::format("{} | {} | {} | all", row.run.set, row.run.gpu, kind),
          fmt::format("{} | {} | {} | {}", row.run.set, row.run.gpu, kind, row.run.model_id)}) {
      Sum& s = groups[key];
      ++s.rows;
      s.sum += std::abs(row.error);
      s.worst = std::max(s.worst, std::abs(row.error));
    }
  }
  std::cout << "| set | GPU | kind | model | rows | mean |error| | worst |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [key, s] : groups)
    std::cout << fmt::format("| {} | {} | {:.1f} % | {:.1f} % |\n", key, s.rows, 100 * s.sum / s.rows,
                             100 * s.worst);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool moe_breakdown = mode == "--moe";
  const auto catalog = gputwin::Catalog::load({path("data/catalog")});
  const auto collectives = gputwin::load_collective_model(path("data/perf/nccl-cost-model.yaml"));
  const auto calibration = gputwin::load_training_calibration(path("data/perf/training-model.yaml"));
  const auto runs = gputwin::load_published_runs(path("data/reference/training.yaml"));
  if (!catalog.ok() || !collectives.ok() || !calibration.ok() || !runs.ok()) {
    std::cerr << catalog.error_text() << collectives.error_text() << calibration.error_text()
              << runs.error_text();
    return 1;
  }
  const auto& c = calibration.value();
  const auto presets = gputwin::load_model_presets(path("data/perf/models.yaml"));
  const auto reference = gputwin::load_reference_runs(catalog.value(), c.gemm, presets.value(),
                                                      path("data/reference/training-runs.yaml"),
                                                      path("data/reference/training-runs-setup.yaml"));
  if (!reference.ok()) {
    std::cerr << reference.error_text();
    return 1;
  }
  std::cout << "GEMM model (data/perf/gemm-efficiency.yaml): peak fraction per architecture\n";
  for (const auto& a : c.gemm.architectures())
    std::cout << fmt::format(
        "  {}: {}\n", a.name,
        a.peak_fraction ? fmt::format("{:.3f}", *a.peak_fraction) : std::string("unknown (user sets)"));
  // Where a kernel measurement gives the precisions' relative rates, the fraction is the reference's.
  for (const auto& a : c.gemm.architectures()) {
    if (a.precision_rates.empty()) continue;
    std::cout << "  " << a.name << " measured rate by precision (x the fraction above):";
    for (const auto& [precision, rate] : a.precision_rates)
      std::cout << fmt::format(" {} {:.3f}", precision, rate);
    std::cout << "\n";
  }
  if (mode == "--fit") {  // the calibration re-run: what data/perf/*.yaml must hold
    const auto fit = gputwin::fit_gemm_calibration(catalog.value(), collectives.value(), c, reference.value(),
                                                   runs.value());
    if (!fit.ok()) {
      std::cerr << fit.error_text();
      return 1;
    }
    for (const auto& a : fit.value().gemm.architectures())
      std::cout << fmt::format(
          "  {}: {}\n", a.name,
          a.peak_fraction ? fmt::format("{:.3f}", *a.peak_fraction) : std::string("unknown"));
    std::cout << fmt::format("  moe_layer_host_s: {:.5f}\n", fit.value().moe_layer_host_s);
    std::cout << fmt::format("  moe_layer_host_graphed_s: {:.5f}\n", fit.value().moe_layer_host_graphed_s);
    // The recipes' GEMM rates, each from its published benchmark (precision-recipes.yaml gemm_rate).
    const auto recipes = gputwin::load_precision_recipes(path("data/perf/precision-recipes.yaml"));
    if (!recipes.ok()) {
      std::cerr << recipes.error_text();
      return 1;
    }
    for (const auto& r : recipes.value()) {
      if (!r.rate_benchmark) continue;
      const auto rate =
          gputwin::fit_recipe_gemm_rate(collectives.value(), c, reference.value(), presets.value(), r);
      const auto stored = gputwin::recipe_step_ratio(collectives.value(), c, reference.value(),
                                                     presets.value(), r, r.gemm_rate);
      if (!rate.ok() || !stored.ok()) {
        std::cerr << rate.error_text() << stored.error_text();
        return 1;
      }
      std::cout << fmt::format(
          "  {} gemm_rate: {:.3f} (stored {:.3f}: predicted step ratio {:.4f}, published {:.4f})\n", r.name,
          rate.value(), r.gemm_rate, stored.value(), r.rate_benchmark->published_step_ratio);
    }
    return 0;
  }
  // The calibration re-run: every architecture's fraction fitted again on the fit set only (the stored values
  // must equal it; TrainingCalibration.RecomputesTheStoredFit checks).
  const auto refit =
      gputwin::fit_gemm_calibration(catalog.value(), collectives.value(), c, reference.value(), runs.value());
  if (!refit.ok()) {
    std::cerr << refit.error_text();
    return 1;
  }
  std::cout << "\nRe-fitted on the fit set (fit_gemm_calibration)\n";
  for (const auto& a : refit.value().gemm.architectures())
    std::cout << fmt::format(
        "  {}: {}\n", a.name,
        a.peak_fraction ? fmt::format("{:.3f}", *a.peak_fraction) : std::string("no fit rows: unknown"));
  const auto predictions = gputwin::predict_reference_runs(collectives.value(), c, reference.value());
  if (moe_breakdown) {
    print_moe_breakdown(predictions);
    return 0;
  }
  if (mode == "--moe-shapes") {
    print_moe_shapes(predictions, c);
    return 0;
  }
  if (mode == "--attention") {
    print_attention_shares(predictions);
    return 0;
  }
  if (mode == "--sweeps") {
    print_sweeps(predictions);
    return 0;
  }
  if (mode == "--groups") {
    print_groups(predictions);
    return 0;
  }
  std::cout << "\n## Fit set (training-runs.yaml sources with set: fit)\n\n";
  print_reference_set(predictions, "fit");
  std::cout << "## Evaluation set (never fitted on)\n\n";
  print_reference_set(predictions, "evaluation");
  const auto gaps = gputwin::load_known_gaps(path("data/reference/training-gaps.yaml"), reference.value());
  if (!gaps.ok()) {
    std::cerr << gaps.error_text();
    return 1;
  }
  print_gap_reasons(predictions, gaps.value());
  std::cout << "## AMD Instinct (cdna3: MI300X, MI325X; cdna4: MI355X)\n\n";
  for (const char* arch : {"cdna3", "cdna4"}) {
    for (const char* set : {"fit", "evaluation"}) {
      const auto a = gputwin::summarize_set(predictions, set, arch);
      std::cout << fmt::format("  {} {} set: ", arch, set)
                << (a.rows > 0 ? fmt::format("{} rows, mean |error| {:.2f} %, worst {:.2f} %\n", a.rows,
                                             100 * a.mean_abs_error, 100 * a.max_abs_error)
                               : std::string("no rows\n"));
    }
  }
  for (const auto& row : predictions) {
    if (!row.run.predictable || row.run.hardware.accelerator.vendor != "AMD") continue;
    std::cout << fmt::format(
        "  {} ({} set): published {:.0f} tokens/s/GPU ({}), predicted {:.0f}, {:+.1f} %\n", row.run.id,
        row.run.set, row.run.published_tokens_per_s_per_gpu, row.run.compared_on,
        row.predicted_tokens_per_s_per_gpu, 100 * row.error);
  }
  std::cout << "\n";
  const auto rows = gputwin::predict_runs(catalog.value(), collectives.value(), c, runs.value());
  if (!rows.ok()) {
    std::cerr << rows.error_text();
    return 1;
  }
  print_table(rows.value(), "megatron_table_1");
  print_table(rows.value(), "korthikanti_table_5");
  std::cout << "Held out (fit on one table, predict the other):\n";
  for (const auto& [fit_on, predict] :
       {std::pair<std::string, std::string>{"korthikanti_table_5", "megatron_table_1"},
        {"megatron_table_1", "korthikanti_table_5"}}) {
    const auto fit =
        gputwin::fit_training_calibration(catalog.value(), collectives.value(), c, runs.value(), fit_on);
    const auto held = gputwin::predict_runs(catalog.value(), collectives.value(), fit.value(), runs.value());
    const auto summary = gputwin::summarize(held.value(), predict);
    const auto* ampere =
        fit.value().gemm.architecture_of(catalog.value().get<gputwin::Accelerator>("a100-80gb-sxm"));
    std::cout << fmt::format("  fit on {} (ampere fraction {:.3f}): {} mean |error| {:.2f} %, max {:.2f} %\n",
                             fit_on, ampere != nullptr ? ampere->peak_fraction.value_or(0) : 0.0, predict,
                             100 * summary.mean_abs_error, 100 * summary.max_abs_error);
  }
  return 0;
}
