"""Chunkers cross process boundaries with their settings: pickle (multiprocessing, LlamaIndex's
IngestionPipeline workers, joblib) carries the typed configuration and builds the chunker again."""

from __future__ import annotations

import multiprocessing
import pickle

import pytest
from llama_index.core import Document

import chunklab
from chunklab.langchain import ChunklabTextSplitter
from chunklab.llama_index import ChunklabNodeParser

TEXT = "# Windenergie\n\nDe raad stemt in met windmolens op zee. " + "Het college voert het uit. " * 40


def test_a_chunker_pickles_with_its_configuration():
    c = chunklab.Chunker(strategy="headings", size=60, unit="tokens", tokenizer="cl100k")
    again = pickle.loads(pickle.dumps(c))
    assert again.config == c.config
    assert [(x.text, x.start_char, x.id) for x in again.chunk(TEXT, "a.md")] == [
        (x.text, x.start_char, x.id) for x in c.chunk(TEXT, "a.md")
    ]


def test_a_bad_pickled_configuration_is_refused():
    with pytest.raises(chunklab.ConfigError, match="^config: "):
        chunklab._chunklab._chunker_from_config('{"chunking": {"strategy": "nope"}}')


def test_the_integrations_keep_their_settings_through_pickle():
    # LlamaIndex dropped the chunker as unpicklable and came back with the defaults (size 1000).
    parser = ChunklabNodeParser(strategy="recursive", chunk_size=100)
    again = pickle.loads(pickle.dumps(parser))
    nodes = again.get_nodes_from_documents([Document(text=TEXT)])
    assert len(nodes) > 5 and all(len(n.text) <= 100 for n in nodes)
    splitter = ChunklabTextSplitter(chunk_size=100, chunk_overlap=10)
    assert pickle.loads(pickle.dumps(splitter)).split_text(TEXT) == splitter.split_text(TEXT)


def _split(splitter: ChunklabTextSplitter) -> list:
    return splitter.split_text(TEXT)


def test_a_worker_process_chunks_with_the_parent_s_settings():
    splitter = ChunklabTextSplitter(chunk_size=80)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.apply(_split, (splitter,)) == splitter.split_text(TEXT)


def test_llama_index_serializes_and_hashes_the_configuration():
    # IngestionPipeline's cache key is the transformation's to_dict(): two sizes must differ, or
    # a pipeline run after changing the size is served the old size's nodes from its cache.
    from llama_index.core.ingestion.pipeline import get_transformation_hash

    docs = [Document(text=TEXT, id_="d")]
    small = ChunklabNodeParser(strategy="recursive", chunk_size=100)
    large = ChunklabNodeParser(strategy="recursive", chunk_size=500)
    assert get_transformation_hash(docs, small) != get_transformation_hash(docs, large)
    assert get_transformation_hash(docs, small) == get_transformation_hash(
        docs, ChunklabNodeParser(strategy="recursive", size=100))
    # The serialized configuration builds the same parser (LlamaIndex's own from_dict trips on
    # its serialized id_func in this version, for SentenceSplitter too); with keyword arguments
    # beside it, it is refused.
    assert small.to_dict()["chunklab_config"]["chunking"]["size"] == 100
    back = ChunklabNodeParser(chunklab_config=small.to_dict()["chunklab_config"])
    assert back.chunker.config == small.chunker.config
    with pytest.raises(chunklab.ConfigError, match="^chunklab_config: .*not both"):
        ChunklabNodeParser(chunklab_config=small.chunklab_config, size=10)
