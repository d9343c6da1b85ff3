#!/usr/bin/env bash
# Installs the Debian packages gputwin needs to build and test (chromium: the HTML report's browser test;
# prometheus: promtool and the local Prometheus of the prometheus.* tests, kept from starting its system service).
# Idempotent; quiet when all are present.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang-format clang-tidy python3 golang-1.19-src
  libtinyxml2-dev libcpp-httplib-dev clang libclang-rt-14-dev
  nodejs chromium prometheus
)
# The build runs `npm ci` for the HTML report's Chart.js and the browser test's playwright-core. Debian's npm
# package only when no npm is on the PATH: a Node.js from elsewhere brings its own and conflicts with Debian's.
if ! command -v npm >/dev/null; then
  packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages (${missing[*]}); run as root to install them" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Debian's prometheus (and others) start a system service on install where an init system lets them; the tests run
# their own. Say "do not start services" for the install (invoke-rc.d's policy-rc.d, exit 101), unless the machine
# already has a policy, which is then left as it is.
policy=/usr/sbin/policy-rc.d
made_policy=false
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# Written by gputwin scripts/setup.sh during its apt-get install; removed after.\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  made_policy=true
fi
trap '[[ $made_policy == false ]] || rm -f "$policy"' EXIT
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
