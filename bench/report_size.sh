#!/usr/bin/env bash
# Size and render time of the HTML report for the 100,000-GPU design (issue 7: under 5 MB, drawn in under 3 s in
# headless chromium), with a year of replay results under two policies, a collective sweep and a training step.
# Not a test (render time depends on the machine): it prints the figures against the targets.
#   bash bench/report_size.sh [BUILD_DIR]          (default build; needs chromium and the built report-web)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
gputwin="$build/src/gputwin/gputwin"
out="$build/bench-report"
spec=examples/h100-100k-three-tier.yaml
mkdir -p "$out"

"$gputwin" trace generate --gpus 100000 --jobs 200000 --days 365 --seed 1 --out "$out/jobs.csv" >/dev/null
for policy in fifo easy; do
  "$gputwin" simulate replay --jobs "$out/jobs.csv" --cluster "$spec" --policy "$policy" --json \
    >"$out/replay-$policy.json"
done
"$gputwin" perf collective --cluster "$spec" --op all_reduce --gpus 100000 --json >"$out/collective.json"
"$gputwin" perf train --cluster "$spec" --model llama3-70b --seq 8192 --global-batch 1024 --tp 8 --pp 4 \
  --gpus 16384 --json >"$out/train.json"

started=$(date +%s.%N)
"$gputwin" report "$spec" --simulation "$out/replay-fifo.json" --simulation "$out/replay-easy.json" \
  --perf "$out/collective.json" --perf "$out/train.json" --out "$out/report.html" >/dev/null
written=$(date +%s.%N)

timing=$(node tests/browser/check_report.cjs --web-dir "$build/report-web" --report "$out/report.html" --timing-only)
bytes=$(stat -c %s "$out/report.html")
render_ms=$(node -e "console.log(JSON.parse(process.argv[1]).render_ms)" "$timing")
awk -v b="$bytes" -v r="$render_ms" -v s="$started" -v e="$written" 'BEGIN {
  printf "100,000-GPU report: %.2f MB (target < 5 MB: %s), drawn in %d ms in headless chromium (target < 3000 ms: %s); written by gputwin in %.2f s\n",
         b / 1e6, b < 5e6 ? "met" : "MISSED", r, r < 3000 ? "met" : "MISSED", e - s }'
