#!/usr/bin/env bash
# Time and executions of `linfault verify --target` (bounded verification). Controls: 2 threads x
# 2 ops with every interleaving, then 2 x 2 and 2 x 3 with at most P preemptions; buggy targets:
# 2 x 2 with every interleaving, then within P preemptions at 2 x 2 and 2 x 3 until one fails. One row per run: verdict,
# workloads (explored / in the bound), executions, wall seconds, and for a counterexample the
# concurrent operations of the minimized test case. A run past TIMEOUT is "inconclusive".
# Usage: bench/verify/verify_table.sh [BUILD_DIR] [TIMEOUT_SECONDS] [P]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
timeout=${2:-120}
preemptions=${3:-2}
linfault=$build/tool/linfault

mapfile -t controls < <("$linfault" targets --json | jq -r '.[] | select(.bug_expected | not) | .name')
mapfile -t buggy < <("$linfault" targets --json | jq -r '.[] | select(.bug_expected) | .name')

printf '%-24s %-9s %-17s %13s %11s %9s %3s\n' target bound verdict workloads executions "wall (s)" Pc
row() {  # target ops [preemptions]
  local start end out verdict bound=2x$2 extra=()
  if [[ -n ${3:-} ]]; then
    bound+=" P<=$3"
    extra=(--preemptions "$3")
  fi
  start=$(date +%s.%N)
  out=$("$linfault" verify --target "$1" --threads 2 --ops "$2" --timeout "$timeout" --json \
    "${extra[@]}" 2>/dev/null | head -1) || true
  end=$(date +%s.%N)
  verdict=$(jq -r '.verdict' <<<"$out")
  printf '%-24s %-9s %-17s %13s %11s %9.1f %3s\n' "$1" "$bound" "$verdict" \
    "$(jq -r '"\(.workloads // "?")/\(.total_workloads // "?")"' <<<"$out")" \
    "$(jq -r '.executions // "?"' <<<"$out")" "$(echo "$end - $start" | bc)" \
    "$(jq -r 'if .test_case then ([.test_case.pc[] | length] | add) else "-" end' <<<"$out")"
  [[ $verdict == "not linearizable" || $verdict == "fails" ]]
}
for t in "${buggy[@]}"; do
  row "$t" 2 || row "$t" 2 "$preemptions" || row "$t" 3 "$preemptions" || true
done
for t in "${controls[@]}"; do
  row "$t" 2 || true
  row "$t" 2 "$preemptions" || true
  row "$t" 3 "$preemptions" || true
done
