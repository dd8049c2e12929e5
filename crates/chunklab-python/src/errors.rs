//! Errors as Python exceptions: a bad parameter is a [`ConfigError`] (a `ValueError`) whose
//! message names the keyword as Python spells it (`overlap does not apply to strategy
//! `headings`; it applies to: ...`), a file that cannot be read or parsed is a [`ParseError`]
//! naming the file, a missing path an `OSError`; never a panic across the interpreter.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    chunklab,
    ConfigError,
    PyValueError,
    "A chunklab parameter is wrong: unknown value, out of range, or not taken by the strategy. \
     The message starts with the keyword argument's name."
);
create_exception!(
    chunklab,
    ParseError,
    PyException,
    "A document could not be read or parsed; the message names the file and the problem."
);
create_exception!(
    chunklab,
    ChunkError,
    PyValueError,
    "A document could not be chunked with the configuration (e.g. one char is more tokens than \
     the size); the message names the document."
);
create_exception!(
    chunklab,
    IndexingError,
    PyException,
    "A chunklab index could not be created, opened, written or searched."
);

/// `e` as `{e:#}` writes it, with the options and remedies the library names (an encoding, a
/// model to fetch) in Python's words.
pub fn spelled(e: &anyhow::Error) -> String {
    chunklab_pipeline::spelled_chain(e, &crate::spelling::Keywords)
}

/// An index `location` as messages show it (a PostgreSQL URL without its password) and `e`
/// spelled with that location wherever it repeats the URL as given.
pub fn spelled_at(location: &str, e: &anyhow::Error) -> (String, String) {
    let shown = chunklab_pipeline::indexing::shown_location(location);
    let msg = spelled(e).replace(location, &shown);
    (shown, msg)
}

/// `e` as an `IndexingError` prefixed with the index's `location`, its password hidden.
pub fn indexing_error_at(location: &str, e: &anyhow::Error) -> PyErr {
    let (shown, msg) = spelled_at(location, e);
    IndexingError::new_err(format!("{shown}: {msg}"))
}

/// `param message`, as Python spells the keyword.
pub fn config_error(param: &str, message: &str) -> PyErr {
    // serde's Rust types (`expected usize`) in a Python user's words.
    let message = chunklab_pipeline::flat::in_plain_types(message);
    ConfigError::new_err(format!("{param}: {message}"))
}

/// A pipeline error: the first [`chunklab_core::Error::Param`] in the chain becomes a
/// [`ConfigError`] naming the keyword; any other configuration problem a `ValueError` with the
/// whole chain.
pub fn pipeline_error(e: anyhow::Error) -> PyErr {
    if let Some(p) = param_of(&e) {
        return p;
    }
    ConfigError::new_err(spelled(&e))
}

/// Whether `e` holds a [`chunklab_core::Error::Param`] ([`pipeline_error`] names its keyword).
pub fn names_a_param(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<chunklab_core::Error>(),
            Some(chunklab_core::Error::Param { .. })
        )
    })
}

fn param_of(e: &anyhow::Error) -> Option<PyErr> {
    e.chain()
        .find_map(|cause| match cause.downcast_ref::<chunklab_core::Error>() {
            Some(chunklab_core::Error::Param { param, message }) => {
                Some(config_error(param, message))
            }
            _ => None,
        })
}

/// An error while reading or parsing a file: `OSError` when the file system said no (missing
/// file, permission), [`ParseError`] otherwise.
pub fn read_error(e: anyhow::Error) -> PyErr {
    let msg = spelled(&e);
    for cause in e.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(msg),
                _ => PyOSError::new_err(msg),
            };
        }
    }
    ParseError::new_err(msg)
}

/// An error while chunking a read document (the pipeline reports it as text naming the
/// source): most often a size the text cannot satisfy (one char larger than the size).
pub fn chunk_error(e: anyhow::Error) -> PyErr {
    ChunkError::new_err(spelled(&e))
}
