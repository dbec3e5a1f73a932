#!/usr/bin/env bash
# Checks every history of ../shared/data with the `linfault check` command, as a user would
# (format recognized by content, --algo auto), and compares each verdict with verdicts.tsv.
# Prints one line per disagreement and a summary with the total time; exit status 1 if any
# verdict differs or any check fails.
#
#   bench/check/shared_verdicts.sh BUILD_DIR [SHARED_DIR]
set -euo pipefail

build=${1:?usage: shared_verdicts.sh BUILD_DIR [SHARED_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
shared=${2:-$(cd "$here/../../.." && pwd)/shared}
linfault=$build/tool/linfault
[[ -x $linfault ]] || { echo "shared_verdicts.sh: $linfault not built" >&2; exit 66; }

checked=0
wrong=0
start=$(date +%s.%N)
while IFS=$'\t' read -r path model expected; do
  [[ $path == path ]] && continue
  status=0
  output=$("$linfault" check "$shared/data/$path" --model "$model" --json --timeout 60 2>&1) ||
    status=$?
  verdict=$(grep -o '"verdict":"[a-z]*"' <<< "$output" | head -1 | cut -d'"' -f4 || true)
  exact=$(grep -o '"prefix_exact":[a-z]*' <<< "$output" | head -1 | cut -d: -f2 || true)
  checked=$((checked + 1))
  if [[ $verdict != "$expected" ]] || ((status > 1)); then
    wrong=$((wrong + 1))
    echo "DISAGREES $path: expected $expected, got '${verdict:-none}' (exit $status)"
  elif [[ $verdict == violation && $exact == false ]]; then
    echo "inexact prefix: $path"
  fi
done < "$shared/data/verdicts.tsv"
end=$(date +%s.%N)
echo "$checked histories checked in $(echo "$start $end" | awk '{printf "%.1f", $2 - $1}') s," \
  "$wrong disagreements with verdicts.tsv"
((wrong == 0))
