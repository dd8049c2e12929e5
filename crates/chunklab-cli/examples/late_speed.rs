//! Cost of late chunking per document against embedding the same chunks one by one.
//!
//! ```text
//! cargo run --release -p chunklab --example late_speed -- [--threads 2] [--size 256] \
//!     [--boundaries headings] [--late-overlap N] [--runs 3] FILE...
//! ```
//!
//! Each file is parsed as `chunklab chunk` parses it, cut by the boundary strategy with sizes
//! in MiniLM tokens, and then embedded both ways with the same loaded model: late chunking
//! (`late_embeddings`: whole-document tokenization, macro windows, pooling) and the chunk
//! texts through `Embedder::embed` (batches of 32, longest first). The two alternate within
//! each of `--runs` rounds, so a loaded machine slows both alike; times are the best of the
//! rounds, wall ("s" columns) and process CPU ("c" columns), and the ratios are late /
//! separate. "t" columns count what each way runs through the model, special tokens included:
//! the windows for late, the chunks for separate.

use chunklab_core::strategies;
use chunklab_core::ChunkConfig;
use chunklab_embed::{fetch, late_embeddings, load, LateOptions, LoadOptions, Role};
use chunklab_parse::detect::parser_for;
use chunklab_parse::Limits;
use std::path::Path;
use std::time::Instant;

fn flag(args: &mut Vec<String>, name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    let value = args.get(i + 1).cloned();
    args.drain(i..(i + 2).min(args.len()));
    value
}

fn number(args: &mut Vec<String>, name: &str, default: usize) -> usize {
    flag(args, name).map_or(default, |v| v.parse().expect("a number"))
}

/// User + system CPU time of this process so far, in seconds (all threads).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return f64::NAN;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Best wall and CPU seconds of a job, and its last result.
struct Timed<T> {
    wall: f64,
    cpu: f64,
    result: T,
}

fn timed<T>(best: &mut Option<Timed<T>>, f: impl FnOnce() -> T) {
    let (t, c) = (Instant::now(), cpu_seconds());
    let result = f();
    let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
    *best = Some(match best.take() {
        None => Timed { wall, cpu, result },
        Some(b) => Timed {
            wall: wall.min(b.wall),
            cpu: cpu.min(b.cpu),
            result,
        },
    });
}

/// Best times of two jobs over `runs` rounds, the jobs alternating within each round (so load
/// on a shared machine hits both alike).
fn interleaved<A, B>(
    runs: usize,
    mut a: impl FnMut() -> A,
    mut b: impl FnMut() -> B,
) -> (Timed<A>, Timed<B>) {
    let (mut best_a, mut best_b) = (None, None);
    for _ in 0..runs.max(1) {
        timed(&mut best_a, &mut a);
        timed(&mut best_b, &mut b);
    }
    (best_a.expect("one run"), best_b.expect("one run"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let threads = number(&mut args, "--threads", 2);
    let size = number(&mut args, "--size", 256);
    let runs = number(&mut args, "--runs", 3);
    let boundaries = flag(&mut args, "--boundaries").unwrap_or_else(|| "headings".into());
    let late_opts = LateOptions {
        window: flag(&mut args, "--late-window").map(|v| v.parse().expect("a number")),
        overlap: flag(&mut args, "--late-overlap").map(|v| v.parse().expect("a number")),
    };
    // candle's matmul and the tokenizer both use rayon's global pool, which reads this
    // variable when it starts (on first use, after this line).
    std::env::set_var("RAYON_NUM_THREADS", threads.to_string());

    let model = load("minilm", &LoadOptions::default())?;
    let tokenizer = fetch::model_dir(&fetch::home_dir(), "minilm").join("tokenizer.json");
    let sizer =
        chunklab_tokenizers::sizer_from_spec("tokens", Some(tokenizer.to_str().unwrap()), false)?;
    let opts = ChunkConfig::new(boundaries.parse::<chunklab_core::Strategy>()?, size);
    let chunker = strategies::build(&opts, sizer, None)?;
    let (window, overlap) = late_opts.resolve(model.token_capacity())?;
    model.embed(&["warm-up"], Role::Passage)?;
    println!(
        "late chunking vs separate chunks: minilm, {boundaries} size {size}, window {window} overlap {overlap}, {threads} threads, best of {runs}"
    );
    println!(
        "{:<46} {:>6} {:>6} {:>4} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6} {:>7} {:>7} {:>6}",
        "document",
        "tokens",
        "chunks",
        "win",
        "late t",
        "sep t",
        "ratio",
        "late s",
        "sep s",
        "ratio",
        "late c",
        "sep c",
        "ratio"
    );
    let mut totals = [0f64; 4];
    for file in &args {
        let path = Path::new(file);
        let bytes = std::fs::read(path)?;
        let parser = parser_for(path, &bytes[..bytes.len().min(4096)]);
        let doc = parser.parse(&bytes, path, &Limits::default())?;
        let spans: Vec<_> = chunker
            .chunk_parsed(&doc)?
            .into_iter()
            .map(|(s, _)| s.start..s.end)
            .collect();
        let texts: Vec<&str> = spans.iter().map(|s| &doc.text[s.clone()]).collect();
        let (late, separate) = interleaved(
            runs,
            || late_embeddings(model.as_ref(), &doc.text, &spans, &late_opts),
            || model.embed(&texts, Role::Passage),
        );
        separate.result?;
        let late_result = late.result?;
        let late_tokens: usize = late_result.windows.iter().map(|w| w.len() + 2).sum();
        let separate_tokens: usize = texts
            .iter()
            .map(|t| (model.token_spans(t.trim()).map_or(0, |s| s.len()) + 2).min(256))
            .sum();
        for (total, v) in totals
            .iter_mut()
            .zip([late.wall, separate.wall, late.cpu, separate.cpu])
        {
            *total += v;
        }
        let name = path.file_name().unwrap().to_string_lossy();
        println!(
            "{:<46} {:>6} {:>6} {:>4} {:>7} {:>7} {:>5.2}x {:>7.3} {:>7.3} {:>5.2}x {:>7.3} {:>7.3} {:>5.2}x",
            name,
            late_result.tokens,
            spans.len(),
            late_result.windows.len(),
            late_tokens,
            separate_tokens,
            late_tokens as f64 / separate_tokens as f64,
            late.wall,
            separate.wall,
            late.wall / separate.wall,
            late.cpu,
            separate.cpu,
            late.cpu / separate.cpu,
        );
    }
    let [lw, sw, lc, sc] = totals;
    println!(
        "total: wall late {lw:.3} s / separate {sw:.3} s = {:.2}x; CPU late {lc:.3} s / separate {sc:.3} s = {:.2}x",
        lw / sw,
        lc / sc
    );
    Ok(())
}
