//! `cargo bench -p chunklab-embed --bench encoder`: the encoders' forward pass on their reference
//! texts, f32 against int8 (issue 18, goal 4), tokens per second. The int8 kernel is the one this
//! CPU runs (AVX-512 VNNI or AVX2; the same vectors). A model that is not installed is skipped
//! with a message (`chunklab models --fetch` installs them); examples/embed_speed.rs measures the
//! same texts as a whole process.

use chunklab_embed::{load_bert, Embedder, LoadOptions, Precision, Role};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The fixture's passages of at most `limit` tokens, and their token count.
fn texts(fixture: &str, limit: u64) -> (Vec<String>, u64) {
    let path = format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
    let mut out = (Vec::new(), 0);
    for c in json["cases"].as_array().expect("cases") {
        let passage = c.get("role").is_none_or(|r| r == "passage");
        let tokens = c["tokens"].as_u64().expect("tokens");
        if passage && tokens <= limit {
            out.0.push(c["text"].as_str().expect("text").to_string());
            out.1 += tokens;
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    for (name, fixture, limit) in [
        ("minilm", "minilm_reference.json", 256),
        ("e5-small", "e5_reference.json", 512),
    ] {
        let (texts, tokens) = texts(fixture, limit);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut g = c.benchmark_group(format!("encode_{name}"));
        g.throughput(Throughput::Elements(tokens));
        g.sample_size(10);
        for precision in [Precision::F32, Precision::Int8] {
            let opts = LoadOptions {
                precision: Some(precision),
                ..Default::default()
            };
            let model = match load_bert(name, &opts) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("skipping {name} {}: {e}", precision.as_str());
                    continue;
                }
            };
            g.bench_function(precision.as_str(), |b| {
                b.iter(|| model.embed(&refs, Role::Passage).unwrap().len())
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
