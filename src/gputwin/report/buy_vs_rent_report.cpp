#include "gputwin/report/buy_vs_rent_report.hpp"

#include <fmt/format.h>

#include "gputwin/report/json_document.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
std::string rent_tier_label(const std::string& tier) {
  if (tier == "on_demand") return "on-demand";
  if (tier == "reserved_1y") return "1-year reserved";
  if (tier == "reserved_3y") return "3-year reserved";
  return tier;
}

namespace {

std::string break_even_text(double u) {
  return u >= 1.0 ? fmt::format("{:.0f} % (renting is cheaper at any use)", 100 * u)
                  : fmt::format("{:.1f} %", 100 * u);
}

}  // namespace

std::string buy_vs_rent_text(const BuyVsRent& a) {
  std::string text = fmt::format(
      "Buy or rent ({} x {}, prices per GPU-hour from {})\n"
      "  own: TCO {} over {:g} years (capex {} + {:g} x (energy {} at typical power + support {}) a year) = "
      "{} per GPU-hour used all its life\n",
      a.gpus, a.accelerator, a.prices_file, format_money(a.tco), a.lifetime_years, format_money(a.capex),
      a.lifetime_years, format_money(a.energy_per_year), format_money(a.support_per_year),
      format_money_exact(a.own_per_gpu_hour));
  text += fmt::format("  prices: {}{}\n", a.prices_source,
                      a.accelerator_source.empty() ? "" : "; " + a.accelerator + ": " + a.accelerator_source);
  text +=
      "  break-even: owning is cheaper when more than this share of the cluster's GPU-hours over its life is "
      "used "
      "(renting buys only the hours used; a reserved tier as a steady reservation renewed at the same "
      "price)\n";
  std::vector<std::string> header{"tier", "per GPU-hour", "break-even use", "rent, all hours of the life"};
  std::vector<Align> align{Align::left, Align::right, Align::right, Align::right};
  if (a.workload) {
    header.insert(header.end(), {"workload rented", "workload owned"});
    align.insert(align.end(), {Align::right, Align::right});
  }
  TextTable table(header, align);
  for (const RentTierAnswer& row : a.tiers) {
    std::vector<std::string> cells{rent_tier_label(row.tier), format_money_exact(row.per_gpu_hour),
                                   break_even_text(row.break_even_utilization),
                                   format_money(row.rent_over_life)};
    if (a.workload) {
      cells.push_back(row.workload_rent ? format_money(*row.workload_rent) : "-");
      cells.push_back(format_money(*a.workload_own));
    }
    table.add_row(cells);
  }
  text += table.render();
  if (a.workload) {
    text += fmt::format(
        "  workload: {} on {} GPUs for {:.1f} days = {:.4g} GPU-hours; owned at the TCO per GPU-hour (the "
        "cluster "
        "used all its life: {:.1f} such runs back to back), rented at each tier's price\n",
        a.workload->model, a.workload->gpus, a.workload->days, a.workload->gpus * a.workload->days * 24.0,
        a.workload_runs_in_life);
  }
  return text;
}

nlohmann::ordered_json buy_vs_rent_json(const BuyVsRent& a) {
  nlohmann::ordered_json tiers = nlohmann::ordered_json::array();
  for (const RentTierAnswer& row : a.tiers) {
    tiers.push_back(
        {{"tier", row.tier},
         {"per_gpu_hour_usd", in_usd(row.per_gpu_hour)},
         {"break_even_utilization", row.break_even_utilization},
         {"rent_over_life_usd", in_usd(row.rent_over_life)},
         {"workload_rent_usd", row.workload_rent ? nlohmann::ordered_json(in_usd(*row.workload_rent))
                                                 : nlohmann::ordered_json(nullptr)}});
  }
  nlohmann::ordered_json json{{"accelerator", a.accelerator},
                              {"gpus", a.gpus},
                              {"lifetime_years", a.lifetime_years},
                              {"gpu_hours", a.gpu_hours},
                              {"tco_usd", in_usd(a.tco)},
                              {"own_per_gpu_hour_usd", in_usd(a.own_per_gpu_hour)},
                              {"prices_file", a.prices_file},
                              {"prices_source", a.prices_source},
                              {"tiers", tiers}};
  if (a.workload) {
    json["workload"] = {{"model", a.workload->model},
                        {"gpus", a.workload->gpus},
                        {"days", a.workload->days},
                        {"own_usd", in_usd(*a.workload_own)},
                        {"runs_in_life", a.workload_runs_in_life}};
  }
  return json;
}

BuyVsRentSummary buy_vs_rent_from_json(const JsonField& object) {
  BuyVsRentSummary summary;
  summary.accelerator = object.child("accelerator").string();
  summary.gpus = object.child("gpus").integer();
  summary.tco_usd = object.child("tco_usd").number();
  summary.own_per_gpu_hour_usd = object.child("own_per_gpu_hour_usd").number();
  if (object.has("workload")) summary.workload_own_usd = object.child("workload").child("own_usd").number();
  const JsonField tiers = object.child("tiers");
  for (std::size_t i = 0; i < tiers.array_size(); ++i) {
    const JsonField item = tiers.element(i);
    summary.tiers.push_back({item.child("tier").string(), item.child("per_gpu_hour_usd").number(),
                             item.child("break_even_utilization").number(),
                             item.child("rent_over_life_usd").number(),
                             optional_number(item.child("workload_rent_usd"))});
  }
  return summary;
}

}  // namespace gputwin
