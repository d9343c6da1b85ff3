#!/usr/bin/env bash
# Integration test against a real Slurm: start the local cluster from an export, check that slurmctld took our
# topology and GPUs, run GPU jobs that end in each state the sacct importer must read, and check what accounting kept.
#
#   bash tests/slurm/smoke.sh [EXPORT_DIR] [CAPTURE_DIR]
#
# EXPORT_DIR defaults to tests/slurm/example-export. With CAPTURE_DIR, the sacct outputs (and the sinfo and topology
# views) are copied there: that is how tests/slurm/captures/ was made (see its README).
# Exit 0 passed, 1 failed, 77 skipped (not root, or not Debian: the local cluster needs both).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export_dir=$(realpath "${1:-$here/example-export}")
capture_dir=${2:-}

# shellcheck source=require_local_slurm.sh
source "$here/require_local_slurm.sh"

# The columns our sacct importer reads; the captures and docs use this same list.
readonly sacct_columns=JobID,JobIDRaw,JobName,User,Account,Partition,QOS,Submit,Start,End,Elapsed,Timelimit,State,ExitCode,NNodes,AllocCPUS,NodeList,ReqTRES,AllocTRES
# The whole run must stay short: the timeout job alone needs its 1-minute limit plus slurmctld's 30 s check period.
readonly jobs_timeout_s=240

started=$SECONDS
state_dir=$(mktemp -d /tmp/gputwin-slurm-smoke.XXXXXX)
out_dir=$state_dir/smoke
passes=0
failures=0

# Always stop the daemons; keep their logs and our outputs when something went wrong, to read them.
cleanup() {
  local status=$?
  bash "$repo/scripts/slurm-local.sh" stop "$state_dir" >/dev/null || echo "smoke: stopping the cluster failed" >&2
  if ((status == 0)); then
    rm -rf "$state_dir"
  else
    echo "smoke: logs and outputs kept in $state_dir" >&2
  fi
}
trap cleanup EXIT

check() {
  local description=$1
  shift
  if "$@"; then
    echo "ok: $description"
    passes=$((passes + 1))
  else
    echo "FAIL: $description" >&2
    failures=$((failures + 1))
  fi
}

bash "$repo/scripts/slurm-local.sh" start "$export_dir" "$state_dir"
eval "$(bash "$repo/scripts/slurm-local.sh" env "$state_dir")"
mkdir -p "$out_dir"
chmod 755 "$out_dir"

# ---- slurmctld accepted the export: every switch and every node's GPUs are there ------------------------------------

scontrol show topology >"$out_dir/scontrol-show-topology.txt"
sinfo -N -o '%N %G' >"$out_dir/sinfo-gres.txt"

has_every_switch() {
  local switch
  for switch in $(grep -o '^SwitchName=[^ ]*' "$export_dir/topology.conf" | cut -d= -f2); do
    grep -q "^SwitchName=$switch " "$out_dir/scontrol-show-topology.txt" || {
      echo "switch $switch missing from scontrol show topology" >&2
      return 1
    }
  done
}
# Each generated NodeName expression with its Gres, as sinfo must show it node by node.
has_every_gpu() {
  local line expression gres node
  while read -r line; do
    expression=$(grep -o '^NodeName=[^ ]*' <<<"$line" | cut -d= -f2)
    gres=$(grep -o 'Gres=[^ ]*' <<<"$line" | cut -d= -f2)
    for node in $(scontrol show hostnames "$expression"); do
      grep -qx "$node $gres" "$out_dir/sinfo-gres.txt" || {
        echo "sinfo does not show $node with $gres" >&2
        return 1
      }
    done
  done < <(grep '^NodeName=.*Gres=' "$export_dir/slurm.conf")
}
check "scontrol show topology shows every switch of topology.conf" has_every_switch
check "sinfo shows every node with its GPUs" has_every_gpu

# ---- jobs, one per end state ----------------------------------------------------------------------------------------

submit() {
  # --parsable prints "JOBID" (or "JOBID;CLUSTER"); output files go where the test can read them.
  sbatch --parsable --chdir="$out_dir" --output="$out_dir/%x-%j.out" "$@" | cut -d';' -f1
}
submitted_at=$(date +%Y-%m-%dT%H:%M:%S)
# shellcheck disable=SC2016 # $CUDA_VISIBLE_DEVICES is the job's, expanded by the job's shell
ok_job=$(submit -J gputwin-ok --gres=gpu:2 --time=2 --wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; sleep 2')
failed_job=$(submit -J gputwin-fail --gres=gpu:1 --time=2 --wrap 'sleep 1; exit 1')
timeout_job=$(submit -J gputwin-timeout --gres=gpu:4 --time=1 --wrap 'sleep 600')
cancel_job=$(submit -J gputwin-cancel --gres=gpu:8 --time=5 --wrap 'sleep 600')
two_node_job=$(submit -J gputwin-2nodes -N 2 --gres=gpu:8 --time=2 --wrap 'sleep 3')
array_job=$(submit -J gputwin-array --array=0-2 --gres=gpu:1 --time=2 --wrap 'sleep 2')
all_jobs=$ok_job,$failed_job,$timeout_job,$cancel_job,$two_node_job,$array_job
echo "smoke: submitted jobs $all_jobs"

wait_for() {
  local description=$1 deadline=$((SECONDS + jobs_timeout_s))
  shift
  until "$@"; do
    if ((SECONDS >= deadline)); then
      echo "smoke: timed out waiting for $description; squeue:" >&2
      squeue >&2 || true
      tail -n 20 "$state_dir/log/slurmctld.log" >&2
      exit 1
    fi
    sleep 1
  done
}
job_is_running() { [[ $(squeue -h -j "$1" -o %T 2>/dev/null) == RUNNING ]]; }
wait_for "job $cancel_job to start" job_is_running "$cancel_job"
scancel "$cancel_job"

# Accounting reaches slurmdbd a moment after slurmctld ends a job: wait for sacct, not squeue.
# sacct expands the array job into its tasks; all 8 allocations must be in a final state.
readonly expected_allocations=8
sacct_all_final() {
  local states
  states=$(sacct -n -X -P -S "$submitted_at" -j "$all_jobs" -o State 2>/dev/null) || return 1
  [[ $(wc -l <<<"$states") -eq $expected_allocations ]] && ! grep -qE 'PENDING|RUNNING|REQUEUED|SUSPENDED' <<<"$states"
}
wait_for "all jobs to end in accounting" sacct_all_final

sacct --parsable2 --allocations -S "$submitted_at" -j "$all_jobs" -o "$sacct_columns" >"$out_dir/sacct-allocations.psv"
sacct --parsable2 -S "$submitted_at" -j "$all_jobs" -o "$sacct_columns" >"$out_dir/sacct-steps.psv"
sacct --json -S "$submitted_at" -j "$all_jobs" >"$out_dir/sacct.json"

# ---- what accounting kept -------------------------------------------------------------------------------------------

# allocation_field JOBID COLUMN: that column of the job's row in the allocations output.
allocation_field() {
  local job=$1 column=$2 index
  index=$(tr ',' '\n' <<<"$sacct_columns" | grep -nx "$column" | cut -d: -f1)
  awk -F'|' -v job="$job" -v index_="$index" '$1 == job { print $index_ }' "$out_dir/sacct-allocations.psv"
}
state_is() { [[ $(allocation_field "$1" State) == "$2" ]]; }
exit_code_is() { [[ $(allocation_field "$1" ExitCode) == "$2" ]]; }
account_is() { [[ $(allocation_field "$1" Account) == "$2" ]]; }
# The untyped gres/gpu=N entry, the one that counts all GPUs; commas around it so gres/gpu:h100=N never matches.
nodes_and_gpus_are() { [[ $(allocation_field "$1" NNodes) == "$2" && ,$(allocation_field "$1" AllocTRES), == *,gres/gpu="$3",* ]]; }
array_tasks_completed() { [[ $(grep -c "^${1}_[0-9]*|.*|COMPLETED|" "$out_dir/sacct-allocations.psv") -eq $2 ]]; }

check "job $ok_job COMPLETED" state_is "$ok_job" COMPLETED
check "job $failed_job FAILED" state_is "$failed_job" FAILED
check "job $failed_job exited 1" exit_code_is "$failed_job" 1:0
check "job $timeout_job TIMEOUT" state_is "$timeout_job" TIMEOUT
check "job $cancel_job CANCELLED by root" state_is "$cancel_job" "CANCELLED by 0"
check "job $two_node_job COMPLETED" state_is "$two_node_job" COMPLETED
check "job $two_node_job ran on 2 nodes with 16 GPUs" nodes_and_gpus_are "$two_node_job" 2 16
check "array job $array_job has 3 COMPLETED tasks" array_tasks_completed "$array_job" 3
check "job $ok_job got 2 GPUs as CUDA_VISIBLE_DEVICES" grep -qx 'CUDA_VISIBLE_DEVICES=0,1' "$out_dir/gputwin-ok-$ok_job.out"
check "jobs were accounted to account gputwin" account_is "$ok_job" gputwin
check "sacct --json is JSON with $expected_allocations jobs" python3 -c '
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
sys.exit(0 if len(jobs) == int(sys.argv[2]) else 1)' "$out_dir/sacct.json" "$expected_allocations"

if [[ -n $capture_dir ]]; then
  mkdir -p "$capture_dir"
  cp "$out_dir"/sacct-allocations.psv "$out_dir"/sacct-steps.psv "$out_dir"/sacct.json \
    "$out_dir"/scontrol-show-topology.txt "$out_dir"/sinfo-gres.txt "$capture_dir/"
  echo "smoke: captures copied to $capture_dir"
fi

echo "smoke: $((SECONDS - started))s end to end"
echo "smoke: $passes passed, $failures failed"
((failures == 0))
