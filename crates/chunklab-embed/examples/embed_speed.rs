//! Embedding throughput in tokens/s, for comparison with sentence-transformers
//! (scripts/minilm_speed_reference.py runs the same MiniLM texts, batch size and thread count)
//! and between precisions (issue 18, goal 4).
//!
//! ```text
//! cargo run --release -p chunklab-embed --example embed_speed -- [--model minilm|e5-small]
//!     [--precision auto|f32|int8] [--threads 2] [--batch-size 32] [--copies 8] [--runs 3]
//! ```
//!
//! Texts: the reference texts of the model (tests/fixtures/minilm_reference.json: 61 short
//! sentences and long texts truncated at 256 tokens; tests/fixtures/e5_reference.json: its 102
//! texts of at most 512 tokens, as passages), repeated `--copies` times. Tokens are the fixture's
//! counts after truncation, special tokens included, exactly as the model sees them.

use chunklab_embed::{load_bert, Embedder, LoadOptions, Precision, Role};
use std::time::Instant;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

fn number(name: &str, default: usize) -> usize {
    arg(name, &default.to_string())
        .parse()
        .unwrap_or_else(|_| panic!("{name} takes a number"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model_name = arg("--model", "minilm");
    let precision = match arg("--precision", "auto").as_str() {
        "auto" => None,
        "f32" => Some(Precision::F32),
        "int8" => Some(Precision::Int8),
        other => return Err(format!("--precision {other}: use auto, f32 or int8").into()),
    };
    let threads = number("--threads", 2);
    let batch_size = number("--batch-size", 32);
    let copies = number("--copies", 8);
    let runs = number("--runs", 3);
    // The matrix kernels and the tokenizer use rayon's global pool, which reads this variable
    // when it starts (on first use, after this line).
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());

    let (fixture, limit) = match model_name.as_str() {
        "minilm" => ("minilm_reference.json", 256),
        "e5-small" => ("e5_reference.json", 512),
        other => return Err(format!("--model {other}: use minilm or e5-small").into()),
    };
    let path = format!("{}/tests/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let cases: Vec<&serde_json::Value> = json["cases"]
        .as_array()
        .ok_or("no cases")?
        .iter()
        .filter(|c| c.get("role").is_none_or(|r| r == "passage"))
        .filter(|c| c["tokens"].as_u64().is_some_and(|t| t as usize <= limit))
        .collect();
    let mut texts = Vec::new();
    let mut tokens = 0usize;
    for _ in 0..copies {
        for c in &cases {
            texts.push(c["text"].as_str().ok_or("no text")?.to_string());
            tokens += c["tokens"].as_u64().ok_or("no tokens")? as usize;
        }
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();

    let t = Instant::now();
    let opts = LoadOptions {
        fetch: true,
        precision,
        ..Default::default()
    };
    let model = load_bert(&model_name, &opts)?.with_batch_size(batch_size);
    eprintln!(
        "verified and loaded {model_name} ({}) in {:.2}s",
        model.precision().as_str(),
        t.elapsed().as_secs_f64()
    );
    model.embed(&refs[..batch_size.min(refs.len())], Role::Passage)?; // warm-up
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let v = model.embed(&refs, Role::Passage)?;
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(v.len(), refs.len());
    }
    println!(
        "chunklab {model_name} {}: {} texts, {tokens} tokens, batch {batch_size}, {threads} threads: best of {runs} {best:.3}s = {:.0} tokens/s, {:.1} texts/s",
        model.precision().as_str(),
        refs.len(),
        tokens as f64 / best,
        refs.len() as f64 / best
    );
    Ok(())
}
