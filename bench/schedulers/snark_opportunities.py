#!/usr/bin/env python3
"""How often a random snark_deque workload offers its bug at all: a bound no scheduler can pass.

snark_deque's only bug (../shared/docs/benchmark-objects.md, section 3.14; targets/snark_deque.h)
is a false "empty": thread T pops one end while the deque holds exactly one element A, T reads
the hats, and before it reads A's outer link the other thread U pushes on T's end and then pops
A from the far end (popLeft against pushLeft; popRight, or the mirror). A scheduler chooses the
interleaving, not the calls: it can only expose the bug where a pop of one thread meets a size-1
deque while the other thread's next two calls are that push and that pop.

This script draws workloads as `linfault detect` does for snark_deque (THREADS x OPS calls, each
of the four methods with probability 1/4; values do not matter), interleaves them operation by
operation at random, and counts, per history, the pops that meet such an opportunity. A history
with none cannot fail under that interleaving whatever happens inside the operations; the
fraction of histories with at least one is an estimate of the best per-history rate a scheduler
that interleaves whole operations at random could reach.

    python3 bench/schedulers/snark_opportunities.py [--ops 50] [--histories 20000] [--seed 1]
"""

import argparse
import random

METHODS = ["pushLeft", "pushRight", "popLeft", "popRight"]
# The pop of one thread, and the other thread's next two calls that make it return "empty".
PATTERNS = {"popLeft": ("pushLeft", "popRight"), "popRight": ("pushRight", "popLeft")}


def opportunities(rng, ops):
    calls = [[rng.choice(METHODS) for _ in range(ops)] for _ in range(2)]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=50, help="operations per thread")
    parser.add_argument("--histories", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts = [opportunities(rng, args.ops) for _ in range(args.histories)]
    with_one = sum(1 for c in counts if c)
    print(f"2 x {args.ops} snark_deque workloads, {args.histories} histories, calls interleaved "
          f"at random: {sum(counts) / len(counts):.3f} opportunities per history; "
          f"{with_one / len(counts):.1%} of the histories have at least one")


if __name__ == "__main__":
    main()
