#!/usr/bin/env bash
# Builds the libFuzzer harnesses of every reader (fuzz/) with clang++-14 in build-fuzz/ and runs
# each for SECONDS (default 15) on its seed corpus fuzz/corpus/<name>/. Fails on any finding: a
# crash, a sanitizer report, an exception other than the reader's input error, a failed round
# trip, or an input slower than 10 s (a hang). Findings are kept in build-fuzz/findings/.
# Usage: scripts/fuzz.sh [SECONDS]     (LINFAULT_FUZZ_BUILD_DIR overrides build-fuzz;
#        SECONDS=build only builds, for bench/fuzz/run.sh)
set -euo pipefail
seconds=${1:-15}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${LINFAULT_FUZZ_BUILD_DIR:-$root/build-fuzz}
harnesses=(edn jepsen_log fastlin snapshot json_history schedule saved_run test_case workload)

start=$(date +%s)
# -O1 with line tables only: what libFuzzer recommends, and half the compile time of -O2 -g.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Fuzz \
  -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" -DCMAKE_C_FLAGS_FUZZ="-O1" \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DLINFAULT_BUILD_FUZZERS=ON \
  -DLINFAULT_WITH_CLANG=OFF -DLINFAULT_BUILD_TESTS=OFF -DLINFAULT_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j2 --target fuzzers
echo "fuzz: build took $(($(date +%s) - start)) s"
[[ $seconds == build ]] && exit 0

mkdir -p "$build/findings"
failed=()
for name in "${harnesses[@]}"; do
  work=$(mktemp -d)  # new inputs go here; the committed corpus is only read
  log="$build/findings/$name.log"
  if "$build/fuzz/${name}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/findings/$name-" -print_final_stats=1 \
      "$work" "$root/fuzz/corpus/$name" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $name: ${runs:-?} inputs, no finding"
  else
    echo "fuzz: $name: FINDING (log $log):" >&2
    grep -m5 -E "ERROR|finding|Test unit written|terminate|SUMMARY" "$log" >&2 || tail -5 "$log" >&2
    failed+=("$name")
  fi
  rm -rf "$work"
done
echo "fuzz: total $(($(date +%s) - start)) s"
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
