#!/usr/bin/env bash
# Builds the libFuzzer target of each validate and prometheus reader with clang++ (ASan + UBSan) in build-fuzz/ and runs each
# for a bounded time, seeded with the malformed corpus and the shared real captures. Fails on the first crash.
#
#   bash scripts/fuzz.sh            # 60 s per reader, 8 readers: 8.5 min, plus about 8 min to build once
#   FUZZ_SECONDS=10 bash scripts/fuzz.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
seconds=${FUZZ_SECONDS:-60}
fixtures="$root/../shared/fixtures"

bash "$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DGPUTWIN_FUZZ=ON -DGPUTWIN_TESTS=OFF -DGPUTWIN_BENCH=OFF >/dev/null

# Seeds: the real outputs each reader is written for (when the shared fixtures are present), plus every
# malformed file.
declare -A seeds=(
  [fuzz_nvidia_smi_xml]="nvidia-smi-xml"
  [fuzz_nvidia_smi_query_csv]="nvidia-smi-captures"
  [fuzz_nvidia_smi_table]="nvidia-smi-captures"
  [fuzz_nccl_tests_text]="nccl-tests"
  [fuzz_nccl_tests_json]="nccl-tests"
  [fuzz_dcgm_diag]="dcgm"
  [fuzz_exposition_text]="dcgm"
  [fuzz_query_api]=""
)

ninja -C "$build" "${!seeds[@]}"
for fuzzer in $(printf '%s\n' "${!seeds[@]}" | sort); do
  corpus="$build/corpus/$fuzzer"
  mkdir -p "$corpus"
  seed_dirs=("$root/tests/malformed")
  [[ -n "${seeds[$fuzzer]}" && -d "$fixtures/${seeds[$fuzzer]}" ]] && seed_dirs+=("$fixtures/${seeds[$fuzzer]}")
  # The query-API reader is seeded with the recorded server answers' bodies (their request and status lines cut).
  if [[ $fuzzer == fuzz_query_api ]]; then
    mkdir -p "$build/seeds/query_api"
    for answer in "$root"/tests/prometheus/*/*.http; do
      tail -n +4 "$answer" >"$build/seeds/query_api/$(basename "$(dirname "$answer")")-$(basename "$answer")"
    done
    seed_dirs+=("$build/seeds/query_api")
  fi
  echo "fuzz: $fuzzer for ${seconds} s"
  "$build/fuzz/$fuzzer" "$corpus" "${seed_dirs[@]}" -max_total_time="$seconds" -max_len=262144 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/$fuzzer-" 2>"$build/$fuzzer.log" ||
    { tail -40 "$build/$fuzzer.log"; echo "fuzz: $fuzzer failed; reproducer in $build/$fuzzer-*" >&2; exit 1; }
  grep -E '^stat::number_of_executed_units' "$build/$fuzzer.log" | sed "s/^/  /"
done
echo "fuzz: all readers survived ${seconds} s each"
