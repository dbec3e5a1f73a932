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
    bug in no more histories than that;
  - random pauses (--pauses): what a randomized pausing scheduler can reach. Each pop of a
    non-empty deque pauses in its window (after it read the hats) with probability --pause-rate,
    while the other thread runs G whole calls, G drawn from a pause-length law: "window" as the
    window scheduler draws it (1, 2, 3, 4 with probability 1/2, 1/4, 1/8, 1/8), "geometric-4" and
    "geometric-8" (mean 4 and 8 calls), "until-done" (the other thread's remaining calls). The
    pause exposes the bug when G covers a stretch that exposes it (as above); otherwise the pop
    resumes after the G calls. Each law is measured on whole calls in random order, and with the
    order steered towards a deque of one element: at each call, with probability 0.9, the thread
    whose next call brings the size nearer 1 runs (a scheduler that knows the deque's size).
    Last, "stolen-result" pauses: the pop waits until the other thread has popped the element it
    would return itself (a length a scheduler could only choose by running the model ahead over
    the other thread's coming calls).

    python3 bench/schedulers/snark_opportunities.py [--ops 50] [--histories 20000] [--seed 1]
        [--pauses [--pause-rate 0.27]]

The default pause rate, 0.27, is the window scheduler's: half its operations may pause inside,
and an inside pause falls before the second or third of a pop's accesses (the hats' window)
about half of the time.
"""

import argparse
import math
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


def apply_call(deque, call, fresh):
    """Runs the whole call on `deque`; returns the next fresh node."""
    if call.startswith("push"):
        deque.insert(0 if call == "pushLeft" else len(deque), fresh)
        return fresh + 1
    if deque:
        deque.pop(0 if call == "popLeft" else -1)
    return fresh


def exposing_stretch(deque, pop, theirs):
    """The fewest of the other thread's calls `theirs` after which the pop `pop` of the non-empty
    `deque`, paused after reading the hats, returns a false "empty" (as in exposes()); None when no
    stretch does."""
    for length in range(1, len(theirs) + 1):
        if exposes(deque, pop, theirs[:length]):
            return length
    return None


PAUSE_LAWS = {
    "window": lambda rng: rng.choices([1, 2, 3, 4], weights=[4, 2, 1, 1])[0],
    "geometric-4": lambda rng: 1 + int(math.log(1 - rng.random()) / math.log(1 - 1 / 4)),
    "geometric-8": lambda rng: 1 + int(math.log(1 - rng.random()) / math.log(1 - 1 / 8)),
    "until-done": lambda rng: 10**9,
}


def stolen_result_stretch(deque, pop, theirs):
    """The fewest of the other thread's calls `theirs` after which one of them has popped the
    element that `pop` would return from `deque` now; None when none does. A pause of this length
    needs the model: the paused call's result and the other thread's coming calls, run ahead."""
    nodes = list(deque)
    fresh = max(nodes) + 1
    taken = nodes[0 if pop == "popLeft" else -1]
    for length, call in enumerate(theirs, start=1):
        if call.startswith("pop") and nodes and nodes[0 if call == "popLeft" else -1] == taken:
            return length
        fresh = apply_call(nodes, call, fresh)
    return None


def random_pauses(rng, calls, ops, pause_rate, law, steer):
    """Whether whole calls in random (or size-steered) order, with pops paused at random for
    `law`'s lengths, find the bug (see the module's doc)."""
    next_call = [0, 0]
    deque = []
    fresh = 1
    while next_call[0] < ops or next_call[1] < ops:
        ready = [x for x in (0, 1) if next_call[x] < ops]
        t = rng.choice(ready)
        if steer and len(ready) == 2 and rng.random() < 0.9:
            def distance(x):
                grows = calls[x][next_call[x]].startswith("push")
                return abs(len(deque) + (1 if grows else -1 if deque else 0) - 1)
            if distance(0) != distance(1):
                t = 0 if distance(0) < distance(1) else 1
        call = calls[t][next_call[t]]
        u = 1 - t
        if call.startswith("pop") and deque and next_call[u] < ops and rng.random() < pause_rate:
            pause = law(rng) if law else stolen_result_stretch(deque, call, calls[u][next_call[u]:])
            if pause is None:  # a stolen-result pause with nothing to wait for: none
                pause = 0
            needed = exposing_stretch(deque, call, calls[u][next_call[u]:])
            if needed is not None and pause >= needed:
                return True
            for _ in range(min(pause, ops - next_call[u])):
                fresh = apply_call(deque, calls[u][next_call[u]], fresh)
                next_call[u] += 1
        fresh = apply_call(deque, call, fresh)
        next_call[t] += 1
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
    parser.add_argument("--pauses", action="store_true",
                        help="also measure random pauses of each length law, unsteered and steered")
    parser.add_argument("--pause-rate", type=float, default=0.27,
                        help="probability that a pop of a non-empty deque pauses in its window")
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
    if args.pauses:
        for name, law in PAUSE_LAWS.items():
            found = [sum(1 for calls in workloads
                         if random_pauses(rng, calls, args.ops, args.pause_rate, law, steer))
                     for steer in (False, True)]
            print(f"random pauses, {name} lengths, pause rate {args.pause_rate}: "
                  f"{found[0] / len(workloads):.1%} of the histories in random order, "
                  f"{found[1] / len(workloads):.1%} steered towards one element")
        found = [sum(1 for calls in workloads
                     if random_pauses(rng, calls, args.ops, args.pause_rate, None, steer))
                 for steer in (False, True)]
        print(f"stolen-result pauses (until the other thread pops what the paused pop would "
              f"return), pause rate {args.pause_rate}: {found[0] / len(workloads):.1%} of the "
              f"histories in random order, {found[1] / len(workloads):.1%} steered towards one "
              f"element")


if __name__ == "__main__":
    main()
