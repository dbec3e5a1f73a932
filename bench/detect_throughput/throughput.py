#!/usr/bin/env python3
"""Checked histories per second per core of `linfault detect`, two builds side by side.

    bench/detect_throughput/throughput.py NEW_LINFAULT OLD_LINFAULT [--histories N] [--repeats R]
                                          [--other-histories]

Runs `detect --threads 2 --ops 5 --scheduler pct --shapes even --json` on 2 x 5 stacks and queues
(correct and buggy: whole 2 x 5 histories, whatever the default shapes), with --jobs 1 and 2,
alternating the two binaries, and prints histories/s per core (histories / wall seconds / jobs)
and per CPU second (histories / (user + system) seconds, which a busy machine disturbs less); best of R runs, since the machine is shared. It also checks
that both builds report the same results (violations, unknown verdicts, outcomes, first failing
seed): a faster detect that finds something else is a bug, not a speed-up. Between builds that
draw different histories from one seed (a change of detect::history_seed), --other-histories
leaves that comparison out.
"""
import argparse
import json
import resource
import subprocess
import sys

TARGETS = ["treiber_stack", "treiber_stack_buggy", "ms_queue", "optimistic_queue_buggy"]
SAME = ["violations", "unknown", "crashes", "deadlocks", "livelocks", "first_failing_seed",
        "scheduler", "histories"]


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, target, jobs, histories):
    """The JSON report, with the run's CPU seconds (user + system) added as "cpu_seconds"."""
    before = cpu_seconds()
    out = subprocess.run(
        [binary, "detect", "--target", target, "--threads", "2", "--ops", "5", "--histories",
         str(histories), "--scheduler", "pct", "--shapes", "even", "--jobs", str(jobs), "--json"],
        capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{binary} detect --target {target} failed ({out.returncode}): {out.stderr}")
    report = json.loads(out.stdout)
    report["cpu_seconds"] = cpu_seconds() - before
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("new")
    parser.add_argument("old")
    parser.add_argument("--histories", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--other-histories", action="store_true",
                        help="the builds draw different histories: do not compare results")
    args = parser.parse_args()
    print(f"{'target':24} {'jobs':>4} {'old h/s/core':>13} {'new h/s/core':>13} {'speed-up':>8}"
          f" {'old h/cpu-s':>12} {'new h/cpu-s':>12}")
    mismatches = 0
    for target in TARGETS:
        for jobs in (1, 2):
            best = {"old": 0.0, "new": 0.0}
            best_cpu = {"old": 0.0, "new": 0.0}
            reports = {}
            for _ in range(args.repeats):
                for name, binary in (("old", args.old), ("new", args.new)):
                    report = run(binary, target, jobs, args.histories)
                    reports[name] = report
                    rate = report["histories"] / report["wall_seconds"] / jobs
                    best[name] = max(best[name], rate)
                    best_cpu[name] = max(best_cpu[name],
                                         report["histories"] / report["cpu_seconds"])
            for key in [] if args.other_histories else SAME:
                if reports["old"].get(key) != reports["new"].get(key):
                    mismatches += 1
                    print(f"  MISMATCH {target} jobs={jobs} {key}: old {reports['old'].get(key)}"
                          f" new {reports['new'].get(key)}")
            print(f"{target:24} {jobs:>4} {best['old']:>13,.0f} {best['new']:>13,.0f}"
                  f" {best['new'] / best['old']:>7.2f}x"
                  f" {best_cpu['old']:>12,.0f} {best_cpu['new']:>12,.0f}")
    if mismatches:
        sys.exit(f"{mismatches} result mismatches between the builds")
    if not args.other_histories:
        print("results identical between the builds (violations, outcomes, first failing seed)")


if __name__ == "__main__":
    main()
