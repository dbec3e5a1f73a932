#!/usr/bin/env bash
# The main job on a bundled default: builds linfault (installing missing packages), then runs the
# whole pipeline on the bundled buggy Treiber stack (pop without retry):
#   `linfault run` detects the bug (default portfolio scheduler), localizes the failing history, minimizes it into
#   a tiny test case (Ps, Pc, Pr) verified by enumerating interleavings, and prints it with its
#   failing interleaving; the test case, the failing run and a GoogleTest repro go to repro/.
# Then `linfault replay` re-executes the saved test case from its recorded schedule.
# Usage: scripts/demo.sh [TARGET]   (default treiber_stack_buggy; `linfault targets` lists them)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
target=${1:-treiber_stack_buggy}
# Only the tool the demo runs, not the tests and benchmarks.
LINFAULT_BUILD_TARGET=linfault "$root/scripts/bootstrap.sh" build >&2
linfault=build/tool/linfault
out=repro

echo "== linfault run --target $target --out $out"
set +e
"$linfault" run --target "$target" --seed 1 --out "$out"
status=$?
set -e
if [[ $status -ne 1 ]]; then
  echo "demo: no failing test case for $target (exit $status)" >&2
  exit "$status"
fi

echo
echo "== linfault replay $out/testcase.json --quiet"
set +e
"$linfault" replay "$out/testcase.json" --quiet
status=$?
set -e
# Exit 1 means "the violation reproduces": the expected outcome of this demo.
[[ $status -eq 1 ]] && exit 0
exit "$status"
