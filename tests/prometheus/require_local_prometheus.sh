# Sourced by the real-Prometheus tests: skip (exit 77) unless the local Prometheus can run here: root on Debian (to
# install Debian's prometheus when it is missing) and the shared fixtures the fake exporter serves.
if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: the local Prometheus needs root (it installs Debian's prometheus package)"
  exit 77
fi
if ! grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
  echo "SKIP: the local Prometheus needs Debian's prometheus package"
  exit 77
fi
fixtures=${GPUTWIN_SHARED_FIXTURES:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/fixtures}
if [[ ! -d $fixtures/dcgm ]]; then
  echo "SKIP: the shared fixtures ($fixtures/dcgm) the fake dcgm-exporter serves are absent"
  exit 77
fi
