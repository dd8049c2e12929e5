"""`chunklab.chunk(text)` on plain text with a strategy that reads only locations takes a
shorter path (no heading/list detection, ids computed when read). It must give exactly what the
CLI gives for the same bytes on stdin, on the inputs where such a path could slip: a byte order
mark, form feeds (pages), CRLF, odd whitespace, non-ASCII text and whitespace-only text; and its
lazily computed ids, previous_id and next_id must be the ids the CLI writes."""

from __future__ import annotations

import pytest

import chunklab

from conftest import flags

TEXTS = {
    "bom": "\ufeffHoofdstuk 1\n\nDe raad besluit het volgende over windenergie.\n\n- een\n- twee\n" * 20,
    "form_feeds": "Pagina een met tekst.\n\x0cPagina twee, café ☃.\n\n\x0c3 Resultaten\nZie tabel.\n" * 15,
    "crlf": "ALGEMENE BEPALINGEN\r\n\r\nArtikel 1\r\nIn deze verordening wordt verstaan onder:\r\n" * 25,
    "odd_whitespace": "\u00a0\u3000 woord \u001c\n\n\t tekst\u2003met\u00a0spaties \n" * 30,
    "non_ascii": "Ærøskøbing 😀 — één twee drie. Üñíçødé tekst over windenergie.\n\n" * 40,
    "whitespace_only": " \n\t\n\u00a0\n",
    "empty_lines_then_text": "\n\n\n   x",
}

CONFIGS = [
    {"strategy": "recursive", "size": 120, "overlap": 20},
    {"strategy": "fixed", "size": 90, "overlap": 10},
    {"strategy": "sentence", "size": 150},
    {"strategy": "paragraph", "size": 40, "unit": "words"},
    {"strategy": "sliding", "size": 100, "stride": 60},
]


@pytest.mark.parametrize("name", sorted(TEXTS))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c["strategy"])
def test_plain_text_equals_cli_stdin(name, config, cli, tmp_path):
    text = TEXTS[name]
    expected = cli([*flags(config), "-"], stdin=text.encode("utf-8"))
    got = [c.to_dict() for c in chunklab.chunk(text, **config)]
    assert got == expected, f"{config['strategy']} on {name}"
    # As a .txt file too (the extension picks the text parser, not sniffing).
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    expected = cli([*flags(config), str(path)])
    got = [c.to_dict() for c in chunklab.chunk(text, source=str(path), **config)]
    assert got == expected, f"{config['strategy']} on {name} as a.txt"


def test_lazy_ids_and_neighbours_are_the_cli_ids(cli):
    text = TEXTS["non_ascii"]
    config = {"strategy": "recursive", "size": 200, "overlap": 30}
    ids = [r["id"] for r in cli([*flags(config), "-"], stdin=text.encode("utf-8"))]
    chunks = chunklab.chunk(text, **config)
    assert len(ids) > 3
    assert [c.id for c in chunks] == ids
    assert [c.previous_id for c in chunks] == [None, *ids[:-1]]
    assert [c.next_id for c in chunks] == [*ids[1:], None]
    # Read in another order (ids are computed when read, never cached wrongly).
    assert [c.id for c in reversed(chunks)] == ids[::-1]


def test_the_same_string_twice_and_bad_strings():
    """The text's UTF-8 form is CPython's cached one: a second call on the same `str` gives the
    same chunks; a `str` with lone surrogates raises like any UTF-8 encoding of it."""
    text = TEXTS["non_ascii"]
    first = [c.to_dict() for c in chunklab.chunk(text, strategy="recursive", size=100)]
    assert first == [c.to_dict() for c in chunklab.chunk(text, strategy="recursive", size=100)]
    with pytest.raises(UnicodeEncodeError):
        chunklab.chunk("a\udc80b", strategy="recursive")
    with pytest.raises(UnicodeEncodeError):
        chunklab.Chunker(strategy="fixed", size=10).chunk("a\udc80b")
    with pytest.raises(TypeError):
        chunklab.chunk(b"bytes are not text")
