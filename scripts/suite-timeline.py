#!/usr/bin/env python3
"""Worker timeline of one suite run, from the scheduler's process events (used for
reports/bench/ANALYSIS.md): when the first worker starts, how long the run goes on after
the last one, how long workers live, and for how long 0, 1, 2, ... workers were alive.

    perf record -e sched:sched_process_exec -e sched:sched_process_exit \\
        -e sched:sched_process_fork -o sched.data -- \\
        target/release/mpit-conform run --lib LIB -j 2 --out /tmp/r -q
    perf script -i sched.data -F pid,tid,time,event,trace > sched.txt
    scripts/suite-timeline.py sched.txt

Processes are the ones that exec'd after the first (the run): workers, and whatever a
library starts (Open MPI's orted for a singleton MPI_Init), listed by program.
"""
import collections
import re
import sys

LINE = re.compile(r"\s*(\d+)/(\d+)\s+([\d.]+): sched:(\w+): (.*)")


def main(path):
    execs, exits, forks, program = {}, {}, {}, {}
    t0 = run = end = None
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        pid, tid, t, ev, rest = int(m[1]), int(m[2]), float(m[3]), m[4], m[5]
        if t0 is None:
            t0, run = t, pid
        if ev == "sched_process_exec" and pid != run:
            execs[pid] = t
            f = re.search(r"filename=(\S+)", rest)
            program[pid] = f[1].rsplit("/", 1)[-1] if f else "?"
        elif ev == "sched_process_fork":
            c = re.search(r"child_pid=(\d+)", rest)
            if c:
                forks[int(c[1])] = t
        elif ev == "sched_process_exit" and pid == tid:
            exits[pid] = t
            if pid == run:
                end = t
    if end is None or not execs:
        sys.exit(f"{path}: no complete run in these events")
    spans = sorted((s, exits.get(p, end), p) for p, s in execs.items())
    ms = lambda x: 1000 * x  # noqa: E731
    print(f"run {ms(end - t0):.0f} ms; {len(spans)} processes started")
    print(f"start -> first exec {ms(spans[0][0] - t0):.0f} ms; "
          f"last exit -> end {ms(end - max(e for _, e, _ in spans)):.0f} ms")
    by = collections.defaultdict(list)
    for s, e, p in spans:
        by[program[p]].append(e - s)
    for name, v in sorted(by.items()):
        v.sort()
        print(f"  {name}: {len(v)}, lifetimes (exec..exit) sum {ms(sum(v)):.0f} ms, "
              f"median {ms(v[len(v) // 2]):.1f} ms, mean {ms(sum(v) / len(v)):.1f} ms")
    events = sorted([(s, 1) for s, _, _ in spans] + [(e, -1) for _, e, _ in spans])
    alive, last, acc = 0, t0, collections.Counter()
    for t, d in events + [(end, 0)]:
        acc[alive] += t - last
        alive, last = alive + d, t
    print("time with n processes alive (ms):",
          {k: round(ms(v)) for k, v in sorted(acc.items())})
    gaps = sorted(min((f for f in forks.values() if f >= e), default=e) - e
                  for _, e, _ in spans)
    print(f"exit -> next fork: median {ms(gaps[len(gaps) // 2]):.2f} ms, "
          f"sum {ms(sum(gaps)):.0f} ms")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
