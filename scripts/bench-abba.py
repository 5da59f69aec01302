#!/usr/bin/env python3
"""Compare two builds' in-process property-search speed beyond this machine's noise.

    scripts/bench-abba.py OLD_DIR NEW_DIR [ROUNDS] [CPU]

Each DIR holds a build's `xtask` (the bench's binary, `cargo build --release -p mpit-xtask`) and `libmpit_reference.so` (copy them out of
target/release: a build in progress must not replace them under a run). The two builds
alternate A B B A on one core (`taskset -c CPU`, default 1), each process one search of
4,096 sequences (`xtask __bench-probe`, the bench's own child), ROUNDS rounds
(default 30). Printed: the median of the ratios NEW/OLD of adjacent runs, with its
quartiles, in sequences and in calls per second (the same when both builds generate the
same sequences).

Why this way (reports/bench/ANALYSIS.md, item 8): a process's speed here varies by
about 20 % from one process to the next, while runs next to each other agree; the
median of adjacent ratios cancels the drift. One build against itself gives about
1.00 with quartiles some 3 % either side: that is the noise a difference must exceed.
"""

import json
import statistics
import subprocess
import sys

MARK = "@@mpit-bench@@ "
TASK = {"Props": {"remote": False, "runs": 1, "cases": 4096, "max_len": 24}}


def search(build: str, cpu: str) -> dict:
    """One fresh process, one search; its figures (sequences, calls, elapsed_ms)."""
    probe = json.dumps({"lib": f"{build}/libmpit_reference.so", "abi": "auto", "task": TASK})
    out = subprocess.run(
        ["taskset", "-c", cpu, f"{build}/xtask", "__bench-probe", probe],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = [l for l in out.splitlines() if l.startswith(MARK)][-1]
    return json.loads(line[len(MARK):])["Throughput"]["Props"]["runs"][0]


def per_s(run: dict, what: str) -> float:
    return run[what] / run["elapsed_ms"] * 1000.0


def main() -> None:
    if len(sys.argv) < 3:
        print("usage: scripts/bench-abba.py OLD_DIR NEW_DIR [ROUNDS] [CPU]", file=sys.stderr)
        sys.exit(2)
    old, new = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    cpu = sys.argv[4] if len(sys.argv) > 4 else "1"
    ratios = {"sequences": [], "calls": []}
    for _ in range(rounds):
        a1, b1, b2, a2 = search(old, cpu), search(new, cpu), search(new, cpu), search(old, cpu)
        for what, r in ratios.items():
            r.append(per_s(b1, what) / per_s(a1, what))
            r.append(per_s(b2, what) / per_s(a2, what))
    for what, r in ratios.items():
        q = statistics.quantiles(r, n=4)
        print(
            f"new/old, {what} per second: {statistics.median(r):.3f} "
            f"({q[0]:.3f}-{q[2]:.3f}, {len(r)} ratios)"
        )


if __name__ == "__main__":
    main()
