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
from typing import Iterable, List, Union

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


def chunk_files(
    paths: Union[PathLike, Iterable[PathLike]], *, errors: str = "raise", **config
) -> List[Chunk]:
    """Chunk files and directories in parallel (the GIL released), as ``chunklab chunk``
    walks them, with ``chunk``'s keyword arguments. A document that cannot be read, parsed or
    chunked raises (``errors="raise"``, the first in input order), or with ``errors="warn"``
    is a ``UserWarning`` naming it while the other documents' chunks are returned."""
    return _chunklab.chunk_files(paths, errors=errors, **config)


# A builtin too: the keywords and their docstring are the extension's (see _chunklab.pyi).
parse = _chunklab.parse


_OPTIONS = _chunklab.options_doc()

chunk_files.__doc__ = f"""Chunk files and directories (walked recursively in sorted order; hidden
and .gitignored files skipped), in parallel with the GIL released, as ``chunklab chunk PATHS``.

Returns the chunks of every document, documents in input order. Binary files are skipped with
a warning; the first file that cannot be read or parsed raises :class:`ParseError` (after all
files were processed), a missing path ``FileNotFoundError``. Takes the keyword arguments of
:func:`chunk`.

{_OPTIONS}
"""

