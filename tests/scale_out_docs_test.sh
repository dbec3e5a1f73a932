#!/bin/bash
# Runs the examples of docs/scale-out.md locally: for each section whose fenced blocks hold a
# `linfault detect ... --shard <index>/N` line, runs that line once per index with the job
# runner's variable set (GitHub's ${{ matrix.shard }}, Kubernetes' JOB_COMPLETION_INDEX, Slurm's
# SLURM_ARRAY_TASK_ID), runs the section's `linfault merge` line, and compares the merged
# directory with the one the same detect line writes without --shard: they must be identical,
# file for file and byte for byte. Also checks that N agrees with the matrix, the Job's
# completions and the Slurm array.
#
# Usage: scale_out_docs_test.sh LINFAULT_BINARY docs/scale-out.md
set -euo pipefail

binary=$(realpath "$1")
doc=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$binary" "$work/bin/linfault"
export PATH="$work/bin:$PATH"
export SLURM_CPUS_PER_TASK=1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# "<section number>\t<line>" for each command line inside fenced blocks, and the sections' text.
awk -v commands="$work/commands" -v sections="$work/sections" '
  /^## / { section++ }
  { print section "\t" $0 > sections }
  /^```/ { fenced = !fenced; next }
  fenced && /linfault (detect|merge) / {
    line = $0
    sub(/^[ \t]*(- )?/, "", line)
    print section "\t" line > commands
  }' "$doc"

checked=0
runners=""
for section in $(cut -f1 "$work/commands" | sort -un); do
  detect_line=$(awk -F'\t' -v s="$section" '$1 == s && $2 ~ /^linfault detect/ { sub(/^[^\t]*\t/, ""); print }' "$work/commands")
  merge_line=$(awk -F'\t' -v s="$section" '$1 == s && $2 ~ /^linfault merge/ { sub(/^[^\t]*\t/, ""); print }' "$work/commands")
  [[ -n "$detect_line" ]] || continue
  detect_line=${detect_line//'${{ matrix.shard }}'/'${MATRIX_SHARD}'}  # GitHub's expression
  [[ "$detect_line" =~ --shard\ ([^ ]+)/([0-9]+) ]] || continue  # the generic i/N at the top
  index_text=${BASH_REMATCH[1]}
  count=${BASH_REMATCH[2]}
  [[ $(wc -l <<<"$detect_line") -eq 1 ]] || fail "section $section: more than one detect line"
  [[ $(wc -l <<<"$merge_line") -eq 1 && -n "$merge_line" ]] || fail "section $section: needs one merge line"
  text=$(awk -F'\t' -v s="$section" '$1 == s { sub(/^[^\t]*\t/, ""); print }' "$work/sections")
  heading=$(head -1 <<<"$text")

  # The runner's index, as a shell variable the line can expand.
  case "$index_text" in
    '${MATRIX_SHARD}') variable=MATRIX_SHARD ;;
    '${JOB_COMPLETION_INDEX}') variable=JOB_COMPLETION_INDEX ;;
    '${SLURM_ARRAY_TASK_ID}') variable=SLURM_ARRAY_TASK_ID ;;
    *) fail "$heading: unknown shard index '$index_text'" ;;
  esac
  runners="$runners $variable"

  # N must be what the runner starts.
  if [[ "$text" =~ shard:\ \[([0-9, ]+)\] ]]; then
    listed=$(tr ',' '\n' <<<"${BASH_REMATCH[1]}" | grep -c '[0-9]')
    [[ "$listed" -eq "$count" ]] || fail "$heading: the matrix has $listed shards, --shard says $count"
  fi
  if [[ "$text" =~ completions:\ ([0-9]+) ]]; then
    [[ "${BASH_REMATCH[1]}" -eq "$count" ]] || fail "$heading: completions ${BASH_REMATCH[1]}, --shard says $count"
  fi
  if [[ "$text" =~ --array=0-([0-9]+) ]]; then
    [[ $((BASH_REMATCH[1] + 1)) -eq "$count" ]] || fail "$heading: the array has $((BASH_REMATCH[1] + 1)) tasks, --shard says $count"
  fi

  dir="$work/section-$section"
  mkdir "$dir"
  for ((i = 0; i < count; i++)); do
    (cd "$dir" && env "$variable=$i" bash -c "$detect_line") >/dev/null ||
      fail "$heading: shard $i/$count: $detect_line"
  done
  merged=$(sed -E 's/.*--out ([^ ]+).*/\1/' <<<"$merge_line")
  status=0
  (cd "$dir" && bash -c "$merge_line") >/dev/null || status=$?
  [[ $status -le 1 ]] || fail "$heading: merge exited $status: $merge_line"

  whole_line=$(sed -E 's/ --shard [^ ]+//; s/ --out [^ ]+/ --out whole/' <<<"$detect_line")
  (cd "$dir" && env "$variable=0" bash -c "$whole_line") >/dev/null || fail "$heading: $whole_line"
  cmp "$dir/whole/summary.json" "$dir/$merged/summary.json" ||
    fail "$heading: the merged summary differs from the unsharded one"
  diff -r "$dir/whole" "$dir/$merged" >/dev/null ||
    fail "$heading: the merged directory differs from the unsharded one"
  files=$(ls "$dir/whole" | wc -l)
  echo "ok: $heading: $count shards ($variable) merged = unsharded run ($files files, byte for byte)"
  checked=$((checked + 1))
done

for variable in MATRIX_SHARD JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID; do
  [[ " $runners " == *" $variable "* ]] || fail "no example uses $variable"
done
[[ $checked -ge 3 ]] || fail "only $checked examples checked"
echo "all $checked examples of $(basename "$doc") checked"
