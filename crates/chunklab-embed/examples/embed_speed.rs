//! MiniLM embedding throughput in tokens/s, for comparison with sentence-transformers
//! (scripts/minilm_speed_reference.py runs the same texts, batch size and thread count).
//!
//! ```text
//! cargo run --release -p chunklab-embed --example embed_speed -- [--threads 2] [--batch-size 32] [--copies 8]
//! ```
//!
//! Texts: the 61 texts of tests/fixtures/minilm_reference.json (short sentences and long texts
//! truncated at 256 tokens), repeated `--copies` times. Tokens are counted after truncation,
//! special tokens included, exactly as the model sees them.

use chunklab_embed::{fetch, installed_dir, registry, BertEmbedder, Embedder, Role};
use std::time::Instant;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let threads = arg("--threads", 2);
    let batch_size = arg("--batch-size", 32);
    let copies = arg("--copies", 8);
    let runs = arg("--runs", 3);
    // candle's matmul and the tokenizer both use rayon's global pool, which reads this
    // variable when it starts (on first use, after this line).
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/minilm_reference.json"
    );
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let cases = json["cases"].as_array().ok_or("no cases")?;
    let mut texts = Vec::new();
    let mut tokens = 0usize;
    for _ in 0..copies {
        for c in cases {
            texts.push(c["text"].as_str().ok_or("no text")?.to_string());
            tokens += c["tokens"].as_u64().ok_or("no tokens")? as usize;
        }
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();

    let t = Instant::now();
    let minilm = registry::find("minilm").ok_or("minilm not registered")?;
    let dir = installed_dir(minilm, &fetch::home_dir(), true)?;
    let model = BertEmbedder::from_dir(&dir, "minilm")?.with_batch_size(batch_size);
    eprintln!(
        "verified and loaded minilm in {:.2}s",
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
        "chunklab minilm: {} texts, {tokens} tokens, batch {batch_size}, {threads} threads: best of {runs} {best:.3}s = {:.0} tokens/s, {:.1} texts/s",
        refs.len(),
        tokens as f64 / best,
        refs.len() as f64 / best
    );
    Ok(())
}
