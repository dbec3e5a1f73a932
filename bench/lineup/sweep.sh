#!/usr/bin/env bash
# `--spec serial` over every target a tool knows: each buggy one must be found and minimized
# (`run --spec serial`: exit 1, Pc of at most 3 operations, or of the size of the target's smallest
# known scenario when that is larger), each control must stay clean in
# --histories histories (`detect --spec serial`, default 10^4). Prints one line per target and a
# summary; exits 1 if a must fails.
#
#   bench/lineup/sweep.sh [TOOL] [HISTORIES]     (TOOL: build/tool/linfault or a user's tool)
set -euo pipefail
tool=${1:-build/tool/linfault}
histories=${2:-10000}
failed=0
targets_json=$("$tool" targets --json)
# name, bug expected, and the fewest concurrent operations of its known minimal scenarios (0: none)
mapfile -t rows < <(python3 -c '
import json, sys
for t in json.loads(sys.argv[1]):
    known = [sum(len(x.split("; ")) for x in s["threads"] if x) for s in t["known_scenarios"]]
    print(t["name"], "yes" if t["bug_expected"] else "no", min(known) if known else 0)' \
  "$targets_json")
printf '%-26s %-4s %-7s %s\n' target bug result detail
for row in "${rows[@]}"; do
  read -r name bug known <<<"$row"
  if [[ $bug == yes ]]; then
    start=$(date +%s.%N)
    set +e
    out=$("$tool" run --target "$name" --spec serial --seed 1 --histories 20000 --json 2>/dev/null)
    code=$?
    set -e
    seconds=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
    detail=$(python3 -c '
import json, sys
try:
    d = json.loads(sys.argv[1])
except ValueError:
    print("no test case")
    sys.exit()
pc = d.get("pc", [])
shape = " || ".join(str(len(t)) for t in pc)
found_at = d.get("detection", {}).get("histories", "?")
violation = d.get("violation", "")[:70]
print("pc=%d (%s) ps=%d pr=%d found at history %s: %s" % (
    sum(len(t) for t in pc), shape, len(d.get("ps", [])), len(d.get("pr", [])), found_at,
    violation))' "$out")
    pc_ops=$(sed -n 's/^pc=\([0-9]*\).*/\1/p' <<<"$detail")
    # At most 3 concurrent operations, or as few as the target's smallest known scenario has
    # (pair_snapshot's ABA needs 1 || 4).
    bound=$((known > 3 ? known : 3))
    if [[ $code == 1 && -n $pc_ops && $pc_ops -le $bound ]]; then
      result=found
    else
      result=MISSED
      failed=1
    fi
    printf '%-26s %-4s %-7s %s (%ss)\n' "$name" yes "$result" "$detail" "$seconds"
  else
    set +e
    summary=$("$tool" detect --target "$name" --spec serial --histories "$histories" --jobs 2 2>&1 \
      | grep -E 'non-linearizable:|unknown:')
    code=$?
    set -e
    violations=$(sed -n 's/.*non-linearizable: *\([0-9]*\)\/.*/\1/p' <<<"$summary")
    if [[ $violations == 0 ]]; then result=clean; else result=ALARM; failed=1; fi
    printf '%-26s %-4s %-7s %s\n' "$name" no "$result" "$(tr '\n' ' ' <<<"$summary")"
  fi
done
exit $failed
