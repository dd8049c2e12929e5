"""Every strategy through the Python API gives exactly the CLI's JSONL for the same input and
the same options (keyword arguments = flags). `llm` is not covered: it needs a local language
model (several hundred MB) the CI does not fetch."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import chunklab

from conftest import REPO, flags

# (strategy options, input relative to datasets/documents or the repository)
CASES = [
    ({"strategy": "recursive", "size": 300, "overlap": 30}, "markdown/md_python-3.11_library_numbers.md"),
    ({"strategy": "recursive", "size": 400, "overlap": 40, "compat": "langchain"}, "markdown/md_python-3.11_using_index.md"),
    ({"strategy": "recursive", "size": 200, "separators": ["\n\n", ". ", ""], "keep_separator": "end"}, "nl_verordening_parkeren.txt"),
    ({"strategy": "fixed", "size": 128, "overlap": 16, "unit": "tokens", "tokenizer": "cl100k"}, "markdown/md_postgresql-15_basic-archive.md"),
    ({"strategy": "fixed", "size": 100, "overlap": 10, "tokenizer": "cl100k", "compat": "langchain"}, "nl_verordening_parkeren.txt"),
    ({"strategy": "sliding", "size": 200, "stride": 120}, "nl_verordening_parkeren.txt"),
    ({"strategy": "sentence", "size": 300, "overlap": 1, "lang": "nl"}, "nl_verordening_parkeren.txt"),
    ({"strategy": "paragraph", "size": 400, "overlap": 1}, "markdown/md_django-3.2_topics_checks.md"),
    ({"strategy": "headings", "size": 512, "unit": "tokens", "tokenizer": "cl100k", "title_prefix": True}, "markdown/md_postgresql-15_catalogs-overview.md"),
    ({"strategy": "headings", "size": 300, "max_level": 2, "merge_siblings": True}, "markdown/md_django-3.2_releases_1.11.22.md"),
    ({"strategy": "elements", "size": 300, "unit": "words"}, "html/raadsbesluit.html"),
    ({"strategy": "elements", "size": 200}, "pdf/raadsbesluit.pdf"),
    ({"strategy": "elements", "size": 250}, "docx/raadsbesluit.docx"),
    ({"strategy": "code", "size": 600}, REPO / "crates/chunklab-python/src/config.rs"),
    ({"strategy": "hierarchical", "levels": [800, 200]}, "markdown/md_python-3.11_c-api_gen.md"),
    ({"strategy": "semantic", "size": 400, "model": "e5-small"}, "nl_verordening_parkeren.txt"),
    ({"strategy": "cluster", "size": 400, "model": "e5-small"}, "nl_verordening_parkeren.txt"),
    ({"strategy": "late", "size": 200, "model": "e5-small", "unit": "chars"}, "nl_verordening_parkeren.txt"),
]


def _path(documents: Path, rel) -> Path:
    p = rel if isinstance(rel, Path) else documents / rel
    assert p.is_file(), f"test input {p} is missing"
    return p


def _same(py: list, cli: list, what: str) -> None:
    assert len(py) == len(cli), f"{what}: {len(py)} chunks in Python, {len(cli)} from the CLI"
    for i, (a, b) in enumerate(zip(py, cli)):
        if "embedding" in b:
            # The CLI prints f32s in their shortest form; Python holds them widened to float.
            ea, eb = a.pop("embedding"), b.pop("embedding")
            assert [struct.pack("<f", x) for x in ea] == [struct.pack("<f", x) for x in eb], (
                f"{what}: chunk {i} embedding differs"
            )
        assert a == b, f"{what}: chunk {i} differs"
        assert list(a) == list(b), f"{what}: chunk {i} keys in another order"


@pytest.mark.parametrize("config,rel", CASES, ids=[c[0]["strategy"] + str(i) for i, c in enumerate(CASES)])
def test_chunk_files_equals_cli_jsonl(config, rel, documents, cli):
    path = _path(documents, rel)
    expected = cli([*flags(config), str(path)])
    got = [c.to_dict() for c in chunklab.chunk_files([str(path)], **config)]
    assert expected, "the CLI gave no chunks"
    _same(got, expected, f"{config['strategy']} {path.name}")


@pytest.mark.parametrize(
    "config,rel",
    [c for c in CASES if Path(str(c[1])).suffix in (".md", ".txt", ".rs")],
    ids=lambda x: x["strategy"] if isinstance(x, dict) else "",
)
def test_chunk_text_equals_cli_jsonl(config, rel, documents, cli):
    """A string with `source` = the file name is the file; without it, stdin."""
    path = _path(documents, rel)
    text = path.read_text(encoding="utf-8")
    expected = cli([*flags(config), str(path)])
    got = [c.to_dict() for c in chunklab.chunk(text, source=str(path), **config)]
    _same(got, expected, f"{config['strategy']} {path.name} (text)")
    from_stdin = cli([*flags(config), "-"], stdin=path.read_bytes())
    got = [c.to_dict() for c in chunklab.chunk(text, **config)]
    _same(got, from_stdin, f"{config['strategy']} {path.name} (stdin)")


def test_a_directory_is_walked_like_the_cli(documents, cli):
    d = documents / "markdown"
    config = {"strategy": "headings", "size": 400}
    expected = cli([*flags(config), str(d)])
    got = [c.to_dict() for c in chunklab.chunk_files(d, **config)]
    _same(got, expected, "markdown directory")
    assert len({c["doc_id"] for c in got}) == len(list(d.glob("*.md")))


def test_chunk_fields_and_offsets(documents):
    path = documents / "markdown" / "md_postgresql-15_catalogs-overview.md"
    text = path.read_text(encoding="utf-8")
    chunks = chunklab.chunk(text, source=path.name, strategy="headings", size=512, unit="tokens",
                            tokenizer="cl100k", title_prefix=True)
    assert len(chunks) > 1
    for c in chunks:
        assert text[c.start_char:c.end_char] == c.text
        assert len(c) == c.end_char - c.start_char
        assert c.unit == "cl100k" and c.tokens <= 512
        assert c.content == (c.prefix or "") + c.text
        d = c.to_dict()
        assert d["text"] == c.text and d["headings"] == c.headings
        assert c.metadata["start_index"] == c.start_char
    assert any(c.headings for c in chunks)
    r = repr(chunks[1])
    assert r.startswith("Chunk(#1 ") and "cl100k" in r


def test_to_langchain_equals_cli_langchain_format(documents, cli):
    import langchain_core  # noqa: F401  (the CI installs it: missing, the test fails)
    import json
    import subprocess

    from conftest import _cli_bin

    path = documents / "markdown" / "md_django-3.2_releases_1.11.22.md"
    config = {"strategy": "headings", "size": 300, "title_prefix": True}
    out = subprocess.run([str(_cli_bin()), "chunk", "-q", "-f", "langchain", *flags(config), str(path)],
                         capture_output=True, check=True).stdout.decode()
    expected = [json.loads(l) for l in out.splitlines()]
    got = [c.to_langchain() for c in chunklab.chunk_files(path, **config)]
    assert [(d.id, d.page_content, d.metadata) for d in got] == [
        (e["id"], e["page_content"], e["metadata"]) for e in expected
    ]


def test_parse_gives_elements(documents):
    doc = chunklab.parse(documents / "pdf" / "raadsbesluit.pdf")
    assert doc.format == "pdf" and doc.pages and doc.pages >= 1
    kinds = {e["kind"] for e in doc.elements}
    assert "paragraph" in kinds or "heading" in kinds, kinds
    for e in doc.elements:
        assert doc.text[e["start_char"]:e["end_char"]] == e["text"]
        assert e.get("page") is not None
    md = chunklab.parse(str(documents / "markdown" / "md_python-3.11_c-api_gen.md"))
    assert md.format == "markdown"
    assert any(e["kind"] == "heading" and e.get("level") for e in md.elements)
    assert md.to_dict()["elements"] == md.elements


def test_ocr_chunks_equal_cli_jsonl(documents, cli, tmp_path):
    """An image file is read by OCR (real tesseract): `ocr` / `ocr_confidence` equal the CLI's,
    in the dict, as attributes and in the framework metadata."""
    import shutil
    import subprocess

    for tool in ("pdftoppm", "tesseract"):
        assert shutil.which(tool), f"{tool} is missing (CI installs poppler-utils and tesseract-ocr)"
    pdf = _path(documents, "pdf/raadsbesluit.pdf")
    subprocess.run(
        ["pdftoppm", "-r", "200", "-png", "-singlefile", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "page")],
        check=True,
    )
    png = tmp_path / "page.png"
    config = {"strategy": "elements", "size": 300, "ocr_lang": "nld+eng", "ocr_preprocess": "none"}
    expected = cli([*flags(config), str(png)])
    chunks = chunklab.chunk_files([str(png)], **config)
    assert expected, "the CLI gave no chunks for the scanned page"
    _same([c.to_dict() for c in chunks], expected, "ocr page.png")
    assert all(c.ocr for c in chunks)
    for c in chunks:
        assert isinstance(c.ocr_confidence, float) and 0.0 < c.ocr_confidence <= 100.0
        assert c.ocr_confidence == round(c.ocr_confidence, 1)
        assert c.metadata["ocr"] is True and c.metadata["ocr_confidence"] == c.ocr_confidence
    text = chunklab.chunk("plain text, no OCR", strategy="recursive", size=100)[0]
    assert text.ocr is False and text.ocr_confidence is None
    assert "ocr" not in text.metadata and "ocr_confidence" not in text.metadata


def test_ocr_options_are_checked():
    with pytest.raises(chunklab.ConfigError, match="ocr"):
        chunklab.chunk("x", ocr="sometimes")
