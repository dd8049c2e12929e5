"""chunklab: chunkers, parsers and a hybrid index for RAG, from the chunklab Rust pipeline.

    >>> import chunklab
    >>> chunks = chunklab.chunk("# Besluit\\n\\nDe raad besluit.\\n", strategy="headings", size=200)
    >>> chunks[0].text, chunks[0].start_char, chunks[0].end_char, chunks[0].headings
    ('# Besluit\\n\\nDe raad besluit.\\n', 0, 27, ['Besluit'])

Every function takes the options of the ``chunklab`` command line as keyword arguments, spelled
with ``_`` for ``-`` and with the same defaults (``help(chunklab.chunk)`` lists them). Errors are
exceptions: :class:`ConfigError` (a ``ValueError``) for a bad parameter, :class:`ParseError` for
a file that cannot be read or parsed, ``OSError`` for a missing path.

Indexes: ``Index.create(path, model=..., lang=...)`` builds one (``add_files``, ``add_text``,
``commit``) with the pipeline ``chunklab index`` uses, ``Index.open(path)`` opens one, and
``search`` answers queries like ``chunklab search``; ``embed(texts, model=...)`` gives vectors.

Integrations (optional imports): :mod:`chunklab.langchain` (``ChunklabTextSplitter``, a real
``langchain_text_splitters.TextSplitter``) and :mod:`chunklab.llama_index`
(``ChunklabNodeParser``, a real ``llama_index.core`` ``NodeParser``).
"""

from __future__ import annotations

import os
from typing import Iterable, List, Optional, Union

from . import _chunklab
from ._chunklab import (
    Chunk,
    Chunker,
    ChunkError,
    ConfigError,
    Document,
    Index,
    IndexingError,
    ParseError,
    __version__,
    bench,
    config_keys,
    embed,
    queries_generate,
    strategies,
)
from ._chunklab import parse as _parse

__all__ = [
    "chunk",
    "chunk_files",
    "parse",
    "bench",
    "embed",
    "queries_generate",
    "strategies",
    "config_keys",
    "Chunk",
    "Chunker",
    "Document",
    "Index",
    "ConfigError",
    "ChunkError",
    "ParseError",
    "IndexingError",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


def chunk(text: str, source: Optional[PathLike] = None, **config) -> List[Chunk]:
    return _chunklab.chunk(text, source, **config)


def chunk_files(paths: Union[PathLike, Iterable[PathLike]], **config) -> List[Chunk]:
    return _chunklab.chunk_files(paths, **config)


def parse(
    path: PathLike,
    *,
    parser: Optional[str] = None,
    encoding: Optional[str] = None,
    lossy: bool = False,
) -> Document:
    """Parse one file into its elements, as ``chunklab parse`` does.

    Returns a :class:`Document` with ``text`` (all offsets refer to it), ``format``,
    ``metadata``, ``pages``, ``warnings`` and ``elements``: dicts with ``kind``, ``start``/``end``
    (UTF-8 bytes), ``start_char``/``end_char``, ``page``, ``lines``, ``level`` (headings),
    ``symbol`` (code) and ``text``.

    ``parser`` forces a parser (text, markdown, rst, html, pdf, docx, odt, code or a language);
    ``encoding`` decodes text files from another encoding; ``lossy`` replaces invalid bytes.
    Raises ``OSError`` for a missing file and :class:`ParseError` for a file that cannot be
    parsed.
    """
    return _parse(path, parser=parser, encoding=encoding, lossy=lossy)


def _options_doc() -> str:
    """The strategies and options, from the catalog the CLI prints (``chunklab strategies``)."""
    lines = ["Strategies (strategy=...):", ""]
    for s in strategies():
        lines.append(f"  {s['name']}: {s['summary']}")
        for p in s["params"]:
            lines.append(f"      {p['name']} (default {p['default']}): {p['help']}")
    lines += [
        "",
        "Keyword arguments (the CLI's flags with _ for -; defaults as the CLI):",
        "  " + ", ".join(config_keys()),
        "",
        "Besides the chunking keys: model, fetch (embedding model); parser, encoding, lossy,",
        "include, exclude (reading); llm, llm_no_cache, llm_concurrency (language model);",
        "context, context_prompt, context_max_tokens, context_fallback, context_doc_tokens",
        "(contextual retrieval). breakpoint_amount is the CLI's --percentile/--threshold;",
        "levels and separators are lists.",
    ]
    return "\n".join(lines)


_OPTIONS = _options_doc()

chunk.__doc__ = f"""Chunk a string with the chunklab pipeline.

``source`` is an optional file name: its extension picks the parser (``"a.md"``, ``"b.html"``)
and the chunks carry it as ``source`` and ``doc_id``; without it the content is sniffed as
``chunklab chunk -`` does with stdin (``doc_id`` "stdin", ``source`` "-").

Returns a list of :class:`Chunk` with ``text``, ``start_char``/``end_char`` (string indices:
``text[c.start_char:c.end_char] == c.text``), ``start_byte``/``end_byte``, ``tokens`` (size in
``unit``), ``headings``, ``page``, ``kind``, ... — the fields of ``chunklab chunk``'s JSONL
(``to_dict()`` gives them all). The pipeline for one configuration is built once and cached;
the GIL is released while chunking.

Raises :class:`ConfigError` (``ValueError``) for a bad parameter, naming it, and
:class:`ChunkError` when the text cannot be cut with the configuration.

{_OPTIONS}
"""

chunk_files.__doc__ = f"""Chunk files and directories (walked recursively in sorted order; hidden
and .gitignored files skipped), in parallel with the GIL released, as ``chunklab chunk PATHS``.

Returns the chunks of every document, documents in input order. Binary files are skipped with
a warning; the first file that cannot be read or parsed raises :class:`ParseError` (after all
files were processed), a missing path ``FileNotFoundError``. Takes the keyword arguments of
:func:`chunk`.

{_OPTIONS}
"""

