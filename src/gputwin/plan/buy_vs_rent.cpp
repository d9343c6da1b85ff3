#include "gputwin/plan/buy_vs_rent.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/design/power_and_cost.hpp"
#include "gputwin/plan/cluster_price.hpp"

namespace gputwin {
namespace {

const std::vector<std::string>& tier_names() {
  static const std::vector<std::string> kTiers{"on_demand", "reserved_1y", "reserved_3y"};
  return kTiers;
}

RentalPrices read_prices(const std::string& path, const Catalog& catalog) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"currency", "unit", "source", "notes", "prices"});
  RentalPrices prices;
  prices.file = path;
  prices.currency = root.child("currency").text();
  if (prices.currency != "USD") {
    root.child("currency")
        .fail("'" + prices.currency +
              "': the plan's TCO is in USD and gputwin holds no exchange rates; give USD prices");
  }
  if (const std::string unit = root.child("unit").text(); unit != "per_gpu_hour") {
    root.child("unit").fail("expected 'per_gpu_hour' (the price of one GPU for one hour), got '" + unit +
                            "'");
  }
  prices.source = root.child("source").text_or_list();
  const YamlField list = root.child("prices");
  list.expect_map();
  for (const auto& [id, entry] : list.entries()) {
    if (catalog.find<Accelerator>(id) == nullptr) entry.fail("no accelerator '" + id + "' in the catalog");
    entry.expect_keys({"on_demand", "reserved_1y", "reserved_3y", "source"});
    std::vector<RentalTier> tiers;
    for (const std::string& name : tier_names()) {
      if (auto price = entry.optional_child(name)) tiers.push_back({name, price->positive_quantity<Money>()});
    }
    if (tiers.empty()) entry.fail("give at least one of on_demand, reserved_1y, reserved_3y");
    prices.tiers[id] = std::move(tiers);
    if (auto source = entry.optional_child("source")) prices.sources[id] = source->text_or_list();
  }
  if (prices.tiers.empty()) list.fail("list the prices of at least one accelerator");
  return prices;
}

}  // namespace

Result<RentalPrices> load_rental_prices(const std::string& path, const Catalog& catalog) {
  return result_of<RentalPrices>([&] { return read_prices(path, catalog); });
}

Money own_cost_at(const BuyVsRent& answer, double /*utilization*/) {
  return answer.tco;  // owned GPUs cost the same used or idle (energy is charged at typical power)
}

Money rent_cost_at(const BuyVsRent& answer, const RentTierAnswer& tier, double utilization) {
  return tier.per_gpu_hour * (answer.gpu_hours * utilization);
}

Result<BuyVsRent> buy_vs_rent(const Cluster& cluster, const RentalPrices& prices,
                              const std::optional<WorkloadRun>& workload, const std::string& spec_path) {
  const auto own = gpu_hour_price_of(cluster, Catalog{}, spec_path);
  if (!own.ok()) return own.errors();
  const std::string& accelerator = own.value().accelerator;
  const auto tiers = prices.tiers.find(accelerator);
  if (tiers == prices.tiers.end()) {
    std::string known;
    for (const auto& [id, list] : prices.tiers) known += (known.empty() ? "" : ", ") + id;
    return InputError{{prices.file, 0, 0},
                      "prices",
                      "no prices for " + accelerator + ", the design's GPUs (the file prices " + known + ")"};
  }
  const Costs& costs = cluster.costs;
  BuyVsRent answer;
  answer.accelerator = accelerator;
  answer.gpus = cluster.gpus;
  answer.lifetime_years = costs.lifetime_years;
  answer.gpu_hours = static_cast<double>(cluster.gpus) * costs.lifetime_years * kHoursPerYear;
  answer.tco = costs.total;
  answer.capex = costs.capex;
  answer.energy_per_year = costs.energy_per_year;
  answer.support_per_year = costs.support_per_year;
  answer.own_per_gpu_hour = own.value().price;
  answer.prices_file = prices.file;
  answer.prices_source = prices.source;
  if (const auto source = prices.sources.find(accelerator); source != prices.sources.end())
    answer.accelerator_source = source->second;
  std::optional<double> workload_gpu_hours;
  if (workload && workload->gpus > 0 && workload->days > 0) {
    answer.workload = workload;
    workload_gpu_hours = workload->gpus * workload->days * 24.0;
    answer.workload_own = answer.own_per_gpu_hour * *workload_gpu_hours;
    answer.workload_runs_in_life = costs.lifetime_years * kHoursPerYear / 24.0 / workload->days;
  }
  for (const RentalTier& tier : tiers->second) {
    RentTierAnswer row;
    row.tier = tier.name;
    row.per_gpu_hour = tier.per_gpu_hour;
    row.rent_over_life = tier.per_gpu_hour * answer.gpu_hours;
    row.break_even_utilization = answer.tco / row.rent_over_life;
    row.owning_cheaper_at_full_use = row.break_even_utilization < 1.0;
    if (workload_gpu_hours) row.workload_rent = tier.per_gpu_hour * *workload_gpu_hours;
    answer.tiers.push_back(row);
  }
  return answer;
}

}  // namespace gputwin
