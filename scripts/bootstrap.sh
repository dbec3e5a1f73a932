#!/usr/bin/env bash
# Installs the Debian packages linfault needs (only the missing ones), then configures and builds.
# Usage: scripts/bootstrap.sh BUILD_DIR [extra cmake args...]
# LINFAULT_BUILD_TARGET=T builds only target T (default: everything).
# LINFAULT_EXTRA_PACKAGES="p q" installs these too (the test suite's real libraries).
set -euo pipefail
build_dir=${1:?usage: scripts/bootstrap.sh BUILD_DIR [cmake args...]}
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(cmake ninja-build g++ libboost-dev libboost-context-dev libboost-graph-dev
  nlohmann-json3-dev libsimdjson-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 llvm-14-dev libclang-14-dev libclang-cpp14-dev libclang-rt-14-dev chromium
  ${LINFAULT_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S "$root" -B "$build_dir" -G Ninja "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" ${LINFAULT_BUILD_TARGET:+--target "$LINFAULT_BUILD_TARGET"}
