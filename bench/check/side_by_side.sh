#!/usr/bin/env bash
# Side-by-side figures for the checker, measured in one run (this machine is noisy: compare the
# ratios, not the absolute times):
#   1. 10^6-operation generated histories of stack, queue, priority queue and set, linearizable
#      and with one injected violation: `linfault check FILE` end to end (reading included), the
#      check alone (--json elapsed_ms), and the violating/linearizable ratio;
#   2. Porcupine's KV and etcd files: linfault's check time beside Porcupine's own Go benchmark of
#      the same file (check only, parsing excluded on both sides), when a Porcupine checkout and
#      Go are available.
#
#   bench/check/side_by_side.sh BUILD_DIR [PORCUPINE_DIR]
#
# PORCUPINE_DIR is a checkout of https://github.com/anishathalye/porcupine made outside this
# project (never commit its code); with `golang-go` installed its `go test -bench` is run.
# Environment: OPS (default 1000000), THREADS (default 8), REPEATS (default 3, best of).
set -euo pipefail

build=${1:?usage: side_by_side.sh BUILD_DIR [PORCUPINE_DIR]}
porcupine=${2:-}
linfault=$build/tool/linfault
here=$(cd "$(dirname "$0")" && pwd)
shared=$(cd "$here/../../.." && pwd)/shared
ops=${OPS:-1000000}
threads=${THREADS:-8}
repeats=${REPEATS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[[ -x $linfault ]] || { echo "side_by_side.sh: $linfault not built" >&2; exit 66; }

# best_of CMD...: the smallest wall time in seconds of REPEATS runs (exit status 0 or 1 accepted).
best_of() {
  local best=
  for ((r = 0; r < repeats; r++)); do
    local start end status=0
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || status=$?
    end=$(date +%s.%N)
    ((status <= 1)) || { echo "side_by_side.sh: '$*' exited $status" >&2; exit 70; }
    best=$(echo "$start $end ${best:-1e9}" | awk '{t = $2 - $1; print (t < $3 ? t : $3)}')
  done
  echo "$best"
}

# check_ms FILE [ARGS...]: the check's own time (elapsed_ms of --json), best of REPEATS.
check_ms() {
  local best=1e9 file=$1
  shift
  for ((r = 0; r < repeats; r++)); do
    local ms
    ms=$("$linfault" check "$file" --json "$@" 2> /dev/null | grep -o '"elapsed_ms":[0-9.e+-]*' |
      head -1 | cut -d: -f2 || true)
    [[ -n $ms ]] || { echo "side_by_side.sh: no elapsed_ms for $file" >&2; exit 70; }
    best=$(echo "$ms $best" | awk '{print ($1 < $2 ? $1 : $2)}')
  done
  echo "$best"
}

verdict_of() {
  "$linfault" check "$1" --json "${@:2}" 2> /dev/null | grep -o '"verdict":"[a-z]*"' | head -1 |
    cut -d'"' -f4 || true
}

echo "== generated histories: $ops operations, $threads threads, best of $repeats =="
printf '%-14s %-10s %9s %9s %10s %9s %12s\n' model history MB wall_s check_ms ratio verdict
for model in stack queue priorityqueue set; do
  declare -A wall=()
  for kind in linearizable violating; do
    file=$work/$model-$kind.txt
    extra=()
    [[ $kind == violating ]] && extra=(--violation)
    "$linfault" gen --model "$model" --ops "$ops" --threads "$threads" --seed 1 \
      --format fastlin -o "$file" "${extra[@]}" > /dev/null
    mb=$(du -m "$file" | cut -f1)
    wall[$kind]=$(best_of "$linfault" check "$file")
    ms=$(check_ms "$file")
    ratio=-
    [[ $kind == violating ]] &&
      ratio=$(echo "${wall[violating]} ${wall[linearizable]}" | awk '{printf "%.2f", $1 / $2}')
    printf '%-14s %-10s %9s %9.3f %10.1f %9s %12s\n' "$model" "$kind" "$mb" "${wall[$kind]}" \
      "$ms" "$ratio" "$(verdict_of "$file")"
    rm -f "$file"
  done
done
echo "(ratio: wall time of the violating history over its linearizable twin)"

echo
echo "== Porcupine's files: check time in ms, best of $repeats (parsing excluded on both sides) =="
porcupine_ms() {  # porcupine_ms BENCHMARK_REGEX: ns/op of each matching Go benchmark, as ms
  (cd "$porcupine" && GOFLAGS=-mod=mod go test -run '^$' -bench "$1" -benchtime "${repeats}x" 2> /dev/null) |
    awk '/^Benchmark/ {name = $1; sub(/-[0-9]+$/, "", name); printf "%s %.3f\n", name, $3 / 1e6}'
}
have_porcupine=0
if [[ -n $porcupine && -d $porcupine ]] && command -v go > /dev/null; then have_porcupine=1; fi
declare -A kv_bench=([c01-ok]=Kv1ClientOk [c01-bad]=Kv1ClientBad [c10-ok]=Kv10ClientsOk
  [c10-bad]=Kv10ClientsBad [c50-ok]=Kv50ClientsOk [c50-bad]=Kv50ClientsBad)
declare -A porcupine_result=()
if ((have_porcupine)); then
  while read -r name ms; do porcupine_result[$name]=$ms; done < <(porcupine_ms '^BenchmarkKv[0-9]')
fi
printf '%-10s %-14s %12s %14s %8s\n' file verdict linfault_ms porcupine_ms ratio
for f in c01-ok c01-bad c10-ok c10-bad c50-ok c50-bad; do
  file=$shared/data/porcupine/kv/$f.txt
  ours=$(check_ms "$file" --model kv)
  theirs=${porcupine_result[Benchmark${kv_bench[$f]}]:--}
  ratio=-
  [[ $theirs != - ]] && ratio=$(echo "$ours $theirs" | awk '{printf "%.3f", $1 / $2}')
  printf '%-10s %-14s %12.2f %14s %8s\n' "$f" "$(verdict_of "$file" --model kv)" "$ours" "$theirs" "$ratio"
done
ours_total=0
for file in "$shared"/data/porcupine/jepsen/etcd_*.log; do
  [[ -s $file ]] || continue
  ours_total=$(echo "$ours_total $(check_ms "$file" --model cas-register)" | awk '{print $1 + $2}')
done
theirs_total=-
if ((have_porcupine)); then
  theirs_total=$(porcupine_ms '^BenchmarkEtcdJepsen' | awk '{s += $2} END {printf "%.1f", s}')
fi
ratio=-
[[ $theirs_total != - ]] && ratio=$(echo "$ours_total $theirs_total" | awk '{printf "%.3f", $1 / $2}')
printf '%-10s %-14s %12.2f %14s %8s\n' "etcd (all)" "-" "$ours_total" "$theirs_total" "$ratio"
((have_porcupine)) || echo "(no Porcupine column: pass a Porcupine checkout and install golang-go)"
