#!/usr/bin/env bash
# How closely `--timeout` holds on each path of the tool: reading a 10^6-operation file, the
# search, a monitor, the exact-prefix refinement, history-level minimization, target-level
# minimization (`run --min-timeout`). For each case it prints the wall time of the whole process
# over the timeout (the promise: at most 1.10) and the exit code (2: unknown, the limit was hit;
# 0/1: the command finished before its limit).
# Usage: bench/limits/timeout_accuracy.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
repeats=${2:-3}
linfault=$build/tool/linfault
shared=$root/../shared/data
work=$(mktemp -d "${TMPDIR:-/tmp}/linfault-timeouts.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$linfault" gen --model queue --ops 1000000 --threads 8 -o "$work/queue-1e6.json" >/dev/null
"$linfault" gen --model stack --ops 200000 --threads 8 -o "$work/stack-2e5.json" >/dev/null
# 24 overlapping writes and a read of a value never written: the search must rule out every order.
{
  for p in $(seq 0 23); do echo "{:process $p, :type :invoke, :f :write, :value $p}"; done
  for p in $(seq 0 23); do echo "{:process $p, :type :ok, :f :write, :value $p}"; done
  echo "{:process 99, :type :invoke, :f :read, :value nil}"
  echo "{:process 99, :type :ok, :f :read, :value 1000}"
} >"$work/hard-register.edn"

cases=(
  "reading|check $work/queue-1e6.json|0.5 2"
  "search|check $work/hard-register.edn --algo search|0.5 2"
  "monitor|check $work/stack-2e5.json --algo monitor|0.3 1"
  "prefix refinement|check $shared/porcupine/kv/c50-bad.txt|0.5 1"
  "history minimization|minimize $shared/porcupine/kv/c50-bad.txt|0.5 1"
  "target minimization|run --target treiber_stack_buggy --min-timeout|0.5 2"
)

printf '%-22s %8s %10s %8s %6s\n' path timeout "wall (s)" ratio exit
for entry in "${cases[@]}"; do
  IFS='|' read -r name command timeouts <<<"$entry"
  for t in $timeouts; do
    for _ in $(seq "$repeats"); do
      if [[ $command == *--min-timeout ]]; then args="$command $t"; else args="$command --timeout $t"; fi
      start=$(date +%s.%N)
      set +e
      # shellcheck disable=SC2086
      "$linfault" $args >/dev/null 2>&1
      code=$?
      set -e
      end=$(date +%s.%N)
      awk -v n="$name" -v t="$t" -v s="$start" -v e="$end" -v c="$code" \
        'BEGIN { printf "%-22s %8s %10.3f %8.3f %6s\n", n, t, e - s, (e - s) / t, c }'
    done
  done
done
