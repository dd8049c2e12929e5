#!/usr/bin/python3
"""Born-digital vs scanned twin: the rows of two `chunklab bench --json` files side by side.

    compare.py BORN.json SCAN.json [SCAN2.json ...]

Prints a Markdown table per (configuration, mode): doc recall@k and MRR of each file and the
difference in points (scan − born), and the strategy ranking by doc recall (ties by MRR) of each
file, so a change in the ordering shows.
"""
import json
import sys

files = sys.argv[1:]
runs = [json.load(open(f)) for f in files]
names = [r["dataset"] for r in runs]


def key(row):
    return (row["label"], row["mode"], row["k"])


tables = [{key(r): r for r in run["rows"]} for run in runs]
keys = [key(r) for r in runs[0]["rows"]]
head = "| configuration | mode | k | " + " | ".join(
    f"doc_rec {n} | MRR {n}" for n in names) + " | " + " | ".join(
    f"Δ doc_rec {n}" for n in names[1:]) + " |"
print(head)
print("|" + "---|" * (3 + 2 * len(names) + len(names) - 1))
for k in keys:
    cells = []
    for t in tables:
        r = t.get(k)
        cells += [f"{r['metrics']['doc_recall']:.1f}", f"{r['metrics']['mrr']:.3f}"] if r else ["–", "–"]
    base = tables[0][k]["metrics"]["doc_recall"]
    deltas = [f"{t[k]['metrics']['doc_recall'] - base:+.1f}" if k in t else "–" for t in tables[1:]]
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + " | " + " | ".join(deltas) + " |")
print()
groups = sorted({(k[1], k[2]) for k in keys})
for mode, kk in groups:
    for n, t in zip(names, tables):
        rows = [r for kk2, r in t.items() if (kk2[1], kk2[2]) == (mode, kk)]
        rows.sort(key=lambda r: (-r["metrics"]["doc_recall"], -r["metrics"]["mrr"], r["label"]))
        print(f"- {mode} k={kk} {n}: " + " > ".join(r["label"] for r in rows))
