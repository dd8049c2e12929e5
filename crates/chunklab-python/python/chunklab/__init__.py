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


# A builtin: its docstring (the strategy catalog) is made by the extension at import, and no
# Python frame re-packs the keyword arguments on every call.
chunk = _chunklab.chunk


def chunk_files(paths: Union[PathLike, Iterable[PathLike]], **config) -> List[Chunk]:
    return _chunklab.chunk_files(paths, **config)


def parse(
    path: PathLike,
    *,
    parser: Optional[str] = None,
    encoding: Optional[str] = None,
    lossy: bool = False,
    ocr: Optional[str] = None,
    ocr_lang: Optional[str] = None,
    ocr_min_confidence: Optional[float] = None,
    ocr_timeout: Optional[int] = None,
    ocr_preprocess: Optional[str] = None,
    max_elements: Optional[int] = None,
    max_expanded_mb: Optional[int] = None,
) -> Document:
    """Parse one file into its elements, as ``chunklab parse`` does.

    Returns a :class:`Document` with ``text`` (all offsets refer to it), ``format``,
    ``metadata``, ``pages``, ``warnings`` and ``elements``: dicts with ``kind``, ``start``/``end``
    (UTF-8 bytes), ``start_char``/``end_char``, ``page``, ``lines``, ``level`` (headings),
    ``symbol`` (code) and ``text``.

    ``parser`` forces a parser (text, markdown, rst, html, pdf, docx, odt, code or a language);
    ``encoding`` decodes text files from another encoding; ``lossy`` replaces invalid bytes.
    ``ocr`` ("auto": scanned pages and images, "always", "never"), ``ocr_lang`` ("nld+eng"),
    ``ocr_min_confidence`` (0-100), ``ocr_timeout`` (seconds a page) and ``ocr_preprocess``
    ("dpi,deskew,osd") are ``chunklab parse``'s OCR flags; ``max_elements`` and
    ``max_expanded_mb`` bound DOCX and ODT containers. ``None`` keeps the default.
    Raises ``OSError`` for a missing file and :class:`ParseError` for a file that cannot be
    parsed.
    """
    return _parse(
        path,
        parser=parser,
        encoding=encoding,
        lossy=lossy,
        ocr=ocr,
        ocr_lang=ocr_lang,
        ocr_min_confidence=ocr_min_confidence,
        ocr_timeout=ocr_timeout,
        ocr_preprocess=ocr_preprocess,
        max_elements=max_elements,
        max_expanded_mb=max_expanded_mb,
    )


_OPTIONS = _chunklab.options_doc()

chunk_files.__doc__ = f"""Chunk files and directories (walked recursively in sorted order; hidden
and .gitignored files skipped), in parallel with the GIL released, as ``chunklab chunk PATHS``.

Returns the chunks of every document, documents in input order. Binary files are skipped with
a warning; the first file that cannot be read or parsed raises :class:`ParseError` (after all
files were processed), a missing path ``FileNotFoundError``. Takes the keyword arguments of
:func:`chunk`.

{_OPTIONS}
"""

