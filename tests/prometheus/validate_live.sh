#!/usr/bin/env bash
# `gputwin validate --prometheus URL` against a real Prometheus: the local one (scripts/prometheus-local.sh) scrapes the
# fake exporters of fleet.json, with node-3's GPU 7 lost and node-4's exporter down (503) part way, each after 10
# scrapes of its node (so Prometheus has seen them first, however slowly it started). Once the faults are in its
# series:
#   - the instant read must report exactly them: node-3 one GPU short of the design, node-4 missing, XID 79 on
#     node-5 GPU 2, a failed row remapping on node-6 GPU 5, uncorrectable ECC errors on node-8 GPU 1, NVLink
#     errors on node-6 GPU 2, node-5 GPU 4 and node-5 GPU 6 (validate names any NVLink error count; only the
#     alert judges a rate), and nothing critical or warning on node-1 and node-2 (node-7's single-bit ECC errors
#     are corrected ones, which validate does not judge);
#   - a --range read over the whole run must find the same faults, with node-4 as stopped reporting and node-3's
#     GPU 7 as a GPU that stopped while its node reported (a series seen early in the range no longer counts as
#     present), and the counts in prometheus.reporting.
#
#   bash tests/prometheus/validate_live.sh GPUTWIN_BINARY
#
# Exit 0 passed, 1 failed, 77 skipped (not root, not Debian, no shared fixtures, or no `validate --prometheus` in
# this build: the reader lands with the promread branch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
gputwin=$(realpath "$1")
if ! "$gputwin" validate --help | grep -q -- '--prometheus'; then
  echo "SKIP: this gputwin has no validate --prometheus yet (part A of issue 19, branch promread)"
  exit 77
fi
source "$here/require_local_prometheus.sh"
work=$(mktemp -d /tmp/gputwin-prometheus-validate.XXXXXX)
cleanup() {
  bash "$repo/scripts/prometheus-local.sh" stop "$work/state" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$gputwin" export prometheus "$here/l4-fleet.yaml" --catalog "$here/catalog" --out "$work/rules" >/dev/null
python3 - "$here/fleet.json" >"$work/fleet.json" <<'PY'
import json, sys
fleet = json.load(open(sys.argv[1]))
for fault in fleet["faults"]:
    if fault["kind"] == "gpu-lost":
        fault["after_scrapes"] = 10
fleet["faults"].append({"node": "node-4", "kind": "unscraped", "after_s": 10, "after_scrapes": 10})
print(json.dumps(fleet, indent=1))
PY
bash "$repo/scripts/prometheus-local.sh" start "$work/state" "$work/rules" "$work/fleet.json"
started=$(date +%s)
url=$(bash "$repo/scripts/prometheus-local.sh" url "$work/state")

# Wait until every fault is in the series Prometheus answers with (they start 10 s after the exporter).
python3 - "$url" <<'PY'
import json, sys, time, urllib.parse, urllib.request
def value(query):
    url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": query})
    result = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
    return float(result[0]["value"][1]) if result else None
checks = {'count(DCGM_FI_DEV_GPU_TEMP{Hostname="node-3"})': lambda v: v == 7.0,
          'max(DCGM_FI_DEV_XID_ERRORS{Hostname="node-5"})': lambda v: v == 79.0,
          'max(DCGM_FI_DEV_ROW_REMAP_FAILURE{Hostname="node-6"})': lambda v: v == 1.0,
          'count(DCGM_FI_DEV_GPU_TEMP{Hostname="node-4"})': lambda v: v is None,
          'max(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{Hostname="node-8"})': lambda v: v == 2.0,
          'max(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{Hostname="node-6"})': lambda v: (v or 0) > 0,
          'max(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL{Hostname="node-5"})': lambda v: (v or 0) > 0,
          'max(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL{Hostname="node-5"})': lambda v: (v or 0) > 0}
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if all(ok(value(q)) for q, ok in checks.items()):
        print("ok: the injected faults are in Prometheus")
        sys.exit(0)
    time.sleep(1)
sys.exit("FAIL: the injected faults did not reach Prometheus within 60 s: " + str({q: value(q) for q in checks}))
PY

status=0
"$gputwin" validate --prometheus "$url" --cluster "$here/l4-fleet.yaml" --catalog "$here/catalog" --json \
  >"$work/validate.json" || status=$?
if ((status != 1)); then
  echo "FAIL: validate --prometheus exited $status where critical findings should give 1" >&2
  cat "$work/validate.json" >&2
  exit 1
fi
python3 - "$work/validate.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
found = {(f["rule"], f["node"], f["gpu"]) for f in report["findings"] if f["severity"] in ("critical", "warning")}
expected = {("gpu-count-mismatch", "node-3", None), ("xid-critical", "node-5", 2), ("row-remap-failure", "node-6", 5),
            ("nodes-missing", "-", None), ("ecc-uncorrectable", "node-8", 1), ("nvlink-errors", "node-6", 2),
            ("nvlink-errors", "node-5", 4), ("nvlink-errors", "node-5", 6)}
for finding in sorted(found, key=str):
    print("finding:", finding)
clean = [f for f in found if f[1] in ("node-1", "node-2")]
if clean:
    sys.exit(f"FAIL: findings on clean nodes: {clean}")
if found != expected:
    sys.exit(f"FAIL: missing {sorted(expected - found, key=str)}, unexpected {sorted(found - expected, key=str)}")
nodes = {row["node"]: row["gpus"] for row in report["inventory"]}
if len(nodes) != 7 or nodes.get("node-3") != 7 or nodes.get("node-1") != 8 or "node-4" in nodes:
    sys.exit(f"FAIL: inventory {nodes}, expected 7 nodes (not node-4), node-3 with 7 GPUs and the others with 8")
print("ok: validate --prometheus finds exactly the injected faults, nothing on node-1, node-2")
PY

# The range read: from the start to now, at 2 s steps (the scrape interval), once both have been silent for
# more than the default tolerance of 2 steps (6 s more is 3 steps at least).
sleep 8
range_s=$(($(date +%s) - started + 30))  # from before Prometheus had data: nothing is judged before it
status=0
"$gputwin" validate --prometheus "$url" --range "${range_s}s" --step 2s --cluster "$here/l4-fleet.yaml" \
  --catalog "$here/catalog" --json >"$work/range.json" || status=$?
"$gputwin" validate --prometheus "$url" --range "${range_s}s" --step 2s --cluster "$here/l4-fleet.yaml" \
  --catalog "$here/catalog" | grep -E '^(Prometheus|Reporting)|reporting|FAIL|PASS' || true
if ((status != 1)); then
  echo "FAIL: validate --prometheus --range exited $status where critical findings should give 1" >&2
  cat "$work/range.json" >&2
  exit 1
fi
python3 - "$work/range.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
found = {(f["rule"], f["node"], f["gpu"]) for f in report["findings"] if f["severity"] in ("critical", "warning")}
expected = {("node-stopped-reporting", "node-4", None), ("gpu-stopped-reporting", "node-3", 7),
            ("xid-critical", "node-5", 2), ("row-remap-failure", "node-6", 5), ("ecc-uncorrectable", "node-8", 1),
            ("nvlink-errors", "node-6", 2), ("nvlink-errors", "node-5", 4), ("nvlink-errors", "node-5", 6)}
for finding in sorted(found, key=str):
    print("range finding:", finding)
if found != expected:
    sys.exit(f"FAIL: range: missing {sorted(expected - found, key=str)}, unexpected {sorted(found - expected, key=str)}")
reporting = report["prometheus"]["reporting"]
counts = {key: reporting[key] for key in ("nodes_stopped", "node_gaps", "gpus_stopped", "gpu_gaps")}
if counts != {"nodes_stopped": 1, "node_gaps": 0, "gpus_stopped": 1, "gpu_gaps": 0}:
    sys.exit(f"FAIL: range: reporting counts {reporting}")
print("ok: validate --prometheus --range finds node-4 stopped and node-3 GPU 7 lost part way, nothing on node-1, node-2")
PY
echo "prometheus validate: passed"
