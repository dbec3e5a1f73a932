#!/usr/bin/env bash
# Runs every reader's libFuzzer harness (fuzz/) for RUNS inputs (default 10^6) from its seed
# corpus and prints, per harness, the inputs executed, the time, the corpus reached and whether
# there was a finding (kept in build-fuzz/findings/bench-<name>-*). Exits 1 if any harness found
# something. Took about 25 minutes for the nine harnesses on the busy 2-core machine (schedule
# is the slowest, ~700-3000 inputs/s: its inputs may ask for up to 10^7 decisions).
# Usage: bench/fuzz/run.sh [RUNS]
set -euo pipefail
runs=${1:-1000000}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${LINFAULT_FUZZ_BUILD_DIR:-$root/build-fuzz}
harnesses=(edn jepsen_log fastlin snapshot json_history schedule saved_run test_case workload)

"$root/scripts/fuzz.sh" build >/dev/null
mkdir -p "$build/findings"
printf '%-14s %10s %8s %8s  %s\n' harness inputs seconds corpus finding
status=0
for name in "${harnesses[@]}"; do
  work=$(mktemp -d)
  log="$build/findings/bench-$name.log"
  start=$(date +%s)
  finding=none
  if ! "$build/fuzz/${name}_fuzzer" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/findings/bench-$name-" -print_final_stats=1 \
      "$work" "$root/fuzz/corpus/$name" >"$log" 2>&1; then
    if grep -q "run interrupted" "$log"; then
      finding="interrupted (SIGINT) before RUNS inputs"
    else
      finding="YES: $(grep -m1 -E 'ERROR|finding|terminate' "$log" || echo "see $log")"
    fi
    status=1
  fi
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  printf '%-14s %10s %8s %8s  %s\n' "$name" "${executed:-?}" "$(($(date +%s) - start))" \
    "$(ls "$work" | wc -l)" "$finding"
  rm -rf "$work"
done
exit $status
