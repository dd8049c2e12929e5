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
mod hf_tokenizer;
mod index;
mod queries;
mod spelling;

use chunker::{chunk_paths, chunk_text, chunker_for_kwargs, Chunker};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyCFunction, PyDict, PyList, PyString, PyTuple};
use std::ffi::{CStr, CString};

/// `chunklab.chunk`'s docstring, after the signature line.
const CHUNK_DOC: &str = r#"Chunk a string with the chunklab pipeline.

``source`` is an optional file name: its extension picks the parser (``"a.md"``, ``"b.html"``)
and the chunks carry it as ``source`` and ``doc_id``; without it the content is sniffed as
``chunklab chunk -`` does with stdin (``doc_id`` "stdin", ``source`` "-").

Returns a list of :class:`Chunk` with ``text``, ``start_char``/``end_char`` (string indices:
``text[c.start_char:c.end_char] == c.text``), ``start_byte``/``end_byte``, ``tokens`` (size in
``unit``), ``headings``, ``page``, ``kind``, ... — the fields of ``chunklab chunk``'s JSONL
(``to_dict()`` gives them all). The pipeline for one configuration is built once and cached;
the GIL is released while chunking.

Raises :class:`ConfigError` (``ValueError``) for a bad parameter, naming it, and
:class:`ChunkError` when the text cannot be cut with the configuration.
"#;

/// The strategies and options, from the catalog the CLI prints (`chunklab strategies`): the
/// end of the chunking functions' docstrings.
fn options_doc() -> String {
    let mut lines = vec!["Strategies (strategy=...):".to_string(), String::new()];
    for s in chunklab_core::strategies::catalog() {
        lines.push(format!("  {}: {}", s.name, s.summary));
        for p in s.params {
            lines.push(format!(
                "      {} (default {}): {}",
                p.name, p.default, p.help
            ));
        }
    }
    lines.extend(
        [
            "",
            "Keyword arguments (the CLI's flags with _ for -; defaults as the CLI):",
            &format!("  {}", config::all_keys().join(", ")),
            "",
            "Besides the chunking keys: model, fetch (embedding model); parser, encoding, lossy,",
            "include, exclude (reading); llm, llm_no_cache, llm_concurrency (language model);",
            "context, context_prompt, context_max_tokens, context_fallback, context_doc_tokens",
            "(contextual retrieval). breakpoint_amount is the CLI's --percentile/--threshold;",
            "levels and separators are lists.",
        ]
        .map(str::to_string),
    );
    lines.join("\n")
}

/// The options part of the chunking docstrings (for `chunk_files`' Python docstring).
#[pyfunction(name = "options_doc")]
fn py_options_doc() -> String {
    options_doc()
}

/// `chunk(text, source=None, **config)`'s own arguments, passed by position or keyword.
fn chunk_args<'py>(
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyString>, Option<String>)> {
    if args.len() > 2 {
        return Err(PyTypeError::new_err(format!(
            "chunk() takes at most 2 positional arguments ({} given)",
            args.len()
        )));
    }
    let by_key = |k: &str| -> PyResult<Option<Bound<'py, PyAny>>> {
        match kwargs {
            Some(kw) => kw.get_item(k),
            None => Ok(None),
        }
    };
    let one = |pos: usize, name: &str| -> PyResult<Option<Bound<'py, PyAny>>> {
        let keyed = by_key(name)?;
        match (args.get_item(pos).ok(), keyed) {
            (Some(_), Some(_)) => Err(PyTypeError::new_err(format!(
                "chunk() got multiple values for argument '{name}'"
            ))),
            (a, k) => Ok(a.or(k)),
        }
    };
    let text = one(0, "text")?
        .ok_or_else(|| PyTypeError::new_err("chunk() missing required argument 'text'"))?;
    let text = text.cast_into::<PyString>().map_err(|e| {
        PyTypeError::new_err(format!(
            "chunk() argument 'text' must be str, not {}",
            e.into_inner()
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let source = match one(1, "source")? {
        Some(s) if !s.is_none() => Some(
            s.extract::<std::path::PathBuf>()?
                .to_string_lossy()
                .into_owned(),
        ),
        _ => None,
    };
    Ok((text, source))
}

/// `chunklab.chunk(text, source=None, **config)`.
fn chunk_call<'py>(
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let py = args.py();
    let (text, source) = chunk_args(args, kwargs)?;
    let chunker = chunker_for_kwargs(py, kwargs, &["text", "source"])?;
    let owned = convert::str_to_string(&text)?;
    chunk_text(py, &chunker, owned, &text, source)
}

/// The C entry of `chunklab.chunk` (`METH_VARARGS | METH_KEYWORDS`): Python errors are raised,
/// a panic becomes a `PanicException` as in pyo3's own functions.
unsafe extern "C" fn chunk_entry(
    _module: *mut pyo3::ffi::PyObject,
    args: *mut pyo3::ffi::PyObject,
    kwargs: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    // SAFETY: CPython calls this with the thread attached, `args` a tuple and `kwargs` NULL or
    // a dict, both borrowed for the call.
    let py = unsafe { Python::assume_attached() };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let args = unsafe { Bound::from_borrowed_ptr(py, args) };
        let args = args.cast_into::<PyTuple>()?;
        let kwargs = unsafe { Bound::from_borrowed_ptr_or_opt(py, kwargs) };
        let kwargs = kwargs.map(|k| k.cast_into::<PyDict>()).transpose()?;
        chunk_call(&args, kwargs.as_ref())
    }));
    let error = match outcome {
        Ok(Ok(list)) => return list.into_ptr(),
        Ok(Err(e)) => e,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic from Rust code".into());
            pyo3::panic::PanicException::new_err(msg)
        }
    };
    error.restore(py);
    std::ptr::null_mut()
}

/// `chunklab.chunk`: a builtin of the extension module made at import, so that its docstring
/// lists the strategy catalog (a `#[pyfunction]`'s is fixed at compile time) without a Python
/// wrapper, whose re-packing of the keyword arguments cost a few microseconds a call.
fn chunk_function<'py>(m: &Bound<'py, PyModule>) -> PyResult<Bound<'py, PyCFunction>> {
    let doc = format!(
        "chunk(text, source=None, **config)\n--\n\n{CHUNK_DOC}\n{}\n",
        options_doc()
    );
    let doc: &'static CStr = Box::leak(
        CString::new(doc)
            .map_err(|e| PyTypeError::new_err(e.to_string()))?
            .into_boxed_c_str(),
    );
    PyCFunction::new_with_keywords(m.py(), chunk_entry, c"chunk", doc, Some(m))
}

/// Chunk files and directories in parallel with the GIL released. `errors`: `"raise"` (the
/// first document that cannot be read, parsed or chunked) or `"warn"` (a `UserWarning` for
/// each, and the other documents' chunks returned).
#[pyfunction]
#[pyo3(signature = (paths, *, errors="raise", **config))]
fn chunk_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    errors: &str,
    config: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let on_error = chunker::OnError::parse(errors)?;
    let paths = convert::paths(paths)?;
    let chunker = chunker_for_kwargs(py, config, &[])?;
    chunk_paths(py, &chunker, paths, on_error)
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
    m.add("chunk", chunk_function(m)?)?;
    m.add_function(wrap_pyfunction!(py_options_doc, m)?)?;
    m.add_function(wrap_pyfunction!(chunk_files, m)?)?;
    m.add_function(wrap_pyfunction!(document::parse, m)?)?;
    m.add_function(wrap_pyfunction!(strategies, m)?)?;
    m.add_function(wrap_pyfunction!(config_keys, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench, m)?)?;
    m.add_function(wrap_pyfunction!(embed::embed, m)?)?;
    m.add_function(wrap_pyfunction!(queries::queries_generate, m)?)?;
    m.add_class::<Chunker>()?;
    m.add_function(wrap_pyfunction!(chunker::chunker_from_config, m)?)?;
    m.add_function(wrap_pyfunction!(hf_tokenizer::keep_tokenizer_json, m)?)?;
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
