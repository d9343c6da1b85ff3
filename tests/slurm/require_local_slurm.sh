# Sourced by the real-Slurm tests: skip (exit 77) unless the local cluster can run here, as root on Debian.
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: the local Slurm needs root (packages, /dev/nvidia* nodes, daemons as other users)"
  exit 77
fi
if ! grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
  echo "SKIP: the local Slurm needs Debian's slurm-wlm packages"
  exit 77
fi
