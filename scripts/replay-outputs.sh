#!/usr/bin/env bash
# Writes the outputs of a fixed matrix of replays and sweeps (text, JSON and per-interval CSV) into DIR, so two
# builds of gputwin can be compared byte for byte (diff -r) before and after a change to the replay engine.
#
#   scripts/replay-outputs.sh BINARY DIR     # run from the repository root
#
# The matrix: the MIG trace (on demand and two fixed layouts, every policy), the too-large trace, a synthetic
# loaded trace on plain nodes and on a designed cluster (every policy, fair share by group and by user; on the
# 1-SU H100 design also under a 230 kW power budget with every power policy compared), the
# sacct sweep, and, when ../shared is present, the KTH-SP2 SWF log (every policy).
set -euo pipefail
binary=$(realpath "$1")
out=$2
mkdir -p "$out"
run() {  # name, then the command's arguments
  local name=$1
  shift
  local status=0
  "$binary" "$@" >"$out/$name.out" 2>"$out/$name.err" || status=$?
  [ "$status" = 0 ] || echo "exit $status" >>"$out/$name.err"
  sed -i "s#$out/#OUT/#g" "$out/$name.out" "$out/$name.err"  # the output directory differs between the builds
}
trace="$out/loaded.csv"
"$binary" trace generate --gpus 128 --days 3 --load 1.1 --seed 7 --out "$trace" 2>/dev/null
for policy in fifo sjf easy fair; do
  run "mig-$policy" simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 \
    --mig-profile-set a100-80gb --policy "$policy" --interval 600 --json --csv "$out/mig-$policy.csv"
  for layout in 3g.40gb+2g.20gb+1g.10gb+1g.10gb 2g.20gb+2g.20gb+2g.20gb+1g.10gb; do
    run "mig-$policy-$layout" simulate replay --jobs tests/traces/mig-jobs.csv --nodes 2 --mig-nodes 1 \
      --mig-profile-set a100-80gb --mig-layout "$layout" --policy "$policy" --json
  done
  run "large-$policy" simulate replay --jobs tests/traces/some-too-large.csv --nodes 2 --policy "$policy"
  run "loaded-$policy" simulate replay --jobs "$trace" --nodes 16 --policy "$policy" --json \
    --csv "$out/loaded-$policy.csv"
  run "loaded-text-$policy" simulate replay --jobs "$trace" --nodes 16 --policy "$policy" --interval 1800
  run "loaded-user-$policy" simulate replay --jobs "$trace" --nodes 16 --policy "$policy" --fair-share-by user \
    --json
  run "cluster-$policy" simulate replay --jobs "$trace" --cluster examples/dgx-a100-4-nodes.yaml \
    --policy "$policy" --json --csv "$out/cluster-$policy.csv"
  run "cluster-power-$policy" simulate replay --jobs "$trace" --cluster examples/dgx-h100-superpod-1su.yaml \
    --policy "$policy" --power-budget 230kW --compare-power-policies --json --csv "$out/cluster-power-$policy.csv"
  run "cluster-mig-$policy" simulate replay --jobs tests/traces/mig-jobs.csv \
    --cluster examples/dgx-a100-4-nodes.yaml --mig-nodes 2 --policy "$policy" --json
  if [ -f ../shared/traces/swf/KTH-SP2-1996-2.1-cln.swf ]; then
    run "kth-$policy" simulate replay --jobs ../shared/traces/swf/KTH-SP2-1996-2.1-cln.swf --policy "$policy" \
      --json --csv "$out/kth-$policy.csv"
  fi
done
run sweep sweep tests/sweeps/small.yaml --threads 2 --json
