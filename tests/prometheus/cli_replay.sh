#!/usr/bin/env bash
# `gputwin validate --prometheus` end to end over HTTP against replayed answers (replay_server.py serving
# tests/prometheus/dcgm-fleet on loopback): an instant read and a 1 h range, text and JSON, compared with the
# expected outputs beside this script; series that stop or go missing part way through a 6 h range
# (tests/prometheus/dcgm-fleet-gaps, a second server); and a closed port. No Prometheus needed (the
# prometheus.* tests use a real one).
#
#   bash tests/prometheus/cli_replay.sh build/src/gputwin/gputwin [--update]
set -euo pipefail

gputwin=$(realpath "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
server_pid=""
gaps_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null || true
  [[ -n $gaps_pid ]] && kill "$gaps_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

python3 "$here/replay_server.py" "$here/dcgm-fleet" "$work/port" &
server_pid=$!
python3 "$here/replay_server.py" "$here/dcgm-fleet-gaps" "$work/gaps-port" &
gaps_pid=$!
for _ in $(seq 100); do [[ -s $work/port && -s $work/gaps-port ]] && break; sleep 0.05; done
url="http://127.0.0.1:$(cat "$work/port")"
gaps_url="http://127.0.0.1:$(cat "$work/gaps-port")"

failed=0
# check NAME EXPECTED_EXIT ARGS...: the output (URL replaced by URL) must equal expected/NAME.out.
check() {
  local name=$1 expected_exit=$2
  shift 2
  local status=0
  "$gputwin" "$@" >"$work/$name.out" 2>&1 || status=$?
  sed -i -e "s|$url|URL|g" -e "s|$gaps_url|URL|g" "$work/$name.out"
  if [[ $update == --update ]]; then cp "$work/$name.out" "$here/expected/$name.out"; fi
  if [[ $status -ne $expected_exit ]]; then
    echo "cli_replay: $name: exit $status, expected $expected_exit"; failed=1
  fi
  if ! diff -u "$here/expected/$name.out" "$work/$name.out"; then
    echo "cli_replay: $name: output differs"; failed=1
  fi
}

mkdir -p "$here/expected"
check instant 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z
check range 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --range 1h --step 15m
check range-json 1 validate --prometheus "$url" --at 1795694400 --range 1h --step 15m --json
# Beside the timeline, what simulate replay predicts from a sacct history of the same hour (local times at
# +01:00; job 105 waits for GPUs, 103 comes after the range).
sacct=tests/prometheus/dcgm-fleet-sacct.psv
check range-sacct 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --range 1h --step 15m \
  --sacct "$sacct" --time-zone +01:00
check range-sacct-json 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --range 1h --step 15m \
  --sacct "$sacct" --time-zone +01:00 --json
check sacct-zone-name 2 validate --prometheus "$url" --range 1h --sacct "$sacct" --time-zone Europe/Berlin
check sacct-without-range 2 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --sacct "$sacct"
check sacct-missing 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --range 1h --step 15m \
  --sacct tests/prometheus/no-such-sacct.psv
check both-sources 2 validate --prometheus "$url" --measured tests/validate-fleets/clean
check bad-range 2 validate --prometheus "$url" --range 1day
# Over a range, a node or GPU whose series stop or go missing for more than --gap-tolerance steps (default 2,
# from the checks data): dgx-02 stops, dgx-04 GPU 0 stops after its XID 79, dgx-03 GPU 1 and dgx-05 go
# missing for a while; dgx-05 GPU 0's one missing step is within the tolerance, and is found with 0.
check gaps 1 validate --prometheus "$gaps_url" --at 2026-11-26T12:00:00Z --range 6h --step 30m
check gaps-json 1 validate --prometheus "$gaps_url" --at 2026-11-26T12:00:00Z --range 6h --step 30m --json
check gaps-tolerance-0 1 validate --prometheus "$gaps_url" --at 2026-11-26T12:00:00Z --range 6h --step 30m \
  --gap-tolerance 0
check gaps-tolerance-3h 1 validate --prometheus "$gaps_url" --at 2026-11-26T12:00:00Z --range 6h --step 30m \
  --gap-tolerance 3h
# dgx-02 GPU 1 of the first server is silent for the last 2 of its 15 min steps: within 2, beyond 1.
check range-tolerance-1 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z --range 1h --step 15m \
  --gap-tolerance 1
check gap-tolerance-without-range 2 validate --prometheus "$url" --gap-tolerance 2
check bad-gap-tolerance 2 validate --prometheus "$url" --range 1h --gap-tolerance 'two steps'
kill "$server_pid" "$gaps_pid"
wait "$server_pid" "$gaps_pid" 2>/dev/null || true
server_pid=""
gaps_pid=""
check refused 1 validate --prometheus "$url" --at 2026-11-26T12:00:00Z
exit $failed
