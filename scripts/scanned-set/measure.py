#!/usr/bin/env python3
"""CER/WER of chunklab's OCR on the scanned test set (build.sh), per condition, language and
preprocessing, and pages/s next to the plain `tesseract` CLI on the same pages.

    scripts/scanned-set/measure.py SET_DIR CHUNKLAB_BIN [--quick]

Prints a Markdown table (the one in docs/EVALUATION.md). CER/WER: Levenshtein distance over
characters / words of the whitespace-collapsed texts, divided by the reference length.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def lev(a, b):
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def norm(s):
    return " ".join(s.split())


def rates(truth, got):
    t, g = norm(truth), norm(got)
    cer = lev(t, g) / max(1, len(t))
    wer = lev(t.split(), g.split()) / max(1, len(t.split()))
    return cer, wer


def pages_of(doc):
    text = doc["text"].encode()
    out = {}
    for e in doc["elements"]:
        if e.get("type") in ("table", "page_break") or "page" not in e:
            continue
        out.setdefault(e["page"], []).append(text[e["start"]:e["end"]].decode())
    return {p: "\n".join(v) for p, v in out.items()}


def chunklab(binary, pdf, lang, pre):
    t0 = time.time()
    out = subprocess.run(
        [binary, "parse", pdf, "-f", "json", "--full-text", "--ocr", "always",
         "--ocr-lang", lang, "--ocr-preprocess", pre],
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout), time.time() - t0


def tesseract_cli(pdf, lang, dpi):
    """The baseline: pdftoppm at the same dpi, then `tesseract` per page (its default threads)."""
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", pdf, f"{d}/p"], check=True)
        pages = sorted(os.listdir(d))
        t0 = time.time()
        texts = []
        for p in pages:
            r = subprocess.run(["tesseract", f"{d}/{p}", "stdout", "-l", lang],
                               capture_output=True, text=True, check=True)
            texts.append(r.stdout)
        return texts, time.time() - t0


def main():
    root, binary = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    docs = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    if os.environ.get("DOCS"):
        docs = [d for d in docs if d in os.environ["DOCS"].split(",")]
    conds = ["300-clean", "300-damaged", "200-damaged", "150-damaged", "150-clean", "200-clean"]
    if os.environ.get("CONDS"):
        conds = os.environ["CONDS"].split(",")
    runs = [("nld+eng", "dpi,deskew,osd"), ("nld+eng", "none")]
    if not quick:
        runs += [("nld", "dpi,deskew,osd"), ("eng", "dpi,deskew,osd"),
                 ("nld+eng", "dpi"), ("nld+eng", "dpi,deskew"), ("nld+eng", "dpi,deskew,osd,otsu"),
                 ("nld+eng", "dpi,deskew,osd,border")]
    print("| condition | lang | preprocess | pages | CER | WER | s/page |")
    print("|---|---|---|---|---|---|---|")
    for cond in conds:
        for lang, pre in runs:
            if quick and cond not in ("300-clean", "300-damaged", "150-damaged") and pre == "none":
                continue
            cers, wers, secs, n = [], [], 0.0, 0
            for d in docs:
                pdf = os.path.join(root, d, cond + ".pdf")
                doc, s = chunklab(binary, pdf, lang, pre)
                secs += s
                got = pages_of(doc)
                for p in range(1, 10):
                    tf = os.path.join(root, d, f"truth-{p}.txt")
                    if not os.path.exists(tf):
                        break
                    c, w = rates(open(tf).read(), got.get(p, ""))
                    cers.append(c)
                    wers.append(w)
                    n += 1
            print(f"| {cond} | {lang} | {pre} | {n} | {100 * sum(cers) / n:.1f}% "
                  f"| {100 * sum(wers) / n:.1f}% | {secs / n:.2f} |", flush=True)
    # Speed next to the tesseract CLI on the same 300 dpi clean pages.
    n, t_cli, t_ours, cer_cli = 0, 0.0, 0.0, []
    for d in docs:
        pdf = os.path.join(root, d, "300-clean.pdf")
        texts, s = tesseract_cli(pdf, "nld+eng", 300)
        t_cli += s
        _, s2 = chunklab(binary, pdf, "nld+eng", "dpi,deskew,osd")
        t_ours += s2
        for p, t in enumerate(texts, 1):
            cer_cli.append(rates(open(os.path.join(root, d, f"truth-{p}.txt")).read(), t)[0])
        n += len(texts)
    print(f"\nspeed on {n} pages (300 dpi clean, nld+eng): tesseract CLI {n / t_cli:.2f} pages/s "
          f"(CER {100 * sum(cer_cli) / n:.1f}%), chunklab parse --ocr always {n / t_ours:.2f} pages/s")


if __name__ == "__main__":
    main()
