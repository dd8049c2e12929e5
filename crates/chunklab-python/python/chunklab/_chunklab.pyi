"""Type stubs of the chunklab extension module (chunklab._chunklab)."""

import os
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

_Path = Union[str, "os.PathLike[str]"]

__version__: str

class ConfigError(ValueError):
    """A chunklab parameter is wrong; the message starts with the keyword's name."""

class ChunkError(ValueError):
    """A document could not be chunked with the configuration."""

class ParseError(Exception):
    """A document could not be read or parsed; the message names the file."""

class IndexingError(Exception):
    """A chunklab index could not be created, opened, written or searched."""

class Chunk:
    """One chunk: a span of its document's text with metadata (the JSONL fields)."""

    @property
    def text(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def start_byte(self) -> int: ...
    @property
    def end_byte(self) -> int: ...
    @property
    def start_char(self) -> int: ...
    @property
    def end_char(self) -> int: ...
    @property
    def tokens(self) -> int: ...
    @property
    def unit(self) -> str: ...
    @property
    def strategy(self) -> str: ...
    @property
    def headings(self) -> List[str]: ...
    @property
    def page(self) -> Optional[int]: ...
    @property
    def page_end(self) -> Optional[int]: ...
    @property
    def lines(self) -> Optional[Tuple[int, int]]: ...
    @property
    def kind(self) -> Optional[str]: ...
    @property
    def symbol(self) -> Optional[str]: ...
    @property
    def language(self) -> Optional[str]: ...
    @property
    def level(self) -> Optional[int]: ...
    @property
    def parent_id(self) -> Optional[str]: ...
    @property
    def prefix(self) -> Optional[str]: ...
    @property
    def context(self) -> Optional[str]: ...
    @property
    def embedding(self) -> Optional[List[float]]: ...
    @property
    def ocr(self) -> bool:
        """Whether the chunk's text was read by OCR."""
    @property
    def ocr_confidence(self) -> Optional[float]:
        """Mean OCR confidence (0-100, rounded to 0.1) of the chunk's OCR'd pages."""
    @property
    def content(self) -> str:
        """What is embedded: context + prefix + text."""
    @property
    def metadata(self) -> Dict[str, Any]:
        """The LangChain / LlamaIndex metadata (start_index, chunk_id, headings, ...)."""
    @property
    def previous_id(self) -> Optional[str]: ...
    @property
    def next_id(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_langchain(self) -> Any:
        """A langchain_core.documents.Document."""
    def to_llama_index(self) -> Any:
        """A llama_index.core.schema.TextNode."""
    def __len__(self) -> int: ...

class Chunker:
    """A configured pipeline: Chunker(strategy=..., size=..., ...)."""

    def __init__(self, **config: Any) -> None: ...
    def chunk(self, text: str, source: Optional[_Path] = None) -> List[Chunk]: ...
    def chunk_files(
        self, paths: Union[_Path, Iterable[_Path]], *, errors: str = "raise"
    ) -> List[Chunk]: ...
    @property
    def config(self) -> Dict[str, Any]: ...
    @property
    def unit(self) -> str: ...
    def __reduce__(self) -> Any:
        """Pickles as its typed configuration; loading builds it again."""

def _chunker_from_config(json: str) -> Chunker:
    """The Chunker a pickled one's configuration (JSON of ``Chunker.config``) describes."""

def _keep_tokenizer_json(json: str) -> str:
    """Keep a tokenizer.json's text under chunklab's home (named by its hash); its path."""

class Document:
    """A parsed document."""

    @property
    def source(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def pages(self) -> Optional[int]: ...
    @property
    def metadata(self) -> Dict[str, str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def elements(self) -> List[Dict[str, Any]]: ...
    def to_dict(self) -> Dict[str, Any]: ...

def chunk(text: str, source: Optional[_Path] = None, **config: Any) -> List[Chunk]: ...
def chunk_files(
    paths: Union[_Path, Iterable[_Path]], *, errors: str = "raise", **config: Any
) -> List[Chunk]: ...
def options_doc() -> str: ...
def parse(
    path: _Path,
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
) -> Document: ...
def strategies() -> List[Dict[str, Any]]: ...
def config_keys() -> List[str]: ...

class Index:
    """A chunklab index: Index.open(path) to search one, Index.create(path, ...) to build one."""

    @staticmethod
    def open(path: _Path, *, fetch: bool = False) -> "Index": ...
    @staticmethod
    def create(
        path: _Path,
        *,
        model: Optional[str] = None,
        lang: Optional[str] = None,
        fetch: bool = False,
        rebuild: bool = False,
        commit_every: int = 32,
        acl: Optional[List[str]] = None,
        meta: Optional[List[str]] = None,
        hnsw_m: Optional[int] = None,
        hnsw_ef_construction: Optional[int] = None,
    ) -> "Index":
        """An index to write at `path` (directory or postgres:// URL); model default: the
        index's own, e5-small with lang="nl", else minilm; hnsw_m / hnsw_ef_construction: a
        new index's graph (default 16 / 128, PostgreSQL 16 / 64)."""
    def add_files(
        self, paths: Union[_Path, Iterable[_Path]], *, remove_missing: bool = False, **config: Any
    ) -> Dict[str, int]:
        """Chunk (keyword arguments of chunk), embed and index files; incremental; a summary.

        Without chunking keywords here or in `create`, the configuration the index records."""
    def add_text(
        self,
        doc_id: str,
        text: str,
        *,
        source: Optional[_Path] = None,
        acl: Optional[List[str]] = None,
        metadata: Optional[Dict[str, Union[str, int, float, bool]]] = None,
        **config: Any,
    ) -> int:
        """Chunk, embed and add one text; the chunks written (durable after commit())."""
    def commit(self) -> None: ...
    def close(self) -> Optional[Tuple[int, int]]:
        """Commit and release the writer lock; (documents, chunks) in the index."""
    def __enter__(self) -> "Index": ...
    def __exit__(self, *args: Any) -> bool: ...
    def search(
        self, query: str, *, acl: Optional[List[str]] = None, **options: Any
    ) -> List[Dict[str, Any]]:
        """Hits as dicts (score, chunk_id, doc_id, source, text, headings, start_char, ...);
        options are `chunklab search`'s flags (mode, k, ef, filter, rerank, ...)."""
    @property
    def settings(self) -> Dict[str, Any]: ...

def embed(
    texts: List[str], *, model: str = "minilm", query: bool = False, fetch: bool = False
) -> List[List[float]]:
    """One vector per text from the library's embedding model (query: add the query prefix)."""

def queries_generate(
    paths: Union[_Path, Iterable[_Path]],
    *,
    llm: str,
    n: int = 100,
    fetch: bool = False,
    llm_no_cache: bool = False,
    llm_concurrency: int = 4,
) -> List[Dict[str, Any]]:
    """Synthetic queries (id, query, relevant_docs, relevant_spans) as `chunklab queries generate`."""

def bench(**request: Any) -> Dict[str, Any]:
    """Run the lab's benchmark (the keys of `chunklab bench`); rows, notes, seconds."""
