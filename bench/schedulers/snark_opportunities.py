#!/usr/bin/env python3
"""How often an even random snark_deque workload contains its bug's pattern at all.

snark_deque's only bug (../shared/docs/benchmark-objects.md, section 3.14; targets/snark_deque.h)
is a false "empty": thread T pops one end while the deque holds exactly one element A, T reads
the hats, and before it reads A's outer link the other thread U pushes on T's end and then pops
A from the far end (popLeft against pushLeft; popRight, or the mirror). A scheduler chooses the
interleaving, not the calls: it can only expose the bug where a pop of one thread can meet a
size-1 deque while the other thread's next two calls are that push and that pop.

For workloads drawn like `detect --shapes even` draws them for snark_deque (THREADS x OPS calls,
each of the four methods with probability 1/4; values do not matter), the script reports:
  - random order: interleaving whole calls at random, the opportunities per history and the
    fraction of histories with at least one;
  - any order: the fraction of workloads for which SOME interleaving of whole calls reaches an
    opportunity (the sizes reachable after i calls of one thread and j of the other, as bit sets).
    No scheduler that runs the drawn calls can find the bug in more histories than that;
  - random order, perfect pauses: whole calls in random order, and every pop of a non-empty deque
    paused by an oracle right after it read the hats whenever some stretch of the other thread's
    next calls exposes the bug (the node it read leaves by the far end while another node is
    there, and the deque is never empty meanwhile), for exactly that stretch. A scheduler that
    does not steer which calls run when, only where an operation pauses and for how long, finds the
    bug in no more histories than that.

    python3 bench/schedulers/snark_opportunities.py [--ops 50] [--histories 20000] [--seed 1]
"""

import argparse
import random

METHODS = ["pushLeft", "pushRight", "popLeft", "popRight"]
# The pop of one thread, and the other thread's next two calls that make it return "empty".
PATTERNS = {"popLeft": ("pushLeft", "popRight"), "popRight": ("pushRight", "popLeft")}


def draw(rng, ops):
    return [[rng.choice(METHODS) for _ in range(ops)] for _ in range(2)]


def opportunities(rng, calls, ops):
    next_call = [0, 0]
    size = 0
    found = 0
    while next_call[0] < ops or next_call[1] < ops:
        t = rng.choice([x for x in (0, 1) if next_call[x] < ops])
        call = calls[t][next_call[t]]
        other = calls[1 - t][next_call[1 - t]:next_call[1 - t] + 2]
        if size == 1 and call in PATTERNS and tuple(other) == PATTERNS[call]:
            found += 1
        next_call[t] += 1
        size = size + 1 if call.startswith("push") else max(0, size - 1)
    return found


def exposes(deque, pop, theirs):
    """Whether the other thread's calls `theirs`, run from the start while the pop `pop` of the
    (non-empty) `deque` waits after reading the hats, make it return a false "empty" when it
    resumes at the best moment: the node it read leaves by the far end while another node is
    there, and the deque is never empty from the pop's call until then."""
    near = 0 if pop == "popLeft" else -1
    far_pop = "popRight" if pop == "popLeft" else "popLeft"
    read = deque[near]
    nodes = list(deque)
    fresh = max(deque) + 1
    for call in theirs:
        if call.startswith("push"):
            nodes.insert(0 if call == "pushLeft" else len(nodes), fresh)
            fresh += 1
            continue
        end = 0 if call == "popLeft" else -1
        if nodes[end] == read:
            return call == far_pop and len(nodes) >= 2
        nodes.pop(end)
        if not nodes:
            return False
    return False


def perfect_pauses(rng, calls, ops):
    """Whether random whole-call order with oracle pauses (see the module's doc) finds the bug."""
    next_call = [0, 0]
    deque = []
    fresh = 1
    while next_call[0] < ops or next_call[1] < ops:
        t = rng.choice([x for x in (0, 1) if next_call[x] < ops])
        call = calls[t][next_call[t]]
        if call.startswith("pop") and deque and exposes(deque, call, calls[1 - t][next_call[1 - t]:]):
            return True
        next_call[t] += 1
        if call.startswith("push"):
            deque.insert(0 if call == "pushLeft" else len(deque), fresh)
            fresh += 1
        elif deque:
            deque.pop(0 if call == "popLeft" else -1)
    return False


def after(sizes, call):
    """The deque sizes (a bit set) after `call` from any of `sizes`."""
    if call.startswith("push"):
        return sizes << 1
    return (sizes >> 1) | (sizes & 1)  # a pop of an empty deque leaves it empty


def reachable_opportunity(calls, ops):
    """Whether some interleaving of the two threads' whole calls reaches an opportunity."""
    sizes = [[0] * (ops + 1) for _ in range(ops + 1)]
    sizes[0][0] = 1  # empty
    for i in range(ops + 1):
        for j in range(ops + 1):
            if i > 0:
                sizes[i][j] |= after(sizes[i - 1][j], calls[0][i - 1])
            if j > 0:
                sizes[i][j] |= after(sizes[i][j - 1], calls[1][j - 1])
            if not sizes[i][j] & 2:  # size 1 not reachable here
                continue
            for t, mine, theirs in ((0, i, j), (1, j, i)):
                if mine >= ops or theirs + 1 >= ops:
                    continue
                call = calls[t][mine]
                if call in PATTERNS and tuple(calls[1 - t][theirs:theirs + 2]) == PATTERNS[call]:
                    return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=50, help="operations per thread")
    parser.add_argument("--histories", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workloads = [draw(rng, args.ops) for _ in range(args.histories)]
    counts = [opportunities(rng, calls, args.ops) for calls in workloads]
    with_one = sum(1 for c in counts if c)
    reachable = sum(1 for calls in workloads if reachable_opportunity(calls, args.ops))
    paused = sum(1 for calls in workloads if perfect_pauses(rng, calls, args.ops))
    print(f"2 x {args.ops} snark_deque workloads, {args.histories} histories: random order "
          f"{sum(counts) / len(counts):.3f} opportunities per history, "
          f"{with_one / len(counts):.1%} with at least one; random order with perfect pauses: "
          f"{paused / len(workloads):.1%} of the histories; any order: "
          f"{reachable / len(workloads):.1%} of the workloads can reach one")


if __name__ == "__main__":
    main()
