#!/usr/bin/env bash
# Installs the Debian packages gputwin needs to build and test. Idempotent; quiet when all are present.
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build pkg-config git
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang-format clang-tidy python3 golang-1.19-src
  libtinyxml2-dev clang libclang-rt-14-dev
)

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
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
