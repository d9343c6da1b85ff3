#include "gputwin/report/training_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gputwin/report/json_document.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

std::string split_text(const TrainingConfig& c) {
  return fmt::format("tp {}, pp {}, vp {}, cp {}, ep {}, dp {}; micro-batch {}, recompute {}, ZeRO {}{}",
                     c.tp, c.pp, c.virtual_stages, c.cp, c.ep, c.dp, c.micro_batch,
                     recompute_name(c.recompute), c.zero,
                     c.sequence_parallel && c.tp > 1 ? ", sequence parallel" : "");
}

std::string short_split(const TrainingConfig& c) {
  return fmt::format("tp {} pp {} vp {} cp {} ep {} dp {} mb {} {} ZeRO {}", c.tp, c.pp, c.virtual_stages,
                     c.cp, c.ep, c.dp, c.micro_batch, recompute_name(c.recompute), c.zero);
}

nlohmann::json split_json(const TrainingConfig& c) {
  return {{"tp", c.tp},
          {"pp", c.pp},
          {"vp", c.virtual_stages},
          {"cp", c.cp},
          {"ep", c.ep},
          {"dp", c.dp},
          {"micro_batch", c.micro_batch},
          {"recompute", recompute_name(c.recompute)},
          {"zero", c.zero},
          {"idle_gpus", c.idle_gpus}};
}

// The search's top choices and, per axis, why the best split with another value lost.
std::string search_text(const TrainingSearch& search) {
  std::string text = "Top choices (ties broken: less tp, pp, cp, recompute; bigger micro-batch; fewer vp)\n";
  TextTable top({"#", "split", "step s", "vs best", "memory/GPU"},
                {Align::right, Align::left, Align::right, Align::right, Align::right});
  for (std::size_t i = 0; i < search.top.size(); ++i) {
    const TrainingEstimate& e = search.top[i];
    top.add_row({std::to_string(i + 1), short_split(e.config), fmt::format("{:.3f}", e.step_time_s),
                 fmt::format("{:+.1f} %", 100 * (e.step_time_s / search.top.front().step_time_s - 1)),
                 fmt::format("{:.1f} GB", in_gigabytes(e.memory.total()))});
  }
  text += top.render();
  text += "Why the others lost (the best split with each other axis value)\n";
  TextTable lost({"axis", "value", "best split with it", "reason"},
                 {Align::left, Align::left, Align::left, Align::left});
  for (const AxisAlternative& a : search.alternatives) {
    lost.add_row({a.axis, a.value, a.best ? short_split(a.best->config) : "-", a.reason});
  }
  return text + lost.render();
}

nlohmann::json memory_gb_json(const MemoryFootprint& m) {
  return {{"total", in_gigabytes(m.total())}, {"capacity", in_gigabytes(m.capacity)}, {"fits", m.fits()}};
}

std::string gb(ByteSize size) {
  return fmt::format("{:.1f} GB", in_gigabytes(size));
}

std::string memory_text(const MemoryFootprint& m) {
  std::string text = fmt::format("Memory per GPU (most loaded pipeline stage: rank {})\n", m.pipeline_rank);
  TextTable table({"weights", "gradients", "optimizer", "activations", "logits", "reserve", "total",
                   "capacity", "verdict"},
                  {Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
                   Align::right, Align::right, Align::left});
  const double margin = in_gigabytes(m.margin());
  table.add_row({gb(m.weights), gb(m.gradients), gb(m.optimizer_states), gb(m.activations),
                 gb(m.output_logits), gb(m.reserve), gb(m.total()), gb(m.capacity),
                 m.fits() ? fmt::format("fits, {:.1f} GB free", margin)
                          : fmt::format("OUT OF MEMORY by {:.1f} GB", -margin)});
  return text + table.render();
}

std::string terms_text(const TrainingEstimate& e, bool explain) {
  std::vector<std::string> header{"term", "seconds", "share"};
  std::vector<Align> align{Align::left, Align::right, Align::right};
  if (explain) {
    header.push_back("how");
    align.push_back(Align::left);
  }
  TextTable table(header, align);
  for (const auto& t : e.terms) {
    std::vector<std::string> row{t.name, fmt::format("{:.3f}", t.seconds),
                                 fmt::format("{:.1f} %", 100 * t.seconds / e.step_time_s)};
    if (explain) row.push_back(t.rule);
    table.add_row(row);
  }
  return table.render();
}

std::string explain_text(const TrainingRunInfo& run, const TrainingEstimate& e) {
  return fmt::format(
      "How: peak {:.0f} TFLOP/s ({}) per GPU; {} (data/perf/gemm-efficiency.yaml, fitted per architecture on "
      "published runs); memory bandwidth {:.2f} TB/s; model FLOPs per step {:.4g}, with recomputation "
      "{:.4g}\n",
      e.peak_flops_per_gpu / 1e12, e.config.precision, e.efficiency_rule,
      in_gigabytes_per_second(run.hardware->accelerator.memory_bandwidth) / 1e3, e.model_flops_per_step,
      e.hardware_flops_per_step);
}

}  // namespace

std::string_view flop_convention() {
  return "model FLOPs = 3 x forward (2 per multiply-add, attention over the full s x s square, output "
         "layer), no "
         "recomputation; = 72 B s l h^2 (1 + s/(6h) + V/(12 h l)) for GPT shapes; HFU adds recomputation";
}

std::string training_text(const TrainingRunInfo& run, const TrainingEstimate& e, bool explain) {
  const auto& c = e.config;
  std::string text = fmt::format(
      "{} on {} x {} ({} nodes of {})\n", run.model->name, c.job_gpus(), run.hardware->accelerator.info.id,
      (c.job_gpus() + run.hardware->gpus_per_node - 1) / run.hardware->gpus_per_node,
      run.hardware->system_id);
  std::string precision = c.precision;
  if (c.bf16_layers_at_start > 0 || c.bf16_layers_at_end > 0)
    precision +=
        fmt::format(" (first {} and last {} layers in bf16)", c.bf16_layers_at_start, c.bf16_layers_at_end);
  text += fmt::format("  {}; global batch {} x {} tokens, {}\n", split_text(c), c.global_batch, c.sequence,
                      precision);
  if (!c.compiled)
    text +=
        "  PyTorch eager mode (torch.compile off): each elementwise op its own kernel "
        "(data/perf/pytorch-eager-ops.yaml)\n";
  if (c.first_stage_layers > 0 || c.last_stage_layers > 0) {
    text += fmt::format("  pipeline layers: first stage {}, last stage {}, each middle stage {}\n",
                        layers_on_rank(*run.model, c, 0), layers_on_rank(*run.model, c, c.pp - 1),
                        c.pp > 2 ? layers_on_rank(*run.model, c, 1) : 0);
  }
  if (c.idle_gpus > 0) {
    text += fmt::format(
        "  {} of the job's {} GPUs idle (the global batch does not split over more data-parallel groups); "
        "MFU per GPU bought {:.1f} %\n",
        c.idle_gpus, c.job_gpus(), 100 * e.mfu * c.gpus() / c.job_gpus());
  }
  if (run.search) {
    text += fmt::format(
        "  found by --search: fastest of {} fitting splits ({} valid; {} tp x pp pairs skipped as "
        "layer-unbalanced), simplest of {} within {:.0f} % of it\n",
        run.search->fitting, run.search->candidates, run.search->unbalanced, run.search->ties,
        100 * run.search->tie_tolerance);
  }
  text +=
      fmt::format("\nStep time {:.3f} s ({} micro-batches per pipeline)\n", e.step_time_s, c.micro_batches());
  text += terms_text(e, explain);
  text += fmt::format("\nThroughput {:.0f} tokens/s ({:.1f} tokens/s per GPU)\n", e.tokens_per_second,
                      e.tokens_per_second / c.gpus());
  text += fmt::format("MFU {:.1f} %, HFU {:.1f} % of {:.0f} TFLOP/s {} per GPU\n", 100 * e.mfu, 100 * e.hfu,
                      e.peak_flops_per_gpu / 1e12, c.precision);
  text += fmt::format("  convention: {}\n\n", flop_convention());
  text += memory_text(e.memory);
  if (run.search) text += "\n" + search_text(*run.search);
  if (explain) text += "\n" + explain_text(run, e);
  return text;
}

nlohmann::json training_json(const TrainingRunInfo& run, const TrainingEstimate& e) {
  const auto& c = e.config;
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : e.terms) terms.push_back({{"name", t.name}, {"seconds", t.seconds}, {"rule", t.rule}});
  const auto& m = e.memory;
  return {
      {"schema", kTrainingSchema},
      {"model", run.model->name},
      {"system", run.hardware->system_id},
      {"accelerator", run.hardware->accelerator.info.id},
      {"config",
       {{"gpus", c.gpus()},
        {"idle_gpus", c.idle_gpus},
        {"tp", c.tp},
        {"pp", c.pp},
        {"vp", c.virtual_stages},
        {"cp", c.cp},
        {"ep", c.ep},
        {"expert_load_imbalance", c.expert_load_imbalance},
        {"dp", c.dp},
        {"micro_batch", c.micro_batch},
        {"global_batch", c.global_batch},
        {"sequence", c.sequence},
        {"recompute", recompute_name(c.recompute)},
        {"zero", c.zero},
        {"sequence_parallel", c.sequence_parallel},
        {"precision", c.precision},
        {"precision_recipe",
         run.precision_recipe.empty() ? nlohmann::json() : nlohmann::json(run.precision_recipe)},
        {"bf16_layers_at_start", c.bf16_layers_at_start},
        {"bf16_layers_at_end", c.bf16_layers_at_end},
        {"found_by_search", run.search.has_value()}}},
      {"step_time_s", e.step_time_s},
      {"terms", terms},
      {"tokens_per_second", e.tokens_per_second},
      {"mfu", e.mfu},
      {"hfu", e.hfu},
      {"flop_convention", flop_convention()},
      {"model_flops_per_step", e.model_flops_per_step},
      {"memory_gb",
       {{"weights", in_gigabytes(m.weights)},
        {"gradients", in_gigabytes(m.gradients)},
        {"optimizer", in_gigabytes(m.optimizer_states)},
        {"activations", in_gigabytes(m.activations)},
        {"logits", in_gigabytes(m.output_logits)},
        {"reserve", in_gigabytes(m.reserve)},
        {"pipeline_rank", m.pipeline_rank},
        {"total", in_gigabytes(m.total())},
        {"capacity", in_gigabytes(m.capacity)},
        {"margin", in_gigabytes(m.margin())},
        {"fits", m.fits()}}},
  };
}

namespace {

std::string power_text(double kilowatts) {
  return kilowatts >= 1000 ? fmt::format("{:.2f} MW", kilowatts / 1000) : fmt::format("{:.0f} kW", kilowatts);
}

// The notes under the sizing table: how racks were counted per system, assumed GEMM fractions, missing
// prices.
std::string sizing_footnotes(const std::vector<SizingRow>& rows, bool priced) {
  std::string text;
  std::vector<std::string> rack_rules;
  std::vector<std::string> unpriced;
  std::vector<std::string> caveats;
  std::string assumed;
  for (const auto& row : rows) {
    if (!row.estimate) continue;
    const std::string rule = row.system + " " + row.per_rack.rule;
    if (std::find(rack_rules.begin(), rack_rules.end(), rule) == rack_rules.end()) rack_rules.push_back(rule);
    if (priced && !row.cost_usd) unpriced.push_back(row.accelerator);
    if (!row.caveat.empty()) caveats.push_back(row.system + ": " + row.caveat);
    if (row.assumed_gemm_fraction) {
      assumed += fmt::format("{}{} {:.3f}", assumed.empty() ? "" : ", ", row.accelerator,
                             *row.assumed_gemm_fraction);
    }
  }
  if (!rack_rules.empty()) {
    text += "Racks: compute racks only (data/perf/sizing-racks.yaml):";
    for (std::size_t i = 0; i < rack_rules.size(); ++i) text += (i == 0 ? " " : "; ") + rack_rules[i];
    text += "\nPower: the systems' maximum draw (catalog power_max); no fabric, storage or cooling\n";
  }
  for (const auto& caveat : caveats) text += "Not modelled: " + caveat + "\n";
  if (!assumed.empty()) {
    text +=
        "Assumed, not fitted (--gemm-fraction; no published runs of these architectures are fitted): GEMM "
        "fraction of peak for " +
        assumed + "\n";
  }
  if (!unpriced.empty()) {
    text += "No GPU-hour price for:";
    for (std::size_t i = 0; i < unpriced.size(); ++i) text += (i == 0 ? " " : ", ") + unpriced[i];
    text += " (the price list has none)\n";
  }
  return text;
}

}  // namespace

std::string sizing_text(const TransformerModel& model, double tokens, double days,
                        const std::vector<SizingRow>& rows, const std::string& cost_basis,
                        const std::string& deadline_rule) {
  std::string text = fmt::format("{} ({:.1f}B parameters) on {:.4g} tokens within {:g} days\n", model.name,
                                 model.parameters() / 1e9, tokens, days);
  if (!deadline_rule.empty()) text += "Deadline: " + deadline_rule + "\n";
  TextTable table({"accelerator", "system", "GPUs", "racks", "split", "work days", "time-to-train", "MFU",
                   "memory/GPU", "power", "cost"},
                  {Align::left, Align::left, Align::right, Align::right, Align::left, Align::right,
                   Align::right, Align::right, Align::right, Align::right, Align::right});
  std::string uncounted;
  for (const auto& row : rows) {
    if (!row.estimate) {
      table.add_row({row.accelerator, row.system.empty() ? "-" : row.system, "-", "-", row.note, "-", "-",
                     "-", "-", "-", "-"});
      continue;
    }
    if (row.failures_uncounted) uncounted += (uncounted.empty() ? "" : ", ") + row.accelerator;
    const auto& e = *row.estimate;
    const auto& c = e.config;
    table.add_row(
        {row.accelerator, row.system, std::to_string(row.gpus), std::to_string(row.racks),
         fmt::format("tp {} pp {} cp {} ep {} dp {} mb {} {}{}", c.tp, c.pp, c.cp, c.ep, c.dp, c.micro_batch,
                     recompute_name(c.recompute),
                     c.idle_gpus > 0 ? fmt::format(", {} idle", c.idle_gpus) : ""),
         fmt::format("{:.1f}", row.days), row.wall_days ? fmt::format("{:.1f}", *row.wall_days) : "-",
         fmt::format("{:.1f} %", 100 * e.mfu),
         fmt::format("{:.0f}/{:.0f} GB", in_gigabytes(e.memory.total()), in_gigabytes(e.memory.capacity)),
         power_text(row.power_kw), row.cost_usd ? format_money(usd(*row.cost_usd)) : "no price"});
  }
  text += table.render();
  if (!uncounted.empty()) {
    text +=
        "Sized on work days, failures NOT counted (the goodput model could not run for them): " + uncounted +
        "; their time-to-train is longer than the work days by an unknown amount\n";
  }
  // The default (bf16 everywhere) goes unsaid; a low-precision recipe is named by what it runs.
  const auto sized =
      std::find_if(rows.begin(), rows.end(), [](const SizingRow& row) { return row.estimate; });
  if (sized != rows.end() && sized->estimate->config.precision != "bf16") {
    const TrainingConfig& c = sized->estimate->config;
    text += fmt::format("Precision: {} GEMMs", c.precision);
    if (c.bf16_layers_at_start > 0 || c.bf16_layers_at_end > 0)
      text += fmt::format(", the first {} and last {} layers in bf16", c.bf16_layers_at_start,
                          c.bf16_layers_at_end);
    text += "\n";
  }
  if (!cost_basis.empty()) text += "Cost: GPU-hours x " + cost_basis + "\n";
  text += sizing_footnotes(rows, !cost_basis.empty());
  text += fmt::format("MFU convention: {}\n", flop_convention());
  const bool any_idle = std::any_of(rows.begin(), rows.end(), [](const SizingRow& row) {
    return row.estimate && row.estimate->config.idle_gpus > 0;
  });
  if (any_idle) {
    text +=
        "Idle GPUs: the global batch does not split over all of them (a flat region: more GPUs, same "
        "days); MFU is over the GPUs that work\n";
  }
  return text;
}

nlohmann::json sizing_json(const TransformerModel& model, double tokens, double days,
                           const std::vector<SizingRow>& rows, const std::string& cost_basis,
                           const std::string& deadline_rule) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json item{{"accelerator", row.accelerator}, {"system", row.system}};
    if (!row.estimate) {
      item["note"] = row.note;
    } else {
      item["gpus"] = row.gpus;
      item["nodes"] = row.nodes;
      item["racks"] = row.racks;
      item["systems_per_rack"] = row.per_rack.systems;
      item["rack_rule"] = row.per_rack.rule;
      item["power_kw"] = row.power_kw;
      item["assumed_gemm_fraction"] =
          row.assumed_gemm_fraction ? nlohmann::json(*row.assumed_gemm_fraction) : nlohmann::json(nullptr);
      item["caveat"] = row.caveat.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.caveat);
      item["days"] = row.days;
      item["time_to_train_days"] = row.wall_days ? nlohmann::json(*row.wall_days) : nlohmann::json(nullptr);
      item["failures_uncounted"] = row.failures_uncounted;
      item["mfu"] = row.estimate->mfu;
      item["split"] = split_json(row.estimate->config);
      item["memory_gb"] = memory_gb_json(row.estimate->memory);
      item["cost_usd"] = row.cost_usd ? nlohmann::json(*row.cost_usd) : nlohmann::json(nullptr);
    }
    list.push_back(item);
  }
  return {{"schema", kSizingSchema},
          {"model", model.name},
          {"parameters", model.parameters()},
          {"tokens", tokens},
          {"days", days},
          {"deadline_rule", deadline_rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(deadline_rule)},
          {"flop_convention", flop_convention()},
          {"cost_basis", cost_basis.empty() ? nlohmann::json(nullptr) : nlohmann::json(cost_basis)},
          {"accelerators", list}};
}

namespace {

// The comparison of `nodes.choose`: every candidate sized on the spec's design, the chosen one and why each
// other lost.
std::string candidates_text(const WorkloadFit& fit) {
  std::string text = fmt::format("Candidates, each sized on this spec's fabric and facility; chosen by {}:\n",
                                 fit.choice_rule);
  TextTable table({"system", "GPUs", "racks", "days", "MFU", "IT power", "TCO", "result"},
                  {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
                   Align::right, Align::left});
  for (const CandidateFit& row : fit.candidates) {
    if (!row.sized) {
      table.add_row({row.system, "-", "-", "-", "-", "-", "-", "lost: " + row.lost});
      continue;
    }
    table.add_row(
        {row.system, std::to_string(row.gpus), std::to_string(row.racks), fmt::format("{:.1f}", row.days),
         fmt::format("{:.1f} %", 100 * row.mfu), format_power(kilowatts(row.it_power_kw)),
         row.tco_usd ? format_money(usd(*row.tco_usd)) : "-", row.chosen ? "chosen" : "lost: " + row.lost});
  }
  return text + table.render();
}

std::string watts_text(Power p) {
  return fmt::format("{:g} W", p.base());
}

// facility.power_budget: every platform at every cap, the most of it the budget holds, and the winner.
std::string budget_candidates_text(const PowerBudgetPlan& plan) {
  std::string text = fmt::format(
      "Power budget: {} of facility power (IT power at maximum load, every GPU at its cap, x each design's "
      "blended PUE)\n  caps per GPU tried: {}\n"
      "Candidates: for each platform and cap the most nodes (or racks) whose whole design fits, timed with "
      "its "
      "fastest split; the most tokens/s wins:\n",
      format_power(plan.budget), plan.cap_rule);
  TextTable table(
      {"system", "cap", "nodes", "GPUs", "racks", "facility", "IT max", "tokens/s", "days", "MFU", "result"},
      {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
       Align::right, Align::right, Align::right, Align::left});
  for (const BudgetCandidate& row : plan.candidates) {
    const std::string cap = watts_text(row.cap) + (row.capped ? "" : " (TDP)");
    if (row.nodes == 0) {
      table.add_row({row.system, cap, "-", "-", "-", "-", "-", "-", "-", "-", "lost: " + row.lost});
      continue;
    }
    const bool timed = row.fits;
    table.add_row(
        {row.system, cap, std::to_string(row.nodes), std::to_string(row.gpus), std::to_string(row.racks),
         format_power(kilowatts(row.facility_kw)), format_power(kilowatts(row.it_kw)),
         timed ? fmt::format("{:.0f}", row.tokens_per_second) : "-",
         timed ? fmt::format("{:.1f}", row.days) : "-", timed ? fmt::format("{:.1f} %", 100 * row.mfu) : "-",
         row.chosen ? "chosen" : "lost: " + row.lost});
  }
  return text + table.render();
}

std::string count_text(const WorkloadFit& fit, const SizingTrial& trial) {
  return fit.counts_racks ? fmt::format("{} racks of {}", trial.racks, fit.system)
                          : fmt::format("{} nodes", trial.nodes);
}

}  // namespace

namespace {

std::string answer_details_text(const WorkloadFit& fit) {
  const SizingTrial& a = fit.answer;
  std::string text =
      fmt::format("  split: {}\n  memory: {:.0f} of {:.0f} GB per GPU\n", split_text(a.estimate->config),
                  in_gigabytes(a.estimate->memory.total()), in_gigabytes(a.estimate->memory.capacity));
  if (fit.goodput) {
    const SizingGoodput& g = *fit.goodput;
    text += fmt::format(
        "  under failures: job MTTF {:.2f} h, checkpoint every {:.1f} min, ETTR {:.3f}, time-to-train {:.1f} "
        "days; {} spare nodes cover repairs 99 % of the time (Llama 3 Table 5 rates, assumed 5-min "
        "checkpoint "
        "write and 10-min restart: perf goodput)\n",
        g.mttf_hours, g.interval_minutes, g.ettr, g.wall_days, g.spare_nodes);
  }
  return text;
}

// "time-to-train 19.7 days under failures, " when the deadline counted failures for the answer.
std::string time_to_train_text(const SizingTrial& answer) {
  return answer.wall_days ? fmt::format("time-to-train {:.1f} days under failures, ", *answer.wall_days) : "";
}

std::string budget_fit_text(const WorkloadFit& fit) {
  const PowerBudgetPlan& plan = *fit.budget;
  const BudgetCandidate& won = plan.candidates.at(plan.chosen);
  const SizingTrial& a = fit.answer;
  std::string text = budget_candidates_text(plan);
  const std::string count = fit.counts_racks
                                ? fmt::format("{} ({} nodes, {} GPUs)", count_text(fit, a), a.nodes, a.gpus)
                                : fmt::format("{} nodes of {} ({} GPUs)", a.nodes, fit.system, a.gpus);
  const double days_allowed = fit.target.days;
  text += fmt::format(
      "Within {}: {} at {} per GPU{} train it in {:.1f} days at {:.1f} % MFU, {:.0f} tokens/s; facility {} "
      "at "
      "maximum{}\n",
      format_power(plan.budget), count, watts_text(won.cap), won.capped ? "" : " (TDP)", a.days,
      100 * a.estimate->mfu, a.estimate->tokens_per_second, format_power(kilowatts(won.facility_kw)),
      days_allowed <= 0 ? ""
      : plan.meets_days ? fmt::format("; {}within the {:g} days", time_to_train_text(a), days_allowed)
                        : fmt::format("; {}NOT within the {:g} days: no design in the budget is",
                                      time_to_train_text(a), days_allowed));
  text += answer_details_text(fit);
  text +=
      "Counts timed for it (the largest whose design fits, and the largest whole purchase unit below it):\n";
  TextTable table({"nodes", "GPUs", "days", "MFU", "tokens/s"},
                  {Align::right, Align::right, Align::right, Align::right, Align::right});
  for (const SizingTrial& trial : fit.trials) {
    if (!trial.estimate) {
      table.add_row({std::to_string(trial.nodes), std::to_string(trial.gpus), "-", "-", "does not fit"});
      continue;
    }
    table.add_row({std::to_string(trial.nodes), std::to_string(trial.gpus), fmt::format("{:.1f}", trial.days),
                   fmt::format("{:.1f} %", 100 * trial.estimate->mfu),
                   fmt::format("{:.0f}", trial.estimate->tokens_per_second)});
  }
  text += table.render();
  text += fmt::format("MFU convention: {}\n", flop_convention());
  return text;
}

}  // namespace

std::string workload_fit_text(const WorkloadFit& fit) {
  const WorkloadTarget& t = fit.target;
  const SizingTrial& a = fit.answer;
  std::string text =
      fmt::format("Workload: {} ({:.1f}B parameters) on {:.4g} tokens{}; sequence {}, global batch {}, {}\n",
                  fit.model.name, fit.model.parameters() / 1e9, t.tokens,
                  t.days > 0 ? fmt::format(" within {:g} days", t.days) : std::string(" (no days given)"),
                  t.sequence, t.global_batch, t.precision);
  if (fit.budget) return text + budget_fit_text(fit);
  if (!fit.candidates.empty()) text += candidates_text(fit);
  const SizingTrial* below = fit.next_smaller_trial();
  const std::string sized = fit.counts_racks
                                ? fmt::format("{} ({} nodes, {} GPUs)", count_text(fit, a), a.nodes, a.gpus)
                                : fmt::format("{} ({} GPUs)", count_text(fit, a), a.gpus);
  const std::string fewer = below == nullptr   ? ""
                            : fit.counts_racks ? fmt::format("; {} racks do not", below->racks)
                                               : fmt::format("; {} nodes do not", below->nodes);
  text += fmt::format("Sized: {} train it in {:.1f} work days{} at {:.1f} % MFU{}\n", sized, a.days,
                      a.wall_days ? fmt::format(", {:.1f} days time-to-train under failures", *a.wall_days)
                                  : std::string(" (failures not counted: the goodput model could not run)"),
                      100 * a.estimate->mfu, fewer);
  text +=
      "  in time: a count's time-to-train under failures (work days / ETTR, below) within the days; counts "
      "whose work days alone miss them are not run under failures\n";
  text += answer_details_text(fit);
  text += fit.counts_racks
              ? fmt::format(
                    "Rack counts tried (whole {} racks, never cutting a scale-up domain: doubling, then "
                    "bisection in steps of {}, the design's scalable unit or racks per leaf), each "
                    "designed in full and timed with its fastest split:\n",
                    fit.system,
                    fit.unit_nodes == 1 ? std::string("1 rack") : fmt::format("{} racks", fit.unit_nodes))
              : fmt::format(
                    "Node counts tried (doubling, then bisection in steps of {} nodes, the design's "
                    "scalable unit or nodes per leaf), each designed in full and timed with its fastest "
                    "split:\n",
                    fit.unit_nodes);
  std::vector<std::string> header{"nodes", "GPUs", "work days", "time-to-train", "MFU", "split"};
  std::vector<Align> align{Align::right, Align::right, Align::right, Align::right, Align::right, Align::left};
  if (fit.counts_racks) {
    header.insert(header.begin(), "racks");
    align.insert(align.begin(), Align::right);
  }
  TextTable table(header, align);
  for (const SizingTrial& trial : fit.trials) {
    std::vector<std::string> cells{std::to_string(trial.nodes), std::to_string(trial.gpus)};
    if (fit.counts_racks) cells.insert(cells.begin(), std::to_string(trial.racks));
    if (!trial.estimate) {
      cells.insert(cells.end(), {"-", "-", "-", "does not fit in memory"});
      table.add_row(cells);
      continue;
    }
    const auto& c = trial.estimate->config;
    cells.insert(cells.end(),
                 {fmt::format("{:.1f}", trial.days),
                  trial.wall_days ? fmt::format("{:.1f}", *trial.wall_days) : std::string("-"),
                  fmt::format("{:.1f} %", 100 * trial.estimate->mfu),
                  fmt::format("tp {} pp {} cp {} ep {} dp {} mb {}{}", c.tp, c.pp, c.cp, c.ep, c.dp,
                              c.micro_batch, c.idle_gpus > 0 ? fmt::format(", {} idle", c.idle_gpus) : "")});
    table.add_row(cells);
  }
  text += table.render();
  text += fmt::format("MFU convention: {}\n", flop_convention());
  return text;
}

namespace {

nlohmann::json power_budget_json(const PowerBudgetPlan& plan) {
  nlohmann::json rows = nlohmann::json::array();
  for (const BudgetCandidate& row : plan.candidates) {
    nlohmann::json item{{"system", row.system},    {"accelerator", row.accelerator},
                        {"cap_w", row.cap.base()}, {"capped", row.capped},
                        {"fits", row.fits},        {"chosen", row.chosen}};
    if (row.nodes > 0) {
      item["nodes"] = row.nodes;
      item["gpus"] = row.gpus;
      item["racks"] = row.racks;
      item["facility_kw"] = row.facility_kw;
      item["it_max_kw"] = row.it_kw;
    }
    if (row.fits) {
      item["tokens_per_second"] = row.tokens_per_second;
      item["days"] = row.days;
      item["mfu"] = row.mfu;
    }
    item["lost"] = row.chosen ? nlohmann::json(nullptr) : nlohmann::json(row.lost);
    rows.push_back(item);
  }
  return {
      {"budget_kw", in_kilowatts(plan.budget)},
      {"basis", "facility power: IT power at maximum load (GPUs at their cap) x the design's blended PUE"},
      {"cap_rule", plan.cap_rule},
      {"cap_w", plan.cap ? nlohmann::json(plan.cap->base()) : nlohmann::json(nullptr)},
      {"meets_days", plan.meets_days},
      {"candidates", rows}};
}

}  // namespace

nlohmann::json workload_fit_json(const WorkloadFit& fit) {
  const WorkloadTarget& t = fit.target;
  nlohmann::json trials = nlohmann::json::array();
  for (const SizingTrial& trial : fit.trials) {
    nlohmann::json item{{"nodes", trial.nodes}, {"gpus", trial.gpus}};
    if (fit.counts_racks) item["racks"] = trial.racks;
    if (trial.estimate) {
      item["days"] = trial.days;
      item["time_to_train_days"] =
          trial.wall_days ? nlohmann::json(*trial.wall_days) : nlohmann::json(nullptr);
      item["mfu"] = trial.estimate->mfu;
      item["split"] = split_json(trial.estimate->config);
    } else {
      item["fits"] = false;
    }
    trials.push_back(item);
  }
  const SizingTrial& a = fit.answer;
  nlohmann::json json{
      {"model", fit.model.name},
      {"parameters", fit.model.parameters()},
      {"tokens", t.tokens},
      {"days_allowed", t.days > 0 ? nlohmann::json(t.days) : nlohmann::json(nullptr)},
      {"sequence", t.sequence},
      {"global_batch", t.global_batch},
      {"precision", t.precision},
      {"system", fit.system},
      {"nodes", a.nodes},
      {"gpus", a.gpus},
      {"days", a.days},
      {"time_to_train_days", a.wall_days ? nlohmann::json(*a.wall_days) : nlohmann::json(nullptr)},
      {"mfu", a.estimate->mfu},
      {"split", split_json(a.estimate->config)},
      {"memory_gb", memory_gb_json(a.estimate->memory)},
      {"flop_convention", flop_convention()},
      {"unit_nodes", fit.unit_nodes},
      {"trials", trials}};
  if (fit.goodput) {
    const SizingGoodput& g = *fit.goodput;
    json["goodput"] = {{"profile", "llama3-table5"},
                       {"mttf_hours", std::round(g.mttf_hours * 1e4) / 1e4},
                       {"checkpoint_interval_minutes", std::round(g.interval_minutes * 1e3) / 1e3},
                       {"ettr", std::round(g.ettr * 1e5) / 1e5},
                       {"time_to_train_days", std::round(g.wall_days * 1e4) / 1e4},
                       {"spare_nodes", g.spare_nodes}};
  }
  if (fit.counts_racks) {
    json["racks"] = a.racks;
    json["unit_racks"] = fit.unit_nodes;
    json.erase("unit_nodes");
  }
  if (fit.budget) json["power_budget"] = power_budget_json(*fit.budget);
  if (!fit.candidates.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const CandidateFit& row : fit.candidates) {
      nlohmann::json item{{"system", row.system}, {"accelerator", row.accelerator}, {"chosen", row.chosen}};
      if (row.sized) {
        item["gpus"] = row.gpus;
        item["nodes"] = row.nodes;
        item["racks"] = row.racks;
        item["days"] = row.days;
        item["mfu"] = row.mfu;
        item["it_power_kw"] = row.it_power_kw;
        item["tco_usd"] = row.tco_usd ? nlohmann::json(*row.tco_usd) : nlohmann::json(nullptr);
      }
      item["lost"] = row.chosen ? nlohmann::json(nullptr) : nlohmann::json(row.lost);
      rows.push_back(item);
    }
    json["choice_rule"] = fit.choice_rule;
    json["candidates"] = rows;
  }
  return json;
}

TrainingBreakdown training_breakdown_from_json(const JsonField& root, const std::string& source) {
  TrainingBreakdown training;
  training.source = source;
  training.model = root.child("model").string();
  training.gpus = static_cast<int>(root.child("config").child("gpus").integer());
  training.step_time_s = root.child("step_time_s").number();
  training.mfu = root.child("mfu").number();
  const JsonField terms = root.child("terms");
  for (std::size_t i = 0; i < terms.array_size(); ++i) {
    training.terms.push_back(
        {terms.element(i).child("name").string(), terms.element(i).child("seconds").number()});
  }
  return training;
}

namespace {

SizingSplit sizing_split_from_json(const JsonField& split) {
  SizingSplit s;
  s.tp = int_of(split.child("tp"));
  s.pp = int_of(split.child("pp"));
  s.vp = int_of(split.child("vp"));
  s.cp = int_of(split.child("cp"));
  s.ep = split.has("ep") ? int_of(split.child("ep")) : 1;  // documents written before it carried ep
  s.dp = int_of(split.child("dp"));
  s.micro_batch = int_of(split.child("micro_batch"));
  s.recompute = split.child("recompute").string();
  s.zero = int_of(split.child("zero"));
  s.idle_gpus = int_of(split.child("idle_gpus"));
  return s;
}

// A row without `gpus` is an accelerator with no answer, and then its note says why.
SizedAccelerator sized_accelerator_from_json(const JsonField& item) {
  SizedAccelerator row;
  row.accelerator = item.child("accelerator").string();
  row.system = item.child("system").string();
  if (!item.has("gpus")) {
    row.note = item.child("note").string();
    return row;
  }
  row.sized = true;
  row.gpus = int_of(item.child("gpus"));
  row.days = item.child("days").number();
  row.mfu = item.child("mfu").number();
  row.split = sizing_split_from_json(item.child("split"));
  const JsonField memory = item.child("memory_gb");
  row.memory_gb = memory.child("total").number();
  row.memory_capacity_gb = memory.child("capacity").number();
  row.cost_usd = optional_number(item.child("cost_usd"));
  return row;
}

}  // namespace

SizingResult sizing_result_from_json(const JsonField& root, const std::string& source) {
  expect_schema(root, kSizingSchema, "perf size --json");
  SizingResult sizing;
  sizing.source = source;
  sizing.model = root.child("model").string();
  sizing.parameters = root.child("parameters").number();
  sizing.tokens = root.child("tokens").number();
  sizing.days = root.child("days").number();
  const JsonField basis = root.child("cost_basis");
  if (!basis.json().is_null()) sizing.cost_basis = basis.string();
  const JsonField rows = root.child("accelerators");
  for (std::size_t i = 0; i < rows.array_size(); ++i)
    sizing.accelerators.push_back(sized_accelerator_from_json(rows.element(i)));
  return sizing;
}

Result<SizingResult> read_sizing_json(std::string_view text, const std::string& source) {
  return read_json_document<SizingResult>(
      text, source, [&](const JsonField& root) { return sizing_result_from_json(root, source); });
}

}  // namespace gputwin
