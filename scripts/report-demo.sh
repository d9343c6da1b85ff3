#!/usr/bin/env bash
# Builds an HTML report from the bundled examples and prints its path:
#   bash scripts/report-demo.sh [OUT_DIR]            (default build/demo; GPUTWIN=path/to/gputwin to skip the build)
# It plans the 4-SU DGX H100 SuperPOD, replays a generated two-week trace under FIFO and EASY backfill, packs a
# small generated openb-format pod list under two placement policies, predicts all-reduce bus bandwidth and a
# Llama 3 70B training step, Llama 3.1 70B serving and the GPUs to train Llama 3 70B on 15T tokens, and draws all
# of it with `gputwin report`. The browser test uses the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/demo}"
if [[ -z "${GPUTWIN:-}" ]]; then
  bash scripts/setup.sh
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build --parallel "$(nproc)" --target gputwin
  GPUTWIN=build/src/gputwin/gputwin
fi
spec=examples/dgx-h100-superpod-4su.yaml
mkdir -p "$out"
run() { "$GPUTWIN" "$@"; }

run plan "$spec" --json >"$out/plan.json"
run trace generate --gpus 1016 --jobs 2000 --days 14 --seed 1 --out "$out/jobs.csv" >/dev/null
for policy in fifo easy; do
  run simulate replay --jobs "$out/jobs.csv" --cluster "$spec" --policy "$policy" --json >"$out/replay-$policy.json"
done

# openb-format inputs for the packing experiment: 64 nodes of 8 GPUs and pods of whole and shared GPUs, a fixed
# pattern so the demo needs no downloaded trace.
{
  echo "sn,cpu_milli,memory_mib,gpu,model"
  for n in $(seq 0 63); do printf 'node-%03d,96000,786432,8,V100M32\n' "$n"; done
} >"$out/openb-nodes.csv"
{
  echo "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
  for p in $(seq 0 399); do
    case $((p % 5)) in
      0) gpus=1 milli=1000 ;; 1) gpus=1 milli=500 ;; 2) gpus=2 milli=1000 ;; 3) gpus=1 milli=250 ;; 4) gpus=4 milli=1000 ;;
    esac
    printf 'pod-%04d,4000,16384,%d,%d,,LS,Running,%d,%d,%d\n' "$p" "$gpus" "$milli" "$p" "$((p + 100000))" "$p"
  done
} >"$out/openb-pods.csv"
for policy in fgd bestfit; do
  run simulate packing --nodes "$out/openb-nodes.csv" --pods "$out/openb-pods.csv" --policy "$policy" --json \
    >"$out/packing-$policy.json"
done

run perf collective --cluster "$spec" --op all_reduce --gpus 1016 --json >"$out/collective-all-reduce.json"
run perf collective --cluster "$spec" --op all_gather --gpus 64 --json >"$out/collective-all-gather.json"
run perf train --cluster "$spec" --model llama3-70b --seq 8192 --global-batch 128 --tp 8 --pp 4 --gpus 512 --json \
  >"$out/train-llama3-70b.json"
run perf infer --cluster "$spec" --model llama3.1-70b --tp 2 --input-tokens 2048 --output-tokens 256 \
  --sequences 1 16 64 256 --json >"$out/infer-llama3.1-70b.json"
run perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,b200,mi300x \
  --prices examples/gpu-hour-prices.yaml --json >"$out/size-llama3-70b.json"

for rate in 20 60; do
  run perf serve --cluster "$spec" --model llama3.1-70b --tp 2 --replicas 2 --rate "$rate" --duration 120 \
    --input-tokens 2048 --output-tokens 256 --slo ttft-p90=2s,tpot-p90=50ms --json >"$out/serve-llama3.1-70b-$rate.json"
done
run perf serve --search --systems dgx-h100,dgx-b200 --model llama3.1-70b --rate 20 --duration 120 \
  --input-tokens 2048 --output-tokens 256 --slo ttft-p90=2s,tpot-p90=50ms --prices examples/gpu-hour-prices.yaml \
  --json >"$out/serve-capacity-llama3.1-70b.json" || true  # exit 1 when nothing meets the targets: still drawn

run report "$spec" \
  --simulation "$out/replay-fifo.json" --simulation "$out/replay-easy.json" \
  --simulation "$out/packing-fgd.json" --simulation "$out/packing-bestfit.json" \
  --perf "$out/collective-all-reduce.json" --perf "$out/collective-all-gather.json" \
  --perf "$out/train-llama3-70b.json" --perf "$out/infer-llama3.1-70b.json" --perf "$out/size-llama3-70b.json" \
  --perf "$out/serve-llama3.1-70b-20.json" --perf "$out/serve-llama3.1-70b-60.json" \
  --perf "$out/serve-capacity-llama3.1-70b.json" \
  --out "$out/report.html" >/dev/null
echo "$out/report.html"
