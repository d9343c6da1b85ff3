# shellcheck shell=bash
# Sourced by tests/slurm/require_local_slurm.sh and tests/prometheus/require_local_prometheus.sh (themselves
# sourced by the real-server tests): skip the test (exit 77) unless it runs as root on Debian.
#
#   require_root_debian "the local Slurm" "packages, /dev/nvidia* nodes, daemons as other users" "slurm-wlm packages"
require_root_debian() {
  local service=$1 why_root=$2 packages=$3
  if [[ $(id -u) -ne 0 ]]; then
    echo "SKIP: $service needs root ($why_root)"
    exit 77
  fi
  if ! grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
    echo "SKIP: $service needs Debian's $packages"
    exit 77
  fi
}
