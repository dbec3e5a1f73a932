#!/usr/bin/env python3
"""Violations per 1000 histories of every controlled scheduler on every buggy built-in target.

Runs `linfault detect --json` once per (target, scheduler) with the same seed and workload shape
and prints a markdown table: violations found among the histories run, scaled to 1000 histories,
and the mean milliseconds per history. See README.md for the measured figures.
"""

import argparse
import json
import subprocess
import sys
import time

SCHEDULERS = ["random", "pct", "dpct", "pos", "surw", "window"]


def detect(args, target, scheduler):
    command = [args.linfault, "detect", "--target", target, "--scheduler", scheduler,
               "--threads", str(args.threads), "--ops", str(args.ops),
               "--histories", str(args.histories), "--seed", str(args.seed),
               "--jobs", str(args.jobs), "--json"]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.cell_timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {args.cell_timeout:.0f} s"
    if done.returncode not in (0, 1):
        return None, f"exit {done.returncode}: {done.stderr.strip()}"
    summary = json.loads(done.stdout)
    summary["wall_s"] = time.monotonic() - start
    return summary, None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--linfault", default="build/tool/linfault")
    parser.add_argument("--histories", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ops", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cell-timeout", type=float, default=600)
    parser.add_argument("--target", action="append", help="only these targets (repeatable)")
    parser.add_argument("--scheduler", action="append", choices=SCHEDULERS)
    args = parser.parse_args()

    listed = json.loads(subprocess.run([args.linfault, "targets", "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    entries = listed["targets"] if isinstance(listed, dict) else listed
    targets = [t["name"] for t in entries if t.get("bug_expected")]
    if args.target:
        targets = [t for t in targets if t in args.target]
    schedulers = args.scheduler or SCHEDULERS

    print(f"{args.histories} histories of {args.threads} threads x {args.ops} operations per "
          f"cell, seed {args.seed}: violations per 1000 histories (ms per history)\n")
    print("| target | " + " | ".join(schedulers) + " |")
    print("|---|" + "---|" * len(schedulers))
    descriptions = {}
    for target in targets:
        cells = []
        for scheduler in schedulers:
            summary, problem = detect(args, target, scheduler)
            if summary is None:
                cells.append(problem)
                continue
            descriptions.setdefault(scheduler, summary.get("scheduler", ""))
            per_1000 = 1000.0 * summary["violations"] / summary["histories"]
            cells.append(f"{per_1000:.0f} ({summary['avg_ms']:.2g})")
        print(f"| {target} | " + " | ".join(cells) + " |", flush=True)
    print()
    for scheduler, description in descriptions.items():
        print(f"- {scheduler}: {description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
