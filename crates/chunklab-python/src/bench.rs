//! `chunklab.bench(...)`: the lab's benchmark through the library entry
//! [`chunklab_eval::bench::run`] (the one `chunklab bench` calls). Keyword arguments are the
//! keys of [`BenchRequest`] (the CLI's flags with `_`); the result comes back as a dict with
//! `rows` (one dict per configuration and mode), `notes`, `dataset`, `docs`, `queries`,
//! `seconds`.

use crate::config::to_json_map;
use crate::convert::json_to_py;
use crate::errors::{config_error, IndexingError};
use chunklab_eval::bench::BenchRequest;
use chunklab_eval::progress::NoProgress;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};

/// Run a benchmark (GIL released) and return its result as a dict.
#[pyfunction]
#[pyo3(signature = (**request))]
pub fn bench<'py>(
    py: Python<'py>,
    request: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let map = to_json_map(request)?;
    let req: BenchRequest = serde_json::from_value(Value::Object(map.clone())).map_err(|e| {
        let culprit = map.iter().find_map(|(k, v)| {
            let mut one = Map::new();
            one.insert(k.clone(), v.clone());
            serde_json::from_value::<BenchRequest>(Value::Object(one))
                .err()
                .map(|_| k.clone())
        });
        match culprit {
            Some(k) => config_error(&k, &e.to_string()),
            None => pyo3::exceptions::PyTypeError::new_err(e.to_string()),
        }
    })?;
    let result = py
        .detach(|| chunklab_eval::bench::run(&req, &NoProgress))
        .map_err(bench_error)?;
    json_to_py(py, &serde_json::to_value(&result).unwrap_or_default())
}

/// A bad argument is a `ConfigError` (`docs must be between 1 and …`), a missing corpus,
/// queries or sweep file a `FileNotFoundError` naming it; a run that failed an `IndexingError`.
fn bench_error(e: chunklab_eval::Error) -> PyErr {
    use chunklab_eval::Error as E;
    match &e {
        E::Config(msg) => crate::errors::ConfigError::new_err(msg.clone()),
        E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            pyo3::exceptions::PyFileNotFoundError::new_err(e.to_string())
        }
        _ => IndexingError::new_err(format!("bench: {e:#}")),
    }
}
