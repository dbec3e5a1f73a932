#!/usr/bin/env bash
# Builds examples/unmodified (lock-free classes in plain std::atomic, instrumented by the build
# with linfault_add_target(... INSTRUMENT)) against an INSTALLED linfault and checks:
#   - `unmodified-linfault run --target lockfree_stack` exits 1 with a Pc of at most 3
#     operations, and its interleaving names lines of the unmodified lockfree_stack.cc;
#   - `unmodified-linfault detect` finds nothing in 10,000 histories of the correct ms_queue;
#   - the project's GoogleTest check passes.
# Usage: scripts/check-unmodified.sh PREFIX   (PREFIX: where `cmake --install` put linfault)
set -euo pipefail
prefix=$(cd "${1:?usage: scripts/check-unmodified.sh PREFIX}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/linfault-unmodified.XXXXXX")
trap 'rm -rf "$work"' EXIT

name=check-unmodified
# shellcheck source=scripts/expect.sh
source "$root/scripts/expect.sh"

source_dir="$work/unmodified"
cp -r "$root/examples/unmodified" "$source_dir"
build="$work/build"
step "configure and build examples/unmodified (INSTRUMENT) against $prefix"
cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
grep -rq "std::atomic" "$source_dir/src/lockfree_stack.h" || fail "the example's sources were modified"
tool="$build/unmodified-linfault"

step "unmodified-linfault run --target lockfree_stack"
expect_exit 1 "$tool" run --target lockfree_stack --seed 1 --out "$work/repro"
cat "$work/out.txt"
pc=$(grep -o '"pc_operations": [0-9]*' "$work/repro/testcase.json" | grep -o '[0-9]*$')
[[ -n $pc && $pc -le 3 ]] || fail "the minimized Pc has ${pc:-?} operations (at most 3 expected)"
grep -q 'lockfree_stack.cc:[0-9]' "$work/out.txt" ||
  fail "the interleaving names no line of the unmodified lockfree_stack.cc"

step "unmodified-linfault detect: nothing in 10,000 histories of msq_std"
expect_exit 0 "$tool" detect --target msq_std --histories 10000 --jobs "$(nproc)" --out "$work/detect"
if ! grep -q '^non-linearizable: *0/10000$' "$work/out.txt" ||
  ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect reported failures on msq_std"
fi

step "the project's GoogleTest check"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
echo "check-unmodified: all expectations hold" >&2
