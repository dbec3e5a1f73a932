#!/usr/bin/env bash
# Builds examples/libraries (Boost.Lockfree's queue, stack and spsc_queue, moodycamel's
# ConcurrentQueue and ReaderWriterQueue, oneTBB's concurrent_queue, their installed headers
# instrumented by the build with linfault_add_target(... INSTRUMENT HEADERS ...)) against an
# INSTALLED linfault and checks:
#   - the build instruments every header under boost/lockfree/ into the build tree (each copy
#     starts with a #line naming the installed header), and a second build does nothing;
#   - `libraries-linfault detect` finds nothing in 100,000 portfolio histories of each correct
#     container, and `verify --threads 2 --ops 2` proves each linearizable in every 2 x 2
#     workload (moodycamel_queue, on OS threads of their own: about 10 s; the others: seconds);
#   - the project's GoogleTest check passes the correct containers and fails boost_stack_buggy;
#   - `libraries-linfault run` finds the wrapper's own non-atomic peek() (boost_stack_buggy, exit
#     1) and its interleaving names lines of the installed boost/lockfree/stack.hpp;
#   - under --memory-model c11 (the C++20 model, with its synchronisation requirement),
#     `detect` finds nothing in 10,000 histories of each correct container either;
#   - each mutant (a copy of a library's headers with one line changed, made by the build) is
#     found by `run` and minimized to at most 3 concurrent operations; the one that corrupts the
#     heap (mutant_stack_store) is found by `detect --isolate` and `run --isolate`, whose
#     campaign completes; the one whose bug is a memory order (mutant_spsc_relaxed: the
#     spsc_queue publishes relaxed) is found only under c11, as unsynchronized, in 2 operations.
# Needs Boost's, ConcurrentQueue's, ReaderWriterQueue's and oneTBB's headers (Debian:
# libboost-dev, libconcurrentqueue-dev, libreaderwriterqueue-dev, libtbb-dev) in the compiler's
# include path.
# Usage: scripts/check-libraries.sh PREFIX   (PREFIX: where `cmake --install` put linfault)
set -euo pipefail
prefix=$(cd "${1:?usage: scripts/check-libraries.sh PREFIX}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/linfault-libraries.XXXXXX")
trap 'rm -rf "$work"' EXIT

name=check-libraries
# shellcheck source=scripts/expect.sh
source "$root/scripts/expect.sh"

source_dir="$work/libraries"
cp -r "$root/examples/libraries" "$source_dir"
build="$work/build"
step "configure and build examples/libraries (INSTRUMENT HEADERS) against $prefix"
cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
copies="$build/library_objects_instrumented/boost/lockfree"
for header in queue.hpp stack.hpp detail/freelist.hpp detail/tagged_ptr.hpp policies.hpp; do
  original=$(find /usr/include /usr/local/include -path "*/boost/lockfree/$header" 2>/dev/null |
    head -n 1)
  [[ -f $copies/$header ]] || fail "no instrumented copy of boost/lockfree/$header"
  grep -q "^#line 1 \"${original:-?}\"$" "$copies/$header" ||
    fail "the copy of boost/lockfree/$header names no #line of ${original:-its original}"
done
grep -q 'linfault::dpct::Atomic<tagged_node_handle> head_;' "$copies/queue.hpp" ||
  fail "the copy of boost/lockfree/queue.hpp has no instrumented head_"
step "a second build does nothing"
cmake --build "$build" -j "$(nproc)" >"$work/out.txt" 2>&1
if ! grep -q 'ninja: no work to do' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "the second build did work"
fi
tool="$build/libraries-linfault"

for target in boost_queue boost_stack boost_spsc_queue reader_writer_queue moodycamel_queue \
  tbb_queue; do
  step "libraries-linfault detect: nothing in 100,000 histories of $target"
  expect_exit 0 "$tool" detect --target "$target" --histories 100000 --jobs 2 --out "$work/detect"
  if ! grep -q '^non-linearizable: *0/100000$' "$work/out.txt" ||
    ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
    cat "$work/out.txt"
    fail "detect reported failures on $target"
  fi
  # The C++20 model, with its synchronisation requirement: a library's own orders must
  # suffice (a false alarm here is the worst outcome there is).
  step "libraries-linfault detect --memory-model c11: nothing in 10,000 histories of $target"
  expect_exit 0 "$tool" detect --target "$target" --histories 10000 --jobs 2 --memory-model c11
  if ! grep -q '^non-linearizable: *0/10000$' "$work/out.txt" ||
    ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
    cat "$work/out.txt"
    fail "detect --memory-model c11 reported failures on $target"
  fi
  step "libraries-linfault verify --target $target --threads 2 --ops 2"
  expect_exit 0 "$tool" verify --target "$target" --threads 2 --ops 2
  if ! grep -q '^linearizable in all [0-9]* workloads' "$work/out.txt"; then
    cat "$work/out.txt"
    fail "verify did not prove $target linearizable in every 2 x 2 workload"
  fi
done

step "the project's GoogleTest check (ctest)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)") >"$work/out.txt" 2>&1 || {
  cat "$work/out.txt"
  fail "the GoogleTest check failed"
}

step "libraries-linfault run --target boost_stack_buggy"
expect_exit 1 "$tool" run --target boost_stack_buggy --seed 1 --out "$work/repro"
grep -q '(stack.hpp:[0-9]*)' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "the interleaving names no line of boost/lockfree/stack.hpp"
}
for mutant in "mutant_queue_recheck boost_queue" "mutant_moodycamel_claim moodycamel_queue" \
  "mutant_tbb_claim tbb_queue"; do
  read -r name target <<<"$mutant"
  step "$name-linfault run --target $target: the mutant is found and minimized"
  expect_exit 1 "$build/$name-linfault" run --target "$target" --seed 1 --out "$work/$name"
  concurrent=$(sed -n 's/^minimized: .* -> [0-9]* + \([0-9]*\) + [0-9]* (Ps + Pc + Pr).*/\1/p' \
    "$work/out.txt")
  if [[ -z $concurrent || $concurrent -gt 3 ]]; then
    cat "$work/out.txt"
    fail "$name was not minimized to at most 3 concurrent operations"
  fi
done
# A memory-order mutant (the spsc_queue's publish relaxed): nothing under sequential consistency;
# under the C++20 model the pop that takes an element does not happen-after the push.
step "mutant_spsc_relaxed-linfault detect --memory-model sc: nothing"
expect_exit 0 "$build/mutant_spsc_relaxed-linfault" detect --target boost_spsc_queue \
  --histories 5000 --jobs 2 --memory-model sc
step "mutant_spsc_relaxed-linfault run --memory-model c11: found, unsynchronized, minimized"
expect_exit 1 "$build/mutant_spsc_relaxed-linfault" run --target boost_spsc_queue --seed 1 \
  --memory-model c11 --out "$work/mutant_spsc_relaxed"
concurrent=$(sed -n 's/^minimized: .* -> [0-9]* + \([0-9]*\) + [0-9]* (Ps + Pc + Pr).*/\1/p' \
  "$work/out.txt")
if ! grep -q '^violation: unsynchronized: ' "$work/out.txt" || [[ $concurrent != 2 ]]; then
  cat "$work/out.txt"
  fail "mutant_spsc_relaxed was not found as unsynchronized and minimized to 2 operations"
fi
# A mutant that corrupts the heap (a node freed twice): in process, glibc's abort inside the
# allocator takes linfault down; under --isolate every history ends with a result, and a child
# that dies is a crash of its history.
# A child that hangs after a fault (glibc's lock held) is given the stall limit and the check
# timeout to answer: short ones keep the check short.
step "mutant_stack_store-linfault detect --isolate: the campaign completes with crashes found"
LINFAULT_STALL_SECONDS=3 expect_exit 1 "$build/mutant_stack_store-linfault" detect \
  --target boost_stack --histories 1000 --jobs 2 --seed 1 --isolate --timeout 3
grep -q '^histories: *1000 of' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "mutant_stack_store: the isolated campaign did not run its 1000 histories"
}
crashes=$(sed -n 's|^deadlock/livelock/crash: [0-9]*/[0-9]*/\([0-9]*\)$|\1|p' "$work/out.txt")
if [[ -z $crashes || $crashes -eq 0 ]]; then
  cat "$work/out.txt"
  fail "mutant_stack_store: no crash found under --isolate"
fi
step "mutant_stack_store-linfault run --isolate: found; minimized, or the child's death is said"
LINFAULT_STALL_SECONDS=3 expect_exit 1 "$build/mutant_stack_store-linfault" run \
  --target boost_stack --seed 1 --isolate --timeout 3 --min-timeout 30
grep -q '^failing: ' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "mutant_stack_store: run --isolate found no failing history"
}
grep -q -e '^minimized: ' -e 'minimizing the failing run of seed' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "mutant_stack_store: run --isolate neither minimized nor said why not"
}
echo "check-libraries: all expectations hold" >&2
