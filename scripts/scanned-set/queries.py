#!/usr/bin/python3
"""Queries of the retrieval twin as `chunklab bench` JSONL, each answer checked in the text.

    queries.py QUERIES.tsv BORN_TEXT_DIR [EXT] > queries.jsonl

QUERIES.tsv: `doc_id<TAB>answer<TAB>query` per line (`#` comments). The answer must occur in the
born-digital document's text (BORN_TEXT_DIR/doc_id, case and whitespace ignored), else the script
exits 1 naming the line — so every label is known to be answerable from the document it names.
With EXT (`.pdf`), the labels name the document with that extension instead of `.txt` (the PDF
the bench corpus holds).
"""
import json
import os
import sys


def norm(s):
    return " ".join(s.split()).casefold()


tsv, corpus = sys.argv[1], sys.argv[2]
ext = sys.argv[3] if len(sys.argv) > 3 else None
bad = 0
n = 0
for i, line in enumerate(open(tsv, encoding="utf-8"), 1):
    if not line.strip() or line.startswith("#"):
        continue
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 3:
        print(f"{tsv}:{i}: want doc_id<TAB>answer<TAB>query", file=sys.stderr)
        bad += 1
        continue
    doc, answer, query = parts
    path = os.path.join(corpus, doc)
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        print(f"{tsv}:{i}: {e}", file=sys.stderr)
        bad += 1
        continue
    if norm(answer) not in norm(text):
        print(f"{tsv}:{i}: answer {answer!r} not in {path}", file=sys.stderr)
        bad += 1
        continue
    n += 1
    label = os.path.splitext(doc)[0] + ext if ext else doc
    print(json.dumps({"id": f"q{n:02d}", "query": query, "relevant_docs": [label]}, ensure_ascii=False))
sys.exit(1 if bad else 0)
