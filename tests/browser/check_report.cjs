// Opens a gputwin HTML report from disk in Debian's chromium (headless, through playwright-core) and checks it
// against the JSON the report was drawn from. Fails on any console error, page error, failed request or request
// for anything but the file itself; saves full-page screenshots at desktop and laptop widths.
//
//   node check_report.cjs --web-dir BUILD/report-web --report report.html --plan plan.json \
//        [--simulation replay.json ...] [--perf train.json ...] [--validate validate.json ...] [--screenshots DIR] [--max-bytes N]
// With --timing-only it prints the load-to-charts-drawn time and checks nothing else (bench/report_size.sh).
'use strict';
const fs = require('fs');
const path = require('path');

function parseArguments(argv) {
  const options = { simulation: [], perf: [], validate: [], timingOnly: false };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    if (flag === '--timing-only') { options.timingOnly = true; continue; }
    const value = argv[++i];
    if (flag === '--simulation' || flag === '--perf' || flag === '--validate') options[flag.slice(2)].push(value);
    else options[flag.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = value;
  }
  return options;
}

const failures = [];
function expectEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    failures.push(`${what}: page has ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}
function expectClose(actual, expected, what) {
  const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tolerance)) failures.push(`${what}: page has ${actual}, expected ${expected}`);
}
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

// Opens the page and records everything that went wrong while it loaded.
async function openReport(browser, reportPath, width) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems = [];
  const reportUrl = 'file://' + path.resolve(reportPath);
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console error: ${message.text()}`); });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed request: ${request.url()}`));
  page.on('request', (request) => {
    const url = request.url();
    if (url !== reportUrl && !url.startsWith('data:')) problems.push(`request beyond the file: ${url}`);
  });
  const started = Date.now();
  await page.goto(reportUrl, { waitUntil: 'load' });
  await page.waitForSelector('body[data-charts-rendered]', { state: 'attached', timeout: 30000 });
  // The page's own clock: from navigation start to the first frame after the charts were drawn.
  const pageMs = await page.evaluate(() => new Promise((resolve) =>
    requestAnimationFrame(() => resolve(Math.round(performance.now())))));
  return { page, problems, renderMs: Date.now() - started, pageMs };
}

async function checkSummaryAndRacks(page, plan) {
  const summary = await page.$eval('.summary', (e) => ({ ...e.dataset }));
  expectEqual(Number(summary.gpus), plan.totals.gpus, 'summary GPUs');
  expectEqual(Number(summary.nodes), plan.totals.nodes, 'summary nodes');
  expectEqual(Number(summary.racks), plan.totals.racks, 'summary racks');
  expectEqual(Number(summary.itKw), plan.totals.it_power_kw_max, 'summary IT kW');
  expectEqual(Number(summary.facilityKw), plan.totals.facility_power_kw, 'summary facility kW');
  expectEqual(Number(summary.capexUsd), plan.costs.capex_usd, 'summary capex');
  expectEqual(await page.$$eval('#warnings li', (e) => e.length), plan.warnings.length, 'warnings listed');
  expectEqual(await page.$$eval('rect.floor-rack', (e) => e.length), plan.totals.racks, 'racks on the floor plan');
  const layoutCounts = await page.$$eval('figure.rack-layout', (e) => e.map((f) => Number(f.dataset.count)));
  const layouts = Number(await page.$eval('#racks', (e) => e.dataset.layouts));
  if (layouts === layoutCounts.length) {
    expectEqual(layoutCounts.reduce((a, b) => a + b, 0), plan.totals.racks, 'racks counted in the elevations');
  }
  const rows = new Set(plan.racks.map((rack) => rack.row)).size;
  expectEqual(await page.$$eval('.floor-plan .row-label', (e) => e.length), rows, 'rows on the floor plan');
  const bom = await page.$$eval('#bom tr[data-part]', (e) => e.map((r) => [r.dataset.part, Number(r.dataset.count)]));
  expectEqual(bom, plan.bom.map((line) => [line.part, line.count]), 'BOM lines');
}

async function checkFabrics(page, plan) {
  for (const [role, fabric] of Object.entries(plan.fabrics)) {
    const figure = `figure.fabric[data-fabric="${role}"]`;
    for (const tier of ['leaf', 'spine', 'core']) {
      const drawn = await page.$$eval(`${figure} g.tier-box[data-tier="${tier}"]`,
        (boxes) => boxes.reduce((sum, box) => sum + Number(box.dataset.switches), 0));
      expectEqual(drawn, fabric.switches[tier], `${role} ${tier} switches drawn`);
      expectEqual(Number(await page.$eval(figure, (e, t) => e.dataset[t], tier)), fabric.switches[tier],
        `${role} ${tier} switches attribute`);
    }
  }
}

// The data Chart.js holds for a canvas: what it actually drew.
const chartData = (page, id) => page.evaluate((canvasId) => {
  const chart = Chart.getChart(document.getElementById(canvasId));
  if (!chart) return null;
  const box = chart.canvas.getBoundingClientRect();
  return { width: box.width, datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) };
}, id);

async function checkSeries(page, id, expected, what) {
  const chart = await chartData(page, id);
  if (!chart) { failures.push(`${what}: no chart on #${id}`); return; }
  if (!(chart.width > 0)) failures.push(`${what}: #${id} has no width`);
  expectEqual(chart.datasets.length, expected.length, `${what}: series`);
  const attributes = await page.$eval(`#${id}`, (e) => [Number(e.dataset.series), Number(e.dataset.points)]);
  expectEqual(attributes, [expected.length, expected.reduce((sum, values) => sum + values.length, 0)],
    `${what}: data-series and data-points`);
  expected.forEach((values, s) => {
    const drawn = (chart.datasets[s] || { data: [] }).data.map((point) => (Array.isArray(point) ? point[1] : point));
    expectEqual(drawn.length, values.length, `${what}: points of series ${s}`);
    values.forEach((value, i) => {
      if (value === null) expectEqual(drawn[i], null, `${what}: series ${s} point ${i}`);
      else expectClose(drawn[i], value, `${what}: series ${s} point ${i}`);
    });
  });
}

async function checkCharts(page, simulations, perfs) {
  const replays = simulations.filter((d) => d.schema === 'gputwin.replay/1');
  const packings = simulations.filter((d) => d.schema === 'gputwin.packing/1');
  if (replays.length > 0) {
    for (const [id, field] of [['chart-utilisation', 'utilisation'], ['chart-queue', 'queue_length'],
      ['chart-fragmentation', 'stranded_gpus']]) {
      await checkSeries(page, id, replays.map((r) => r.intervals.map((i) => i[field])), `replay ${field}`);
    }
    await checkSeries(page, 'chart-jct', replays.map((r) => ['median', 'mean', 'p95', 'max'].map((k) => r.jct_s[k] / 3600)),
      'replay JCT');
  }
  if (packings.length > 0) {
    await checkSeries(page, 'chart-packing', packings.map((p) =>
      (p.mean_over_seeds || p).allocation_percent_by_arrived_percent), 'packing allocation');
  }
  const collectives = perfs.filter((d) => d.schema === 'gputwin.collective/1');
  if (collectives.length > 0) {
    await checkSeries(page, 'chart-busbw', collectives.map((c) => c.rows.map((r) => r.busbw_gbps)), 'busbw');
  }
  const trainings = perfs.filter((d) => d.schema === 'gputwin.perf-train/1');
  if (trainings.length > 0) {
    const names = [...new Set(trainings.flatMap((t) => t.terms.map((term) => term.name)))];
    await checkSeries(page, 'chart-step', names.map((name) => trainings.map((t) =>
      t.terms.filter((term) => term.name === name).reduce((sum, term) => sum + term.seconds, 0))), 'step time');
  }
  const inferences = perfs.filter((d) => d.schema === 'gputwin.infer/1');
  if (inferences.length > 0) {
    const points = inferences.map((r) => [...r.by_sequences, ...(r.max_load.sequences > 0 ? [r.max_load] : [])]);
    await checkSeries(page, 'chart-inference', points.map((p) => p.map((point) => point.output_tokens_per_s_per_gpu)),
      'inference tokens/s per GPU');
    const rows = await page.$$eval('#inference tr[data-sequences]', (trs) => trs.map((tr) =>
      [Number(tr.dataset.sequences), Number(tr.dataset.ttftMs), Number(tr.dataset.tpotMs)]));
    expectEqual(rows, points.flat().map((point) => [point.sequences, point.ttft_ms, point.tpot_ms]), 'inference rows');
  }
  const serves = perfs.filter((d) => d.schema === 'gputwin.serve/1');
  if (serves.length > 0) {
    // One deployment per model, system, replicas and TP (sorted by that name), its runs by rate; p90 then p99.
    const byDeployment = new Map();
    for (const run of serves) {
      const deployment = run.pools
        ? `${run.pools.prefill.instances} prefill x TP ${run.pools.prefill.tp} + ${run.pools.decode.instances} decode x TP ${run.pools.decode.tp}`
        : `${run.replicas} x TP ${run.tp}`;
      const key = `${run.model} on ${run.system}, ${deployment}`;
      if (!byDeployment.has(key)) byDeployment.set(key, []);
      byDeployment.get(key).push(run);
    }
    const groups = [...byDeployment.keys()].sort().map((key) =>
      byDeployment.get(key).slice().sort((a, b) => a.requests_per_s - b.requests_per_s));
    for (const [id, field] of [['chart-serve-ttft', 'ttft_ms'], ['chart-serve-tpot', 'tpot_ms']]) {
      await checkSeries(page, id, groups.flatMap((runs) => ['p90', 'p99'].map((p) => runs.map((r) => r[field][p]))),
        `serving ${field}`);
    }
    const rows = await page.$$eval('#serving tr[data-requests-per-s]', (trs) => trs.map((tr) =>
      [Number(tr.dataset.requestsPerS), Number(tr.dataset.ttftP99Ms), tr.dataset.meets === 'true']));
    expectEqual(rows, serves.map((r) => [r.requests_per_s, r.ttft_ms.p99, r.meets_targets]), 'serving rows');
  }
  const capacities = perfs.filter((d) => ['gputwin.serve-capacity/2', 'gputwin.serve-capacity/1'].includes(d.schema));
  if (capacities.length > 0) {
    const rows = await page.$$eval('#serving tr[data-system]', (trs) => trs.map((tr) =>
      [tr.dataset.system, Number(tr.dataset.tp), tr.dataset.meets === 'true', Number(tr.dataset.gpus),
        tr.dataset.boughtGpus === '' ? null : Number(tr.dataset.boughtGpus)]));
    expectEqual(rows, capacities.flatMap((c) => c.rows.map((r) => [r.system, r.tp, r.meets, r.gpus,
      r.meets && r.bought_gpus !== undefined ? r.bought_gpus : null])), 'capacity rows');
  }
  const sizings = perfs.filter((d) => d.schema === 'gputwin.perf-size/1');
  if (sizings.length > 0) {
    const rows = await page.$$eval('#sizing tr[data-accelerator]', (trs) => trs.map((tr) =>
      [tr.dataset.accelerator, tr.dataset.sized === 'true' ? Number(tr.dataset.gpus) : null]));
    expectEqual(rows, sizings.flatMap((s) => s.accelerators.map((a) => [a.accelerator, a.gpus === undefined ? null : a.gpus])),
      'sizing rows');
  }
}

// validate --json documents: their findings as table rows, each range timeline as a chart of measured
// occupancy and mean utilisation (and predicted occupancy with --sacct), in percent.
async function checkValidations(page, validations) {
  if (validations.length === 0) return;
  const rows = await page.$$eval('#validation tr[data-severity]', (trs) => trs.map((tr) => tr.dataset.severity));
  expectEqual(rows, validations.flatMap((v) => v.findings.map((f) => f.severity)), 'validate finding rows');
  for (const [index, v] of validations.entries()) {
    if (!v.timeline || v.timeline.length === 0) continue;
    const series = [v.timeline.map((p) => 100 * p.occupancy), v.timeline.map((p) => p.mean_utilization_percent)];
    if (v.timeline.some((p) => p.predicted)) series.push(v.timeline.map((p) => 100 * (p.predicted ? p.predicted.occupancy : 0)));
    await checkSeries(page, `chart-validate-timeline-${index}`, series, `validate timeline ${index}`);
  }
}

// A spec sized to facility.power_budget: the table's rows and the throughput-by-cap chart against the plan's
// candidates (one series per platform in listed order, the caps that fit from the lowest up).
async function checkPowerBudget(page, plan) {
  const budget = plan.workload_fit && plan.workload_fit.power_budget;
  const drawn = await page.$$('#power-budget');
  if (!budget) { expectEqual(drawn.length, 0, 'power budget section without a budget'); return; }
  const section = await page.$eval('#power-budget', (e) => ({ ...e.dataset }));
  expectEqual(Number(section.budgetKw), budget.budget_kw, 'power budget kW');
  const chosen = budget.candidates.find((c) => c.chosen);
  expectEqual([section.chosenSystem, Number(section.chosenCapW)], [chosen.system, chosen.cap_w], 'chosen design');
  const rows = await page.$$eval('#power-budget tr[data-system]', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  expectEqual(rows.map((r) => [r.system, Number(r.capW), r.chosen === 'true']),
    budget.candidates.map((c) => [c.system, c.cap_w, c.chosen]), 'power budget rows');
  rows.forEach((row, i) => {
    const candidate = budget.candidates[i];
    if (!candidate.fits) return;
    expectEqual(Number(row.nodes), candidate.nodes, `power budget row ${i} nodes`);
    expectClose(Number(row.tokensPerSecond), candidate.tokens_per_second, `power budget row ${i} tokens/s`);
    expectClose(Number(row.facilityKw), candidate.facility_kw, `power budget row ${i} facility kW`);
  });
  const systems = [...new Set(budget.candidates.map((c) => c.system))];
  await checkSeries(page, 'chart-power-budget', systems.map((system) => budget.candidates
    .filter((c) => c.system === system && c.fits).sort((a, b) => a.cap_w - b.cap_w)
    .map((c) => c.tokens_per_second)), 'power budget chart');
}

// The design's facility power by IT load (plan power.overhead_*): from the fixed overhead at no IT load to the
// facility's maximum, with the typical operating point; and, for replays on a known system, their IT and
// facility power per interval (with any budget line) and their energy rows.
async function checkFacilityAndEnergy(page, plan, simulations) {
  const within = (actual, expected, what) => {
    if (!(Math.abs(actual - expected) <= 0.002)) failures.push(`${what}: page has ${actual}, expected ${expected}`);
  };
  const curve = await chartData(page, 'chart-facility-curve');
  if (!curve) { failures.push('facility curve: no chart on #chart-facility-curve'); return; }
  const line = curve.datasets[0].data;
  within(line[0][1], plan.power.overhead_curve ? plan.power.overhead_fixed_kw : 0, 'facility at no IT load');
  within(line[line.length - 1][0], plan.totals.it_power_kw_max, 'facility curve: IT at maximum');
  within(line[line.length - 1][1], plan.totals.facility_power_kw, 'facility curve: facility at maximum');
  within(curve.datasets[1].data[0][1], plan.totals.facility_power_kw_typical, 'facility at typical IT load');

  const replays = simulations.filter((d) => d.schema === 'gputwin.replay/1' && d.energy);
  if (replays.length === 0) return;
  const series = [];
  for (const replay of replays) {
    series.push(replay.intervals.map((i) => i.it_kw));
    if (replay.intervals.every((i) => i.facility_kw !== undefined)) series.push(replay.intervals.map((i) => i.facility_kw));
  }
  for (const replay of replays) if (replay.energy.budget) series.push([replay.energy.budget.it_kw, replay.energy.budget.it_kw]);
  await checkSeries(page, 'chart-replay-power', series, 'replay IT and facility power');
  const rows = await page.$$eval('#replay-energy tbody tr[data-source]', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  expectEqual(rows.length, replays.length, 'replay energy rows');
  rows.forEach((row, i) => {
    expectClose(Number(row.itKwh), replays[i].energy.it_kwh, `replay ${i} IT kWh`);
    expectClose(Number(row.facilityKwh), replays[i].energy.facility_kwh, `replay ${i} facility kWh`);
  });
}

// The liquid-cooling plant: every CDU the plan placed drawn once (in-row cabinets or in-rack bands, the spare
// marked), each liquid-cooled rack outlined, the plant table's counts; nothing of it for an air-cooled design.
async function checkCoolingPlant(page, plan) {
  const plant = plan.liquid_cooling;
  const units = plant ? plant.units : [];
  const drawn = await page.$$eval('.floor-plan .floor-cdu', (e) => e.map((c) => ({
    name: c.dataset.cdu, spare: c.dataset.spare === 'true', racks: Number(c.dataset.racks),
    inRow: c.classList.contains('in_row'), visible: c.getBoundingClientRect().width > 0 })));
  expectEqual(drawn.map((c) => c.name).sort(), units.map((u) => u.name).sort(), 'CDUs on the floor plan');
  const byName = new Map(drawn.map((c) => [c.name, c]));
  for (const unit of units) {
    const cell = byName.get(unit.name);
    if (!cell) continue;
    expectEqual([cell.spare, cell.racks, cell.inRow], [unit.spare, unit.racks.length, plant.placement === 'in_row'],
      `${unit.name}: spare, racks served, placement`);
    if (!cell.visible) failures.push(`${unit.name}: drawn with no width`);
  }
  const liquid = plan.racks.filter((rack) => rack.heat_to_liquid_kw > 0).length;
  expectEqual(await page.$$eval('rect.floor-rack.liquid', (e) => e.length), liquid, 'liquid-cooled racks outlined');
  const table = await page.$$eval('#cooling-plant', (e) => e.map((s) => [Number(s.dataset.cdus), Number(s.dataset.cdusNeeded)]));
  expectEqual(table, plant ? [[plant.cdus, plant.cdus_needed]] : [], 'plant table CDUs placed and needed');
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const { chromium } = require(path.join(path.resolve(options.webDir), 'node_modules', 'playwright-core'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'], headless: true });
  try {
    const bytes = fs.statSync(options.report).size;
    if (options.timingOnly) {
      const { problems, renderMs, pageMs } = await openReport(browser, options.report, 1440);
      console.log(JSON.stringify({ bytes, render_ms: renderMs, page_ms: pageMs, problems }));
      return problems.length === 0 ? 0 : 1;
    }
    if (options.maxBytes && bytes > Number(options.maxBytes)) failures.push(`${bytes} bytes, over ${options.maxBytes}`);
    const plan = readJson(options.plan);
    for (const [name, width] of [['desktop', 1440], ['laptop', 1366]]) {
      const { page, problems, renderMs, pageMs } = await openReport(browser, options.report, width);
      failures.push(...problems);
      if (name === 'desktop') {
        await checkSummaryAndRacks(page, plan);
        await checkFabrics(page, plan);
        await checkCharts(page, options.simulation.map(readJson), options.perf.map(readJson));
        await checkValidations(page, options.validate.map(readJson));
        await checkPowerBudget(page, plan);
        await checkFacilityAndEnergy(page, plan, options.simulation.map(readJson));
        await checkCoolingPlant(page, plan);
      }
      if (options.screenshots) {
        fs.mkdirSync(options.screenshots, { recursive: true });
        await page.screenshot({ path: path.join(options.screenshots, `report-${name}-${width}.png`), fullPage: true });
      }
      console.log(`${name} (${width} px): drawn ${pageMs} ms after navigation start (${renderMs} ms as the driver saw it)`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  for (const failure of failures) console.error(`FAIL ${failure}`);
  if (failures.length === 0) console.log(`report checked in chromium: ${options.report}`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => { console.error(error); process.exit(1); });
