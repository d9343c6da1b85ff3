// The HTML report's structure: everything inline, drawings that add up to the plan, escaped result text, the
// same bytes for the same inputs. The browser test (tests/browser) checks the rendered page in chromium.
#include "gputwin/report/html/html_report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "gputwin/core/test_text.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/design_test_support.hpp"
#include "gputwin/plan/buy_vs_rent.hpp"
#include "gputwin/report/buy_vs_rent_report.hpp"
#include "gputwin/report/html/fabric_svg.hpp"
#include "gputwin/report/html/html_text.hpp"
#include "gputwin/report/html/rack_svg.hpp"

namespace gputwin {
namespace {

using testing::plan_file;

constexpr std::string_view kFakeChartScript = "/* chart.js stand-in */";

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// Sums an integer data attribute over the elements that match `pattern` (one capture group: the number).
long sum_of(const std::string& text, const std::string& pattern) {
  long sum = 0;
  const std::regex regex(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), regex); it != std::sregex_iterator(); ++it)
    sum += std::stol((*it)[1]);
  return sum;
}

// The part of the page that draws one fabric.
std::string fabric_figure(const std::string& html, const std::string& role) {
  const std::size_t start = html.find("<figure class=\"fabric\" data-fabric=\"" + role + "\"");
  return start == std::string::npos ? "" : html.substr(start, html.find("</figure>", start) - start);
}

void expect_drawings_add_up(const Cluster& cluster, const std::string& html) {
  EXPECT_EQ(count_of(html, "class=\"floor-rack "), cluster.racks.size());
  EXPECT_EQ(sum_of(html, R"re(class="rack-layout" data-layout="\d+" data-count="(\d+)")re"),
            static_cast<long>(cluster.racks.size()));
  for (const auto& fabric : cluster.fabrics) {
    const std::string figure = fabric_figure(html, role_name(fabric.role));
    ASSERT_FALSE(figure.empty()) << role_name(fabric.role);
    for (const Tier tier : {Tier::leaf, Tier::spine, Tier::core}) {
      const std::string name = tier_name(tier);
      EXPECT_EQ(sum_of(figure, "data-tier=\"" + name + "\" data-switches=\"(\\d+)\""),
                fabric.switches_in(tier))
          << role_name(fabric.role) << " " << name;
      EXPECT_LE(count_of(figure, "data-tier=\"" + name + "\""), static_cast<std::size_t>(kMaxBoxesPerTier));
    }
  }
}

TEST(HtmlReport, DrawingsAddUpToTheSuperPod) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  expect_drawings_add_up(cluster, html);
  EXPECT_NE(html.find("data-gpus=\"1016\""), std::string::npos);
  EXPECT_EQ(count_of(html, "<li data-code="), cluster.warnings.size());
}

TEST(HtmlReport, HundredThousandGpusAreAggregatedAndStillAddUp) {
  const Cluster cluster = plan_file("examples/h100-100k-three-tier.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  expect_drawings_add_up(cluster, html);
  EXPECT_LT(html.size(), 5'000'000u);  // issue 7's ceiling, before any result charts
}

TEST(HtmlReport, Nvl72RacksShowTraysSwitchTraysPowerShelvesAndTheirHeat) {
  const Cluster cluster = plan_file("examples/gb200-nvl72-superpod-1su.yaml");
  int rack = -1;
  for (std::size_t r = 0; r < cluster.racks.size() && rack < 0; ++r)
    if (!cluster.racks[r].system.empty()) rack = static_cast<int>(r);
  ASSERT_GE(rack, 0) << "the example's compute racks are rack systems";
  const std::string svg = rack_elevation_svg(cluster, rack);
  EXPECT_EQ(count_of(svg, "class=\"device node\""), 18u) << "18 compute trays";
  EXPECT_EQ(count_of(svg, "class=\"device scale_up_switch\""), 9u) << "9 NVLink switch trays";
  EXPECT_EQ(count_of(svg, "class=\"device power_shelf\""), 8u);
  EXPECT_EQ(count_of(svg, ", NVLink domain "), 27u) << "every tray and switch tray names its domain";
  const Rack& r = cluster.racks[rack];
  EXPECT_NE(svg.find(format_number(in_kilowatts(r.heat_to_liquid), 1) + " kW to liquid"), std::string::npos);
  EXPECT_NE(svg.find("of " + format_number(in_kilowatts(r.power_limit), 1) + " kW limit"), std::string::npos)
      << "the rack system's own limit, not the facility's";
  // An 8-GPU box is its own domain: nothing to name.
  const Cluster dgx = plan_file("examples/dgx-h100-superpod-1su.yaml");
  EXPECT_EQ(rack_elevation_svg(dgx, 0).find("NVLink domain"), std::string::npos);
}

// The section that tables the liquid-cooling plant, from its opening tag to its end.
std::string plant_section(const std::string& html) {
  const std::size_t start = html.find("<section id=\"cooling-plant\"");
  return start == std::string::npos ? "" : html.substr(start, html.find("</section>", start) - start);
}

int liquid_racks(const Cluster& cluster) {
  int count = 0;
  for (const Rack& rack : cluster.racks) count += rack.heat_to_liquid > Power{};
  return count;
}

// The GB200 example's plant (rack_scale_test works its placement by hand): 3 in-row CDUs at the end of the
// first row, 2 carrying 5 and 3 NVL72 racks, one spare; the 8 NVL72 racks outlined as liquid-cooled.
TEST(HtmlReport, InRowCdusAreDrawnWhereThePlanPutThemWithTheirLoadAndSpare) {
  const Cluster cluster = plan_file("examples/gb200-nvl72-superpod-1su.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  const CoolingPlant& plant = cluster.cooling;
  ASSERT_EQ(plant.cdus, 3);
  EXPECT_EQ(count_of(html, "class=\"floor-cdu in_row"), static_cast<std::size_t>(plant.cdus));
  EXPECT_EQ(count_of(html, "class=\"floor-cdu in_row spare\""), 1u);
  EXPECT_EQ(count_of(html, "data-spare=\"true\""), 1u);
  EXPECT_EQ(count_of(html, "floor-cdu in_rack"), 0u);
  EXPECT_EQ(liquid_racks(cluster), 8);
  EXPECT_EQ(count_of(html, " liquid\" x="), 8u) << "each liquid-cooled rack marked on the floor plan";
  EXPECT_NE(html.find("cdu-1: in-row-cdu-600kw, 600 kW capacity; carries 525.3 kW to liquid of compute-1 ... "
                      "compute-5 (5 racks)"),
            std::string::npos);
  EXPECT_NE(html.find("cdu-3: in-row-cdu-600kw, 600 kW capacity; N+1 spare"), std::string::npos);
  EXPECT_NE(html.find("compute-1 (compute, 123.6 kW max; heat 105.1 kW to liquid, 18.5 kW to air)"),
            std::string::npos)
      << "a rack's heat split is its tooltip";
  const std::string table = plant_section(html);
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table.find("data-cdus=\"3\" data-cdus-needed=\"2\" data-placement=\"in_row\""),
            std::string::npos);
  EXPECT_NE(table.find("3: 2 carry the load, 1 spare (N+1)"), std::string::npos) << table;
  // 840.48 kW / (4186 J/(kg K) x 10 K) = 20.08 kg/s, 1204.7 l/min.
  EXPECT_NE(table.find("20.08 kg/s (1205 l/min) of water at 30 C supply, 10 C rise"), std::string::npos)
      << table;
  EXPECT_EQ(table.find("plant-warning"), std::string::npos) << "the example's hall carries its load";
}

TEST(HtmlReport, InRackCdusAreDrawnInTheirRacks) {
  const std::string spec =
      testing::replaced(testing::read_text(testing::source_path("examples/gb200-nvl72-superpod-1su.yaml")),
                        "cdu: in-row-cdu-600kw", "cdu: in-rack-cdu-250kw");
  const Cluster cluster = testing::plan_text(spec);
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  ASSERT_EQ(cluster.cooling.cdus, 8);
  EXPECT_EQ(count_of(html, "class=\"floor-cdu in_rack\""), 8u) << "one band in each NVL72 rack's floor cell";
  EXPECT_EQ(count_of(html, "floor-cdu in_row"), 0u);
  const int rack = cluster.cooling.units.front().rack;
  const std::string svg = rack_elevation_svg(cluster, rack);
  EXPECT_EQ(count_of(svg, "class=\"device cdu\""), 1u);
  EXPECT_NE(svg.find("carries 105.1 kW to liquid of compute-1 (U38)"), std::string::npos) << svg;
  EXPECT_NE(
      plant_section(html).find("8, one in each liquid-cooled rack (redundancy in each unit: N+1 pumps)"),
      std::string::npos);
}

// tests/specs/gb200-room-over-capacity.yaml: 2 NVL72 racks send 210.12 kW to liquid, the hall's water plant
// takes 150 kW and its air 30 kW: both are flagged in the plant's table, with the plan's warnings.
TEST(HtmlReport, ThePlantTableFlagsARoomCapacityExceeded) {
  const Cluster cluster = plan_file("tests/specs/gb200-room-over-capacity.yaml");
  const std::string table = plant_section(html_report(cluster, {}, kFakeChartScript));
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table.find("<p class=\"prominent plant-warning\" data-code=\"room-liquid-over-capacity\">"),
            std::string::npos);
  EXPECT_NE(table.find("<p class=\"prominent plant-warning\" data-code=\"room-air-over-capacity\">"),
            std::string::npos);
  EXPECT_NE(table.find("<td class=\"over\">150 kW: exceeded</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td class=\"over\">210.1 kW</td>"), std::string::npos) << table;
}

TEST(HtmlReport, AnAirCooledDesignHasNoPlantToDraw) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  EXPECT_EQ(liquid_racks(cluster), 0);
  EXPECT_EQ(html.find("class=\"floor-cdu"), std::string::npos);  // the style sheet names the class anyway
  EXPECT_EQ(html.find(" liquid\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"cooling-plant\""), std::string::npos);
  EXPECT_NE(html.find("kW max, air-cooled)"), std::string::npos) << "a rack's tooltip says how it is cooled";
}

TEST(HtmlReport, SelfContainedAndDeterministic) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  inputs.replays.push_back({"a.json", "fifo", 2,     0.5, {}, {},    {0, 3600}, {0.1, 0.2},
                            {1, 2},   {0, 0}, false, {},  {}, false, {},        {},
                            0,        0,      0,     {},  "", {}});
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_EQ(html, html_report(cluster, inputs, kFakeChartScript));
  EXPECT_EQ(html.find(" src="), std::string::npos);   // no script or image fetched
  EXPECT_EQ(html.find(" href="), std::string::npos);  // no stylesheet or font fetched
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_NE(html.find(std::string(kFakeChartScript)), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-utilisation\" data-series=\"1\" data-points=\"2\""), std::string::npos);
}

// A replay with failures adds GPUs out of service over time and interruptions by cause (over the causes of
// every replay with failures); a replay without them adds neither.
TEST(HtmlReport, ReplaysWithFailuresChartDownGpusAndInterruptionsByCause) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  inputs.replays.push_back({"plain.json", "fifo", 2,  0.5,   {}, {}, {0, 3600}, {0.1, 0.2}, {1, 2}, {0, 0},
                            false,        {},     {}, false, {}, {}, 0,         0,          0,      {},
                            "",           {}});
  EXPECT_EQ(html_report(cluster, inputs, kFakeChartScript).find("chart-down-gpus"), std::string::npos);
  const ReplaySeries failing{"f.json",
                             "fifo",
                             2,
                             0.5,
                             {},
                             {},
                             {0, 3600, 7200},
                             {0.1, 0.2, 0.3},
                             {1, 2, 3},
                             {0, 0, 0},
                             true,
                             {0, 8, 16},
                             {{"faulty-gpu", 3}, {"maintenance", 5}},
                             false,
                             {},
                             {},
                             0,
                             0,
                             0,
                             {},
                             "",
                             {}};
  ReplaySeries other = failing;
  other.source = "g.json";
  other.interruptions_by_cause = {{"network", 2}};
  inputs.replays.push_back(failing);
  inputs.replays.push_back(other);
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_NE(html.find("id=\"chart-down-gpus\" data-series=\"2\" data-points=\"6\""), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-interruptions\" data-series=\"2\" data-points=\"6\""), std::string::npos);
  EXPECT_NE(html.find("\"data\":[3,5,0]"), std::string::npos) << "faulty-gpu, maintenance, network";
  EXPECT_NE(html.find("\"data\":[0,0,2]"), std::string::npos);
}

// A replay on a known system adds IT power over time, with the budget it ran under as a flat line of two
// points; replays without energy add nothing to it.
TEST(HtmlReport, ReplaysWithEnergyChartPowerOverTimeAndTheBudget) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  inputs.replays.push_back({"plain.json", "fifo", 2,  0.5,   {}, {}, {0, 3600}, {0.1, 0.2}, {1, 2}, {0, 0},
                            false,        {},     {}, false, {}, {}, 0,         0,          0,      {},
                            "",           {}});
  EXPECT_EQ(html_report(cluster, inputs, kFakeChartScript).find("chart-replay-power"), std::string::npos);
  ReplaySeries capped = inputs.replays.front();
  capped.source = "capped.json";
  capped.interval_start_s = {0, 3600, 7200};
  capped.interval_utilisation = {0.1, 0.2, 0.3};
  capped.has_energy = true;
  capped.interval_it_kw = {180, 229.5, 200};
  capped.budget_it_kw = 230;
  ReplaySeries unbudgeted = capped;
  unbudgeted.source = "free.json";
  unbudgeted.budget_it_kw.reset();
  inputs.replays.push_back(capped);
  inputs.replays.push_back(unbudgeted);
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  // Two replays with energy and one budget line: 3 + 3 + 2 points.
  EXPECT_NE(html.find("id=\"chart-replay-power\" data-series=\"3\" data-points=\"8\""), std::string::npos);
  EXPECT_NE(html.find("budget 230 kW (capped.json)"), std::string::npos);
  EXPECT_NE(html.find("[[0.0,230.0],[0.0833,230.0]]"), std::string::npos)
      << "from the first to the last interval";

  // A replay whose intervals carry the facility's power gets it as a series beside its IT power.
  inputs.replays[1].interval_facility_kw = {262.5, 318.25, 290};
  const std::string with_facility = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_NE(with_facility.find("id=\"chart-replay-power\" data-series=\"4\" data-points=\"11\""),
            std::string::npos);
  EXPECT_NE(
      with_facility.find("\"label\":\"facility fifo (capped.json)\",\"data\":[[0.0,262.5],[0.0417,318.25],"
                         "[0.0833,290.0]]"),
      std::string::npos);
}

// Each replay with energy gets a row of its IT and facility energy and mean PUE; one that compared power
// policies gets their trade-off table, a refused policy with its reason.
TEST(HtmlReport, ReplayEnergyAndThePowerPolicyTradeOffAreTabled) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  ReplaySeries replay;
  replay.source = "capped.json";
  replay.policy = "fifo";
  replay.interval_start_s = {0, 3600};
  replay.interval_utilisation = {0.1, 0.2};
  replay.interval_queue_length = {0, 0};
  replay.interval_stranded_gpus = {0, 0};
  replay.has_energy = true;
  replay.interval_it_kw = {180, 229.5};
  replay.it_kwh = 1409.0;
  replay.facility_kwh = 2077.0;
  replay.pue = 1.4738;
  replay.budget_it_kw = 230;
  replay.budget_policy = "cap-all";
  replay.power_policies = {{"none", "no budget", 0, 0, 0, 0, 0, 0},
                           {"cap-all", "", 96.5, 7200, 1409.0, 2077.0, 229.5, 410}};
  inputs.replays.push_back(replay);
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_NE(html.find("<section id=\"replay-energy\" data-replays=\"1\">"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">1.409 MWh</td><td class=\"num\">2.077 MWh</td>"
                      "<td class=\"num\">1.474</td><td>230 kW IT under cap-all</td>"),
            std::string::npos);
  EXPECT_NE(html.find("data-runs=\"2\""), std::string::npos);
  EXPECT_NE(html.find("<td colspan=\"6\">refused: no budget</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">96.5</td><td class=\"num\">2 h</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">410 W</td>"), std::string::npos);
}

// Buy or rent in the report (issue 18 items 5 and 7): the priced 1-SU SuperPOD against the example cloud
// prices; each tier's break-even utilisation is the TCO over the rent of every GPU-hour of the life, worked
// here from the design's own cost lines (capex + lifetime x (energy + support)), not read from the answer.
TEST(HtmlReport, BuyOrRentShowsEachTiersBreakEvenWorkedFromTheCosts) {
  const Cluster cluster = plan_file("tests/specs/priced-1su.yaml");
  const auto prices =
      load_rental_prices(testing::source_path("examples/cloud-gpu-prices.yaml"), testing::bundled_catalog());
  ASSERT_TRUE(prices.ok()) << prices.error_text();
  const auto answer = buy_vs_rent(cluster, prices.value(), std::nullopt, "priced-1su.yaml");
  ASSERT_TRUE(answer.ok()) << answer.error_text();
  ReportInputs inputs;
  inputs.buy_vs_rent = answer.value();
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  ASSERT_NE(html.find("<section id=\"buy-vs-rent\""), std::string::npos);
  const Costs& costs = cluster.costs;
  const double tco = in_usd(costs.capex) +
                     costs.lifetime_years * (in_usd(costs.energy_per_year) + in_usd(costs.support_per_year));
  const double gpu_hours = cluster.gpus * costs.lifetime_years * 365.25 * 24;
  ASSERT_EQ(answer.value().tiers.size(), 3u);
  for (const RentTierAnswer& tier : answer.value().tiers) {
    const double break_even = tco / (in_usd(tier.per_gpu_hour) * gpu_hours);
    EXPECT_NE(
        html.find("<tr data-tier=\"" + tier.tier + "\" data-break-even=\"" + svg_number(break_even) + "\">"),
        std::string::npos)
        << tier.tier;
    EXPECT_NE(html.find(fmt::format("<td>{}</td><td>{}</td><td>{:.1f} %</td>", rent_tier_label(tier.tier),
                                    format_money_exact(tier.per_gpu_hour), 100 * break_even)),
              std::string::npos)
        << tier.tier;
  }
}

// The design's facility power by IT load, drawn from the model's curve: the 1-SU DGX H100 SuperPOD
// (air-standard, PUE 1.4, 349.051 kW IT at maximum: its devices' 348.34 kW and the 711 W of modules whose
// hosts' maxima do not say they count them) draws its fixed overhead at no load, 349.051 x 0.4 x 0.228 /
// 0.578 = 55.075 kW (WP113 Table 2's no-load share of its 57.8 % total), and 349.051 x 1.4 = 488.671 kW at
// maximum.
TEST(HtmlReport, TheFacilityCurveRunsFromItsFixedOverheadToItsPueAtMaximum) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  // 21 points along the curve and the two operating points.
  EXPECT_NE(html.find("id=\"chart-facility-curve\" data-series=\"3\" data-points=\"23\""), std::string::npos);
  EXPECT_NE(html.find("\"label\":\"facility power\",\"data\":[[0.0,55.075],"), std::string::npos);
  EXPECT_NE(html.find("[349.051,488.671]]"), std::string::npos);
  // The typical operating point is the plan's own typical IT and facility power (PowerSummary), on the curve.
  std::smatch typical;
  ASSERT_TRUE(std::regex_search(
      html, typical,
      std::regex(R"re("label":"typical IT load \(PUE ([0-9.]+)\)","data":\[\[([0-9.]+),([0-9.]+)\]\])re")));
  const double it_kw = in_kilowatts(cluster.power.it_typical);
  const double facility_kw = in_kilowatts(cluster.power.facility_typical);
  EXPECT_NEAR(std::stod(typical[2]), it_kw, 1e-3);
  EXPECT_NEAR(std::stod(typical[3]), facility_kw, 1e-3);
  EXPECT_NEAR(std::stod(typical[1]), facility_kw / it_kw, 1e-3);
  EXPECT_LT(it_kw, 349.051) << "typical below maximum";
  EXPECT_NE(
      html.find("air-standard split (data/power/facility-overhead.yaml), scaled to the PUE at full load"),
      std::string::npos);
}

TEST(HtmlReport, ResultTextCannotCloseTheScriptElement) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  inputs.replays.push_back({"a.json", "</script><i>fifo",
                            1,        0.5,
                            {},       {},
                            {0},      {0.1},
                            {0},      {0},
                            false,    {},
                            {},       false,
                            {},       {},
                            0,        0,
                            0,        {},
                            "",       {}});
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_EQ(html.find("</script><i>"), std::string::npos);
  EXPECT_NE(html.find("<\\/script><i>fifo (a.json)"), std::string::npos);
}

// perf infer and perf size results: a table per result with a row per point or accelerator carrying its
// figures, and a throughput chart with one point per row of the inference tables.
TEST(HtmlReport, InferenceAndSizingResultsGetTheirTablesAndChart) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/";
  const auto inputs =
      load_report_inputs({}, {dir + "infer-llama3.1-8b-h200.json", dir + "size-llama3-70b.json"});
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  const InferenceResult& inference = inputs.value().inferences.front();
  const SizingResult& sizing = inputs.value().sizings.front();
  const std::string html = html_report(cluster, inputs.value(), kFakeChartScript);

  const std::size_t infer_at = html.find("<section id=\"inference\" data-results=\"1\">");
  ASSERT_NE(infer_at, std::string::npos);
  const std::string infer = html.substr(infer_at, html.find("</section>", infer_at) - infer_at);
  EXPECT_EQ(count_of(infer, "<tr data-sequences="), inference.by_sequences.size() + 1);  // + max load
  const InferencePoint& last = inference.by_sequences.back();
  EXPECT_NE(infer.find("<tr data-sequences=\"" + std::to_string(last.sequences) + "\" data-ttft-ms=\"" +
                       nlohmann::json(last.ttft_ms).dump() + "\" data-tpot-ms=\"" +
                       nlohmann::json(last.tpot_ms).dump() + "\""),
            std::string::npos)
      << infer;
  EXPECT_NE(infer.find(format_number(last.output_tokens_per_s_per_gpu, 0) + "</td>"), std::string::npos);
  EXPECT_NE(infer.find(std::to_string(inference.max_sequences) + " (max load)"), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-inference\" data-series=\"1\" data-points=\"" +
                      std::to_string(inference.by_sequences.size() + 1) + "\""),
            std::string::npos);

  const std::size_t size_at = html.find("<section id=\"sizing\" data-results=\"1\">");
  ASSERT_NE(size_at, std::string::npos);
  const std::string size = html.substr(size_at, html.find("</section>", size_at) - size_at);
  EXPECT_EQ(count_of(size, "<tr data-accelerator="), sizing.accelerators.size());
  for (const SizedAccelerator& row : sizing.accelerators) {
    if (!row.sized) {
      EXPECT_NE(size.find("data-accelerator=\"" + row.accelerator + "\" data-sized=\"false\""),
                std::string::npos);
      continue;
    }
    EXPECT_NE(size.find("data-accelerator=\"" + row.accelerator + "\" data-sized=\"true\" data-gpus=\"" +
                        std::to_string(row.gpus) + "\""),
              std::string::npos)
        << size;
    if (row.cost_usd) {
      EXPECT_NE(size.find(format_money(usd(*row.cost_usd))), std::string::npos);
    }
  }
  EXPECT_NE(size.find("cost = GPU-hours x " + html_escape(sizing.cost_basis)), std::string::npos) << size;
}

// perf serve runs at two rates and a capacity search: one table row per run carrying its p99 latencies, a
// latency-against-rate chart per metric with the deployment's p90 and p99 lines (two points each), and the
// search's candidates with the answer first.
TEST(HtmlReport, ServingRunsAndCapacitySearchGetTheirTablesAndCharts) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/";
  const auto inputs =
      load_report_inputs({}, {dir + "serve-llama3.1-8b-rate40.json", dir + "serve-llama3.1-8b-rate120.json",
                              dir + "serve-capacity-llama3.1-8b.json"});
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  ASSERT_EQ(inputs.value().serves.size(), 2u);
  ASSERT_EQ(inputs.value().capacities.size(), 1u);
  const std::string html = html_report(cluster, inputs.value(), kFakeChartScript);

  const std::size_t at = html.find("<section id=\"serving\" data-runs=\"2\" data-searches=\"1\">");
  ASSERT_NE(at, std::string::npos);
  const std::string serving = html.substr(at, html.find("</section>", at) - at);
  for (const ServeDocument& run : inputs.value().serves) {
    EXPECT_NE(serving.find("data-requests-per-s=\"" + nlohmann::json(run.requests_per_s).dump() +
                           "\" data-ttft-p99-ms=\"" + nlohmann::json(run.ttft_ms.p99).dump() + "\""),
              std::string::npos)
        << serving;
    EXPECT_NE(serving.find(run.meets_targets ? "met (" : "NOT met ("), std::string::npos);
  }
  const CapacityDocument& search = inputs.value().capacities.front();
  EXPECT_EQ(count_of(serving, "<tr data-system="), search.rows.size());
  const CapacityDocumentRow& answer = search.rows.front();
  ASSERT_TRUE(answer.meets);
  EXPECT_NE(serving.find("<tr data-system=\"" + answer.system + "\" data-tp=\"" + std::to_string(answer.tp) +
                         "\" data-meets=\"true\" data-gpus=\"" + std::to_string(answer.gpus) + "\""),
            std::string::npos)
      << serving;
  EXPECT_NE(html.find("id=\"chart-serve-ttft\" data-series=\"2\" data-points=\"4\""), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-serve-tpot\" data-series=\"2\" data-points=\"4\""), std::string::npos);
}

// The capacity table's bought column: a /2 document (perf serve --search --systems gb200-nvl72,dgx-h100
// --model llama3.1-8b --rate 10 --duration 20 --input-tokens 1024 --output-tokens 128 --slo
// ttft-p90=300ms,tpot-p90=30ms
// --prices examples/gpu-hour-prices.yaml --json) draws what each meeting row buys, an NVL72 by the 72-GPU
// rack and an H100 box by the node; the /1 fixture, written before purchases were counted, says they were not
// recorded and that its $/h is on the GPUs used.
TEST(HtmlReport, CapacityTableDrawsWhatEachRowBuys) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/";
  const auto inputs = load_report_inputs(
      {}, {dir + "serve-capacity-gb200-nvl72-dgx-h100.json", dir + "serve-capacity-llama3.1-8b.json"});
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  ASSERT_EQ(inputs.value().capacities.size(), 2u);
  const std::string html = html_report(cluster, inputs.value(), kFakeChartScript);
  // Each search is a heading, its note, then its table: split at the second heading.
  const std::size_t second = html.find("<h3>Capacity for", html.find("<h3>Capacity for") + 1);
  ASSERT_NE(second, std::string::npos);
  const std::string racks = html.substr(0, second);
  const std::string first_version = html.substr(second);

  const CapacityDocument& two = inputs.value().capacities.front();
  EXPECT_EQ(two.schema, "gputwin.serve-capacity/2");
  EXPECT_NE(racks.find("<th>bought</th>"), std::string::npos) << racks;
  EXPECT_NE(racks.find("$/h is on the GPUs bought"), std::string::npos);
  int rack_rows = 0, node_rows = 0;
  for (const CapacityDocumentRow& row : two.rows) {
    if (!row.meets) continue;
    ASSERT_TRUE(row.bought.has_value());
    EXPECT_NE(racks.find("data-gpus=\"" + std::to_string(row.gpus) + "\" data-bought-gpus=\"" +
                         std::to_string(row.bought->gpus) + "\""),
              std::string::npos)
        << row.system << " " << row.layout;
    if (row.system == "gb200-nvl72-tray") {
      ++rack_rows;
      EXPECT_EQ(row.bought->gpus, 72);  // one rack: every layout here fits one 72-GPU domain
    } else {
      ++node_rows;
      EXPECT_EQ(row.bought->gpus % 8, 0);
    }
  }
  EXPECT_GT(rack_rows, 0);
  EXPECT_GT(node_rows, 0);
  EXPECT_EQ(count_of(racks, "<td class=\"bought\">1 x rack gb200-nvl72 (18 trays, 72 GPUs)</td>"),
            static_cast<std::size_t>(rack_rows));
  EXPECT_NE(racks.find("<td class=\"bought\">1 node in 1 rack (8 GPUs)</td>"), std::string::npos);

  const CapacityDocument& one = inputs.value().capacities.back();
  EXPECT_EQ(one.schema, "gputwin.serve-capacity/1");
  EXPECT_EQ(count_of(first_version, "<td class=\"bought\">not recorded</td>"), one.rows.size());
  EXPECT_NE(first_version.find("bought not recorded, $/h on the GPUs used"), std::string::npos);
}

// validate --prometheus --range --json (with and without --sacct, as tests/prometheus/cli_replay.sh records
// them): the findings as a table, the timeline as a chart with the prediction as a third series.
TEST(HtmlReport, ValidateTimelinesAreDrawnWithTheirPredictionAndFindings) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/prometheus/expected/";
  const auto inputs = load_report_inputs({}, {}, {dir + "range-sacct-json.out", dir + "range-json.out"});
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  ASSERT_EQ(inputs.value().validations.size(), 2u);
  const ValidateSummary& predicted = inputs.value().validations.front().summary;
  ASSERT_EQ(predicted.timeline.size(), 5u);
  ASSERT_TRUE(predicted.timeline.back().predicted_occupancy.has_value());
  EXPECT_DOUBLE_EQ(*predicted.timeline.back().predicted_occupancy, 1.0);  // 101 and 105 on all 6 GPUs
  EXPECT_FALSE(inputs.value().validations.back().summary.timeline.front().predicted_occupancy.has_value());

  const std::string html = html_report(cluster, inputs.value(), kFakeChartScript);
  const std::size_t at = html.find("<section id=\"validation\" data-documents=\"2\">");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_EQ(count_of(section, "<tr data-severity=\"critical\">"), 4u);  // 2 per document
  EXPECT_NE(section.find("XID 79 logged"), std::string::npos);
  EXPECT_NE(section.find("<strong>FAIL</strong>"), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-validate-timeline-0\" data-series=\"3\" data-points=\"15\""),
            std::string::npos);
  EXPECT_NE(html.find("id=\"chart-validate-timeline-1\" data-series=\"2\" data-points=\"10\""),
            std::string::npos);
  // The predicted series ends at 100 % one hour after the first interval.
  EXPECT_NE(html.find("\"label\":\"predicted occupancy (simulate replay easy on "), std::string::npos);
  EXPECT_NE(html.find("[1.0,100.0]]"), std::string::npos);
}

TEST(HtmlReport, AValidateFileMustBeAValidateResult) {
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/";
  const auto inputs = load_report_inputs({}, {}, {dir + "serve-llama3.1-8b-rate40.json"});
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.error_text().find("expected gputwin.validate/1 (validate --json)"), std::string::npos)
      << inputs.error_text();
}

BudgetCandidate budget_candidate(const std::string& system, double cap_w, bool capped, int nodes,
                                 double tokens_per_second) {
  BudgetCandidate row;
  row.system = system;
  row.accelerator = system == "dgx-h100" ? "h100-sxm" : "b200";
  row.cap = watts(cap_w);
  row.capped = capped;
  row.fits = nodes > 0;
  row.nodes = nodes;
  row.gpus = 8 * nodes;
  row.racks = nodes / 4 + 2;
  row.facility_kw = 590.5;
  row.it_kw = 454.2;
  row.tokens_per_second = tokens_per_second;
  row.days = 9.5;
  row.mfu = 0.5;
  row.lost = "fewer tokens/s";
  return row;
}

TEST(HtmlReport, APowerBudgetPlanGetsItsTradeOffTableAndChart) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ReportInputs inputs;
  PowerBudgetPlan plan;
  plan.budget = kilowatts(600);
  plan.cap_rule = "h100-sxm: 700 W down to 500 W";
  plan.candidates = {budget_candidate("dgx-h100", 700, false, 42, 2396730.25),
                     budget_candidate("dgx-h100", 500, true, 50, 2100000.5),
                     budget_candidate("dgx-h100", 200, true, 0, 0),
                     budget_candidate("dgx-b200", 1000, false, 30, 2992660.125)};
  plan.candidates[2].note = "the workload does not fit in memory";
  plan.candidates[3].chosen = true;
  plan.candidates[3].lost.clear();
  plan.chosen = 3;
  inputs.power_budget = plan;
  const std::string html = html_report(cluster, inputs, kFakeChartScript);
  EXPECT_NE(html.find("<section id=\"power-budget\" data-budget-kw=\"600\" data-candidates=\"4\" "
                      "data-chosen-system=\"dgx-b200\" data-chosen-cap-w=\"1000\">"),
            std::string::npos);
  EXPECT_EQ(count_of(html, "<tr data-system="), 4U);
  EXPECT_NE(html.find("data-cap-w=\"500\" data-fits=\"true\" data-chosen=\"false\" data-nodes=\"50\" "
                      "data-tokens-per-second=\"2100000.5\""),
            std::string::npos);
  EXPECT_NE(html.find("the workload does not fit in memory"), std::string::npos);
  EXPECT_EQ(count_of(html, "<b>chosen</b>"), 1U);
  // One series per platform, only what fits, caps rising: the H100's 500 W point before its 700 W one.
  EXPECT_NE(html.find("id=\"chart-power-budget\" data-series=\"2\" data-points=\"3\""), std::string::npos);
  EXPECT_NE(html.find("[[500.0,2100000.5],[700.0,2396730.25]]"), std::string::npos);
  EXPECT_NE(html.find("[[1000.0,2992660.125]]"), std::string::npos);
  EXPECT_EQ(html_report(cluster, {}, kFakeChartScript).find("id=\"power-budget\""), std::string::npos);
}

TEST(HtmlReport, ChartsOnlyForTheResultsGiven) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const std::string html = html_report(cluster, {}, kFakeChartScript);
  EXPECT_EQ(html.find("id=\"chart-utilisation\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"simulation\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"inference\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"sizing\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"serving\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"chart-serve-ttft\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"validation\""), std::string::npos);
  EXPECT_NE(html.find("id=\"chart-power\""), std::string::npos);
}

}  // namespace
}  // namespace gputwin
