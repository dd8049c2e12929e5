"""chunklab.llama_index.ChunklabNodeParser is a real llama_index.core NodeParser with exact
start/end_char_idx (also on repeated text) and SOURCE / PREVIOUS / NEXT relationships."""

from __future__ import annotations

import pytest

# The CI installs llama-index-core from PyPI: missing, these tests fail, never skip.
from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import NodeParser  # noqa: E402
from llama_index.core.schema import NodeRelationship, TextNode  # noqa: E402

import chunklab  # noqa: E402
from chunklab.llama_index import ChunklabNodeParser  # noqa: E402

REPEATED = ("## Artikel\n\nDe aanvraag wordt binnen acht weken behandeld.\n\n") * 6


def test_is_a_real_node_parser_with_exact_offsets_and_links(documents):
    parser = ChunklabNodeParser(strategy="headings", size=80)
    assert isinstance(parser, NodeParser)
    path = documents / "markdown" / "md_postgresql-15_catalogs-overview.md"
    text = path.read_text(encoding="utf-8")
    docs = [
        Document(text=text, metadata={"file_name": path.name}),
        Document(text=REPEATED, metadata={"file_name": "herhaald.md"}),
    ]
    nodes = parser.get_nodes_from_documents(docs)
    by_doc = {}
    for n in nodes:
        assert isinstance(n, TextNode)
        by_doc.setdefault(n.ref_doc_id, []).append(n)
    assert set(by_doc) == {d.doc_id for d in docs}
    for d in docs:
        ns = by_doc[d.doc_id]
        assert len(ns) > 1
        for i, n in enumerate(ns):
            assert d.text[n.start_char_idx:n.end_char_idx] == n.text
            assert n.relationships[NodeRelationship.SOURCE].node_id == d.doc_id
            assert n.metadata["file_name"] == d.metadata["file_name"]
            if i > 0:
                assert n.relationships[NodeRelationship.PREVIOUS].node_id == ns[i - 1].node_id
            else:
                assert NodeRelationship.PREVIOUS not in n.relationships
            if i + 1 < len(ns):
                assert n.relationships[NodeRelationship.NEXT].node_id == ns[i + 1].node_id
            else:
                assert NodeRelationship.NEXT not in n.relationships
    # Repeated sections: each node points at its own occurrence, in order.
    starts = [n.start_char_idx for n in by_doc[docs[1].doc_id]]
    assert starts == sorted(set(starts)) and len(starts) == 6
    assert by_doc[docs[0].doc_id][1].metadata["headings"]


def test_chunk_to_llama_index_matches_the_parser_fields():
    chunks = chunklab.chunk(REPEATED, source="herhaald.md", strategy="headings", size=80)
    nodes = [c.to_llama_index() for c in chunks]
    assert [n.node_id for n in nodes] == [c.id for c in chunks]
    assert nodes[1].relationships[NodeRelationship.PREVIOUS].node_id == chunks[0].id
    assert nodes[1].relationships[NodeRelationship.NEXT].node_id == chunks[2].id
    assert nodes[0].relationships[NodeRelationship.SOURCE].node_id == "herhaald.md"
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start_char, c.end_char) for c in chunks]


def test_takes_llama_index_chunk_size_and_names_it_in_errors():
    # LlamaIndex's SentenceSplitter(chunk_size=, chunk_overlap=) spelling works as size / overlap.
    text = "De raad besluit over windmolens. " * 40
    nodes = ChunklabNodeParser(strategy="recursive", chunk_size=100, chunk_overlap=20
                               ).get_nodes_from_documents([Document(text=text)])
    assert len(nodes) > 10
    assert all(len(n.text) <= 100 for n in nodes)
    same = ChunklabNodeParser(strategy="recursive", size=100, overlap=20
                              ).get_nodes_from_documents([Document(text=text)])
    assert [(n.text, n.start_char_idx) for n in nodes] == [(n.text, n.start_char_idx) for n in same]
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_overlap: 200 must be smaller"):
        ChunklabNodeParser(chunk_size=100, chunk_overlap=200)
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_size: give chunk_size or size"):
        ChunklabNodeParser(chunk_size=100, size=100)


def test_a_tokenizer_callable_is_counted_by_chunklab(tmp_path, monkeypatch):
    """LlamaIndex takes a tokenizer as a callable (len(tokenizer(text)) tokens); chunklab counts
    the same tokens in Rust: a Hugging Face tokenizer's encode with the special tokens it adds,
    a tokenizer object without them, tiktoken's encode by its encoding's name."""
    from pathlib import Path

    import tiktoken
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "home"))
    fixture = (Path(__file__).resolve().parents[2]
               / "chunklab-tokenizers" / "tests" / "fixtures" / "wordpiece-tokenizer.json")
    fast = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_file(str(fixture)))
    text = "windmolens op zee en op land voor de participatie van omwonenden " * 60
    by_encode = ChunklabNodeParser(strategy="fixed", chunk_size=30, tokenizer=fast.encode)
    nodes = by_encode.get_nodes_from_documents([Document(text=text)])
    with_special = [len(fast.encode(n.text)) for n in nodes]  # [CLS] … [SEP], as LlamaIndex counts
    assert len(nodes) > 10 and max(with_special) <= 30, with_special
    assert max(len(fast.tokenize(n.text)) for n in nodes) <= 28
    assert by_encode.chunklab_config["chunking"]["count_special"] is True
    by_object = ChunklabNodeParser(strategy="fixed", chunk_size=30, tokenizer=fast)
    plain = [len(fast.tokenize(n.text))
             for n in by_object.get_nodes_from_documents([Document(text=text)])]
    assert 29 <= max(plain) <= 30, plain
    # tiktoken's encode is recognised by its encoding's name (this Encoding is built offline
    # with a byte vocabulary and never called: chunklab counts with its own cl100k).
    enc = tiktoken.Encoding(name="cl100k_base", pat_str=r"\S+|\s+",
                            mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={})
    parser = ChunklabNodeParser(chunk_size=30, tokenizer=enc.encode)
    assert parser.chunklab_config["chunking"]["tokenizer"] == "cl100k"
    assert parser.chunker.unit == "cl100k"
    with pytest.raises(chunklab.ConfigError, match="^tokenizer: chunklab counts tokens itself"):
        ChunklabNodeParser(chunk_size=30, tokenizer=lambda t: t.split())
