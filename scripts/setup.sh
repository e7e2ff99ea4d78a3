#!/usr/bin/env bash
# Installs every Debian package caflow needs, then configures and builds it (Release, Ninja,
# ccache). Safe to run again: apt and CMake skip what is already done.
#   scripts/setup.sh [preset]      preset: release (default), debug, asan, tsan
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libcaf-dev libeigen3-dev libboost-serialization-dev doctest-dev zlib1g-dev
  nlohmann-json3-dev libcli11-dev libedit-dev iproute2 tmux gnuplot-nox openssl libssl-dev
  dataset-fashion-mnist libprotobuf-dev protobuf-compiler libleveldb-dev python3-crc32c
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
scripts/fetch_models.sh  # TF.js test models, into a cache outside the tree; never fails

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.ccache}
# Paths under the checkout are hashed relative to the build directory, so another clone (CI's)
# finds this one's cached objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
cmake --preset "$preset" >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build --preset "$preset" -j "$jobs"
