#!/usr/bin/env python3
"""Alternated A/B timing of chunklab binaries on one command (issue 18).

    python3 bench/ab.py OLD_BIN,NEW_BIN RUNS chunk /dev/shm/doc.txt --strategy recursive ...

Runs each binary RUNS times, alternating the order every round so that drift on a shared
machine falls on both, and prints per binary the median, first quartile and minimum wall time
(perf_counter around the process) and the median CPU time (user + system, from wait4).
"""
import os
import statistics as st
import subprocess
import sys
import time

bins = sys.argv[1].split(",")
runs = int(sys.argv[2])
args = sys.argv[3:]
wall = {b: [] for b in bins}
cpu = {b: [] for b in bins}
for i in range(runs):
    for b in bins if i % 2 == 0 else bins[::-1]:
        t = time.perf_counter()
        p = subprocess.Popen([b] + args)
        _, status, ru = os.wait4(p.pid, 0)
        if status != 0:
            sys.exit(f"{b} failed (status {status})")
        wall[b].append(time.perf_counter() - t)
        cpu[b].append(ru.ru_utime + ru.ru_stime)
for b in bins:
    v = sorted(wall[b])
    print(
        f"{b}: wall median {st.median(v) * 1e3:.1f} ms, p25 {v[len(v) // 4] * 1e3:.1f}, "
        f"min {v[0] * 1e3:.1f}; CPU median {st.median(cpu[b]) * 1e3:.1f} ms"
    )
