"""LangChain integration: :class:`ChunklabTextSplitter`, a real
``langchain_text_splitters.TextSplitter`` backed by the chunklab pipeline.

Needs ``langchain-text-splitters`` (and ``langchain-core``): ``pip install chunklab[langchain]``.

    >>> from chunklab.langchain import ChunklabTextSplitter
    >>> splitter = ChunklabTextSplitter(strategy="recursive", chunk_size=512, chunk_overlap=64,
    ...                                 unit="tokens", tokenizer="cl100k", add_start_index=True)
    >>> docs = splitter.split_documents(loader.load())            # doctest: +SKIP

``start_index`` is the chunk's exact offset (chunklab keeps the span it cut), also where the same
text occurs more than once; LangChain's own ``add_start_index`` searches the text with
``str.find`` and can point at another occurrence. ``compat="langchain"`` reproduces
``RecursiveCharacterTextSplitter`` (strategy ``recursive``) and ``TokenTextSplitter``
(strategy ``fixed``) chunk for chunk.
"""

from __future__ import annotations

import copy
from typing import Any, List, Optional, Sequence, Union

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ImportError as e:  # pragma: no cover - exercised only without the optional package
    raise ImportError(
        "chunklab.langchain needs langchain-text-splitters: pip install 'chunklab[langchain]'"
    ) from e

from pydantic import model_validator

from . import Chunker, ConfigError
from ._spelled import ENCODINGS, build_chunker, hf_tokenizer_file, take_aliases

__all__ = ["ChunklabTextSplitter", "ChunklabRetriever"]

# LangChain's names for chunklab's keys; errors about them name LangChain's.
_LANGCHAIN_NAMES = {"chunk_size": "size", "chunk_overlap": "overlap"}

# OpenAI model names (prefixes, longest first) → their tiktoken encoding, as tiktoken maps them.
_MODEL_ENCODINGS = [
    ("gpt-4o", "o200k_base"), ("gpt-4.1", "o200k_base"), ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"), ("o1", "o200k_base"), ("o3", "o200k_base"), ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"), ("gpt-3.5", "cl100k_base"), ("gpt-35", "cl100k_base"),
    ("text-embedding-3", "cl100k_base"), ("text-embedding-ada-002", "cl100k_base"),
]


def _keep_separator(value: Union[bool, str, None]) -> Optional[str]:
    """LangChain's ``keep_separator`` (True = "start", False = drop) as chunklab's."""
    if value is None:
        return None
    if value is True:
        return "start"
    if value is False:
        return "none"
    return value


class ChunklabTextSplitter(TextSplitter):
    """A LangChain ``TextSplitter`` that cuts with chunklab.

    Takes LangChain's names (``chunk_size``, ``chunk_overlap``, ``separators``,
    ``is_separator_regex``, ``keep_separator``, ``encoding_name``, ``add_start_index``) and
    every chunklab option (``strategy``, ``unit``, ``tokenizer``, ``compat``, ``max_level``,
    ``title_prefix``, ... as in ``help(chunklab.chunk)``). ``chunk_size``/``chunk_overlap``
    are ``size``/``overlap`` in ``unit`` (chars unless ``unit``/``tokenizer``/``encoding_name``
    say tokens); unset, chunklab's defaults apply.

    ``page_content`` is what chunklab embeds: the chunk text, after its prefix when
    ``title_prefix`` is set. With ``add_start_index`` each document's metadata gets the
    chunk's exact ``start_index``; ``chunk_metadata=True`` adds chunklab's fields too
    (``headings``, ``page``, ``tokens``, ``chunk_id``, ...), without overwriting the
    document's own metadata.
    """

    def __init__(
        self,
        strategy: str = "recursive",
        chunk_size: Optional[int] = None,
        chunk_overlap: Optional[int] = None,
        *,
        add_start_index: bool = False,
        separators: Optional[Sequence[str]] = None,
        is_separator_regex: bool = False,
        keep_separator: Union[bool, str, None] = None,
        encoding_name: Optional[str] = None,
        chunk_metadata: bool = False,
        length_function: Any = None,
        **config: Any,
    ) -> None:
        # chunklab measures sizes itself, exactly; `len` is its default unit (chars: Python's
        # len counts the same code points), any other function it cannot call per chunk.
        if length_function is not None and length_function is not len:
            raise ConfigError(
                "length_function: chunklab measures sizes itself; give unit='chars' (what len "
                "counts, the default), unit='words', or unit='tokens' with tokenizer= (or "
                "encoding_name='cl100k_base' / 'o200k_base')"
            )
        config.update(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
        spelled = take_aliases(_LANGCHAIN_NAMES, config)
        if separators is not None:
            config["separators"] = list(separators)
        if is_separator_regex:
            config["regex_separators"] = True
        keep = _keep_separator(keep_separator)
        if keep is not None:
            config["keep_separator"] = keep
        if encoding_name is not None:
            if encoding_name not in ENCODINGS:
                raise ConfigError(
                    f"encoding_name: {encoding_name!r} is not supported; use one of "
                    + ", ".join(ENCODINGS)
                )
            config["tokenizer"] = ENCODINGS[encoding_name]
            config.setdefault("unit", "tokens")
        self._chunker = build_chunker(spelled, dict(config, strategy=strategy))
        chunking = self._chunker.config["chunking"]
        size = chunking.get("size") or 1
        overlap = min(chunking.get("overlap", 0), size)
        super().__init__(
            chunk_size=size,
            chunk_overlap=overlap,
            add_start_index=add_start_index,
        )
        self._chunk_metadata = chunk_metadata

    @classmethod
    def from_tiktoken_encoder(
        cls,
        encoding_name: str = "gpt2",
        model_name: Optional[str] = None,
        allowed_special: Any = frozenset(),
        disallowed_special: Any = "all",
        **kwargs: Any,
    ) -> "ChunklabTextSplitter":
        """LangChain's constructor for sizes in tiktoken tokens, counted by chunklab's own
        (offline) cl100k / o200k: ``encoding_name`` or an OpenAI ``model_name``. Special-token
        text such as ``<|endoftext|>`` is counted as ordinary text, as tiktoken does with
        ``disallowed_special=()``, and never refused; ``allowed_special`` (counting it as one
        token) is not supported."""
        if model_name is not None:
            encoding_name = next(
                (e for prefix, e in _MODEL_ENCODINGS if model_name.startswith(prefix)), None
            )
            if encoding_name is None:
                raise ConfigError(
                    f"model_name: {model_name!r} has no known tiktoken encoding here; give "
                    "encoding_name='cl100k_base' or 'o200k_base'"
                )
        if set(allowed_special):
            raise ConfigError(
                "allowed_special: chunklab counts special-token text such as <|endoftext|> as "
                "ordinary text (tiktoken's disallowed_special=()); leave allowed_special unset"
            )
        return cls(encoding_name=encoding_name, **kwargs)

    @classmethod
    def from_huggingface_tokenizer(cls, tokenizer: Any, **kwargs: Any) -> "ChunklabTextSplitter":
        """LangChain's constructor for sizes in a Hugging Face tokenizer's tokens. chunklab
        counts with the same tokenizer, in Rust, from its ``tokenizer.json``: a fast
        ``transformers`` tokenizer's ``backend_tokenizer`` or a ``tokenizers.Tokenizer``. The
        JSON is kept under chunklab's home (``$CHUNKLAB_HOME/tokenizers``, named by its hash),
        so a pickled splitter finds it again. Special tokens are not counted, as LangChain's
        ``tokenizer.tokenize`` does not count them."""
        kwargs.setdefault("unit", "tokens")
        return cls(tokenizer=hf_tokenizer_file(tokenizer), **kwargs)

    @property
    def chunker(self) -> Chunker:
        """The chunklab :class:`~chunklab.Chunker` doing the work."""
        return self._chunker

    def split_text(self, text: str) -> List[str]:
        """The chunks of ``text`` (their embedded content), in order."""
        return [c.content for c in self._chunker.chunk(text)]

    def create_documents(
        self, texts: List[str], metadatas: Optional[List[dict]] = None
    ) -> List[Document]:
        """One ``Document`` per chunk of each text, with the text's metadata (copied) and,
        with ``add_start_index``, the exact ``start_index``."""
        metadatas = metadatas or [{}] * len(texts)
        documents = []
        for text, meta in zip(texts, metadatas):
            # A loader's `source` (a file path) picks the parser by its extension.
            source = meta.get("source") if isinstance(meta.get("source"), str) else None
            for c in self._chunker.chunk(text, source):
                m = copy.deepcopy(meta)
                if self._chunk_metadata:
                    for k, v in c.metadata.items():
                        m.setdefault(k, v)
                if self._add_start_index:
                    m["start_index"] = c.start_char
                documents.append(Document(page_content=c.content, metadata=m))
        return documents


from langchain_core.callbacks import CallbackManagerForRetrieverRun  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402


class ChunklabRetriever(BaseRetriever):
    """A LangChain retriever over a chunklab index:
    ``ChunklabRetriever(index=chunklab.Index.open("./idx"), k=5, search_kwargs={"mode": "bm25"})``.
    ``search_kwargs`` takes every option of :meth:`chunklab.Index.search` (``mode``,
    ``rerank``, ``filter``, ...). Each hit becomes a ``Document`` with the hit's text as
    ``page_content`` and its other fields (``score``, ``doc_id``, ``chunk_id``, ``start_char``,
    ``headings``, ...) as metadata.
    """

    index: Any
    """A :class:`chunklab.Index`."""
    k: int = 10
    """Hits per query."""
    search_kwargs: dict = {}
    """Other options of :meth:`chunklab.Index.search`; ``k`` may be given here too, as
    LangChain's vector-store retrievers take it (``search_kwargs={"k": 4}``)."""

    @model_validator(mode="after")
    def _one_k(self) -> "ChunklabRetriever":
        if "k" in self.search_kwargs:
            k = self.search_kwargs["k"]
            if "k" in self.model_fields_set and k != self.k:
                raise ValueError(
                    f"k: given as k={self.k} and as search_kwargs['k']={k}; give one"
                )
            self.k = k
            self.search_kwargs = {n: v for n, v in self.search_kwargs.items() if n != "k"}
        return self

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> List[Document]:
        hits = self.index.search(query, k=self.k, **self.search_kwargs)
        return [
            Document(
                page_content=h["text"],
                metadata={k: v for k, v in h.items() if k != "text"},
                id=h.get("chunk_id"),
            )
            for h in hits
        ]
