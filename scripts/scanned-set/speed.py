#!/usr/bin/env python3
"""Pages/s and CER of three ways to OCR the same scanned pages: `chunklab parse --ocr always`,
the plain `tesseract` CLI (pdftoppm, then tesseract per page) and `ocrmypdf` (its `--sidecar`
text), each from the image-only PDF to text, wall clock, each with its own default parallelism.

    scripts/scanned-set/speed.py SET_DIR CHUNKLAB_BIN [OCRMYPDF_BIN]

SET_DIR is build.sh's output; DOCS (default raadsbesluit,pg-sql-createtable: 5 pages) and COND
(default 300-clean) pick the pages, LANGS (default nld+eng) the languages, RUNS (default 1) how
often each tool runs (the best run counts). Without OCRMYPDF_BIN (or with it missing) its row is
left out. Prints a Markdown table; CER/WER as in measure.py, per page, averaged.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import pages_of, rates  # noqa: E402

import json  # noqa: E402


def chunklab(binary, pdf, lang):
    out = subprocess.run(
        [binary, "parse", pdf, "-f", "json", "--full-text", "--ocr", "always", "--ocr-lang", lang],
        capture_output=True, text=True, check=True)
    got = pages_of(json.loads(out.stdout))
    return [got.get(p, "") for p in range(1, max(got, default=0) + 1)]


def tesseract_cli(pdf, lang):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["pdftoppm", "-r", "300", "-gray", "-png", pdf, f"{d}/p"], check=True)
        texts = []
        for p in sorted(os.listdir(d)):
            r = subprocess.run(["tesseract", f"{d}/{p}", "stdout", "-l", lang],
                               capture_output=True, text=True, check=True)
            texts.append(r.stdout)
        return texts


def ocrmypdf(binary, pdf, lang):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([binary, "-q", "-l", lang, "--sidecar", f"{d}/s.txt", pdf, f"{d}/o.pdf"],
                       check=True)
        pages = open(f"{d}/s.txt", encoding="utf-8").read().split("\f")  # one form feed per page
        return pages[:-1] if len(pages) > 1 and not pages[-1].strip() else pages


def main():
    root, binary = sys.argv[1], sys.argv[2]
    omp = sys.argv[3] if len(sys.argv) > 3 else shutil.which("ocrmypdf")
    docs = os.environ.get("DOCS", "raadsbesluit,pg-sql-createtable").split(",")
    cond = os.environ.get("COND", "300-clean")
    lang = os.environ.get("LANGS", "nld+eng")
    runs = int(os.environ.get("RUNS", "1"))
    tools = [("chunklab parse --ocr always", lambda pdf: chunklab(binary, pdf, lang)),
             ("tesseract CLI (pdftoppm + tesseract per page)", lambda pdf: tesseract_cli(pdf, lang))]
    if omp and os.path.exists(omp):
        tools.append(("ocrmypdf --sidecar", lambda pdf: ocrmypdf(omp, pdf, lang)))
    print(f"{len(docs)} documents, {cond}, {lang}, best of {runs}")
    print("| tool | pages | pages/s | CER | WER |")
    print("|---|---:|---:|---:|---:|")
    for name, fn in tools:
        best, cers, wers, n = None, [], [], 0
        for _ in range(runs):
            t0 = time.time()
            outs = [fn(os.path.join(root, d, cond + ".pdf")) for d in docs]
            s = time.time() - t0
            best = s if best is None else min(best, s)
        for d, texts in zip(docs, outs):
            for p in range(1, 100):
                tf = os.path.join(root, d, f"truth-{p}.txt")
                if not os.path.exists(tf):
                    break
                c, w = rates(open(tf, encoding="utf-8").read(),
                             texts[p - 1] if p <= len(texts) else "")
                cers.append(c)
                wers.append(w)
                n += 1
        print(f"| {name} | {n} | {n / best:.3f} | {100 * sum(cers) / n:.1f}% "
              f"| {100 * sum(wers) / n:.1f}% |", flush=True)


if __name__ == "__main__":
    main()
