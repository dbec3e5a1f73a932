#!/usr/bin/env bash
# Builds examples/unmodified (lock-free classes in plain std::atomic, instrumented by the build
# with linfault_add_target(... INSTRUMENT)) against an INSTALLED linfault and checks:
#   - `unmodified-linfault run --target lockfree_stack` exits 1 with a Pc of at most 3
#     operations, and its interleaving names lines of the unmodified lockfree_stack.cc;
#   - `unmodified-linfault detect` finds nothing in 10,000 histories of the correct ms_queue;
#   - each correct class of the pairs (seqlock, Vyukov queue, futex-lock queue, TTAS-lock
#     counter, Treiber stack: spin-waits, atomic wait/notify, noexcept locks) shows nothing in
#     2,000 histories under every controlled scheduler, nor in `verify --threads 2 --ops 2`;
#   - `unmodified-linfault run` finds each buggy one (exit 1): the null pop as a SIGSEGV crash,
#     the missing notify as a deadlock;
#   - spsc_ring, a single-producer single-consumer ring registered with roles (one producer, one
#     consumer), like the others, and its buggy twin is found;
#   - spsc_ring_relaxed, the ring whose only bug is a relaxed publish (a memory order), is found
#     and minimized under --memory-model c11 (its registered model), with a stale read named in
#     the interleaving or the missing synchronisation named in the violation, and not under
#     --memory-model sc; the correct ring shows nothing in 2,000 histories under c11 either;
#   - reentrant_counter, whose lock knows its owner by thread id and thread_local state, shows
#     nothing under every controlled scheduler (each logical thread an OS thread of its own);
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

correct_targets=(seqlock_std vyukov_queue futex_queue ttas_counter treiber_std spsc_ring)
for target in "${correct_targets[@]}"; do
  for scheduler in random pct dpct pos surw window portfolio; do
    step "unmodified-linfault detect: nothing in 2,000 histories of $target under $scheduler"
    expect_exit 0 "$tool" detect --target "$target" --scheduler "$scheduler" --histories 2000 \
      --jobs "$(nproc)"
    if ! grep -q '^non-linearizable: *0/2000$' "$work/out.txt" ||
      ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
      cat "$work/out.txt"
      fail "detect --scheduler $scheduler reported failures on $target"
    fi
  done
  # Every interleaving of every 2 x 2 workload. seqlock_std takes the longest: its spinning
  # readers and writers make 1.9 million executions, 27 s on an idle 2-core machine (50 s on a
  # busy one); the others take a few seconds at most.
  step "unmodified-linfault verify --target $target --threads 2 --ops 2"
  expect_exit 0 "$tool" verify --target "$target" --threads 2 --ops 2
  if ! grep -q '^linearizable in all [0-9]* workloads' "$work/out.txt"; then
    cat "$work/out.txt"
    fail "verify did not prove $target linearizable in every 2 x 2 workload"
  fi
done

# A class whose lock knows its owner by thread id and thread_local depth runs with each logical
# thread on an OS thread of its own (t.thread_identity): fewer histories, as a thread switch
# costs microseconds there.
for scheduler in random pct dpct pos surw window portfolio; do
  step "unmodified-linfault detect: nothing in 300 histories of reentrant_counter under $scheduler"
  expect_exit 0 "$tool" detect --target reentrant_counter --scheduler "$scheduler" \
    --histories 300 --jobs "$(nproc)"
  if ! grep -q '^non-linearizable: *0/300$' "$work/out.txt" ||
    ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
    cat "$work/out.txt"
    fail "detect --scheduler $scheduler reported failures on reentrant_counter"
  fi
done

# What the run must say of some of them: the null pop crashes, the missing notify deadlocks.
declare -A finding=(
  [treiber_std_buggy]='^violation: crash: .*SIGSEGV'
  [futex_queue_buggy]='^violation: stuck: .*[(]deadlock[)]'
)
for target in "${correct_targets[@]/%/_buggy}"; do
  step "unmodified-linfault run --target $target"
  expect_exit 1 "$tool" run --target "$target" --seed 1 --out "$work/repro-$target"
  if [[ -n ${finding[$target]:-} ]] && ! grep -Eq "${finding[$target]}" "$work/out.txt"; then
    cat "$work/out.txt"
    fail "run --target $target reports no line matching '${finding[$target]}'"
  fi
done

# A memory-order bug: every interleaving is correct, only a stale read (allowed by C++, done by
# ARM and POWER), or the missing happens-before from an enqueue to the dequeue that took its
# element, shows it. Found under the C++20 model, which the target registers.
step "unmodified-linfault run --target spsc_ring_relaxed (memory model c11)"
expect_exit 1 "$tool" run --target spsc_ring_relaxed --seed 1 --out "$work/repro-relaxed"
if ! grep -Eq 'stale|unsynchronized' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "run --target spsc_ring_relaxed names neither a stale read nor the missing synchronisation"
fi
step "unmodified-linfault detect --target spsc_ring_relaxed --memory-model sc: nothing"
expect_exit 0 "$tool" detect --target spsc_ring_relaxed --memory-model sc --histories 2000 \
  --jobs "$(nproc)"
step "unmodified-linfault detect --target spsc_ring --memory-model c11: nothing"
expect_exit 0 "$tool" detect --target spsc_ring --memory-model c11 --histories 2000 \
  --jobs "$(nproc)"
if ! grep -q '^non-linearizable: *0/2000$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect --memory-model c11 reported failures on spsc_ring"
fi

step "the project's GoogleTest check"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
echo "check-unmodified: all expectations hold" >&2
