// Buy or rent: the planned cluster's TCO against cloud prices per GPU-hour (`plan SPEC --rent PRICES`,
// `report SPEC --rent PRICES`).
//
//   Result<RentalPrices> prices = load_rental_prices("examples/cloud-gpu-prices.yaml", catalog);
//   Result<BuyVsRent> answer = buy_vs_rent(cluster, prices.value(), workload_run, "my-spec.yaml");
//   answer.value().tiers[0].break_even_utilization   // owning is cheaper above this share of GPU-hours used
//
// The prices file (docs/plan.md, "Buy or rent"): `currency` (USD, the only currency the TCO is in), `unit:
// per_gpu_hour`, a `source`, and per catalog accelerator the tiers `on_demand`, `reserved_1y`, `reserved_3y`
// (each an amount with its unit, `2.50 USD`; a bare number is a located error), optionally with its own
// source.
//
// Owning costs the design's TCO over its life whatever it is used for: capex + lifetime x (energy at typical
// power x PUE + support), design/power_and_cost. Renting buys only the GPU-hours used: at utilisation u of
// the cluster's GPU-hours over its life, rent = price x GPUs x lifetime hours x u (a reserved tier is read as
// capacity reserved to match a steady load, renewed over the life at the same price). The break-even
// utilisation is TCO / (price x GPUs x lifetime hours): owning is cheaper above it (above 1: renting is
// cheaper at any use). The workload (a spec sized for one) costs its GPU-hours at the tier's price rented,
// and the same GPU-hours at the TCO per GPU-hour owned, the cluster used all its life.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/cluster.hpp"

namespace gputwin {

struct RentalTier {
  std::string name;  // on_demand, reserved_1y, reserved_3y
  Money per_gpu_hour;
};

struct RentalPrices {
  std::string file;
  std::string currency;                                  // USD
  std::string source;                                    // the file's
  std::map<std::string, std::vector<RentalTier>> tiers;  // by accelerator id, in on_demand, 1y, 3y order
  std::map<std::string, std::string> sources;            // by accelerator id, when given
};

// Reads a prices file; an unknown accelerator, tier or currency, a unit other than per_gpu_hour or a price
// without its unit is an error naming file, line and field.
[[nodiscard]] Result<RentalPrices> load_rental_prices(const std::string& path, const Catalog& catalog);

// One run of the workload a spec was sized for: its GPUs for its days.
struct WorkloadRun {
  std::string model;
  int gpus = 0;
  double days = 0;
};

struct RentTierAnswer {
  std::string tier;
  Money per_gpu_hour;
  double break_even_utilization = 0;   // TCO / (price x GPU-hours of the life)
  Money rent_over_life;                // at full use (u = 1)
  std::optional<Money> workload_rent;  // one run of the workload at this price
  bool owning_cheaper_at_full_use = false;
};

struct BuyVsRent {
  std::string accelerator;
  int gpus = 0;
  double lifetime_years = 0;
  double gpu_hours = 0;  // GPUs x lifetime hours
  Money tco;             // owning over the life
  Money capex, energy_per_year, support_per_year;
  Money own_per_gpu_hour;  // TCO / GPU-hours: owning's price at full use
  std::optional<WorkloadRun> workload;
  std::optional<Money> workload_own;  // the run's GPU-hours at own_per_gpu_hour
  double workload_runs_in_life = 0;   // lifetime days / the run's days, back to back
  std::vector<RentTierAnswer> tiers;
  std::string prices_file, prices_source, accelerator_source;
};

// Errors name `spec_path`'s costs.prices when the TCO is incomplete, and the prices file when it has no price
// for the design's GPUs.
[[nodiscard]] Result<BuyVsRent> buy_vs_rent(const Cluster& cluster, const RentalPrices& prices,
                                            const std::optional<WorkloadRun>& workload,
                                            const std::string& spec_path);

// What owning costs at utilisation u (the TCO, fixed) and what renting the same used GPU-hours costs.
[[nodiscard]] Money own_cost_at(const BuyVsRent& answer, double utilization);
[[nodiscard]] Money rent_cost_at(const BuyVsRent& answer, const RentTierAnswer& tier, double utilization);

}  // namespace gputwin
