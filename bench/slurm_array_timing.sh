#!/usr/bin/env bash
# Times a sweep run as a Slurm job array on the local Slurm (scripts/slurm-local.sh, the configs `gputwin export
# slurm` writes for tests/specs/slurm-small.yaml), from sacct: each array task's elapsed and CPU time, and the
# array's span from its first start to its last end (CPU time only where the Slurm gathers it). Not run by CI (docs/benchmarks.md, "Simulator").
#
#   bash bench/slurm_array_timing.sh build/src/gputwin/gputwin [tests/sweeps/failures.yaml]
#
# Root on Debian only (as tests/slurm/sweep.sh); exit 77 otherwise. GPUTWIN_SLURM_PORT_BASE moves the daemons'
# ports when another local Slurm uses the default ones.
set -euo pipefail

gputwin=$(realpath "$1")
sweep=${2:-tests/sweeps/failures.yaml}
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/slurm/require_local_slurm.sh
source "$repo/tests/slurm/require_local_slurm.sh"

work=$(mktemp -d /tmp/gputwin-slurm-timing.XXXXXX)
chmod 755 "$work"
state=$work/state
stop() {
  bash "$repo/scripts/slurm-local.sh" stop "$state" >/dev/null || true
}
trap stop EXIT

"$gputwin" export slurm "$repo/tests/specs/slurm-small.yaml" --out "$work/export" >/dev/null
bash "$repo/scripts/slurm-local.sh" start "$work/export" "$state" >/dev/null
eval "$(bash "$repo/scripts/slurm-local.sh" env "$state")"

cd "$repo"
wall_start=$(date +%s.%N)
"$gputwin" sweep "$sweep" --slurm --dir "$work/sweep" --wait >/dev/null
wall_end=$(date +%s.%N)
"$gputwin" sweep merge "$work/sweep" --csv >"$work/merged.csv"
tasks=$(($(wc -l <"$work/merged.csv") - 1))

# Accounting may lag the array's end by a few seconds.
for _ in $(seq 1 30); do
  done_tasks=$(sacct -n -X -P -o JobID,State --name gputwin-sweep | grep -c '_[0-9]*|COMPLETED$' || true)
  ((done_tasks >= tasks)) && break
  sleep 1
done
sacct -n -X -P -o JobID,Start,End,ElapsedRaw,TotalCPU --name gputwin-sweep >"$work/sacct.psv"
python3 - "$work/sacct.psv" "$tasks" "$wall_start" "$wall_end" <<'EOF'
import datetime, statistics, sys

def seconds(cpu):  # sacct TotalCPU: [DD-[HH:]]MM:SS[.mmm]
    days, _, rest = cpu.rpartition("-")
    parts = [float(p) for p in rest.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0.0)
    return (float(days) if days else 0.0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]

rows = [line.rstrip("\n").split("|") for line in open(sys.argv[1]) if "_" in line.split("|")[0]]
starts = [datetime.datetime.fromisoformat(r[1]) for r in rows]
ends = [datetime.datetime.fromisoformat(r[2]) for r in rows]
elapsed = [int(r[3]) for r in rows]
cpu = [seconds(r[4]) for r in rows]
span = (max(ends) - min(starts)).total_seconds()
print(f"array tasks: {len(rows)} (merged rows {sys.argv[2]})")
print(f"per task elapsed (sacct, whole seconds): mean {statistics.mean(elapsed):.2f} s, "
      f"min {min(elapsed)} s, max {max(elapsed)} s")
if max(cpu) > 0:
    print(f"per task CPU (sacct TotalCPU): mean {statistics.mean(cpu):.3f} s, max {max(cpu):.3f} s")
else:
    print("per task CPU: not collected (the local Slurm runs without a job accounting gather plugin)")
print(f"array span, first start to last end: {span:.0f} s; sweep --slurm --wait wall: "
      f"{float(sys.argv[4]) - float(sys.argv[3]):.1f} s")
print(f"tasks running at once on average: {sum(elapsed) / span if span > 0 else float('nan'):.2f}")
EOF
