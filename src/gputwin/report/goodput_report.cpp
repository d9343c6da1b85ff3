#include "gputwin/report/goodput_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

std::string minutes(double hours) {
  return fmt::format("{:.1f} min", hours * 60.0);
}

std::string plus_minus(const MeanStdev& m, const char* format) {
  return fmt::format(fmt::runtime(format), m.mean) + " +- " + fmt::format(fmt::runtime(format), m.stdev);
}

// Rounded so that text and JSON do not print the last bits of a floating-point sum.
double rounded(double value, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(value * scale) / scale;
}

}  // namespace

std::string goodput_text(const GoodputJob& job, const GoodputResult& r) {
  std::string out;
  out += fmt::format(
      "Goodput of one job: {} GPUs ({} nodes of {}), {:g} days of work at 100 % ETTR, {} spare nodes\n",
      job.gpus, r.nodes, job.system, job.work_days, r.spare_nodes);
  out += fmt::format("  on {}; {}\n", job.where, job.shape_note);
  out += fmt::format("  failures: {}\n", job.failure_model);
  out += fmt::format("  job MTTF {:.2f} h ({:.3f} interruptions an hour over its nodes)\n", r.mttf_hours,
                     std::isfinite(r.mttf_hours) ? 1.0 / r.mttf_hours : 0.0);
  out += fmt::format("  checkpoint write {}, restart {} ({})\n", minutes(job.checkpoint_write_hours),
                     minutes(job.restart_hours), job.checkpoint_note);
  out +=
      fmt::format("  checkpoint interval: Young {}, Daly {}, used {} ({})\n", minutes(r.young_interval_hours),
                  minutes(r.daly_interval_hours), minutes(r.used_interval_hours),
                  job.interval_given ? "--checkpoint-interval" : "Daly's optimum");
  out += fmt::format("\nOver {} seeds (mean +- standard deviation)\n", r.seeds);
  out += "  interruptions      " + plus_minus(r.interruptions, "{:.1f}") + "\n";
  out += "  ETTR               " + plus_minus(r.ettr, "{:.3f}") +
         fmt::format("   (first-order model without repair waits: {:.3f})\n", r.first_order_ettr);
  out += "  wall-clock days    " + plus_minus({r.wall_hours.mean / 24, r.wall_hours.stdev / 24}, "{:.2f}") +
         "\n";
  out += fmt::format(
      "  where the time went (mean days): work {:.2f}, checkpoint writes {:.2f}, lost work {:.2f}, "
      "restarts {:.2f}, waiting for nodes {:.2f}\n",
      r.useful_hours / 24, r.checkpoint_hours / 24, r.lost_work_hours / 24, r.restart_hours / 24,
      r.repair_wait_hours / 24);
  out += fmt::format(
      "  spare nodes that cover the nodes in repair 99 % of the time: {} (mean {:.1f} in repair)\n",
      r.spare_nodes_p99, r.nodes_in_repair_mean);
  out += "\nInterruptions by cause\n";
  TextTable table({"cause", "category", "expected/day", "mean", "stdev", "share"},
                  {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right});
  for (const auto& c : r.by_cause) {
    const double share = r.interruptions.mean > 0 ? c.count.mean / r.interruptions.mean : 0;
    table.add_row({c.cause, c.category, fmt::format("{:.3f}", c.expected_per_hour * 24),
                   fmt::format("{:.1f}", c.count.mean), fmt::format("{:.1f}", c.count.stdev),
                   fmt::format("{:.1f} %", share * 100)});
  }
  out += table.render();
  return out;
}

nlohmann::json goodput_json(const GoodputJob& job, const GoodputResult& r) {
  nlohmann::json by_cause = nlohmann::json::array();
  for (const auto& c : r.by_cause) {
    by_cause.push_back({{"cause", c.cause},
                        {"category", c.category},
                        {"expected_per_day", rounded(c.expected_per_hour * 24, 6)},
                        {"mean", rounded(c.count.mean, 3)},
                        {"stdev", rounded(c.count.stdev, 3)}});
  }
  return {
      {"schema", kGoodputSchema},
      {"job",
       {{"gpus", job.gpus},
        {"nodes", r.nodes},
        {"system", job.system},
        {"work_days", job.work_days},
        {"spare_nodes", r.spare_nodes},
        {"failure_model", job.failure_model},
        {"checkpoint_write_minutes", rounded(job.checkpoint_write_hours * 60, 3)},
        {"restart_minutes", rounded(job.restart_hours * 60, 3)}}},
      {"seeds", r.seeds},
      {"mttf_hours", rounded(r.mttf_hours, 4)},
      {"checkpoint_interval_minutes",
       {{"young", rounded(r.young_interval_hours * 60, 3)},
        {"daly", rounded(r.daly_interval_hours * 60, 3)},
        {"used", rounded(r.used_interval_hours * 60, 3)}}},
      {"interruptions",
       {{"mean", rounded(r.interruptions.mean, 3)},
        {"stdev", rounded(r.interruptions.stdev, 3)},
        {"by_cause", by_cause}}},
      {"ettr", rounded(r.ettr.mean, 5)},
      {"ettr_stdev", rounded(r.ettr.stdev, 5)},
      {"ettr_first_order", rounded(r.first_order_ettr, 5)},
      {"wall_days", rounded(r.wall_hours.mean / 24, 4)},
      {"wall_days_stdev", rounded(r.wall_hours.stdev / 24, 4)},
      {"lost_days",
       {{"checkpoint_writes", rounded(r.checkpoint_hours / 24, 4)},
        {"lost_work", rounded(r.lost_work_hours / 24, 4)},
        {"restarts", rounded(r.restart_hours / 24, 4)},
        {"waiting_for_nodes", rounded(r.repair_wait_hours / 24, 4)}}},
      {"spare_nodes_p99", r.spare_nodes_p99},
      {"nodes_in_repair_mean", rounded(r.nodes_in_repair_mean, 4)},
  };
}

std::string sizing_goodput_text(const std::vector<SizingGoodput>& rows, const std::string& basis) {
  if (rows.empty()) return "";
  std::string out = "Goodput: " + basis + "\n";
  TextTable table({"accelerator", "GPUs", "work days", "MTTF", "checkpoint every", "ETTR", "time-to-train",
                   "spare nodes"},
                  {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
                   Align::right, Align::right});
  for (const auto& g : rows) {
    table.add_row({g.accelerator, std::to_string(g.gpus), fmt::format("{:.1f}", g.work_days),
                   fmt::format("{:.2f} h", g.mttf_hours), fmt::format("{:.1f} min", g.interval_minutes),
                   fmt::format("{:.3f}", g.ettr), fmt::format("{:.1f} days", g.wall_days),
                   std::to_string(g.spare_nodes)});
  }
  return out + table.render();
}

nlohmann::json sizing_goodput_json(const std::vector<SizingGoodput>& rows, const std::string& basis) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& g : rows) {
    list.push_back({{"accelerator", g.accelerator},
                    {"gpus", g.gpus},
                    {"work_days", rounded(g.work_days, 4)},
                    {"mttf_hours", rounded(g.mttf_hours, 4)},
                    {"checkpoint_interval_minutes", rounded(g.interval_minutes, 3)},
                    {"ettr", rounded(g.ettr, 5)},
                    {"time_to_train_days", rounded(g.wall_days, 4)},
                    {"spare_nodes", g.spare_nodes}});
  }
  return {{"basis", basis}, {"rows", list}};
}

GoodputDocument goodput_document_from_json(const JsonField& root, const std::string& source) {
  GoodputDocument d;
  d.source = source;
  const JsonField job = root.child("job");
  d.gpus = static_cast<int>(job.child("gpus").integer());
  d.nodes = static_cast<int>(job.child("nodes").integer());
  d.system = job.child("system").string();
  d.work_days = job.child("work_days").number();
  d.spare_nodes = static_cast<int>(job.child("spare_nodes").integer());
  d.failure_model = job.child("failure_model").string();
  d.seeds = static_cast<int>(root.child("seeds").integer());
  d.mttf_hours = root.child("mttf_hours").number();
  d.interval_used_minutes = root.child("checkpoint_interval_minutes").child("used").number();
  const JsonField interruptions = root.child("interruptions");
  d.interruptions_mean = interruptions.child("mean").number();
  d.interruptions_stdev = interruptions.child("stdev").number();
  const JsonField causes = interruptions.child("by_cause");
  for (std::size_t i = 0; i < causes.array_size(); ++i) {
    const JsonField cause = causes.element(i);
    d.by_cause.push_back({cause.child("cause").string(), cause.child("mean").number()});
  }
  d.ettr = root.child("ettr").number();
  d.wall_days = root.child("wall_days").number();
  return d;
}

}  // namespace gputwin
