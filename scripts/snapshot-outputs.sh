#!/usr/bin/env bash
# Writes a set of gputwin outputs (the demo report and its inputs, every example's plan text and JSON, BOM CSVs,
# Slurm exports, replay CSVs) into OUT_DIR, so that a refactoring can be checked byte for byte:
#   GPUTWIN=old/gputwin bash scripts/snapshot-outputs.sh /tmp/before
#   GPUTWIN=new/gputwin bash scripts/snapshot-outputs.sh /tmp/after && diff -r /tmp/before /tmp/after
# The golden tests (tests/golden) cover the rest of the commands.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: snapshot-outputs.sh OUT_DIR}"
gputwin="${GPUTWIN:-build/src/gputwin/gputwin}"
mkdir -p "$out"
GPUTWIN="$gputwin" bash scripts/report-demo.sh "$out/demo" >/dev/null
for spec in examples/*.yaml; do
  name=$(basename "$spec" .yaml)
  [[ "$name" == gpu-hour-prices ]] && continue
  "$gputwin" plan "$spec" >"$out/plan-$name.txt" 2>&1 || true
  "$gputwin" plan "$spec" --json --bom-csv "$out/bom-$name.csv" >"$out/plan-$name.json" 2>&1 || true
  "$gputwin" report "$spec" --out "$out/report-$name.html" >/dev/null 2>&1 || true
done
"$gputwin" export slurm examples/dgx-h100-superpod-2su.yaml --out "$out/slurm-2su" >/dev/null
"$gputwin" simulate replay --jobs "$out/demo/jobs.csv" --cluster examples/dgx-h100-superpod-4su.yaml \
  --policy fair --csv "$out/replay-fair.csv" | sed "s|$out|OUT|g" >"$out/replay-fair.txt"
"$gputwin" perf collective --cluster examples/dgx-h100-superpod-4su.yaml --op all_reduce --gpus 256 --explain \
  >"$out/collective-explain.txt"
"$gputwin" perf infer --system dgx-h100 --model llama3.1-70b --tp 2 --json >"$out/infer.json"
"$gputwin" catalog list >"$out/catalog-list.txt"
