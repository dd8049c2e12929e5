//! `GET /openapi.json`: the OpenAPI 3.1 description of the API, generated at start from the
//! route table [`ROUTES`] and the request types themselves: the keys of each configuration
//! struct come from its serde `Deserialize` (the field list serde checks unknown keys against),
//! their JSON types and defaults from its serialized `Default` — so a key added to
//! [`ChunkConfig`], [`SearchConfig`] or [`BenchRequest`] appears here without editing this file.

use chunklab_core::ChunkConfig;
use chunklab_eval::bench::BenchRequest;
use chunklab_pipeline::search::SearchConfig;

use serde::de::{self, DeserializeOwned, Visitor};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::cell::Cell;

/// One route: method, path (OpenAPI template), token role needed, summary, request schema.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// HTTP method, lower case.
    pub method: &'static str,
    /// Path with `{id}` parameters.
    pub path: &'static str,
    /// `none`, `any` (any valid token), `read` or `write`.
    pub auth: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Name of the request body schema in `components.schemas`, if any.
    pub body: Option<&'static str>,
}

const fn r(
    method: &'static str,
    path: &'static str,
    auth: &'static str,
    summary: &'static str,
    body: Option<&'static str>,
) -> Route {
    Route {
        method,
        path,
        auth,
        summary,
        body,
    }
}

/// Every route the router serves (the page and its assets included).
pub const ROUTES: &[Route] = &[
    r("get", "/", "none", "The web page", None),
    r("get", "/assets/{name}", "none", "A web page asset", None),
    r("get", "/health", "none", "Liveness", None),
    r(
        "get",
        "/ready",
        "none",
        "Readiness and the index summary",
        None,
    ),
    r("get", "/metrics", "none", "Prometheus metrics", None),
    r("get", "/openapi.json", "none", "This description", None),
    r(
        "post",
        "/v1/chunk",
        "none",
        "Chunk a text, texts or an uploaded file",
        Some("ChunkRequest"),
    ),
    r(
        "post",
        "/v1/parse",
        "none",
        "The element tree of a text or file",
        Some("ParseRequest"),
    ),
    r(
        "post",
        "/v1/embed",
        "read",
        "Vectors of the index's model",
        Some("EmbedRequest"),
    ),
    r(
        "get",
        "/v1/search",
        "read",
        "Search (query string keys as SearchRequest)",
        None,
    ),
    r(
        "post",
        "/v1/search",
        "read",
        "Search",
        Some("SearchRequest"),
    ),
    r("get", "/v1/chunks/{id}", "read", "One chunk", None),
    r(
        "post",
        "/v1/documents",
        "write",
        "Add or replace a document",
        Some("DocumentRequest"),
    ),
    r(
        "get",
        "/v1/documents/{id}",
        "read",
        "A document's text and chunk spans",
        None,
    ),
    r(
        "delete",
        "/v1/documents/{id}",
        "write",
        "Remove a document",
        None,
    ),
    r(
        "post",
        "/v1/bench",
        "write",
        "Start a bench run as a job",
        Some("BenchRequest"),
    ),
    r(
        "get",
        "/v1/jobs/{id}",
        "any",
        "A job's status, progress and result",
        None,
    ),
    r(
        "get",
        "/v1/jobs/{id}/events",
        "any",
        "A job's progress as server-sent events",
        None,
    ),
];

/// The field names serde accepts for `T` (a struct with named fields).
pub fn field_names<T: DeserializeOwned>() -> Vec<&'static str> {
    let seen = Cell::new(None);
    let _ = T::deserialize(FieldProbe(&seen));
    seen.get().map(<[&str]>::to_vec).unwrap_or_default()
}

struct FieldProbe<'a>(&'a Cell<Option<&'static [&'static str]>>);

impl<'de> de::Deserializer<'de> for FieldProbe<'_> {
    type Error = de::value::Error;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("probe"))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(Some(fields));
        Err(de::Error::custom("probe"))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The JSON schema of one value (its type, and the value as the default).
fn value_schema(v: &Value) -> Value {
    match v {
        Value::Null => json!({}),
        Value::Bool(b) => json!({"type": "boolean", "default": b}),
        Value::Number(n) if n.is_f64() => json!({"type": "number", "default": n}),
        Value::Number(n) => json!({"type": "integer", "default": n}),
        Value::String(s) => json!({"type": "string", "default": s}),
        Value::Array(a) => json!({"type": "array", "default": a}),
        Value::Object(_) => json!({"type": "object"}),
    }
}

/// The object schema of a serde configuration struct: every key serde accepts, typed by the
/// serialized default (unset options: any type); unknown keys refused.
pub fn config_schema<T: DeserializeOwned + Serialize + Default>() -> Value {
    let defaults = serde_json::to_value(T::default()).unwrap_or(Value::Null);
    let mut props = Map::new();
    for name in field_names::<T>() {
        let s = defaults.get(name).map_or(json!({}), value_schema);
        props.insert(name.to_string(), s);
    }
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

/// The object schema of the pipeline's flat `keys`, typed by their defaults.
fn flat_schema(keys: &[&str]) -> Value {
    let props: Map<String, Value> = keys
        .iter()
        .map(|k| {
            let d = chunklab_pipeline::flat::default_value(k).unwrap_or(Value::Null);
            (k.to_string(), value_schema(&d))
        })
        .collect();
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

/// `schema` without the properties `keys`.
fn without(mut schema: Value, keys: &[&str]) -> Value {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for k in keys {
            props.remove(*k);
        }
    }
    schema
}

fn merge(parts: &[Value], extra: Value) -> Value {
    let mut props = Map::new();
    for p in parts.iter().chain(std::iter::once(&extra)) {
        if let Some(o) = p.get("properties").and_then(Value::as_object) {
            props.extend(o.clone());
        }
    }
    json!({"type": "object", "properties": props})
}

/// The whole description.
pub fn spec() -> Value {
    let chunk = config_schema::<ChunkConfig>();
    // How one document is read: the flat fields the CLI's flags spell (`ocr`, `ocr_lang`, ...).
    let reading = flat_schema(chunklab_pipeline::flat::DOCUMENT_READING_KEYS);
    let search = config_schema::<SearchConfig>();
    let text_in = json!({"properties": {
        "text": {"type": "string"},
        "texts": {"type": "array", "items": {"type": "string"}},
        "model": {"type": "string"}}});
    let schemas = json!({
        "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {
            "code": {"type": "string"}, "message": {"type": "string"}}}}},
        "ChunkConfig": chunk,
        "ReadingConfig": reading,
        "SearchConfig": search,
        "BenchRequest": without(config_schema::<BenchRequest>(), &crate::jobs::SERVER_ONLY_KEYS),
        "ChunkRequest": merge(&[chunk.clone(), reading.clone()], text_in.clone()),
        "ParseRequest": merge(std::slice::from_ref(&reading), text_in),
        "SearchRequest": merge(&[search], json!({"properties": {
            "q": {"type": "string"}, "context_chars": {"type": "integer"}}})),
        // A document is chunked with the index's own configuration: no chunking fields.
        "DocumentRequest": {"type": "object", "additionalProperties": false, "properties": {
            "doc_id": {"type": "string"}, "text": {"type": "string"}, "source": {"type": "string"},
            "acl": {"description": "the document's access groups: a list, or one group as a string",
                "anyOf": [{"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
                          {"type": "string", "minLength": 1}]},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}},
        "EmbedRequest": {"type": "object", "properties": {
            "texts": {"type": "array", "items": {"type": "string"}},
            "role": {"type": "string", "enum": ["query", "passage"]}}},
    });
    let mut paths = Map::new();
    for rt in ROUTES {
        // A bench start answers 202 Accepted with the job; everything else 200.
        let ok = if rt.path == "/v1/bench" { "202" } else { "200" };
        let mut op = json!({
            "summary": rt.summary,
            "x-token-role": rt.auth,
            "responses": {
                ok: {"description": "OK"},
                "default": {"description": "An error",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
            }
        });
        if rt.auth != "none" {
            op["security"] = json!([{"bearer": []}]);
        }
        let params: Vec<Value> = rt
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .map(|n| json!({"name": n, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        if !params.is_empty() {
            op["parameters"] = Value::Array(params);
        }
        if let Some(body) = rt.body {
            let schema = json!({"$ref": format!("#/components/schemas/{body}")});
            op["requestBody"] = json!({"content": {
                "application/json": {"schema": schema},
                "multipart/form-data": {"schema": schema}}});
        }
        let entry = paths
            .entry(rt.path.to_string())
            .or_insert_with(|| json!({}));
        entry[rt.method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "chunklab serve", "version": env!("CARGO_PKG_VERSION")},
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}
        }
    })
}
