#!/usr/bin/env bash
# Issue 19 item 6: 1,000 nodes x 8 GPUs over 24 h at 5-minute steps in a real local Prometheus, and the time
# `gputwin validate --prometheus` takes to check them against the design (target: under 10 s).
#
#   bash bench/prometheus_load.sh [--nodes 1000] [--gpus 8] [--hours 24] [--step 300] [--keep] [--reuse] [BUILD_DIR]
#
# --reuse skips steps 1-2 when BUILD_DIR/bench-prometheus holds the blocks of an earlier run of the same size (at
# 1,000 nodes promtool takes about half an hour on a busy 2-core machine); the range then ends at their last sample.
#
# 1. designs the fleet (tests/prometheus/l4-fleet.yaml with --nodes test L4 servers; its user catalog) and takes
#    the GPU hosts from the rules `export prometheus` writes for it;
# 2. writes their dcgm-exporter history as OpenMetrics (bench/dcgm_openmetrics.py: the recorded real L4 scrape's
#    25 series per GPU, one sample per step, ending now) and turns it into TSDB blocks with
#    `promtool tsdb create-blocks-from openmetrics`;
# 3. starts the local Prometheus on those blocks (scripts/prometheus-local.sh, GPUTWIN_PROMETHEUS_BLOCKS; no
#    exporter, no rules) and waits until every host answers;
# 4. times a range query of every GPU's utilisation through the HTTP API (Prometheus alone), then
#    `gputwin validate --prometheus URL --range Nh --step Ss --cluster SPEC --json` when this build has it.
# Prints each time and its ratio to the 10 s target; stops Prometheus unless --keep. Not a test (times depend on
# the machine). Root on Debian when Prometheus is not installed yet; needs ../shared/fixtures.
# At the default size the OpenMetrics file is about 12 GB (written under BUILD_DIR, removed once converted).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
nodes=1000 gpus=8 hours=24 step=300 keep=false reuse=false build=build
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --hours) hours=$2; shift 2 ;;
    --step) step=$2; shift 2 ;;
    --keep) keep=true; shift ;;
    --reuse) reuse=true; shift ;;
    -*) echo "usage: bash $0 [--nodes N] [--gpus G] [--hours H] [--step S] [--keep] [--reuse] [BUILD_DIR]" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
((gpus == 8)) || { echo "prometheus_load: the test fleet's servers have 8 GPUs; --gpus must be 8" >&2; exit 2; }
gputwin=$repo/$build/src/gputwin/gputwin
fixtures=${GPUTWIN_SHARED_FIXTURES:-$repo/../shared/fixtures}
capture=$fixtures/dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt
counters=$fixtures/dcgm/dcgm-exporter/default-counters.csv
[[ -f $capture && -f $counters ]] || { echo "prometheus_load: the shared fixtures ($fixtures) are absent" >&2; exit 1; }
work=$repo/$build/bench-prometheus
state=$work/state
seconds() { python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.2f}")' "$1" "$2"; }
target_s=10

make_blocks() {
  rm -rf "$work"
  mkdir -p "$work"
  sed "s/^  count: 8$/  count: $nodes/" tests/prometheus/l4-fleet.yaml >"$work/fleet.yaml"
  "$gputwin" export prometheus "$work/fleet.yaml" --catalog tests/prometheus/catalog --out "$work/rules" >/dev/null
  python3 - "$work/rules/gputwin-recording.rules.yml" >"$work/hosts.txt" <<'PY'
import re, sys
for hosts in re.findall(r'Hostname=~\\"([^\\]+)\\"', open(sys.argv[1]).read()):
    print("\n".join(hosts.split("|")))
PY
  echo "prometheus_load: $(wc -l <"$work/hosts.txt") hosts x $gpus GPUs, ${hours} h at ${step} s"
  end=$(($(date +%s) / step * step))
  echo "$end" >"$work/end"
  local started generated converted
  started=$(date +%s.%N)
  python3 bench/dcgm_openmetrics.py --capture "$capture" --counters "$counters" --hosts "$work/hosts.txt" \
    --gpus "$gpus" --end "$end" --hours "$hours" --step "$step" --out "$work/history.om"
  generated=$(date +%s.%N)
  # One pass over the file per block: 24 h blocks (two passes for a day not aligned to midnight UTC), not 2 h.
  promtool tsdb create-blocks-from openmetrics --max-block-duration=24h "$work/history.om" "$work/blocks" \
    >"$work/promtool.log"
  converted=$(date +%s.%N)
  echo "prometheus_load: OpenMetrics $(du -h "$work/history.om" | cut -f1) in $(seconds "$started" "$generated") s," \
    "TSDB blocks $(du -sh "$work/blocks" | cut -f1) in $(seconds "$generated" "$converted") s"
  rm -f "$work/history.om"
}

if [[ $reuse == true && -f $work/end && -d $work/blocks && $(wc -l <"$work/hosts.txt" 2>/dev/null) == "$nodes" ]]; then
  end=$(cat "$work/end")
  echo "prometheus_load: reusing the blocks of $work ($nodes hosts, ending $(date -u -d "@$end" +%FT%TZ))"
else
  make_blocks
fi

stop() { [[ $keep == true ]] || bash scripts/prometheus-local.sh stop "$state" >/dev/null; }
trap stop EXIT
GPUTWIN_PROMETHEUS_BLOCKS=$work/blocks GPUTWIN_PROMETHEUS_INTERVAL=15s \
  bash scripts/prometheus-local.sh start "$state" "" -
url=$(bash scripts/prometheus-local.sh url "$state")

# Prometheus alone: every GPU's utilisation over the range at the step, as one range query over HTTP.
python3 - "$url" "$end" "$hours" "$step" "$((nodes * gpus))" "$target_s" <<'PY'
import json, sys, time, urllib.parse, urllib.request
url, end, hours, step, gpus, target = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
query = {"query": "DCGM_FI_DEV_GPU_UTIL", "start": end - int(hours * 3600), "end": end, "step": step}
started = time.monotonic()
answer = json.load(urllib.request.urlopen(url + "/api/v1/query_range?" + urllib.parse.urlencode(query), timeout=600))
took = time.monotonic() - started
series = answer["data"]["result"]
points = sum(len(s["values"]) for s in series)
if len(series) != gpus:
    sys.exit(f"prometheus_load: the range query found {len(series)} GPU series, expected {gpus}")
print(f"prometheus_load: Prometheus range query of DCGM_FI_DEV_GPU_UTIL: {len(series)} series, {points} points "
      f"in {took:.2f} s ({took / target:.2f} x the {target:.0f} s target)")
PY

if "$gputwin" validate --help | grep -q -- '--prometheus'; then
  started=$(date +%s.%N)
  status=0
  # --at the history's end: the data stop there (at "now" an instant read finds no series within its 5-min look-back).
  "$gputwin" validate --prometheus "$url" --at "$end" --range "${hours}h" --step "${step}s" --cluster "$work/fleet.yaml" \
    --catalog tests/prometheus/catalog --json >"$work/validate.json" || status=$?
  finished=$(date +%s.%N)
  took=$(seconds "$started" "$finished")
  echo "prometheus_load: gputwin validate --prometheus (exit $status): $took s" \
    "($(python3 -c "print(f'{$took / $target_s:.2f}')") x the $target_s s target)"
else
  echo "prometheus_load: this gputwin has no validate --prometheus yet (part A of issue 19); the loaded Prometheus" \
    "is the one to time it against: rerun with --keep and use $url"
fi
