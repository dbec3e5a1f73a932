#!/usr/bin/env bash
# Builds linfault and runs the whole test suite three times: a normal build (everything, including
# the Clang extractor), under AddressSanitizer + UndefinedBehaviorSanitizer, and the native-thread
# tests (label `native`) under ThreadSanitizer. After the normal build it installs linfault to a
# temporary prefix and builds and checks examples/user-project against it, as a user's project
# (scripts/check-user-project.sh), and examples/unmodified, whose plain std::atomic sources the
# build instruments (scripts/check-unmodified.sh), and examples/libraries, whose installed
# Boost.Lockfree, moodycamel and oneTBB headers the build instruments
# (scripts/check-libraries.sh); then runs every libFuzzer harness briefly (scripts/fuzz.sh).
# Under ASan the exhaustive sweeps run their first shard only, and UBSan leaves out its null and
# alignment checks (see below).
# Installs missing packages first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)
# Each stage's start, in minutes and seconds since the script began, for CI's time budget.
stage() { printf '== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1" >&2; }

# Line tables only (-g1) at the same -O2: the code under test is the same, and full debug info took
# a third of every compile (history_minimizer.cc: 68 s with -g, 45 s with -g1). The setting stays in
# build/CMakeCache.txt, so scripts/demo.sh and `cmake --install build` reuse it.
stage "normal build"
# The real libraries that scripts/check-libraries.sh checks come from Debian too.
LINFAULT_EXTRA_PACKAGES="libconcurrentqueue-dev libreaderwriterqueue-dev libtbb-dev" \
  "$root/scripts/bootstrap.sh" build -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 600

stage "a user's project against the installed package"
prefix=$(mktemp -d "${TMPDIR:-/tmp}/linfault-prefix.XXXXXX")
cmake --install build --prefix "$prefix" >/dev/null
"$root/scripts/check-user-project.sh" "$prefix"
stage "unmodified std::atomic sources (INSTRUMENT) against the installed package"
"$root/scripts/check-unmodified.sh" "$prefix"
stage "installed library headers (INSTRUMENT HEADERS: Boost.Lockfree, moodycamel, oneTBB)"
"$root/scripts/check-libraries.sh" "$prefix"
rm -rf "$prefix"

stage "libFuzzer: every reader and decoder, 10 s each on the committed seed corpora"
"$root/scripts/fuzz.sh" 10

# The sanitizer builds skip the Clang extractor and the benchmarks (slow to build, covered above).
# They compile at -O1 with line tables only (-g1): with UBSan, -O2 -g took twice as long to build
# (27 of CI's 55 minutes went to the ASan build), and -g1 still gives file:line in every report.
# An optional third argument lists checks left out (LINFAULT_SANITIZE_SKIP).
sanitizer_build() {
  local dir=$1 sanitizers=$2 skip=${3:-}
  "$root/scripts/bootstrap.sh" "$dir" -DLINFAULT_SANITIZE="$sanitizers" \
    -DLINFAULT_SANITIZE_SKIP="$skip" \
    -DLINFAULT_BUILD_BENCH=OFF -DLINFAULT_WITH_CLANG=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
}

# The exhaustive sweeps run under ASan on their first shard only (every size below the largest, and
# a slice of it). The other shards enumerate more histories through the same code, at 20 times the
# cost of the normal build (ASan's allocator): 380 s of CI's 1370 s of ASan tests. The normal
# build runs every shard.
# Two more groups run in the normal build only: the exhaustive controls of the wm_ targets, whose
# weak read choices multiply the schedules of the same small scenarios (200 s of ASan test time
# for code the other wm_ tests run under ASan too), and bu_list4's shape test (95 s, the same
# minimizer every other KnownShapes test runs).
asan_skipped='ExhaustiveSweep\..*_shard[1-9][0-9]*of|ControlTest\..*/wm_|KnownShapes\..*"bu_list4"'
# UBSan's null and alignment checks are left out: they instrument every pointer access and took
# nearly a third of the ASan build (history_minimizer.cc: 85 s with them, 59 s without). A null
# dereference that reads memory still stops the run, as a SEGV that ASan reports with its stack (a
# non-virtual member call through null, or a reference bound to null, goes unseen); x86 tolerates
# misaligned loads, and linfault reads no objects out of byte buffers (its tagged pointers keep
# their alignment).
stage "AddressSanitizer + UndefinedBehaviorSanitizer"
sanitizer_build build-asan address,undefined null,alignment
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900 \
  -E "$asan_skipped"

stage "ThreadSanitizer (native-thread tests)"
LINFAULT_BUILD_TARGET=native_tests sanitizer_build build-tsan thread
TSAN_OPTIONS=halt_on_error=1 \
  ctest --test-dir build-tsan --output-on-failure -j "$jobs" --timeout 900 -L native
stage "done"
