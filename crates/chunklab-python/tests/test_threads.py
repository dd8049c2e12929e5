"""Threads calling chunk concurrently give the same chunks as one thread (the GIL is released
while chunking, the pipeline cache is shared)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import chunklab

CONFIGS = [
    {"strategy": "recursive", "size": 200, "overlap": 20},
    {"strategy": "headings", "size": 128, "unit": "tokens", "tokenizer": "cl100k"},
    {"strategy": "sentence", "size": 300, "overlap": 1},
    {"strategy": "fixed", "size": 64, "tokenizer": "cl100k", "overlap": 8},
]


def _key(chunks):
    return [(c.id, c.start_byte, c.end_byte, c.tokens, c.text, tuple(c.headings)) for c in chunks]


def test_concurrent_chunk_calls_are_deterministic(documents):
    texts = [p.read_text(encoding="utf-8") for p in sorted((documents / "markdown").glob("*.md"))]
    jobs = [(t, c) for t in texts for c in CONFIGS]
    serial = [_key(chunklab.chunk(t, **c)) for t, c in jobs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            parallel = list(pool.map(lambda j: _key(chunklab.chunk(j[0], **j[1])), jobs))
            assert parallel == serial


def test_chunk_files_in_threads_equals_serial(documents):
    paths = [documents / "markdown", documents / "html", documents / "nl_verordening_parkeren.txt"]
    serial = _key(chunklab.chunk_files(paths, strategy="elements", size=300))
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: _key(chunklab.chunk_files(paths, strategy="elements", size=300)), range(6)))
    assert all(r == serial for r in results)


def test_one_chunker_shared_by_threads(documents):
    ch = chunklab.Chunker(strategy="recursive", size=300, overlap=30)
    texts = [p.read_text(encoding="utf-8") for p in sorted((documents / "markdown").glob("*.md"))]
    serial = [_key(ch.chunk(t)) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(lambda t: _key(ch.chunk(t)), texts * 3)) == serial * 3
