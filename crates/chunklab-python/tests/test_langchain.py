"""chunklab.langchain.ChunklabTextSplitter against the real langchain-text-splitters: the
golden cases (RecursiveCharacterTextSplitter, its tiktoken form and TokenTextSplitter) give
identical page_content with compat="langchain", and start_index is exact on repeated text where
LangChain's own add_start_index is not."""

from __future__ import annotations

import json

import pytest

# The CI installs langchain-text-splitters from PyPI: missing, these tests fail, never skip.
from langchain_core.documents import Document  # noqa: E402
from langchain_text_splitters import RecursiveCharacterTextSplitter, TextSplitter  # noqa: E402

import chunklab  # noqa: E402
from chunklab.langchain import ChunklabTextSplitter  # noqa: E402

SPLITTERS = {
    "RecursiveCharacterTextSplitter": "recursive",
    "RecursiveCharacterTextSplitter.from_tiktoken_encoder": "recursive",
    "TokenTextSplitter": "fixed",
}


def _cases(shared):
    for line in (shared / "golden" / "langchain" / "cases.jsonl").read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            if case["splitter"] in SPLITTERS:
                yield case


def _splitter(case) -> ChunklabTextSplitter:
    p = dict(case["params"])
    # LangChain's TextSplitter defaults where a case leaves them out.
    p.setdefault("chunk_size", 4000)
    p.setdefault("chunk_overlap", 200)
    return ChunklabTextSplitter(strategy=SPLITTERS[case["splitter"]], compat="langchain", **p)


def test_is_a_real_langchain_text_splitter():
    s = ChunklabTextSplitter(chunk_size=100, chunk_overlap=10)
    assert isinstance(s, TextSplitter)
    assert s._chunk_size == 100 and s._chunk_overlap == 10


def test_golden_cases_give_identical_page_content(shared):
    inputs = shared / "golden" / "langchain" / "inputs"
    n = 0
    failures = []
    for case in _cases(shared):
        text = (inputs / case["input"]).read_bytes().decode("utf-8")
        got = _splitter(case).split_text(text)
        want = [c["text"] for c in case["chunks"]]
        if got != want:
            failures.append(f"{case['input']} {case['splitter']} {case['params']}")
        n += 1
    assert n == 220, f"expected the 220 golden cases, found {n}"
    assert not failures, "\n".join(failures)


def test_create_documents_and_split_documents_with_exact_start_index(shared):
    case = next(c for c in _cases(shared) if c["params"] == {"chunk_size": 500, "chunk_overlap": 50})
    text = (shared / "golden" / "langchain" / "inputs" / case["input"]).read_bytes().decode("utf-8")
    s = ChunklabTextSplitter(chunk_size=500, chunk_overlap=50, compat="langchain", add_start_index=True)
    docs = s.create_documents([text], metadatas=[{"source": case["input"]}])
    assert [d.page_content for d in docs] == [c["text"] for c in case["chunks"]]
    for d in docs:
        assert d.metadata["source"] == case["input"]
        i = d.metadata["start_index"]
        assert text[i:i + len(d.page_content)] == d.page_content
    split = s.split_documents([Document(page_content=text, metadata={"source": "x"})])
    assert [(d.page_content, d.metadata["start_index"]) for d in split] == [
        (d.page_content, d.metadata["start_index"]) for d in docs
    ]
    transformed = s.transform_documents([Document(page_content=text)])
    assert [d.page_content for d in transformed] == [d.page_content for d in docs]


# Repeated paragraphs where LangChain's `text.find(chunk, previous + advance - overlap)` lands on
# another occurrence of the chunk text (found by comparing the two on random repetitive texts).
REPEATED = (
    "Artikel 1\n\nArtikel 1\n\nDe raad besluit. De raad besluit.\nDe raad besluit.\nArtikel 1\n\n"
    "Artikel 1\n\nArtikel 1\nDe raad besluit.\nDe raad besluit.\nDe raad besluit. Artikel 1\n"
    "De raad besluit.\nArtikel 1\n\nArtikel 1\n\nArtikel 1\n\nDe raad besluit.\nArtikel 1 Artikel 1 "
    "Artikel 1\n\nDe raad besluit. Artikel 1 De raad besluit.\nDe raad besluit.\n\nArtikel 1\n"
)


def test_start_index_is_right_on_repeated_paragraphs_where_langchains_is_wrong():
    kw = dict(chunk_size=28, chunk_overlap=26, add_start_index=True)
    ours = ChunklabTextSplitter(compat="langchain", **kw).create_documents([REPEATED])
    theirs = RecursiveCharacterTextSplitter(**kw).create_documents([REPEATED])
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]
    ours_starts = [d.metadata["start_index"] for d in ours]
    theirs_starts = [d.metadata["start_index"] for d in theirs]
    # chunklab's offsets are the spans it cut (the same spans chunklab.chunk reports) ...
    spans = chunklab.chunk(REPEATED, strategy="recursive", compat="langchain", size=28, overlap=26)
    assert ours_starts == [c.start_char for c in spans]
    for d, i in zip(ours, ours_starts):
        assert REPEATED[i:i + len(d.page_content)] == d.page_content
    assert ours_starts == sorted(ours_starts)
    # ... while LangChain's str.find lands on other occurrences of the same text.
    wrong = [(a, b) for a, b in zip(theirs_starts, ours_starts) if a != b]
    assert wrong, "LangChain got every start right; the case proves nothing"
    for (a, _), d in zip(wrong, [d for d, a, b in zip(theirs, theirs_starts, ours_starts) if a != b]):
        assert REPEATED[a:a + len(d.page_content)] == d.page_content


def test_native_strategies_and_token_units():
    s = ChunklabTextSplitter(strategy="headings", chunk_size=64, unit="tokens", tokenizer="cl100k",
                             add_start_index=True, chunk_metadata=True, title_prefix=True)
    text = "# Besluit\n\nDe raad besluit.\n\n## Artikel 1\n\nWindmolens op zee worden toegestaan.\n"
    docs = s.create_documents([text], [{"source": "besluit.md"}])
    assert docs[-1].metadata["headings"] == ["Besluit", "Artikel 1"]
    assert docs[-1].metadata["source"] == "besluit.md"
    assert docs[-1].page_content.startswith("Besluit > Artikel 1")
    i = docs[-1].metadata["start_index"]
    assert text[i:].startswith("## Artikel 1")
    with pytest.raises(ValueError, match="overlap"):
        ChunklabTextSplitter(strategy="headings", chunk_size=100, chunk_overlap=10)


def test_errors_name_langchains_keywords():
    # A LangChain user wrote chunk_size / chunk_overlap: the error says so, not size / overlap.
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_overlap: 200 must be smaller"):
        ChunklabTextSplitter(chunk_size=100, chunk_overlap=200)
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_size: must be at least 1"):
        ChunklabTextSplitter(chunk_size=0)
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_overlap: invalid value"):
        ChunklabTextSplitter(chunk_size=100, chunk_overlap=-1)
    # chunklab's own spelling keeps chunklab's name, and both at once is refused.
    with pytest.raises(chunklab.ConfigError, match=r"^overlap: 200 must be smaller"):
        ChunklabTextSplitter(size=100, overlap=200)
    with pytest.raises(chunklab.ConfigError, match=r"^chunk_size: give chunk_size or size"):
        ChunklabTextSplitter(chunk_size=100, size=200)
    assert ChunklabTextSplitter(size=50)._chunk_size == 50


def test_from_tiktoken_encoder_counts_with_chunklabs_own_encodings():
    text = "De raad besluit over windmolens op zee en op land. " * 60
    direct = ChunklabTextSplitter(encoding_name="cl100k_base", chunk_size=40, chunk_overlap=5)
    via = ChunklabTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base", chunk_size=40, chunk_overlap=5)
    assert via.split_text(text) == direct.split_text(text)
    assert len(via.split_text(text)) > 10
    by_model = ChunklabTextSplitter.from_tiktoken_encoder(model_name="gpt-4o", chunk_size=40)
    assert by_model.chunker.config["chunking"]["tokenizer"] == "o200k", by_model.chunker.config
    with pytest.raises(chunklab.ConfigError, match="^encoding_name: 'gpt2' is not supported"):
        ChunklabTextSplitter.from_tiktoken_encoder(chunk_size=40)  # LangChain's default, gpt2
    with pytest.raises(chunklab.ConfigError, match="^model_name: 'davinci'"):
        ChunklabTextSplitter.from_tiktoken_encoder(model_name="davinci", chunk_size=40)
    # Special-token text is ordinary text, as with tiktoken's disallowed_special=().
    assert ChunklabTextSplitter.from_tiktoken_encoder(
        encoding_name="cl100k_base", disallowed_special=(), chunk_size=40
    ).split_text("a <|endoftext|> b") == ["a <|endoftext|> b"]
    with pytest.raises(chunklab.ConfigError, match="^allowed_special"):
        ChunklabTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base", allowed_special="all", chunk_size=40)
    # A length function: len is chunklab's default unit; any other is refused, not ignored.
    assert ChunklabTextSplitter(length_function=len, chunk_size=50).split_text(text) == \
        ChunklabTextSplitter(chunk_size=50).split_text(text)
    with pytest.raises(chunklab.ConfigError, match="^length_function: chunklab measures sizes"):
        ChunklabTextSplitter(length_function=lambda t: len(t.split()), chunk_size=50)


def test_from_huggingface_tokenizer_counts_with_the_same_tokenizer(tmp_path, monkeypatch):
    """A real transformers fast tokenizer (built offline from a tokenizer.json, as
    AutoTokenizer builds one) gives chunk texts equal to LangChain's own
    from_huggingface_tokenizer with compat="langchain", counted in Rust."""
    import pickle
    from pathlib import Path

    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "home"))
    fixture = (Path(__file__).resolve().parents[2]
               / "chunklab-tokenizers" / "tests" / "fixtures" / "wordpiece-tokenizer.json")
    fast = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_file(str(fixture)))
    text = ("The council passed the motion on wind energy.\n\nDe raad besluit over "
            "windmolens op zee en op land, en over de participatie van omwonenden. ") * 30
    theirs = RecursiveCharacterTextSplitter.from_huggingface_tokenizer(
        fast, chunk_size=30, chunk_overlap=5).split_text(text)
    ours = ChunklabTextSplitter.from_huggingface_tokenizer(
        fast, chunk_size=30, chunk_overlap=5, compat="langchain")
    assert ours.split_text(text) == theirs and len(theirs) > 20
    # chunklab's own recursive splitting in the same tokens: every chunk within the size.
    own = ChunklabTextSplitter.from_huggingface_tokenizer(fast, chunk_size=30, chunk_overlap=5)
    counts = [len(fast.tokenize(c)) for c in own.split_text(text)]
    assert max(counts) <= 30 and min(counts) > 0, counts
    # The tokenizer's JSON is kept under chunklab's home, named by its hash, and a pickled
    # splitter finds it again; a tokenizers.Tokenizer works as well as a transformers one.
    kept = Path(own.chunker.config["chunking"]["tokenizer"])
    assert kept.parent == tmp_path / "home" / "tokenizers" and kept.is_file()
    assert pickle.loads(pickle.dumps(own)).split_text(text) == own.split_text(text)
    raw = ChunklabTextSplitter.from_huggingface_tokenizer(
        fast.backend_tokenizer, chunk_size=30, chunk_overlap=5)
    assert raw.split_text(text) == own.split_text(text)
    with pytest.raises(chunklab.ConfigError, match="^tokenizer: object has no tokenizer.json"):
        ChunklabTextSplitter.from_huggingface_tokenizer(object(), chunk_size=30)
    # A home where nothing can be written: the error names the file and what to set.
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "file" / "home"))
    with pytest.raises(OSError, match="cannot write .*set CHUNKLAB_HOME to a writable directory"):
        ChunklabTextSplitter.from_huggingface_tokenizer(fast, chunk_size=30)
