#!/usr/bin/env bash
# The main job on a bundled default: builds linfault (installing missing packages), then checks
# the bundled stack history and prints what is wrong with it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
"$root/scripts/bootstrap.sh" build >&2
set +e
build/tool/linfault check examples/stack-pop-pop.edn --model stack
status=$?
set -e
# Exit 1 means "violation found", which is the expected outcome of this demo.
[[ $status -eq 1 ]] && exit 0
exit "$status"
