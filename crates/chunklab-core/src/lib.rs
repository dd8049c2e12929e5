//! # chunklab-core
//!
//! Exact, bounded text chunking with no ML runtime. A chunk is a **span** of the original text
//! (byte and char offsets) plus metadata; a [`Sizer`] says how long text is in the units a limit
//! is given in (chars, words, real tokenizer tokens); a [`Chunker`] (one strategy per file under
//! [`strategies`]) turns a document into spans that never exceed the limit.
//!
//! ```
//! use chunklab_core::{chunk_document, strategies, CharSizer, ChunkConfig, Document, Strategy};
//! use std::sync::Arc;
//!
//! let text = "Artikel 1\nDe raad besluit.\n\nArtikel 2\nDeze verordening treedt in werking.";
//! let cfg = ChunkConfig::new(Strategy::Fixed, 30);
//! let chunker = strategies::build(&cfg, Arc::new(CharSizer), None).unwrap();
//! let chunks = chunk_document(&Document::new("verordening", "mem", text), chunker.as_ref()).unwrap();
//! for c in &chunks {
//!     assert_eq!(&text[c.start_byte..c.end_byte], c.text);
//!     assert!(c.tokens <= 30);
//! }
//! ```

mod abbreviations;
pub mod chunk;
pub mod chunker;
pub mod config;
pub mod document;
pub mod error;
pub mod lang;
pub mod segment;
pub mod sizer;
pub mod strategies;
pub mod text;
pub mod text_embedder;
pub mod validate;

pub use chunk::{chunk_id, embedded_text, Chunk, ChunkMeta, Span};
pub use chunker::{
    chunk_document, chunk_document_windowed, chunk_id_for, chunk_parsed_document, spans_to_chunks,
    Chunker, Document, Locator,
};
pub use config::{ChunkConfig, Strategy, Unit};
pub use error::{Error, Result};
pub use lang::Lang;
pub use sizer::{CharSizer, Measure, MeasureCursor, Sizer, UnitCursor, WordSizer};
pub use text_embedder::TextEmbedder;
