#!/usr/bin/env bash
# Installs what gputwin needs, builds it, and plans the bundled 4-SU DGX H100 SuperPOD example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --parallel "$(nproc)" --target gputwin
./build/src/gputwin/gputwin plan examples/dgx-h100-superpod-4su.yaml "$@"
