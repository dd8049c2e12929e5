"""Bad inputs raise Python exceptions with the message the CLI would print — never a crash."""

from __future__ import annotations

import pytest

import chunklab

from conftest import flags, run_cli


def test_a_parameter_the_strategy_does_not_take_names_it_and_the_takers():
    with pytest.raises(chunklab.ConfigError) as e:
        chunklab.chunk("tekst", strategy="headings", overlap=50)
    msg = str(e.value)
    assert msg.startswith("overlap: does not apply to strategy `headings`"), msg
    assert "recursive" in msg
    assert isinstance(e.value, ValueError)


def test_the_message_is_the_clis(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("tekst")
    with pytest.raises(AssertionError) as cli_err:
        run_cli([*flags({"strategy": "headings", "overlap": 50}), str(p)])
    with pytest.raises(ValueError) as py_err:
        chunklab.chunk_files(p, strategy="headings", overlap=50)
    # CLI: "--overlap does not apply ..."; Python: "overlap: does not apply ...".
    tail = str(py_err.value).split(": ", 1)[1]
    assert tail in str(cli_err.value)


@pytest.mark.parametrize(
    "kwargs,param",
    [
        ({"strategy": "nope"}, "strategy"),
        ({"size": 0}, "size"),
        ({"size": -5}, "size"),
        ({"size": "groot"}, "size"),
        ({"unit": "lightyears"}, "unit"),
        ({"unit": "chars", "tokenizer": "cl100k"}, "tokenizer"),
        ({"separators": []}, "separators"),
        ({"strategy": "hierarchical", "levels": []}, "levels"),
        ({"compat": "llamaindex"}, "compat"),
        ({"parser": "excel"}, "parser"),
        ({"lang": "klingon"}, "lang"),
        ({"strategy": "semantic", "model": "no-such-model-anywhere"}, None),
        ({"context_max_tokens": 10}, "context"),
        ({"context": "header", "context_max_tokens": 0}, "context_max_tokens"),
        ({"llm_concurrency": 0}, "llm_concurrency"),
    ],
)
def test_bad_parameters_raise_value_error(kwargs, param):
    with pytest.raises(ValueError) as e:
        chunklab.chunk("Een tekst.", **kwargs)
    if param:
        assert param in str(e.value), str(e.value)


def test_a_bad_glob_is_named_by_its_keyword(documents):
    with pytest.raises(chunklab.ConfigError, match="^include: `\\[` is not a glob"):
        chunklab.chunk_files([documents], include=["["])
    with pytest.raises(chunklab.ConfigError, match="^exclude: `a{b` is not a glob"):
        chunklab.chunk_files([documents], exclude=["a{b"])


def test_an_unknown_tokenizer_is_named_by_its_keyword():
    with pytest.raises(chunklab.ConfigError, match="^tokenizer: `gpt9` is unknown: use cl100k"):
        chunklab.chunk("Een tekst.", unit="tokens", tokenizer="gpt9")


def test_a_wrong_number_is_told_in_python_words(tmp_path):
    with pytest.raises(chunklab.ConfigError,
                       match="^overlap: invalid value: integer `-1`, expected a whole number, 0 or more$"):
        chunklab.chunk("Een tekst.", overlap=-1)
    with pytest.raises(chunklab.ConfigError, match="^size: .*`2.5`, expected a whole number"):
        chunklab.chunk("Een tekst.", size=2.5)
    # A missing tokenizer file is told as a path, not as an unknown name.
    missing = tmp_path / "tokenizer.json"
    with pytest.raises(chunklab.ConfigError, match=f"^tokenizer: cannot load {missing}: no such file"):
        chunklab.chunk("Een tekst.", unit="tokens", tokenizer=str(missing))


def test_values_a_strategy_refuses_name_the_keyword():
    """Checks a strategy makes when it is built (overlap below the size, a stride that skips
    nothing) are ConfigErrors that start with the keyword, as the CLI's start with the flag."""
    for kwargs, msg in [
        ({"size": 10, "overlap": 10}, "overlap: 10 must be smaller than the size, 10"),
        ({"strategy": "fixed", "size": 10, "overlap": 12}, "overlap: 12 must be smaller than the size, 10"),
        ({"strategy": "sliding", "size": 10, "stride": 11}, "stride: 11 is larger than the size, 10"),
        ({"strategy": "sliding", "size": 10, "stride": 0}, "stride: must be at least 1"),
    ]:
        with pytest.raises(chunklab.ConfigError) as e:
            chunklab.chunk("Een tekst.", **kwargs)
        assert str(e.value).startswith(msg), (kwargs, str(e.value))


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="chunk_sise"):
        chunklab.chunk("tekst", chunk_sise=10)
    with pytest.raises(TypeError):
        chunklab.chunk(123)
    with pytest.raises(ValueError):
        chunklab.chunk("tekst", size=object())


def test_missing_files_and_bad_files(tmp_path, documents):
    with pytest.raises(FileNotFoundError, match="nope.md"):
        chunklab.chunk_files([str(tmp_path / "nope.md")])
    with pytest.raises(FileNotFoundError):
        chunklab.parse(tmp_path / "nope.pdf")
    bad = tmp_path / "kapot.pdf"
    bad.write_bytes(b"%PDF-1.7\n this is not a pdf at all")
    with pytest.raises(chunklab.ParseError, match="kapot.pdf"):
        chunklab.parse(bad)
    with pytest.raises(chunklab.ParseError, match="kapot.pdf"):
        chunklab.chunk_files([bad, documents / "nl_verordening_parkeren.txt"])
    zipbomb = tmp_path / "leeg.docx"
    zipbomb.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(chunklab.ParseError, match="leeg.docx"):
        chunklab.chunk_files(zipbomb)


def test_undecodable_files_name_python_keywords(tmp_path):
    """Bytes that are not UTF-8 (or UTF-16 with its mark) are refused naming the file and the
    keyword arguments that read them, not the command line's flags."""
    latin = tmp_path / "brief.txt"
    latin.write_bytes("Geachte heer, één besluit.".encode("latin-1"))
    for call in (lambda: chunklab.parse(latin), lambda: chunklab.chunk_files([latin])):
        with pytest.raises(chunklab.ParseError, match="brief.txt: not valid UTF-8 at byte") as bad:
            call()
        msg = str(bad.value)
        assert 'encoding="LABEL"' in msg and "lossy=True" in msg and "--" not in msg, msg
    idx = chunklab.Index.create(tmp_path / "idx", model="minilm")
    with pytest.raises(chunklab.ParseError, match="brief.txt: not valid UTF-8 at byte") as bad:
        idx.add_files([latin])
    assert "lossy=True" in str(bad.value) and "--" not in str(bad.value), bad.value
    idx.close()
    assert "één" in chunklab.parse(latin, encoding="latin1").text
    wide = tmp_path / "wide.txt"
    wide.write_bytes("\ufeffHallo".encode("utf-16-le"))
    with pytest.raises(chunklab.ParseError, match='pass encoding="utf-16le" or encoding="utf-16be"'):
        chunklab.parse(wide)


def test_parse_takes_the_cli_s_ocr_keywords(tmp_path, documents):
    """parse() takes `chunklab parse`'s OCR flags as keywords (real Tesseract on a page of a
    real PDF rendered by pdftoppm), and OCR turned off is refused in Python's words."""
    import subprocess

    pdf = documents / "pdf" / "raadsbesluit.pdf"
    subprocess.run(
        ["pdftoppm", "-r", "150", "-gray", "-png", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "p")],
        check=True,
    )
    (png,) = tmp_path.glob("p*.png")
    with pytest.raises(chunklab.ParseError, match=r"OCR is off \(ocr=\"never\"\)") as off:
        chunklab.parse(png, ocr="never")
    assert png.name in str(off.value) and "--" not in str(off.value), off.value
    with pytest.raises(chunklab.ParseError, match=r'ocr="never"'):
        chunklab.chunk_files([png], ocr="never")
    with pytest.raises(chunklab.ConfigError, match="^ocr: unknown variant `sometimes`"):
        chunklab.parse(png, ocr="sometimes")
    with pytest.raises(TypeError, match="ocrr"):
        chunklab._chunklab.parse(png, ocrr="auto")
    doc = chunklab.parse(png, ocr_lang="nld", ocr_min_confidence=99.5)
    assert doc.metadata["ocr"] == "tesseract nld", doc.metadata
    assert "windenergie" in doc.text.lower(), doc.text[:300]
    assert any("low OCR confidence (below 99.5)" in w for w in doc.warnings), doc.warnings


def test_chunk_files_can_warn_and_go_on(tmp_path, documents):
    """One bad file in a folder raises by default; errors="warn" warns naming it and returns the
    other documents' chunks, as `chunklab chunk` reports and goes on."""
    good = documents / "nl_verordening_parkeren.txt"
    bad = tmp_path / "kapot.pdf"
    bad.write_bytes(b"%PDF-1.7\n this is not a pdf at all")
    with pytest.raises(chunklab.ParseError, match="kapot.pdf"):
        chunklab.chunk_files([bad, good])
    with pytest.warns(UserWarning, match="kapot.pdf") as seen:
        chunks = chunklab.chunk_files([bad, good], errors="warn")
    assert chunks and {c.doc_id for c in chunks} == {str(good)}
    assert any("kapot.pdf" in str(w.message) for w in seen)
    with pytest.warns(UserWarning, match="kapot.pdf"):
        assert chunklab.Chunker(size=500).chunk_files([bad, good], errors="warn")
    with pytest.raises(chunklab.ConfigError, match='^errors: `ignore`: give "raise"'):
        chunklab.chunk_files([good], errors="ignore")


def test_binary_files_are_skipped_with_a_warning(tmp_path):
    b = tmp_path / "blob.bin"
    b.write_bytes(b"\x00\x01\x02" * 100)
    t = tmp_path / "a.txt"
    t.write_text("Hallo wereld.")
    with pytest.warns(UserWarning, match="binary"):
        chunks = chunklab.chunk_files(tmp_path)
    assert [c.doc_id for c in chunks] == ["a.txt"]


def test_a_size_below_one_char_is_a_chunk_error():
    with pytest.raises(chunklab.ChunkError):
        chunklab.chunk("🦀🦀🦀 krab", strategy="fixed", size=1, unit="tokens", tokenizer="cl100k")


@pytest.mark.parametrize(
    "text",
    ["", " ", "\x00\x00", "a" * 10, "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
     "# " * 5000, "```\n" * 3000, "<html><body>" * 2000, "%PDF-1.4", "\u200b" * 1000],
)
@pytest.mark.parametrize("strategy", ["recursive", "headings", "elements", "sentence", "code"])
def test_odd_texts_never_crash(text, strategy):
    try:
        chunks = chunklab.chunk(text, strategy=strategy, size=50)
    except (ValueError, chunklab.ParseError):
        return
    for c in chunks:
        assert text[c.start_char:c.end_char] == c.text


def test_lone_surrogates_raise():
    with pytest.raises(UnicodeEncodeError):
        chunklab.chunk("a\ud800b")


def test_the_call_takes_its_arguments_by_position_or_keyword():
    text = "# Kop\n\nEen alinea.\n"
    by_position = [c.to_dict() for c in chunklab.chunk(text, "a.md", strategy="headings", size=100)]
    by_keyword = [c.to_dict() for c in chunklab.chunk(source="a.md", text=text, strategy="headings", size=100)]
    assert by_position == by_keyword and by_position[0]["source"] == "a.md"
    assert chunklab.chunk(text, None, size=100)[0].source == "-"
    with pytest.raises(TypeError, match="text"):
        chunklab.chunk(size=100)
    with pytest.raises(TypeError, match="multiple values"):
        chunklab.chunk(text, text=text)
    with pytest.raises(TypeError, match="positional"):
        chunklab.chunk(text, "a.md", "b.md")
    with pytest.raises(TypeError, match="bytes"):
        chunklab.chunk(b"bytes")


def test_a_repeated_call_reuses_its_chunker_only_for_the_same_values():
    # The last call's keyword arguments are remembered; a value that is equal in Python but of
    # another type (2000.0 == 2000, True == 1) must still be checked and refused.
    assert chunklab.chunk("tekst " * 50, strategy="recursive", size=2000)
    with pytest.raises(ValueError, match="size"):
        chunklab.chunk("tekst", strategy="recursive", size=2000.0)
    assert chunklab.chunk("tekst", strategy="recursive", size=20, separators=["\n", " "])
    with pytest.raises(ValueError, match="separators"):
        chunklab.chunk("tekst", strategy="recursive", size=20, separators=["\n", 1])
    a = [c.end_char for c in chunklab.chunk("tekst " * 50, strategy="recursive", size=40)]
    b = [c.end_char for c in chunklab.chunk("tekst " * 50, strategy="recursive", size=41)]
    assert a != b


def test_a_list_changed_after_a_call_is_not_taken_for_the_old_one():
    text = "een twee drie vier vijf zes zeven acht negen tien " * 4
    seps = ["\n"]
    first = [c.end_char for c in chunklab.chunk(text, strategy="recursive", size=20, separators=seps)]
    seps.append(" ")
    second = [c.end_char for c in chunklab.chunk(text, strategy="recursive", size=20, separators=seps)]
    fresh = [c.end_char for c in chunklab.chunk(text, strategy="recursive", size=20, separators=["\n", " "])]
    assert second == fresh and second != first
