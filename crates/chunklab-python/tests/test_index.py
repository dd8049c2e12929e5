"""chunklab.Index searches an index built by `chunklab index` through the pipeline's one
Searcher: the hits equal `chunklab search --json`'s for every mode."""

from __future__ import annotations

import json
import subprocess

import pytest

import chunklab

from conftest import _cli_bin


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory, documents):
    d = tmp_path_factory.mktemp("idx") / "idx"
    subprocess.run(
        [str(_cli_bin()), "index", "-q", "--index", str(d), "--model", "e5-small", "--strategy",
         "sentence", "--size", "300", str(documents / "nl_verordening_parkeren.txt")],
        check=True, capture_output=True,
    )
    return d


def _cli_search(index_dir, query, *args):
    out = subprocess.run([str(_cli_bin()), "search", "--index", str(index_dir), "--json", *args, query],
                         check=True, capture_output=True).stdout
    return json.loads(out)["results"]


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_search_equals_the_cli(index_dir, mode):
    idx = chunklab.Index.open(index_dir)
    q = "hoe lang is een parkeervergunning geldig?"
    got = idx.search(q, mode=mode, k=3)
    want = _cli_search(index_dir, q, "--mode", mode, "-k", "3")
    assert got and len(got) == len(want)
    for g, w in zip(got, want):
        # The CLI's JSON leaves out empty fields; the Python hit has every field of the Hit.
        assert {k: g[k] for k in w} == w
        assert set(g) - set(w) <= {"bm25_rank", "dense_rank", "level", "page", "chunks"}


def test_search_errors_and_retriever(index_dir):
    idx = chunklab.Index.open(index_dir)
    with pytest.raises(ValueError, match="mode"):
        idx.search("parkeren", mode="telepathy")
    # The query is an argument: an empty one is a ConfigError naming it.
    with pytest.raises(chunklab.ConfigError, match="^query: the query is empty"):
        idx.search("   ")
    with pytest.raises(chunklab.ConfigError,
                       match="^k: invalid value: integer `-1`, expected a whole number, 0 or more$"):
        idx.search("parkeren", k=-1)
    # One filter may be a string; a bad one names the key.
    assert idx.search("parkeren", mode="bm25", filter="source=nope/**") == []
    assert idx.search("parkeren", mode="bm25", filter="source=**") == idx.search(
        "parkeren", mode="bm25", filter=["source=**"]
    )
    with pytest.raises(FileNotFoundError):
        chunklab.Index.open(index_dir.parent / "nope")
    from chunklab.langchain import ChunklabRetriever

    r = ChunklabRetriever(index=idx, k=2, search_kwargs={"mode": "bm25"})
    docs = r.invoke("vergunning parkeren")
    hits = idx.search("vergunning parkeren", mode="bm25", k=2)
    assert hits
    assert [d.page_content for d in docs] == [h["text"] for h in hits]
    assert docs[0].metadata["chunk_id"] == hits[0]["chunk_id"]
    # k inside search_kwargs, as LangChain's vector-store retrievers take it; both must agree.
    r = ChunklabRetriever(index=idx, search_kwargs={"k": 2, "mode": "bm25"})
    assert [d.page_content for d in r.invoke("vergunning parkeren")] == [h["text"] for h in hits]
    with pytest.raises(ValueError, match=r"k: given as k=3 and as search_kwargs\['k'\]=2"):
        ChunklabRetriever(index=idx, k=3, search_kwargs={"k": 2})
