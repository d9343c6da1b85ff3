# shellcheck shell=bash
# Sourced by the real-Slurm tests: skip (exit 77) unless the local cluster can run here, as root on Debian.
# shellcheck source-path=SCRIPTDIR source=../lib/require_root_debian.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib/require_root_debian.sh"
require_root_debian "the local Slurm" "packages, /dev/nvidia* nodes, daemons as other users" "slurm-wlm packages"
