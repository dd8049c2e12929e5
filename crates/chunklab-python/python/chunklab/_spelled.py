"""A :class:`~chunklab.Chunker` built from keywords spelled the way another library spells them
(LangChain's and LlamaIndex's ``chunk_size``/``chunk_overlap``), whose errors name the keyword
the caller wrote, not chunklab's own name for it."""

from __future__ import annotations

from typing import Any, Dict

from ._chunklab import Chunker, ConfigError, _keep_tokenizer_json

# tiktoken encoding names → chunklab tokenizer names.
ENCODINGS = {"cl100k_base": "cl100k", "o200k_base": "o200k"}


def hf_tokenizer_file(tokenizer: Any) -> str:
    """The ``tokenizer.json`` path of a Hugging Face tokenizer object (a fast ``transformers``
    tokenizer, through its ``backend_tokenizer``, or a ``tokenizers.Tokenizer``), kept under
    chunklab's home by its hash."""
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if not callable(to_str):
        raise ConfigError(
            f"tokenizer: {type(tokenizer).__name__} has no tokenizer.json (a slow "
            "tokenizer); load a fast one (AutoTokenizer.from_pretrained(..., use_fast=True), "
            "the default) or give tokenizer='DIR' holding a tokenizer.json"
        )
    return _keep_tokenizer_json(to_str())


def take_tokenizer(config: Dict[str, Any]) -> None:
    """A ``tokenizer`` given as the other libraries take one — LlamaIndex's callable
    (``tiktoken.get_encoding("cl100k_base").encode``, a Hugging Face tokenizer's ``encode``) or a
    tokenizer object — as chunklab's own tokenizer, which counts in Rust what the callable would
    count: a tiktoken encoding by its name, a Hugging Face ``encode`` with the special tokens it
    adds (``count_special``), a tokenizer object without them. Any other function is refused:
    chunklab cannot call Python per chunk."""
    value = config.get("tokenizer")
    if value is None or isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        return
    owner = getattr(value, "__self__", None)
    name = getattr(owner, "name", None)
    if getattr(value, "__name__", "") == "encode" and name in ENCODINGS:
        config["tokenizer"] = ENCODINGS[name]
        return
    if getattr(value, "__name__", "") == "encode" and owner is not None and (
        hasattr(owner, "backend_tokenizer") or hasattr(owner, "to_str")
    ):
        config["tokenizer"] = hf_tokenizer_file(owner)
        config.setdefault("count_special", True)
        return
    if hasattr(value, "backend_tokenizer") or hasattr(value, "to_str"):
        config["tokenizer"] = hf_tokenizer_file(value)
        return
    raise ConfigError(
        f"tokenizer: chunklab counts tokens itself and cannot call {type(value).__name__} "
        "per chunk; give 'cl100k' or 'o200k' (or tiktoken's encode of cl100k_base / "
        "o200k_base), a Hugging Face tokenizer or its encode, or a path to a tokenizer.json"
    )


def build_chunker(spelled: Dict[str, str], config: Dict[str, Any]) -> Chunker:
    """``Chunker(**config)``; ``spelled`` maps the chunklab keys the caller set under another
    name (``"size"``) to that name (``"chunk_size"``), and a :class:`ConfigError` about one of
    them ("size: must be at least 1") is raised again under the caller's name
    ("chunk_size: must be at least 1")."""
    take_tokenizer(config)
    try:
        return Chunker(**config)
    except ConfigError as e:
        key, sep, rest = str(e).partition(": ")
        if sep and key in spelled:
            raise ConfigError(f"{spelled[key]}: {rest}") from None
        raise


def take_aliases(aliases: Dict[str, str], config: Dict[str, Any]) -> Dict[str, str]:
    """Moves each ``alias`` key of ``config`` (``chunk_size``) to its chunklab key (``size``) and
    returns what :func:`build_chunker` needs to name it in errors. Both spellings at once are refused:
    chunklab would have to guess which one was meant."""
    spelled: Dict[str, str] = {}
    for alias, key in aliases.items():
        if alias not in config:
            continue
        value = config.pop(alias)
        if value is None:
            continue
        if key in config:
            raise ConfigError(f"{alias}: give {alias} or {key}, not both")
        config[key] = value
        spelled[key] = alias
    return spelled
