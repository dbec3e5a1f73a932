#!/usr/bin/env python3
"""What `detect --isolate` costs per history: the same campaigns in process and isolated.

Usage: isolation_cost.py [BUILD_DIR] [REPEATS]

Each campaign runs REPEATS times in process and isolated, alternately (the machine's drift hits
both alike), and the table gives the median wall time per history of each, the time isolation
adds per history and the ratio. The campaigns:
  - correct targets, where a child serves every history (a round trip per history);
  - a buggy one with `--out`, where each failing run also crosses the socket as JSON;
  - a campaign whose every run reaches a tiny --max-steps (a livelock), so that every history
    retires its child and forks a new one: the cost of replacing a child.
Both modes must report the same counts; the script stops if they do not.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
tool = os.path.join(build, "tool", "linfault")

CAMPAIGNS = [
    # (label, arguments)
    ("treiber_stack 2x10, 1 job", ["--target", "treiber_stack", "--histories", "20000"]),
    ("ms_queue 2x10, 1 job", ["--target", "ms_queue", "--histories", "20000"]),
    ("ms_queue 2x10, 2 jobs", ["--target", "ms_queue", "--histories", "20000", "--jobs", "2"]),
    ("lf_list 3x20, 1 job", ["--target", "lf_list", "--histories", "3000", "--threads", "3",
                               "--ops", "20"]),
    ("treiber_stack_buggy --out, 1 job", ["--target", "treiber_stack_buggy", "--histories",
                                          "5000", "--out", "OUT"]),
    ("every run livelocks (a fork each), 1 job", ["--target", "treiber_stack", "--histories",
                                                  "2000", "--max-steps", "3"]),
]

COUNTS = re.compile(r"^(histories|non-linearizable|deadlock/livelock/crash):.*$", re.M)


def run(arguments, isolate):
    out = tempfile.mkdtemp(prefix="isolation-")
    try:
        command = [tool, "detect", "--seed", "7"] + [out if a == "OUT" else a for a in arguments]
        if "--out" in arguments:
            shutil.rmtree(out)
        if isolate:
            command.append("--isolate")
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1, 2):
            sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
        return wall, COUNTS.findall(done.stdout) and "\n".join(
            m.group(0) for m in COUNTS.finditer(done.stdout))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def histories(arguments):
    return int(arguments[arguments.index("--histories") + 1])


print(f"{'campaign':44} {'in process':>12} {'isolated':>12} {'added':>10} {'ratio':>6}")
print(f"{'':44} {'ms/history':>12} {'ms/history':>12} {'us/history':>10} {'':>6}")
for label, arguments in CAMPAIGNS:
    plain, isolated = [], []
    for _ in range(repeats):
        wall_a, counts_a = run(arguments, False)
        wall_b, counts_b = run(arguments, True)
        if counts_a != counts_b:
            sys.exit(f"{label}: different results\n{counts_a}\n--- isolated:\n{counts_b}")
        plain.append(wall_a)
        isolated.append(wall_b)
    n = histories(arguments)
    a = statistics.median(plain) / n * 1000
    b = statistics.median(isolated) / n * 1000
    print(f"{label:44} {a:12.4f} {b:12.4f} {(b - a) * 1000:10.1f} {b / a:6.2f}")
