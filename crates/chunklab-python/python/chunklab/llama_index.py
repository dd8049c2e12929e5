"""LlamaIndex integration: :class:`ChunklabNodeParser`, a real ``llama_index.core``
``NodeParser`` backed by the chunklab pipeline.

Needs ``llama-index-core``: ``pip install 'chunklab[llama-index]'``.

    >>> from chunklab.llama_index import ChunklabNodeParser
    >>> nodes = ChunklabNodeParser(strategy="headings", size=512).get_nodes_from_documents(docs)  # doctest: +SKIP

Each node's ``start_char_idx``/``end_char_idx`` are the chunk's exact offsets in its document
(LlamaIndex's own parsers search the text for the node's content, which can land on an earlier
occurrence of repeated text); SOURCE points at the document, PREVIOUS/NEXT at the neighbouring
chunks of the same document.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

try:
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.interface import default_id_func
    from llama_index.core.schema import (
        BaseNode,
        Document,
        NodeRelationship,
        ObjectType,
        RelatedNodeInfo,
        TextNode,
    )
except ImportError as e:  # pragma: no cover - exercised only without the optional package
    raise ImportError(
        "chunklab.llama_index needs llama-index-core: pip install 'chunklab[llama-index]'"
    ) from e

from pydantic import Field, PrivateAttr

from . import Chunk, Chunker, ConfigError
from ._chunklab import _chunker_from_config
from ._spelled import build_chunker, take_aliases

__all__ = ["ChunklabNodeParser"]

# LlamaIndex's names (SentenceSplitter, TokenTextSplitter) for chunklab's keys; errors about
# them name LlamaIndex's.
_LLAMA_INDEX_NAMES = {"chunk_size": "size", "chunk_overlap": "overlap"}


def _node_from_chunk(chunk: Chunk) -> TextNode:
    """``Chunk.to_llama_index()``: a TextNode as ``chunklab chunk --format llamaindex`` writes
    it (id = chunk id, SOURCE = the document id, PREVIOUS/NEXT = neighbouring chunk ids)."""
    rel: Dict[NodeRelationship, RelatedNodeInfo] = {
        NodeRelationship.SOURCE: RelatedNodeInfo(
            node_id=chunk.doc_id,
            node_type=ObjectType.DOCUMENT,
            metadata={"source": chunk.source},
        )
    }
    if chunk.previous_id is not None:
        rel[NodeRelationship.PREVIOUS] = RelatedNodeInfo(
            node_id=chunk.previous_id, node_type=ObjectType.TEXT
        )
    if chunk.next_id is not None:
        rel[NodeRelationship.NEXT] = RelatedNodeInfo(
            node_id=chunk.next_id, node_type=ObjectType.TEXT
        )
    return TextNode(
        id_=chunk.id,
        text=chunk.content,
        start_char_idx=chunk.start_char,
        end_char_idx=chunk.end_char,
        metadata=chunk.metadata,
        relationships=rel,
    )


def _source_name(doc: BaseNode) -> Optional[str]:
    """The file a LlamaIndex document came from (its extension picks chunklab's parser)."""
    meta = doc.metadata or {}
    for key in ("file_path", "file_name", "filename", "source"):
        v = meta.get(key)
        if isinstance(v, str) and v:
            return v
    return None


class ChunklabNodeParser(NodeParser):
    """A LlamaIndex ``NodeParser`` that cuts with chunklab:
    ``ChunklabNodeParser(strategy="headings", size=512, unit="tokens")`` takes every option of
    ``help(chunklab.chunk)``, and LlamaIndex's ``chunk_size``/``chunk_overlap`` for
    ``size``/``overlap``.

    The parser is chosen by the document's ``file_path``/``file_name`` metadata (Markdown,
    HTML, code, ...), else by content. Node text is the chunk's embedded content (the heading
    path first with ``title_prefix``); ``start_char_idx``/``end_char_idx`` locate the chunk
    text in the document exactly. Node ids are chunklab's stable chunk ids unless an
    ``id_func`` is given. With ``chunk_metadata`` (default True) nodes carry chunklab's
    fields (``headings``, ``page``, ``tokens``, ...) besides the document's metadata.
    """

    chunk_metadata: bool = True
    chunklab_config: Dict[str, Any] = Field(
        default_factory=dict,
        description="The chunker's whole typed configuration (``Chunker.config``), set from the "
        "keyword arguments. It is what LlamaIndex serializes (``to_dict``), hashes for "
        "IngestionPipeline's cache and builds the parser again from (pickle, ``from_dict``).",
    )
    _chunker: Chunker = PrivateAttr()

    def __init__(
        self,
        *,
        chunk_metadata: bool = True,
        chunklab_config: Optional[Dict[str, Any]] = None,
        **config: Any,
    ) -> None:
        fields = {
            k: config.pop(k)
            for k in ("include_metadata", "include_prev_next_rel", "callback_manager", "id_func")
            if k in config
        }
        if chunklab_config:
            # Built again from its serialized form (pickle, from_dict): the configuration
            # as a whole, or nothing besides it.
            if config:
                raise ConfigError(
                    "chunklab_config: give the configuration as chunklab_config or as keyword "
                    f"arguments ({', '.join(sorted(config))}), not both"
                )
            chunker = _chunker_from_config(json.dumps(chunklab_config))
        else:
            spelled = take_aliases(_LLAMA_INDEX_NAMES, config)
            chunker = build_chunker(spelled, config)
        super().__init__(chunk_metadata=chunk_metadata, chunklab_config=chunker.config, **fields)
        self._chunker = chunker

    @classmethod
    def class_name(cls) -> str:
        return "ChunklabNodeParser"

    @property
    def chunker(self) -> Chunker:
        """The chunklab :class:`~chunklab.Chunker` doing the work."""
        return self._chunker

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> List[BaseNode]:
        out: List[BaseNode] = []
        stable_ids = self.id_func is default_id_func
        for doc in nodes:
            text = doc.get_content()
            chunks = self._chunker.chunk(text, _source_name(doc))
            built: List[TextNode] = []
            for i, c in enumerate(chunks):
                meta = dict(doc.metadata) if self.include_metadata else {}
                if self.chunk_metadata:
                    for k, v in c.metadata.items():
                        if k not in ("source", "doc_id"):
                            meta.setdefault(k, v)
                node = TextNode(
                    id_=c.id if stable_ids else self.id_func(i, doc),
                    text=c.content,
                    start_char_idx=c.start_char,
                    end_char_idx=c.end_char,
                    metadata=meta,
                    excluded_embed_metadata_keys=list(doc.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=list(doc.excluded_llm_metadata_keys),
                    metadata_separator=doc.metadata_separator,
                    metadata_template=doc.metadata_template,
                    text_template=doc.text_template,
                )
                node.relationships[NodeRelationship.SOURCE] = doc.as_related_node_info()
                built.append(node)
            if self.include_prev_next_rel:
                for i, node in enumerate(built):
                    if i > 0:
                        node.relationships[NodeRelationship.PREVIOUS] = built[
                            i - 1
                        ].as_related_node_info()
                    if i + 1 < len(built):
                        node.relationships[NodeRelationship.NEXT] = built[
                            i + 1
                        ].as_related_node_info()
            out.extend(built)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: List[BaseNode], parent_doc_map: Dict[str, Document]
    ) -> List[BaseNode]:
        # The base class re-derives offsets with str.find (wrong on repeated text) and
        # relationships; ours are already exact and complete.
        return nodes
