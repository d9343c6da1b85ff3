#!/usr/bin/env bash
# `gputwin validate --prometheus URL` against a real Prometheus: the local one (scripts/prometheus-local.sh) scrapes the
# fake exporters of fleet.json; once the injected faults are in its series, validate must report exactly them
# (node-3 one GPU short of the design, XID 79 on node-5 GPU 2, a failed row remapping on node-6 GPU 5) and nothing
# critical or warning on the clean nodes (node-1, node-2, node-4). The same faults, saved as scrape files, give
# the same findings through `validate --measured` (docs/prometheus.md).
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
bash "$repo/scripts/prometheus-local.sh" start "$work/state" "$work/rules" "$here/fleet.json"
url=$(bash "$repo/scripts/prometheus-local.sh" url "$work/state")

# Wait until every fault is in the series Prometheus answers with (they start 10 s after the exporter).
python3 - "$url" <<'PY'
import json, sys, time, urllib.parse, urllib.request
def value(query):
    url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": query})
    result = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
    return float(result[0]["value"][1]) if result else None
checks = ['count(DCGM_FI_DEV_GPU_TEMP{Hostname="node-3"})', 'max(DCGM_FI_DEV_XID_ERRORS{Hostname="node-5"})',
          'max(DCGM_FI_DEV_ROW_REMAP_FAILURE{Hostname="node-6"})']
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if [value(q) for q in checks] == [7.0, 79.0, 1.0]:
        print("ok: the injected faults are in Prometheus")
        sys.exit(0)
    time.sleep(1)
sys.exit("FAIL: the injected faults did not reach Prometheus within 60 s: " + str([value(q) for q in checks]))
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
expected = {("gpu-count-mismatch", "node-3", None), ("xid-critical", "node-5", 2), ("row-remap-failure", "node-6", 5)}
for finding in sorted(found, key=str):
    print("finding:", finding)
clean = [f for f in found if f[1] in ("node-1", "node-2", "node-4")]
if clean:
    sys.exit(f"FAIL: findings on clean nodes: {clean}")
if found != expected:
    sys.exit(f"FAIL: missing {sorted(expected - found, key=str)}, unexpected {sorted(found - expected, key=str)}")
nodes = {row["node"]: row["gpus"] for row in report["inventory"]}
if len(nodes) != 8 or nodes.get("node-3") != 7 or nodes.get("node-1") != 8:
    sys.exit(f"FAIL: inventory {nodes}, expected 8 nodes, node-3 with 7 GPUs and the others with 8")
print("ok: validate --prometheus finds exactly the injected faults, nothing on node-1, node-2, node-4")
PY
echo "prometheus validate: passed"
