# shellcheck shell=bash
# Sourced by the real-Prometheus tests: skip (exit 77) unless the local Prometheus can run here: root on Debian (to
# install Debian's prometheus when it is missing) and the shared fixtures the fake exporter serves.
# shellcheck source-path=SCRIPTDIR source=../lib/require_root_debian.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lib/require_root_debian.sh"
require_root_debian "the local Prometheus" "it installs Debian's prometheus package" "prometheus package"
fixtures=${GPUTWIN_SHARED_FIXTURES:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/fixtures}
if [[ ! -d $fixtures/dcgm ]]; then
  echo "SKIP: the shared fixtures ($fixtures/dcgm) the fake dcgm-exporter serves are absent"
  exit 77
fi
