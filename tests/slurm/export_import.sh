#!/usr/bin/env bash
# The whole Slurm loop against a real Slurm: gputwin exports a design's configs, the local cluster
# (scripts/slurm-local.sh) runs on exactly those configs and runs GPU jobs (tests/slurm/smoke.sh), gputwin imports
# their sacct history in both shapes and replays it on the same design.
#
#   bash tests/slurm/export_import.sh GPUTWIN_BINARY
#
# Exit 0 passed, 1 failed, 77 skipped (not root or not Debian, as smoke.sh says).
set -euo pipefail

gputwin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
spec=$repo/tests/specs/slurm-small.yaml
work=$(mktemp -d /tmp/gputwin-slurm-loop.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

check() {
  local description=$1
  shift
  if "$@"; then
    echo "ok: $description"
  else
    echo "FAIL: $description" >&2
    failures=$((failures + 1))
  fi
}

"$gputwin" export slurm "$spec" --out "$work/export"
status=0
bash "$here/smoke.sh" "$work/export" "$work/capture" || status=$?
((status == 77)) && exit 77
((status == 0)) || { echo "FAIL: the real Slurm did not accept or run on the exported configs" >&2; exit 1; }

# The smoke test's jobs (smoke.sh): GPUs 2, 1, 4, 8, 16 and an array of three 1-GPU tasks; states as submitted.
"$gputwin" trace import sacct "$work/capture/sacct-allocations.psv" --out "$work/from-psv.csv"
"$gputwin" trace import sacct "$work/capture/sacct.json" --out "$work/from-json.csv"
column() { python3 -c '
import csv, sys
print(" ".join(sorted(row[sys.argv[2]] for row in csv.DictReader(open(sys.argv[1])))))' "$1" "$2"; }
check "8 jobs imported from --parsable2" test "$(tail -n +2 "$work/from-psv.csv" | wc -l)" -eq 8
check "their GPUs are 1 1 1 1 16 2 4 8 (gres/gpu only, typed entries not added)" \
  test "$(column "$work/from-psv.csv" gpus)" = "1 1 1 1 16 2 4 8"
check "their states are cancelled, 5 completed, failed, timeout" \
  test "$(column "$work/from-psv.csv" state)" = "cancelled completed completed completed completed completed failed timeout"
check "--json gives the same jobs as --parsable2" \
  test "$(sort "$work/from-psv.csv")" = "$(sort "$work/from-json.csv")"

"$gputwin" simulate replay --jobs "$work/from-psv.csv" --format jobs --cluster "$spec" --policy fifo --json \
  >"$work/replay.json"
check "the replay on the exported design runs all 8 jobs" python3 -c '
import json, sys
replay = json.load(open(sys.argv[1]))
sys.exit(0 if replay["jobs"] == 8 and replay["completed"] == 8 and replay["recorded"]["jobs"] == 8 else 1)' \
  "$work/replay.json"

((failures == 0)) && echo "export/import loop: passed"
((failures == 0))
