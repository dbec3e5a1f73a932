#!/usr/bin/env bash
# The main job on a bundled default: builds linfault (installing missing packages), then
#   1. detects the bug of the bundled buggy Treiber stack (pop without retry) under PCT,
#   2. replays the first failing run exactly, and
#   3. minimizes its history to a tiny failing test case (Ps, Pc, Pr) and prints it.
# Usage: scripts/demo.sh [TARGET]   (default treiber_stack_buggy; `linfault targets` lists them)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
target=${1:-treiber_stack_buggy}
"$root/scripts/bootstrap.sh" build >&2
linfault=build/tool/linfault
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== 1. detect: 200 histories of 2 threads x 5 operations on $target, PCT scheduler"
set +e
"$linfault" detect --target "$target" --scheduler pct --threads 2 --ops 5 --histories 200 \
  --seed 1 --out "$out"
status=$?
set -e
if [[ $status -ne 1 ]]; then
  echo "demo: no violation found on $target (exit $status)" >&2
  exit "$status"
fi
first=$(ls "$out"/*.json | sort -t- -k2 -n | head -n 1)

echo
echo "== 2. replay $(basename "$first") exactly (the last lines)"
"$linfault" replay "$first" | tail -n 12 || true

echo
echo "== 3. minimize its history to a failing test case"
set +e
"$linfault" minimize "$first"
status=$?
set -e
# Exit 1 means "a failing test case was produced": the expected outcome of this demo.
[[ $status -eq 1 ]] && exit 0
exit "$status"
