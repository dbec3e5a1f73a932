#!/usr/bin/env bash
# Builds linfault and runs the whole test suite: once in a normal build, once under
# AddressSanitizer + UndefinedBehaviorSanitizer. Installs missing packages first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)

"$root/scripts/bootstrap.sh" build
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 300

# The sanitizer build skips the Clang extractor and benchmarks (slow to build, covered above).
"$root/scripts/bootstrap.sh" build-asan -DLINFAULT_SANITIZE=address,undefined \
  -DLINFAULT_BUILD_BENCH=OFF -DLINFAULT_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 600 -LE slow
