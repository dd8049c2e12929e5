"""A :class:`~chunklab.Chunker` built from keywords spelled the way another library spells them
(LangChain's and LlamaIndex's ``chunk_size``/``chunk_overlap``), whose errors name the keyword
the caller wrote, not chunklab's own name for it."""

from __future__ import annotations

from typing import Any, Dict

from ._chunklab import Chunker, ConfigError


def build_chunker(spelled: Dict[str, str], config: Dict[str, Any]) -> Chunker:
    """``Chunker(**config)``; ``spelled`` maps the chunklab keys the caller set under another
    name (``"size"``) to that name (``"chunk_size"``), and a :class:`ConfigError` about one of
    them ("size: must be at least 1") is raised again under the caller's name
    ("chunk_size: must be at least 1")."""
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
