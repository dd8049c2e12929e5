//! # chunklab-python
//!
//! The `chunklab._chunklab` extension module behind the `chunklab` Python package: the one
//! chunklab pipeline ([`chunklab_pipeline::Pipeline`]) with keyword arguments for its typed
//! configuration. Python code (`python/chunklab/`) adds docstrings built from the strategy
//! catalog and the LangChain / LlamaIndex integrations; this crate only maps Python values onto
//! the pipeline and its results back onto light Python objects. Nothing here re-implements a
//! stage: reading, parsing, chunking, context and late chunking are the pipeline's.
//!
//! Built with maturin (`pyproject.toml` enables the `extension-module` feature); a plain
//! `cargo build` links against libpython instead, so the workspace builds and lints it too.
#![warn(missing_docs)]

mod bench;
mod building;
mod chunker;
mod chunks;
mod config;
mod convert;
mod document;
mod embed;
mod errors;
mod index;
mod queries;

use chunker::{chunk_paths, chunk_text, pipeline_for_kwargs, Chunker};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyDict, PyList, PyString};
use std::path::PathBuf;

/// Chunk a string with the configuration the keyword arguments spell (cached per
/// configuration).
#[pyfunction]
#[pyo3(signature = (text, source=None, **config))]
fn chunk<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    source: Option<PathBuf>,
    config: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let chunker = Chunker::from_pipeline(pipeline_for_kwargs(py, config)?);
    let source = source.map(|p| p.to_string_lossy().into_owned());
    chunk_text(py, &chunker, convert::str_to_string(text)?, text, source)
}

/// Chunk files and directories in parallel with the GIL released.
#[pyfunction]
#[pyo3(signature = (paths, **config))]
fn chunk_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    config: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let paths = convert::paths(paths)?;
    let chunker = Chunker::from_pipeline(pipeline_for_kwargs(py, config)?);
    chunk_paths(py, &chunker, paths)
}

/// The strategy catalog: name, summary and parameters (name, default, help) of each.
#[pyfunction]
fn strategies(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let v = serde_json::to_value(chunklab_core::strategies::catalog()).unwrap_or_default();
    convert::json_to_py(py, &v)
}

/// Every keyword argument the chunking calls take.
#[pyfunction]
fn config_keys() -> Vec<&'static str> {
    config::all_keys()
}

/// The extension module.
#[pymodule]
fn _chunklab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(chunk, m)?)?;
    m.add_function(wrap_pyfunction!(chunk_files, m)?)?;
    m.add_function(wrap_pyfunction!(document::parse, m)?)?;
    m.add_function(wrap_pyfunction!(strategies, m)?)?;
    m.add_function(wrap_pyfunction!(config_keys, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench, m)?)?;
    m.add_function(wrap_pyfunction!(embed::embed, m)?)?;
    m.add_function(wrap_pyfunction!(queries::queries_generate, m)?)?;
    m.add_class::<Chunker>()?;
    m.add_class::<chunks::Chunk>()?;
    m.add_class::<document::Document>()?;
    m.add_class::<index::Index>()?;
    m.add("ConfigError", py.get_type::<errors::ConfigError>())?;
    m.add("ParseError", py.get_type::<errors::ParseError>())?;
    m.add("ChunkError", py.get_type::<errors::ChunkError>())?;
    m.add("IndexingError", py.get_type::<errors::IndexingError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
