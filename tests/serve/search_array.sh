#!/usr/bin/env bash
# The capacity search as a job array, without Slurm: `perf serve --search --slurm-array DIR --no-submit` writes
# the array's script, every task is run as Slurm would run it (the script with SLURM_ARRAY_TASK_ID set), and
# `perf serve-merge DIR` must print exactly the table of the search on local threads; with one task's
# result removed the merge must fail and name it. (tests/slurm/sweep.sh runs the same machinery through a real
# slurmctld for sweeps.)
#
#   bash tests/serve/search_array.sh GPUTWIN_BINARY
set -euo pipefail

gputwin=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/gputwin-serve-array.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$repo"
search=(perf serve --search --systems dgx-h100 --model mixtral-8x7b --rate 20 --duration 10
        --input-tokens 1024 --output-tokens 64 --slo ttft-p90=500ms,tpot-p90=40ms --max-gpus 32)

"$gputwin" "${search[@]}" --threads 2 >"$work/local.txt"
"$gputwin" "${search[@]}" --slurm-array "$work/array" --no-submit >"$work/wrote.txt"
tasks=$(sed -n 's/.*(\([0-9]*\) array tasks)$/\1/p' "$work/wrote.txt")
((tasks > 4)) || { echo "FAIL: expected more than 4 candidates, got '$tasks'" >&2; exit 1; }
for ((task = 0; task < tasks; task++)); do
  SLURM_ARRAY_TASK_ID=$task bash "$work/array/serve-search.sbatch" >"$work/array/logs/task-$task.log" 2>&1
done
"$gputwin" perf serve-merge "$work/array" >"$work/merged.txt"
if ! cmp -s "$work/local.txt" "$work/merged.txt"; then
  echo "FAIL: the merged array's table differs from the local search:" >&2
  diff "$work/local.txt" "$work/merged.txt" >&2 || true
  exit 1
fi
echo "ok: $tasks array tasks merged into the local search's table, byte for byte"

rm "$work/array/results/task-2.json"
if "$gputwin" perf serve-merge "$work/array" >/dev/null 2>"$work/missing.txt"; then
  echo "FAIL: the merge accepted an array with task 2 missing" >&2
  exit 1
fi
grep -q "task 2: no result" "$work/missing.txt" || { cat "$work/missing.txt" >&2; exit 1; }
echo "ok: the merge refuses the missing task 2 and names it"
