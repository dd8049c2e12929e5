//! Python values ↔ JSON values: keyword arguments go to serde as JSON, and JSON-shaped results
//! (parsed elements, search hits, bench rows) come back as dicts and lists.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A Python value as JSON: None, bool, int, float, str, path-like (as its string), list/tuple,
/// dict with str keys. Anything else is an error naming its type.
pub fn py_to_json(v: &Bound<'_, PyAny>) -> Result<Value, String> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return v
            .extract::<u64>()
            .map(Value::from)
            .map_err(|_| "integer out of range".to_string());
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| format!("{} is not a finite number", f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|e| e.to_string());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        return v
            .try_iter()
            .map_err(|e| e.to_string())?
            .map(|item| py_to_json(&item.map_err(|e| e.to_string())?))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, val) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| "dict keys must be strings".to_string())?;
            m.insert(k, py_to_json(&val)?);
        }
        return Ok(Value::Object(m));
    }
    if v.hasattr("__fspath__").unwrap_or(false) {
        let p = v.call_method0("__fspath__").map_err(|e| e.to_string())?;
        return py_to_json(&p);
    }
    let ty = v
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    Err(format!("a value of type {ty} is not a configuration value"))
}

/// A JSON value as a Python object (objects become dicts in key order).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// One path (str or path-like) as a string.
pub fn path(p: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = p.extract::<String>() {
        return Ok(s);
    }
    let fs = p
        .call_method0("__fspath__")
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("paths must be str or os.PathLike"))?;
    fs.extract::<String>()
}

/// A list of paths (str or path-like) as strings.
pub fn paths(v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if v.is_instance_of::<PyString>() || v.hasattr("__fspath__")? {
        return Ok(vec![path(v)?]);
    }
    v.try_iter()?.map(|p| path(&p?)).collect()
}

/// A Python `str` as an owned UTF-8 `String`, encoded by CPython once per string:
/// `PyUnicode_AsUTF8AndSize` keeps the UTF-8 form inside the `str` (so chunking the same string
/// again does not encode it again), and the bytes are copied out once. A `str` that is not
/// valid Unicode (lone surrogates) raises `UnicodeEncodeError`, as pyo3's own conversion does.
pub fn str_to_string(s: &Bound<'_, PyString>) -> PyResult<String> {
    // In the stable ABI only from 3.10, but exported by every CPython 3 (the wheel is
    // abi3-py39, whose declarations leave it out).
    extern "C" {
        fn PyUnicode_AsUTF8AndSize(
            unicode: *mut pyo3::ffi::PyObject,
            size: *mut pyo3::ffi::Py_ssize_t,
        ) -> *const std::os::raw::c_char;
    }
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the GIL is held); on success the pointer is to `size` bytes
    // of valid UTF-8 that live as long as the string, and they are copied before returning.
    unsafe {
        let data = PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size);
        if data.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), size as usize);
        Ok(std::str::from_utf8_unchecked(bytes).to_owned())
    }
}
