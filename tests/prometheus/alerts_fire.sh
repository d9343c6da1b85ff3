#!/usr/bin/env bash
# The exported rules in a real Prometheus: `gputwin export prometheus` writes the rules of tests/prometheus/l4-fleet.yaml
# (holds set to 0s with --for, so nothing waits minutes), scripts/prometheus-local.sh loads them into a local
# Prometheus scraping the fake exporters of fleet.json, and the faults it injects after 10 s must make exactly the
# expected alerts fire (/api/v1/alerts), none on the clean nodes; node-4 stops being scraped and its
# GputwinNodeNotReporting fires saying its exporter is down; node-7 GPU 3's PCIe replay counter climbs and
# GputwinGpuPcieReplayRate fires; fleet.json's ECC and NVLink counters (series added with dcgm-exporter's names,
# the recorded scrape has none) make GputwinGpuEccUncorrectable fire on node-8 GPU 1, GputwinGpuNvlinkErrors on
# node-6 GPU 2 (CRC rate) and node-5 GPU 4 (replays), and the single-bit alert, turned on with --ecc-sbe-alert at
# its default 10 a minute, on node-7 GPU 0; node-5 GPU 6 (CRC errors at 10 a second, below DCGM's 100) and
# node-7 GPU 1 (3 single-bit errors a minute) must stay quiet.
#
#   bash tests/prometheus/alerts_fire.sh GPUTWIN_BINARY
#
# Exit 0 passed, 1 failed, 77 skipped (not root, not Debian, or no shared fixtures).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/require_local_prometheus.sh"
gputwin=$(realpath "$1")
work=$(mktemp -d /tmp/gputwin-prometheus-alerts.XXXXXX)
cleanup() {
  bash "$repo/scripts/prometheus-local.sh" stop "$work/state" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The utilisation alert compares with a replay of a synthetic day on the design; the recorded L4 scrape is of an
# idle GPU (0 % utilisation), so it fires for the fleet as a whole (no node label).
"$gputwin" trace generate --gpus 64 --days 1 --seed 1 --out "$work/jobs.csv" >/dev/null 2>&1
"$gputwin" simulate replay --jobs "$work/jobs.csv" --format jobs --cluster "$here/l4-fleet.yaml" \
  --catalog "$here/catalog" --policy fifo --json >"$work/replay.json"
"$gputwin" export prometheus "$here/l4-fleet.yaml" --catalog "$here/catalog" --for 0s --replay "$work/replay.json" \
  --utilization-window 30s --ecc-sbe-alert --out "$work/rules"
# fleet.json's faults, and node-4 stops being scraped after 15 scrapes of it (30 s at 2 s; counted from its first
# scrape, so it is seen up before, however slowly Prometheus starts; its exporter then answers 503):
# every series of it goes stale, and GputwinNodeNotReporting fires from the design's node list and `up`.
python3 - "$here/fleet.json" >"$work/fleet.json" <<'PY'
import json, sys
fleet = json.load(open(sys.argv[1]))
fleet["faults"].append({"node": "node-4", "kind": "unscraped", "after_s": 10, "after_scrapes": 15})
# node-7 GPU 3's PCIe link retries 600 times a minute (DCGM's health limit is 8): GputwinGpuPcieReplayRate.
fleet["faults"].append({"node": "node-7", "gpu": 3, "kind": "pcie-replays", "per_minute": 600, "after_s": 10})
print(json.dumps(fleet, indent=1))
PY
bash "$repo/scripts/prometheus-local.sh" start "$work/state" "$work/rules" "$work/fleet.json"
url=$(bash "$repo/scripts/prometheus-local.sh" url "$work/state")

# Every rule group loaded, with no evaluation error.
python3 - "$url" <<'PY'
import json, sys, urllib.request
groups = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/rules", timeout=5))["data"]["groups"]
names = sorted(g["name"] for g in groups)
rules = sum(len(g["rules"]) for g in groups)
assert names == ["gputwin-alerts", "gputwin-designed-nodes", "gputwin-rack-gpu-power"], names
print(f"ok: Prometheus loaded {rules} rules in groups {', '.join(names)}")
PY

# Polls /api/v1/alerts until the firing set is exactly the expected one (the faults start 10 s after the exporter,
# alerts fire at the next evaluations), or fails after 90 s showing what fired.
python3 - "$url" <<'PY'
import json, sys, time, urllib.request
expected = {
    ("GputwinNodeGpusMissing", "node-3", None, None),
    ("GputwinGpuXidNeedsDrain", "node-5", "2", None),
    ("GputwinGpuRowRemapFailure", "node-6", "5", None),
    ("GputwinRackGpuPowerOverDesign", None, None, "compute-4"),
    ("GputwinUtilizationBelowPrediction", None, None, None),
    ("GputwinNodeNotReporting", "node-4", None, None),
    ("GputwinGpuPcieReplayRate", "node-7", "3", None),
    ("GputwinGpuEccUncorrectable", "node-8", "1", None),
    ("GputwinGpuNvlinkErrors", "node-6", "2", None),
    ("GputwinGpuNvlinkErrors", "node-5", "4", None),
    ("GputwinGpuEccSingleBitRate", "node-7", "0", None),
}
# Counters that climb below their limits: named by validate (counts), never by these alerts (rates).
below_limit = {("node-5", "6"), ("node-7", "1")}
clean = {"node-1", "node-2"}
deadline = time.monotonic() + 90
while True:
    alerts = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/alerts", timeout=5))["data"]["alerts"]
    firing = {(a["labels"]["alertname"], a["labels"].get("Hostname"), a["labels"].get("gpu"), a["labels"].get("rack"))
              for a in alerts if a["state"] == "firing"}
    if firing == expected or time.monotonic() > deadline:
        break
    time.sleep(1)
for alert in sorted(firing, key=str):
    print("firing:", alert)
on_clean = [a for a in firing if a[1] in clean or a[3] in {"compute-1"}]
if on_clean:
    sys.exit(f"FAIL: alerts on clean nodes or racks: {on_clean}")
under = [a for a in firing if (a[1], a[2]) in below_limit]
if under:
    sys.exit(f"FAIL: alerts on counters climbing below their limits: {under}")
if firing != expected:
    sys.exit(f"FAIL: expected {sorted(expected, key=str)}, missing {sorted(expected - firing, key=str)}, "
             f"unexpected {sorted(firing - expected, key=str)}")
not_reporting = [a for a in alerts if a["labels"]["alertname"] == "GputwinNodeNotReporting"]
if not_reporting and "exporter is down: up == 0" not in not_reporting[0]["annotations"]["summary"]:
    sys.exit(f"FAIL: node-4's alert does not say its exporter is down: {not_reporting[0]['annotations']}")
print("ok: exactly the injected faults fire (node-4: " +
      (not_reporting[0]["annotations"]["summary"] if not_reporting else "-") +
      "), nothing on node-1, node-2, nor on node-5 GPU 6 or node-7 GPU 1 (below their limits)")
PY
echo "prometheus alerts: passed"
