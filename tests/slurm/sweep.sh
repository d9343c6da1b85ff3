#!/usr/bin/env bash
# A sweep through a real Slurm: the local cluster (scripts/slurm-local.sh, on the configs `gputwin export slurm`
# writes) runs tests/sweeps/small.yaml as a job array; `sweep merge` must give exactly the table the local-thread
# run gives, and must refuse a result set with a task missing, naming it.
#
#   bash tests/slurm/sweep.sh GPUTWIN_BINARY
#
# Exit 0 passed, 1 failed, 77 skipped (not root or not Debian).
set -euo pipefail

gputwin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=require_local_slurm.sh
source "$here/require_local_slurm.sh"

work=$(mktemp -d /tmp/gputwin-slurm-sweep.XXXXXX)
chmod 755 "$work"
state=$work/state
stop() {
  local status=$?
  bash "$repo/scripts/slurm-local.sh" stop "$state" >/dev/null || true
  ((status == 0)) && rm -rf "$work" || echo "sweep test: outputs kept in $work" >&2
}
trap stop EXIT

"$gputwin" export slurm "$repo/tests/specs/slurm-small.yaml" --out "$work/export"
bash "$repo/scripts/slurm-local.sh" start "$work/export" "$state"
eval "$(bash "$repo/scripts/slurm-local.sh" env "$state")"

cd "$repo"
"$gputwin" sweep tests/sweeps/small.yaml --threads 2 --csv >"$work/local.csv"
"$gputwin" sweep tests/sweeps/small.yaml --slurm --dir "$work/sweep" --wait
"$gputwin" sweep merge "$work/sweep" --csv >"$work/merged.csv"
tasks=$(($(wc -l <"$work/local.csv") - 1))
if ! cmp -s "$work/local.csv" "$work/merged.csv"; then
  echo "FAIL: the Slurm job array's merged table differs from the local run:" >&2
  diff "$work/local.csv" "$work/merged.csv" >&2 || true
  exit 1
fi
echo "ok: $tasks array tasks through slurmctld, merged table identical to the local-thread run"

# Every array task ran under Slurm: one log per task, in the array job's accounting.
array_tasks=$(sacct -n -X -P -o JobID,State --name gputwin-sweep | grep -c '_[0-9]*|COMPLETED$' || true)
if ((array_tasks != tasks)); then
  echo "FAIL: sacct shows $array_tasks completed array tasks, expected $tasks" >&2
  exit 1
fi
echo "ok: sacct shows $array_tasks COMPLETED array tasks"

rm "$work/sweep/results/task-3.json"
if "$gputwin" sweep merge "$work/sweep" >/dev/null 2>"$work/merge-missing.txt"; then
  echo "FAIL: merge accepted a sweep with task 3 missing" >&2
  exit 1
fi
grep -q "task 3: no result" "$work/merge-missing.txt" || { cat "$work/merge-missing.txt" >&2; exit 1; }
echo "ok: merge refuses the missing task 3 and names it"
