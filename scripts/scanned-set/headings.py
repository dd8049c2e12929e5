#!/usr/bin/env python3
"""Structure of the OCR'd scans against their born-digital PDFs: the title and headings, with
levels, that `chunklab parse` finds in each scan (build.sh's set) next to those of the PDF itself.

    scripts/scanned-set/headings.py SET_DIR CHUNKLAB_BIN [OTHER_CHUNKLAB_BIN ...]

Per document, resolution and condition, and in total: headings found, heading texts matched in
order (case-insensitive, whitespace collapsed) and of those the ones at the born-digital level.
The first binary parses the born-digital PDFs (their pages of the set) as the reference.
"""
import difflib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.environ.get("CHUNKLAB_SHARED", os.path.join(HERE, "../../../shared")),
                   "datasets/documents/pdf")
# name, first page, last page: as build.sh scans them.
DOCS = [("raadsbesluit", 1, 2), ("pg-sql-createtable", 1, 3), ("debian-reference.en", 5, 7)]


def headings(binary, pdf, first=1, last=10**9):
    out = subprocess.run([binary, "parse", pdf, "--format", "json", "--ocr", "auto"],
                         capture_output=True, text=True, check=True).stdout
    found = []
    for e in json.loads(out)["elements"]:
        kind = e["type"]
        if kind in ("title", "heading") and first <= (e.get("page") or 0) <= last:
            level = "0" if kind == "title" else str(e.get("level"))
            found.append((level, " ".join(e["text"].split()).lower()))
    return found


def matched(truth, got):
    sm = difflib.SequenceMatcher(a=[t for _, t in truth], b=[t for _, t in got], autojunk=False)
    blocks = sm.get_matching_blocks()
    texts = sum(b.size for b in blocks)
    levels = sum(truth[b.a + k][0] == got[b.b + k][0] for b in blocks for k in range(b.size))
    return texts, levels


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    set_dir, binaries = sys.argv[1], sys.argv[2:]
    totals = {b: [0, 0, 0] for b in binaries}
    want_total = 0
    print("| document | scan | headings (PDF) | " + " | ".join(
        f"{os.path.basename(os.path.dirname(b)) or b}: found / text / level" for b in binaries) + " |")
    print("|---|---|---:|" + "---|" * len(binaries))
    for name, first, last in DOCS:
        truth = headings(binaries[0], os.path.join(SRC, name + ".pdf"), first, last)
        for dpi in (150, 200, 300):
            for cond in ("clean", "damaged"):
                pdf = os.path.join(set_dir, name, f"{dpi}-{cond}.pdf")
                cells = []
                for b in binaries:
                    got = headings(b, pdf)
                    texts, levels = matched(truth, got)
                    t = totals[b]
                    t[0] += len(got)
                    t[1] += texts
                    t[2] += levels
                    cells.append(f"{len(got)} / {texts} / {levels}")
                want_total += len(truth)
                print(f"| {name} | {dpi} {cond} | {len(truth)} | " + " | ".join(cells) + " |")
    print(f"| **all** | | {want_total} | " + " | ".join(
        f"{t[0]} / {t[1]} / {t[2]}" for t in totals.values()) + " |")


if __name__ == "__main__":
    main()
