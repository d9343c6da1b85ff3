#!/usr/bin/env bash
# ctest browser.report: builds the demo report (scripts/report-demo.sh), a power-budget spec's, a GB200 NVL72 SU's
# and a 100,000-GPU design's report, checks them in Debian's headless chromium against their JSON (check_report.cjs), and that a
# second run gives the same bytes. Screenshots land in OUT_DIR/screenshots. Skips (77) without chromium or node.
#   report_browser_test.sh GPUTWIN WEB_DIR OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
gputwin="$1" web_dir="$2" out="$3"
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$chromium" ]]; then
  echo "skipped: no chromium at $chromium (Debian package chromium; scripts/setup.sh installs it)"
  exit 77
fi
if ! command -v node >/dev/null; then
  echo "skipped: no node (Debian package nodejs; scripts/setup.sh installs it)"
  exit 77
fi
max_bytes=5000000  # issue 7: a report stays under 5 MB, even for 100,000 GPUs
rm -rf "$out"
mkdir -p "$out"

GPUTWIN="$gputwin" bash scripts/report-demo.sh "$out/demo" >/dev/null
demo="$out/demo"
node tests/browser/check_report.cjs --web-dir "$web_dir" --report "$demo/report.html" --plan "$demo/plan.json" \
  --simulation "$demo/replay-fifo.json" --simulation "$demo/replay-easy.json" \
  --simulation "$demo/packing-fgd.json" --simulation "$demo/packing-bestfit.json" \
  --perf "$demo/collective-all-reduce.json" --perf "$demo/collective-all-gather.json" \
  --perf "$demo/train-llama3-70b.json" \
  --perf "$demo/infer-llama3.1-70b.json" --perf "$demo/size-llama3-70b.json" \
  --perf "$demo/serve-llama3.1-70b-20.json" --perf "$demo/serve-llama3.1-70b-60.json" \
  --perf "$demo/serve-capacity-llama3.1-70b.json" \
  --screenshots "$out/screenshots" --max-bytes "$max_bytes"

# Same inputs, same bytes.
"$gputwin" report examples/dgx-h100-superpod-4su.yaml \
  --simulation "$demo/replay-fifo.json" --simulation "$demo/replay-easy.json" \
  --simulation "$demo/packing-fgd.json" --simulation "$demo/packing-bestfit.json" \
  --perf "$demo/collective-all-reduce.json" --perf "$demo/collective-all-gather.json" \
  --perf "$demo/train-llama3-70b.json" \
  --perf "$demo/infer-llama3.1-70b.json" --perf "$demo/size-llama3-70b.json" \
  --perf "$demo/serve-llama3.1-70b-20.json" --perf "$demo/serve-llama3.1-70b-60.json" \
  --perf "$demo/serve-capacity-llama3.1-70b.json" \
  --out "$out/again.html" >/dev/null
cmp "$demo/report.html" "$out/again.html"

# validate --prometheus --range --sacct --json (as tests/prometheus/cli_replay.sh records it): findings and the
# measured and predicted timeline.
validated=tests/prometheus/expected/range-sacct-json.out
"$gputwin" plan examples/dgx-h100-superpod-1su.yaml --json >"$out/plan-1su.json"
"$gputwin" report examples/dgx-h100-superpod-1su.yaml --validate "$validated" --out "$out/report-validate.html" \
  >/dev/null
node tests/browser/check_report.cjs --web-dir "$web_dir" --report "$out/report-validate.html" \
  --plan "$out/plan-1su.json" --validate "$validated" --screenshots "$out/screenshots-validate" \
  --max-bytes "$max_bytes"

# A spec sized to a facility power budget: the platform x cap trade-off table and chart against plan --json.
budget=tests/specs/power-budget-llama3-8b.yaml
"$gputwin" plan "$budget" --json >"$out/plan-budget.json"
"$gputwin" report "$budget" --out "$out/report-budget.html" >/dev/null
node tests/browser/check_report.cjs --web-dir "$web_dir" --report "$out/report-budget.html" \
  --plan "$out/plan-budget.json" --screenshots "$out/screenshots-budget" --max-bytes "$max_bytes"

# A GB200 NVL72 SU: rack-scale racks and the liquid-cooling plant (in-row CDUs with their spare) against
# plan --json.
gb200=examples/gb200-nvl72-superpod-1su.yaml
"$gputwin" plan "$gb200" --json >"$out/plan-gb200.json"
"$gputwin" report "$gb200" --out "$out/report-gb200.html" >/dev/null
node tests/browser/check_report.cjs --web-dir "$web_dir" --report "$out/report-gb200.html" \
  --plan "$out/plan-gb200.json" --screenshots "$out/screenshots-gb200" --max-bytes "$max_bytes"

# The 100,000-GPU design: aggregated drawings must still add up to the plan's racks and switches.
large=examples/h100-100k-three-tier.yaml
"$gputwin" plan "$large" --json >"$out/plan-100k.json"
"$gputwin" report "$large" --out "$out/report-100k.html" >/dev/null
node tests/browser/check_report.cjs --web-dir "$web_dir" --report "$out/report-100k.html" \
  --plan "$out/plan-100k.json" --screenshots "$out/screenshots-100k" --max-bytes "$max_bytes"
echo "report sizes: demo $(stat -c %s "$demo/report.html") bytes, 100k $(stat -c %s "$out/report-100k.html") bytes"
