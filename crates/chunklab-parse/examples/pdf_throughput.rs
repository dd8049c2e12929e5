//! PDF extraction throughput in pages per second, for comparison with `pdftotext`.
//!
//! ```text
//! cargo run --release -p chunklab-parse --example pdf_throughput -- FILE.pdf... [--runs N]
//! ```
//! Each file is parsed `N` times (default 5; with more than one run, after a warm-up run); the
//! best and the mean time are printed with pages/s. `--runs 1` parses once, for timing the whole
//! process side by side with `pdftotext` (`hyperfine`).

use chunklab_parse::pdf::PdfParser;
use chunklab_parse::{Limits, Parser};
use std::time::Instant;

fn main() {
    let mut runs = 5usize;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(runs)
                .max(1);
        } else {
            files.push(a);
        }
    }
    for file in files {
        let bytes = std::fs::read(&file).expect("read file");
        let parse = || PdfParser.parse(&bytes, file.as_ref(), &Limits::default());
        if runs > 1 {
            parse().expect("parse");
        }
        let mut times = Vec::with_capacity(runs);
        let mut doc = None;
        for _ in 0..runs {
            let t = Instant::now();
            let d = parse().expect("parse");
            times.push(t.elapsed().as_secs_f64());
            doc = Some(d);
        }
        let doc = doc.expect("at least one run");
        let pages = doc.pages.unwrap_or(0) as f64;
        let best = times.iter().copied().fold(f64::MAX, f64::min);
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "{file}: {pages} pages, {} chars; best {:.1} ms ({:.0} pages/s), mean {:.1} ms ({:.0} pages/s)",
            doc.text.chars().count(),
            best * 1e3,
            pages / best,
            mean * 1e3,
            pages / mean
        );
    }
}
