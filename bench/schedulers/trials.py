#!/usr/bin/env python3
"""Histories to the first violation, scheduler by scheduler, in the SURW paper's format.

For every buggy target (bug_expected in `targets --json`) of linfault itself and, with
--user-tool, of a user's project built against an installed linfault (its own targets only), and
for every scheduler, runs TRIALS independent campaigns `detect --stop-at-first --histories BUDGET`
with seeds far apart. Each cell of the markdown table is

    mean ± sd (found/TRIALS)

where mean and sd are over the trials that found a violation within the budget, of the number of
histories up to and including the first one (1 = the first history failed). A scheduler the binary
does not know prints "n/a"; one the binary refuses for the target (native on a target that may
livelock) prints "refused".

--controls N instead runs N histories of every control (bug_expected false) under every scheduler
and reports every violation, unknown verdict, deadlock, livelock or crash; it exits 1 if any.

    python3 bench/schedulers/trials.py --linfault build/tool/linfault \\
        [--user-tool build-user/user-linfault] [--budget 1000] [--trials 20] [--threads 2] \\
        [--ops 6] [--jobs 1] [--parallel 2] [--shapes S] [--window-pauses W] [--target T]...
        [--scheduler S]...
        [--controls N] [--compare A:B]...

After the table: per scheduler, the trials that found and the geometric mean over the rows of
the histories per find (every history the trials ran, a miss counting its whole budget, per
violation found). --compare A:B adds, row by row, A's histories per find over B's and whether A
is worse beyond the noise.
"""

import argparse
import concurrent.futures
import json
import math
import re
import statistics
import subprocess
import sys
import time

SCHEDULERS = ["random", "pct", "dpct", "pos", "surw", "window", "portfolio", "native"]
# Trial t of a cell starts at seed FIRST_SEED + t * SEED_SPACING: the campaigns never share a
# history for budgets below the spacing.
FIRST_SEED = 1
SEED_SPACING = 1_000_003


class Binary:
    """A linfault tool (linfault or a user's tool) and what it knows."""

    def __init__(self, path):
        self.path = path
        listed = json.loads(run([path, "targets", "--json"], check=True).stdout)
        self.targets = listed["targets"] if isinstance(listed, dict) else listed
        self.schedulers = known_schedulers(path)


def run(command, check=False, timeout=None):
    return subprocess.run(command, capture_output=True, text=True, check=check, timeout=timeout)


def known_schedulers(path):
    """The --scheduler choices of `detect --help` (CLI11 prints them as {a,b,...})."""
    help_text = run([path, "detect", "--help"], check=True).stdout
    match = re.search(r"--scheduler\s+\S*\{([a-z0-9_,-]+)\}", help_text)
    if not match:
        raise SystemExit(f"{path}: cannot read the --scheduler choices of `detect --help`")
    return set(match.group(1).split(","))


class Cell:
    """The outcome of one (target, scheduler) pair."""

    def __init__(self, status, found=None, trials=0, wall=0.0):
        self.status = status  # "ok", "n/a", "refused" or an error text
        self.found = found or []  # histories to the first violation, of the trials that found one
        self.trials = trials
        self.wall = wall

    def text(self):
        if self.status != "ok":
            return self.status
        count = f"({len(self.found)}/{self.trials})"
        if not self.found:
            return f"– {count}"
        mean = statistics.fmean(self.found)
        sd = statistics.stdev(self.found) if len(self.found) > 1 else 0.0
        return f"{mean:.1f} ± {sd:.1f} {count}"

    def histories_run(self, budget):
        """Every history the trials ran: a trial that missed ran its whole budget."""
        return sum(self.found) + (self.trials - len(self.found)) * budget

    def histories_per_find(self, budget):
        """Histories run per violation found: the maximum-likelihood estimate of 1 / (violations
        per history) from trials stopped at their first find or at the budget; None without a
        find."""
        if self.status != "ok" or not self.found:
            return None
        return self.histories_run(budget) / len(self.found)


def detect(binary, target, scheduler, args, seed, histories, stop_at_first):
    command = [binary.path, "detect", "--target", target["name"], "--scheduler", scheduler,
               "--threads", str(args.threads), "--ops", str(args.ops),
               "--histories", str(histories), "--seed", str(seed), "--jobs", str(args.jobs),
               "--json"]
    if args.shapes:
        command += ["--shapes", args.shapes]
    if args.window_pauses and scheduler in ("window", "portfolio"):
        command += ["--window-pauses", args.window_pauses]
    if stop_at_first:
        command.append("--stop-at-first")
    try:
        done = run(command, timeout=args.cell_timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {args.cell_timeout:.0f} s"
    if done.returncode not in (0, 1):
        message = done.stderr.strip().splitlines()
        return None, f"exit {done.returncode}: {message[-1] if message else ''}"
    return json.loads(done.stdout), None


def unavailable(binary, target, scheduler):
    if scheduler not in binary.schedulers:
        return "n/a"
    if scheduler == "native" and target.get("may_livelock"):
        return "refused"
    return None


def trial_cell(binary, target, scheduler, args, pool):
    status = unavailable(binary, target, scheduler)
    if status:
        return Cell(status)
    start = time.monotonic()
    seeds = [FIRST_SEED + t * SEED_SPACING for t in range(args.trials)]
    futures = [pool.submit(detect, binary, target, scheduler, args, seed, args.budget, True)
               for seed in seeds]
    found = []
    for future in futures:
        summary, problem = future.result()
        if summary is None:
            return Cell(problem)
        if summary["histories_to_first"] > 0:
            found.append(summary["histories_to_first"])
    return Cell("ok", found, args.trials, time.monotonic() - start)


def selected_targets(args, builtin, user, buggy):
    """(binary, target) pairs: the built-in targets, then the user tool's own."""
    chosen = [(builtin, t) for t in builtin.targets if bool(t.get("bug_expected")) == buggy]
    if user:
        names = {t["name"] for t in builtin.targets}
        chosen += [(user, t) for t in user.targets
                   if t["name"] not in names and bool(t.get("bug_expected")) == buggy]
    if args.target:
        chosen = [(b, t) for b, t in chosen if t["name"] in args.target]
    return chosen


def print_trials(args, builtin, user, schedulers):
    print(f"{args.trials} trials of at most {args.budget} histories of {args.threads} threads x "
          f"{args.ops} operations per cell (`detect --stop-at-first`), trial t from seed "
          f"{FIRST_SEED} + t x {SEED_SPACING}: mean ± sd of the histories to the first violation "
          f"over the trials that found one (found/trials)\n")
    print("| target | " + " | ".join(schedulers) + " |")
    print("|---|" + "---|" * len(schedulers))
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for binary, target in selected_targets(args, builtin, user, buggy=True):
            cells = [trial_cell(binary, target, s, args, pool) for s in schedulers]
            name = target["name"] + (" (user)" if binary is user else "")
            rows.append((name, cells))
            print(f"| {name} | " + " | ".join(c.text() for c in cells) + " |", flush=True)
            if args.verbose:
                walls = ", ".join(f"{s} {c.wall:.1f} s" for s, c in zip(schedulers, cells))
                print(f"<!-- {target['name']}: {walls} -->", flush=True)
    print_summary(args, schedulers, rows)
    for pair in args.compare or []:
        print_comparison(args, schedulers, rows, *pair.split(":"))
    return 0


def print_summary(args, schedulers, rows):
    """Per scheduler: trials that found, and the geometric mean over the rows of the histories
    per find (a row without any find counts as every history its trials ran)."""
    print("\n| scheduler | rows | trials that found | histories per find, geometric mean over rows |")
    print("|---|---|---|---|")
    for i, scheduler in enumerate(schedulers):
        cells = [cells[i] for _, cells in rows if cells[i].status == "ok"]
        if not cells:
            print(f"| {scheduler} | 0 | – | – |")
            continue
        found = sum(len(c.found) for c in cells)
        logs = [math.log(c.histories_per_find(args.budget) or c.histories_run(args.budget))
                for c in cells]
        print(f"| {scheduler} | {len(cells)} | {found}/{sum(c.trials for c in cells)} | "
              f"{math.exp(statistics.fmean(logs)):.1f} |")


def lower_tail(found_a, found_b, histories_a, histories_b):
    """P(X <= found_a) for X ~ Binomial(found_a + found_b, histories_a / (histories_a +
    histories_b)): given the finds of both, how likely A found this few if both schedulers had
    the same violations per history (the exact conditional test of two Poisson rates)."""
    n = found_a + found_b
    p = histories_a / (histories_a + histories_b)
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(found_a + 1))


def print_comparison(args, schedulers, rows, a, b):
    """Row by row, A's histories per find over B's, and whether A finds violations at a lower
    rate beyond the noise: the exact conditional test of two rates (lower_tail), one-sided at
    2.5%. Under no difference about 1 row in 40 is flagged by chance."""
    if a not in schedulers or b not in schedulers:
        raise SystemExit(f"--compare {a}:{b}: both must be among the schedulers run")
    ia, ib = schedulers.index(a), schedulers.index(b)
    print(f"\n{a} against {b}: histories per find, ratio, and whether {a} is worse beyond the "
          f"noise (one-sided test at 2.5%)\n")
    print(f"| target | {a} | {b} | ratio | {a} significantly worse |")
    print("|---|---|---|---|---|")
    worse = 0
    for name, cells in rows:
        ca, cb = cells[ia], cells[ib]
        if ca.status != "ok" or cb.status != "ok":
            continue
        fa, fb = len(ca.found), len(cb.found)
        ha, hb = ca.histories_run(args.budget), cb.histories_run(args.budget)
        significant = fa + fb > 0 and lower_tail(fa, fb, ha, hb) < 0.025
        worse += significant
        ratio = f"{(ha / fa) / (hb / fb):.2f}" if fa and fb else "–"
        print(f"| {name} | {fmt(ca, args)} | {fmt(cb, args)} | {ratio} | "
              f"{'**yes**' if significant else 'no'} |")
    print(f"\n{worse} row(s) where {a} is significantly worse than {b}")


def fmt(cell, args):
    value = cell.histories_per_find(args.budget)
    return "none found" if value is None else f"{value:.1f}"


def print_controls(args, builtin, user, schedulers):
    print(f"{args.controls} histories of {args.threads} threads x {args.ops} operations of every "
          f"control under every scheduler: violations (and unknown/deadlock/livelock/crash "
          f"when any)\n")
    print("| control | " + " | ".join(schedulers) + " |")
    print("|---|" + "---|" * len(schedulers))
    problems = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for binary, target in selected_targets(args, builtin, user, buggy=False):
            futures = {}
            for scheduler in schedulers:
                if not unavailable(binary, target, scheduler):
                    futures[scheduler] = pool.submit(detect, binary, target, scheduler, args,
                                                     FIRST_SEED, args.controls, False)
            cells = []
            for scheduler in schedulers:
                if scheduler not in futures:
                    cells.append(unavailable(binary, target, scheduler))
                    continue
                summary, problem = futures[scheduler].result()
                if summary is None:
                    cells.append(problem)
                    problems += 1
                    continue
                others = [summary[k] for k in ("unknown", "deadlocks", "livelocks", "crashes")]
                cell = str(summary["violations"])
                if any(others):
                    cell += " (" + "/".join(map(str, others)) + ")"
                if summary["violations"] or any(others):
                    problems += 1
                cells.append(cell)
            name = target["name"] + (" (user)" if binary is user else "")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{problems} cell(s) with a violation, unknown verdict, deadlock, livelock, crash or "
          f"error")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--linfault", default="build/tool/linfault")
    parser.add_argument("--user-tool", help="a user project's tool (linfault_add_tool)")
    parser.add_argument("--budget", type=int, default=1000, help="histories per trial, at most")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ops", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=1, help="detect --jobs of each campaign")
    parser.add_argument("--parallel", type=int, default=2, help="campaigns run at once")
    parser.add_argument("--cell-timeout", type=float, default=600,
                        help="seconds per detect run before the cell reports a timeout")
    parser.add_argument("--shapes", choices=["even", "split", "uneven", "mixed"],
                        help="detect --shapes of every campaign (default: the binary's)")
    parser.add_argument("--window-pauses", choices=["mixed", "act", "inside"],
                        help="detect --window-pauses of the window and portfolio campaigns "
                             "(default: the binary's)")
    parser.add_argument("--target", action="append", help="only these targets (repeatable)")
    parser.add_argument("--scheduler", action="append", choices=SCHEDULERS)
    parser.add_argument("--controls", type=int, metavar="N",
                        help="instead: N histories of every control under every scheduler")
    parser.add_argument("--verbose", action="store_true", help="wall time per cell")
    parser.add_argument("--compare", action="append", metavar="A:B",
                        help="also compare scheduler A with B row by row (repeatable)")
    args = parser.parse_args()
    if args.budget >= SEED_SPACING or args.trials < 1 or args.budget < 1:
        parser.error(f"--budget must be in 1..{SEED_SPACING - 1} and --trials at least 1")

    builtin = Binary(args.linfault)
    user = Binary(args.user_tool) if args.user_tool else None
    schedulers = args.scheduler or SCHEDULERS
    if args.controls is not None:
        return print_controls(args, builtin, user, schedulers)
    return print_trials(args, builtin, user, schedulers)


if __name__ == "__main__":
    sys.exit(main())
