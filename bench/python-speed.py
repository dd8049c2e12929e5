#!/usr/bin/env python3
"""Speed of `chunklab.chunk` (with offsets) next to semantic-text-splitter's
`TextSplitter.chunk_indices` and LangChain's `create_documents(add_start_index=True)`, in one
process on the same texts, best of N (issue 14). A benchmark, not a test.

Cases: recursive 2000/200 chars, and token 512/64 cl100k. Every timed call includes creating the
Python objects each library returns, and touching each chunk's start offset and text once (so
chunklab's lazily sliced text is paid for too).

Corpus: $PEERS/corpus (the peers corpus: `PEERS=/tmp/peers WITH_CORPUS=1 ../shared/peers/setup.sh`),
else the text documents of the shared data set (data/datasets/documents or ../shared/...), or any
directory given with --corpus. Only .md/.txt/.rst/.html files are read (as text).

Run in a venv with a RELEASE build of chunklab (`maturin develop --release`, or a wheel from
`maturin build --release` unpacked into a folder on PYTHONPATH) and
`pip install semantic-text-splitter langchain-text-splitters tiktoken`:

    target/ci/venv-python-release/bin/python bench/python-speed.py --runs 5 [--corpus DIR] [--max-mb 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, List, Tuple

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = {".md", ".txt", ".rst", ".html", ".htm"}


def default_corpus() -> Path:
    peers = Path(os.environ.get("PEERS", "/tmp/peers")) / "corpus"
    candidates = [peers]
    if os.environ.get("CHUNKLAB_SHARED"):
        candidates.append(Path(os.environ["CHUNKLAB_SHARED"]) / "datasets" / "documents")
    candidates += [REPO / "data" / "datasets" / "documents", REPO.parent / "shared" / "datasets" / "documents"]
    for c in candidates:
        if c.is_dir():
            return c
    sys.exit("no corpus found (looked in " + ", ".join(map(str, candidates)) + "); pass --corpus DIR")


def load(corpus: Path, max_mb: float) -> List[str]:
    texts: List[str] = []
    total = 0
    for p in sorted(corpus.rglob("*")):
        if not p.is_file() or p.suffix.lower() not in SUFFIXES:
            continue
        try:
            t = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if not t.strip():
            continue
        texts.append(t)
        total += len(t.encode())
        if max_mb and total >= max_mb * 1e6:
            break
    if not texts:
        sys.exit(f"no text files under {corpus}")
    return texts


def best(fns: List[Callable[[], int]], runs: int) -> List[Tuple[float, float, int]]:
    """(best time, first time, chunks) of each function, run in rounds (each function once per
    round, in order), so that a change in the machine's load during the measurement falls on
    every library alike. The first run of a library over the texts is also shown: CPython
    caches a `str`'s UTF-8 form once a library asks for it (chunklab and semantic-text-splitter
    do), so later runs over the same strings skip that encoding."""
    times: List[List[float]] = [[] for _ in fns]
    counts = [0] * len(fns)
    for _ in range(runs):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            counts[i] = fn()
            times[i].append(time.perf_counter() - t0)
    return [(min(t), t[0], n) for t, n in zip(times, counts)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--max-mb", type=float, default=0.0, help="stop reading the corpus after this many MB (0: all)")
    ap.add_argument("--token-max-mb", type=float, default=10.0, help="the token case's sample (first N MB)")
    ap.add_argument("--cases", default="recursive,token,small", help="comma separated: recursive, token, small")
    args = ap.parse_args()
    wanted = set(args.cases.split(","))

    import chunklab
    import tiktoken
    from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter
    from semantic_text_splitter import TextSplitter

    corpus = args.corpus or default_corpus()
    texts = load(corpus, args.max_mb)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    token_texts, acc = [], 0
    for t in texts:
        token_texts.append(t)
        acc += len(t.encode())
        if acc >= args.token_max_mb * 1e6:
            break
    token_mb = acc / 1e6
    # Per-call costs: the first 2,000 texts of 0.5-4 KB (recursive 2000/200).
    small_texts = [t for t in texts if 500 <= len(t.encode()) <= 4000][:2000]
    small_mb = sum(len(t.encode()) for t in small_texts) / 1e6
    print(f"corpus {corpus}: {len(texts)} files, {mb:.1f} MB (token case: {len(token_texts)} files, {token_mb:.1f} MB); best of {args.runs}")

    def run_chunklab(ts: List[str], **cfg) -> Callable[[], int]:
        # Build (and cache) the configuration's pipeline untimed, on another string, as the
        # peers' splitters are built before timing.
        chunklab.chunk("warm-up", **cfg)

        def f() -> int:
            n = 0
            for t in ts:
                for c in chunklab.chunk(t, **cfg):
                    _ = (c.start_char, c.text)
                    n += 1
            return n
        return f

    def run_sts(ts: List[str], splitter) -> Callable[[], int]:
        def f() -> int:
            n = 0
            for t in ts:
                for start, text in splitter.chunk_indices(t):
                    _ = (start, text)
                    n += 1
            return n
        return f

    def run_lc(ts: List[str], splitter) -> Callable[[], int]:
        def f() -> int:
            n = 0
            for d in splitter.create_documents(ts):
                _ = (d.metadata["start_index"], d.page_content)
                n += 1
            return n
        return f

    if "token" in wanted:
        try:
            tiktoken.get_encoding("cl100k_base")  # loaded untimed
        except Exception as e:  # noqa: BLE001 - offline machines: name the fix
            sys.exit(f"tiktoken cannot load cl100k_base ({e}); set TIKTOKEN_CACHE_DIR as ../shared/peers/make_venv.sh does")
    cases = {
        "recursive 2000/200 chars": (
            texts,
            mb,
            [
                ("chunklab.chunk", run_chunklab(texts, strategy="recursive", size=2000, overlap=200)),
                ("semantic_text_splitter chunk_indices", run_sts(texts, TextSplitter((2000, 2000), overlap=200))),
                ("langchain create_documents", run_lc(texts, RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200, add_start_index=True))),
            ],
        ),
    }
    if "token" in wanted:
        cases["token 512/64 cl100k"] = (
            token_texts,
            token_mb,
            [
                ("chunklab.chunk", run_chunklab(token_texts, strategy="fixed", size=512, overlap=64, unit="tokens", tokenizer="cl100k")),
                ("semantic_text_splitter chunk_indices", run_sts(token_texts, TextSplitter.from_tiktoken_model("gpt-4", 512, overlap=64))),
                ("langchain create_documents", run_lc(token_texts, TokenTextSplitter(encoding_name="cl100k_base", chunk_size=512, chunk_overlap=64, add_start_index=True))),
            ],
        )
    if "small" in wanted and small_texts:
        cases[f"small texts ({len(small_texts)} of 0.5-4 KB) recursive 2000/200 chars"] = (
            small_texts,
            small_mb,
            [
                ("chunklab.chunk", run_chunklab(small_texts, strategy="recursive", size=2000, overlap=200)),
                ("semantic_text_splitter chunk_indices", run_sts(small_texts, TextSplitter((2000, 2000), overlap=200))),
                ("langchain create_documents", run_lc(small_texts, RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200, add_start_index=True))),
            ],
        )
    for name, (_ts, size_mb, runners) in cases.items():
        if name.split()[0] not in wanted:
            continue
        print(f"\n## {name}")
        print("| library | best s | MB/s | chunks | chunklab speed-up | first run s | speed-up, first runs |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        measured = best([fn for _, fn in runners], args.runs)
        results = [(label, *m) for (label, _), m in zip(runners, measured)]
        ours, ours_first = results[0][1], results[0][2]
        for label, secs, first, n in results:
            print(
                f"| {label} | {secs:.3f} | {size_mb / secs:.1f} | {n} | {secs / ours:.1f}× "
                f"| {first:.3f} | {first / ours_first:.1f}× |"
            )


if __name__ == "__main__":
    main()
