#!/bin/sh
# Wall time of `linfault run --target T --seed 1` (detection, localization, minimization with its
# exhaustive proof) for every buggy built-in target, with two builds side by side in one run:
# BEFORE and AFTER are linfault binaries. Prints a markdown table with the ratio, the Pc of the
# test case each wrote, and the preemptions of the reported schedule (AFTER).
# Usage: bench/minimize/run_times.sh BEFORE_BINARY AFTER_BINARY [REPEATS (default 3)]
set -eu
before=$1
after=$2
repeats=${3:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
targets="treiber_stack_buggy lf_list_buggy simple_list_buggy unsafe_size_list bu_list1 bu_list2
bu_list3 bu_list4 optimistic_queue_buggy k_stack_buggy snark_deque"

# Best of REPEATS wall-clock seconds of one `run`.
best_time() {
  binary=$1 target=$2 dir=$3 best=""
  for _ in $(seq "$repeats"); do
    rm -rf "$dir"
    start=$(date +%s.%N)
    "$binary" run --target "$target" --seed 1 --out "$dir" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}

echo "| target | before (s) | after (s) | before / after | Pc after | preemptions | context switches |"
echo "|---|---|---|---|---|---|---|"
for target in $targets; do
  b=$(best_time "$before" "$target" "$out/before")
  a=$(best_time "$after" "$target" "$out/after")
  details=$(python3 - "$out/after/testcase.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except OSError:
    print("(none) | | "); sys.exit()
m = d["minimization"]
pc = " ‖ ".join("; ".join(o["method"] for o in t) for t in d["pc"])
print(f'{pc} | {m.get("schedule_preemptions")} | {m.get("schedule_context_switches")}')
PY
)
  printf '| %s | %.2f | %.2f | %.1f | %s |\n' "$target" "$b" "$a" "$(echo "$b / $a" | bc -l)" "$details"
done
