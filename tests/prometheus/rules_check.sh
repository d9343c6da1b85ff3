#!/usr/bin/env bash
# promtool check rules on what `gputwin export prometheus` writes: the bundled 4-SU SuperPOD and the test fleet with a
# replay's utilisation alert and the single-bit ECC alert (--ecc-sbe-alert). Exit 0 passed, 1 failed, 77 skipped
# (no promtool).
#
#   bash tests/prometheus/rules_check.sh GPUTWIN_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool is absent (Debian's prometheus package; scripts/setup.sh installs it as root)"
  exit 77
fi
gputwin=$(realpath "$1")
work=$(mktemp -d /tmp/gputwin-prometheus-rules.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$gputwin" export prometheus "$repo/examples/dgx-h100-superpod-4su.yaml" --out "$work/superpod"
promtool check rules "$work"/superpod/*.rules.yml
"$gputwin" trace generate --gpus 64 --days 1 --seed 1 --out "$work/jobs.csv" >/dev/null
"$gputwin" simulate replay --jobs "$work/jobs.csv" --format jobs --cluster "$here/l4-fleet.yaml" \
  --catalog "$here/catalog" --policy fifo --json >"$work/replay.json"
"$gputwin" export prometheus "$here/l4-fleet.yaml" --catalog "$here/catalog" --replay "$work/replay.json" --ecc-sbe-alert \
  --out "$work/fleet"
grep -q 'alert: GputwinUtilizationBelowPrediction' "$work/fleet/gputwin-alerts.rules.yml" ||
  { echo "FAIL: no utilisation alert with --replay" >&2; exit 1; }
# The single-bit ECC alert is off by default and written with --ecc-sbe-alert.
grep -q 'alert: GputwinGpuEccSingleBitRate' "$work/fleet/gputwin-alerts.rules.yml" ||
  { echo "FAIL: no single-bit ECC alert with --ecc-sbe-alert" >&2; exit 1; }
if grep -q 'alert: GputwinGpuEccSingleBitRate' "$work/superpod/gputwin-alerts.rules.yml"; then
  echo "FAIL: the single-bit ECC alert is written without --ecc-sbe-alert" >&2
  exit 1
fi
promtool check rules "$work"/fleet/*.rules.yml
# A rule file with a broken expression must be refused, so a pass above means something.
sed 's/> on(rack)/> on(rack/' "$work/fleet/gputwin-alerts.rules.yml" >"$work/broken.rules.yml"
if promtool check rules "$work/broken.rules.yml" >/dev/null 2>&1; then
  echo "FAIL: promtool accepted a broken expression" >&2
  exit 1
fi
echo "prometheus rules: promtool accepts both exports and refuses a broken one"
