#!/usr/bin/env bash
# Builds examples/user-project against an INSTALLED linfault, the way a user's own project is
# built, and checks what a user gets:
#   - the example builds optimized (RelWithDebInfo) by default, and a project configured with no
#     build type is told, at configure time, that its targets compile without optimization;
#   - `user-linfault targets` lists the project's objects;
#   - `user-linfault run --target ring_queue` exits 1 with a Pc of at most 3 operations, and
#     `user-linfault replay` of its testcase.json exits 1;
#   - the generated GoogleTest repro compiles in the project and fails; it still fails with lines
#     added above the buggy code; it passes once the bug is fixed;
#   - `user-linfault detect` finds nothing in 10,000 histories of the correct cas_counter;
#   - the project's own model "bounded-queue" (LINFAULT_REGISTER_MODEL): detect and run find
#     bounded_queue_buggy and not bounded_queue, `check --model bounded-queue` on hand-written
#     histories (linearizable, not, with a parameter, bad parameters: exit 64);
#   - `--spec serial` (the queues' own serial runs, no model) gives the same verdicts on both
#     bounded queues; the ticket counters, registered with t.model = "serial" (no model at all):
#     detect finds nothing in ticket_counter (whose binding names its state, and the checks
#     merge equal states), run finds and minimizes ticket_counter_buggy;
#   - the project's own tests pass (the GoogleTest check, the recorder's stress test), and the
#     history the stress test recorded is read by `user-linfault check`.
# Usage: scripts/check-user-project.sh PREFIX   (PREFIX: where `cmake --install` put linfault)
set -euo pipefail
prefix=$(cd "${1:?usage: scripts/check-user-project.sh PREFIX}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/linfault-user-project.XXXXXX")
trap 'rm -rf "$work"' EXIT

name=check-user-project
# shellcheck source=scripts/expect.sh
source "$root/scripts/expect.sh"

# Configures and builds a copy of the example in $1 (source) into $2 (build), with extra args.
# With only_target=T set for the call, it builds target T alone.
only_target=""
build_project() {
  local source=$1 build=$2
  shift 2
  cmake -S "$source" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "$@" >/dev/null
  cmake --build "$build" -j "$(nproc)" ${only_target:+--target "$only_target"} >/dev/null
}

source_dir="$work/user-project"
cp -r "$root/examples/user-project" "$source_dir"
build="$work/build"

step "configure and build examples/user-project against $prefix"
build_project "$source_dir" "$build"
tool="$build/user-linfault"

step "a project configured with no build type is told to build optimized"
mkdir -p "$work/plain"
cat >"$work/plain/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(plain LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(linfault CONFIG REQUIRED)
linfault_add_target(objects SOURCES ${OBJECT_SOURCE})
EOF
expect_exit 0 cmake -S "$work/plain" -B "$work/plain-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DOBJECT_SOURCE="$source_dir/src/cas_counter.cc"
grep -q 'CMAKE_BUILD_TYPE is empty' "$work/out.txt" || fail "no word about the missing build type"
grep -q '^CMAKE_BUILD_TYPE:STRING=RelWithDebInfo' "$build/CMakeCache.txt" ||
  fail "examples/user-project is not built optimized by default"

step "user-linfault targets"
expect_exit 0 "$tool" targets
grep -q '^ring_queue ' "$work/out.txt" || fail "ring_queue is not listed"
grep -q '^cas_counter ' "$work/out.txt" || fail "cas_counter is not listed"

step "user-linfault run --target ring_queue"
out="$work/repro"
expect_exit 1 "$tool" run --target ring_queue --seed 1 --out "$out"
cat "$work/out.txt"
pc=$(grep -o '"pc_operations": [0-9]*' "$out/testcase.json" | grep -o '[0-9]*$')
[[ -n $pc && $pc -le 3 ]] || fail "the minimized Pc has ${pc:-?} operations (at most 3 expected)"
grep -q 'ring_queue.cc:' "$work/out.txt" || fail "the interleaving names no line of ring_queue.cc"

step "user-linfault replay testcase.json"
expect_exit 1 "$tool" replay "$out/testcase.json"

step "the plain linfault names the tool that knows the target"
expect_exit 64 "$prefix/bin/linfault" replay "$out/testcase.json"
grep -q "written by user-linfault" "$work/out.txt" || fail "linfault did not name user-linfault"

repro="$out/ring_queue_repro_test.cc"
step "the generated repro fails while the bug is there"
build_project "$source_dir" "$build" -DUSER_REPRO="$repro"
expect_exit 1 "$build/user_repro_test"

step "... and still fails with lines added above the buggy code"
shifted="$work/shifted"
cp -r "$source_dir" "$shifted"
{
  printf '// A comment a maintainer added.\n// And another one.\n\n// And a third.\n'
  cat "$source_dir/src/ring_queue.cc"
} >"$shifted/src/ring_queue.cc"
only_target=user_repro_test build_project "$shifted" "$work/build-shifted" -DUSER_REPRO="$repro"
expect_exit 1 "$work/build-shifted/user_repro_test"
grep -q "places moved\|no longer applies" "$work/out.txt" || fail "the shifted repro did not notice the moved lines"

step "... and passes once the bug is fixed"
fixed="$work/fixed"
cp -r "$source_dir" "$fixed"
{
  printf '#define RING_QUEUE_FIXED\n'
  cat "$source_dir/src/ring_queue.cc"
} >"$fixed/src/ring_queue.cc"
only_target=user_repro_test build_project "$fixed" "$work/build-fixed" -DUSER_REPRO="$repro"
expect_exit 0 "$work/build-fixed/user_repro_test"

step "user-linfault detect: nothing in 10,000 histories of cas_counter"
expect_exit 0 "$tool" detect --target cas_counter --histories 10000 --jobs "$(nproc)" --out "$work/detect"
if ! grep -q '^non-linearizable: *0/10000$' "$work/out.txt" ||
  ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect reported violations on cas_counter"
fi

step "user-linfault detect: bounded_queue_buggy fails against the project's own model"
expect_exit 1 "$tool" detect --target bounded_queue_buggy --histories 3000 --seed 1 --stop-at-first
grep -q 'non-linearizable: *[1-9]' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "detect found no violation of bounded_queue_buggy"
}

step "user-linfault detect: nothing in 3,000 histories of bounded_queue"
expect_exit 0 "$tool" detect --target bounded_queue --histories 3000 --seed 1
if ! grep -q '^non-linearizable: *0/3000$' "$work/out.txt" ||
  ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect reported violations on bounded_queue"
fi

step "user-linfault run --target bounded_queue_buggy: a minimized test case"
expect_exit 1 "$tool" run --target bounded_queue_buggy --seed 1 --out "$work/bq-repro"
grep -q 'try_push' "$work/bq-repro/testcase.json" || fail "the test case has no try_push"

step "user-linfault detect --spec serial: the same verdicts on the bounded queues without the model"
expect_exit 1 "$tool" detect --spec serial --target bounded_queue_buggy --histories 3000 --seed 1 --stop-at-first
grep -q 'non-linearizable: *[1-9]' "$work/out.txt" || {
  cat "$work/out.txt"
  fail "detect --spec serial found no violation of bounded_queue_buggy"
}
expect_exit 0 "$tool" detect --spec serial --target bounded_queue --histories 3000 --seed 1
if ! grep -q '^non-linearizable: *0/3000$' "$work/out.txt" ||
  ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect --spec serial reported violations on bounded_queue"
fi

step "user-linfault run --spec serial --target bounded_queue_buggy: a minimized test case"
expect_exit 1 "$tool" run --spec serial --target bounded_queue_buggy --seed 1 --out "$work/bq-serial"
grep -qF '"model": "serial(target=\"bounded_queue_buggy\")"' "$work/bq-serial/testcase.json" ||
  fail "the test case's model is not the serial spec"
pc=$(grep -o '"pc_operations": [0-9]*' "$work/bq-serial/testcase.json" | grep -o '[0-9]*$')
[[ -n $pc && $pc -le 3 ]] || fail "the serial-spec Pc has ${pc:-?} operations (at most 3 expected)"
expect_exit 1 "$tool" replay "$work/bq-serial/testcase.json"

step "user-linfault detect: nothing in 3,000 histories of ticket_counter (t.model = \"serial\")"
expect_exit 0 "$tool" detect --target ticket_counter --histories 3000 --seed 1
if ! grep -q '^non-linearizable: *0/3000$' "$work/out.txt" ||
  ! grep -q '^deadlock/livelock/crash: 0/0/0$' "$work/out.txt"; then
  cat "$work/out.txt"
  fail "detect reported violations on ticket_counter"
fi
# Its binding names its state (the total): equal totals are one state of the checks.
grep -q '^serial spec: .* merged by state' "$work/out.txt" ||
  fail "ticket_counter's checks merged no state: $(grep '^serial spec' "$work/out.txt")"

step "user-linfault run --target ticket_counter_buggy: found and minimized with no model"
expect_exit 1 "$tool" run --target ticket_counter_buggy --seed 1 --out "$work/tc-repro"
pc=$(grep -o '"pc_operations": [0-9]*' "$work/tc-repro/testcase.json" | grep -o '[0-9]*$')
[[ $pc == 2 ]] || fail "the ticket counter's Pc has ${pc:-?} operations (2 expected)"
grep -q 'add_and_get' "$work/tc-repro/testcase.json" || fail "the test case has no add_and_get"
expect_exit 1 "$tool" replay "$work/tc-repro/testcase.json"

step "user-linfault check --model bounded-queue on hand-written histories"
data="$source_dir/tests/data"
expect_exit 0 "$tool" check --model bounded-queue "$data/bounded-queue-ok.json"
expect_exit 1 "$tool" check --model bounded-queue "$data/bounded-queue-lost-push.json"
expect_exit 1 "$tool" check --model 'bounded-queue(capacity=1)' "$data/bounded-queue-ok.json"
expect_exit 64 "$tool" check --model 'bounded-queue(size=3)' "$data/bounded-queue-ok.json"
grep -q "size" "$work/out.txt" || fail "the unknown parameter is not named"
expect_exit 64 "$tool" check --model 'bounded-queue(capacity=0)' "$data/bounded-queue-ok.json"

step "the project's own tests (GoogleTest check, recorder stress test)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
history=$(ls "$build"/stress-history*.json 2>/dev/null | head -1 || true)
if [[ -n $history ]]; then
  step "user-linfault check on the history the stress test recorded"
  expect_exit 0 "$tool" check "$history"
fi
echo "check-user-project: all expectations hold" >&2
