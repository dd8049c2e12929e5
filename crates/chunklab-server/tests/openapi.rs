//! `GET /openapi.json` against a real server: every path and method it lists is served by the
//! router (none falls through to "no endpoint" or 405), and the request schemas carry every
//! key of the configuration types with their defaults.

use crate::common::*;
use chunklab_core::ChunkConfig;
use chunklab_eval::bench::BenchRequest;
use chunklab_pipeline::search::SearchConfig;
use chunklab_server::Limits;
use serde_json::Value;

#[test]
fn every_listed_route_is_served() {
    let s = start(false, Limits::default());
    let r = get(&s.url("/openapi.json"), None);
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["openapi"], "3.1.0");
    let paths = r.body["paths"].as_object().expect("paths");
    let mut checked = 0;
    for (path, ops) in paths {
        let concrete = path.replace("{id}", "x").replace("{name}", "x");
        for (method, op) in ops.as_object().unwrap() {
            assert!(op["summary"].is_string(), "{method} {path}: {op}");
            let resp = raw(&method.to_uppercase(), &s.url(&concrete), None, "", b"");
            assert_ne!(resp.status, 405, "{method} {path}: {}", resp.text);
            assert!(
                !resp.message().starts_with("no endpoint"),
                "{method} {path} is listed but not served: {}",
                resp.text
            );
            // A route that needs a token says so, and refuses a request without one (the index
            // routes of this index-less server answer 503 no_index first).
            if op["x-token-role"] != "none" {
                assert_eq!(op["security"][0]["bearer"], Value::Array(vec![]), "{op}");
                assert!(
                    resp.status == 401 || resp.code() == "no_index",
                    "{method} {path}: {}",
                    resp.text
                );
            }
            checked += 1;
        }
    }
    for p in [
        "/v1/bench",
        "/v1/jobs/{id}",
        "/v1/jobs/{id}/events",
        "/v1/chunk",
        "/v1/search",
    ] {
        assert!(paths.contains_key(p), "{p} missing from {:?}", paths.keys());
    }
    assert!(checked >= 18, "{checked} operations");
}

/// The keys the type serializes by default (what a client may send).
fn keys<T: serde::Serialize>(v: &T) -> Vec<String> {
    serde_json::to_value(v)
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn request_schemas_come_from_the_types() {
    let s = start(false, Limits::default());
    let spec = get(&s.url("/openapi.json"), None).body;
    let schemas = &spec["components"]["schemas"];
    let bench = &schemas["BenchRequest"]["properties"];
    for k in keys(&BenchRequest::default()) {
        if chunklab_server::jobs::SERVER_ONLY_KEYS.contains(&k.as_str()) {
            // Refused in a request, so not offered either.
            assert!(
                bench.get(&k).is_none(),
                "BenchRequest offers `{k}`: {bench}"
            );
        } else {
            assert!(bench.get(&k).is_some(), "BenchRequest lacks `{k}`: {bench}");
        }
    }
    for k in chunklab_server::jobs::SERVER_ONLY_KEYS {
        assert!(
            keys(&BenchRequest::default()).iter().any(|b| b == k),
            "`{k}` is not a BenchRequest key"
        );
    }
    assert_eq!(bench["docs"]["type"], "integer");
    assert_eq!(
        bench["docs"]["default"].as_u64(),
        Some(BenchRequest::default().docs as u64)
    );
    assert_eq!(bench["no_cache"]["type"], "boolean");
    assert_eq!(
        schemas["BenchRequest"]["additionalProperties"],
        Value::Bool(false)
    );
    let chunk = &schemas["ChunkConfig"]["properties"];
    for k in keys(&ChunkConfig::default()) {
        assert!(chunk.get(&k).is_some(), "ChunkConfig lacks `{k}`: {chunk}");
    }
    let req = &schemas["ChunkRequest"]["properties"];
    for k in ["text", "texts", "strategy", "size", "unit"] {
        assert!(req.get(k).is_some(), "ChunkRequest lacks `{k}`: {req}");
    }
    // Reading fields are the flat keys the handlers take (the CLI's flags), with defaults.
    for name in ["ChunkRequest", "ParseRequest"] {
        let req = &schemas[name]["properties"];
        for k in chunklab_pipeline::flat::DOCUMENT_READING_KEYS {
            assert!(req.get(*k).is_some(), "{name} lacks `{k}`: {req}");
        }
        assert_eq!(req["ocr_lang"]["default"], "nld+eng", "{name}");
        assert!(req.get("include").is_none(), "{name} offers `include`");
    }
    // A document is chunked with the index's configuration: no chunking fields offered.
    let doc = &schemas["DocumentRequest"]["properties"];
    assert!(
        doc.get("size").is_none() && doc.get("acl").is_some(),
        "{doc}"
    );
    let search = &schemas["SearchRequest"]["properties"];
    for k in keys(&SearchConfig::default()) {
        assert!(
            search.get(&k).is_some(),
            "SearchRequest lacks `{k}`: {search}"
        );
    }
    assert!(search.get("q").is_some());
    assert!(
        spec["paths"]["/v1/bench"]["post"]["responses"]["202"].is_object(),
        "a bench start is 202 Accepted"
    );
    // The route points at its body schema.
    assert_eq!(
        spec["paths"]["/v1/bench"]["post"]["requestBody"]["content"]["application/json"]["schema"]
            ["$ref"],
        "#/components/schemas/BenchRequest"
    );
}
