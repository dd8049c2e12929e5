//! Prints what the parsers extract from files, for comparing parser versions by `diff`.
//!
//! ```text
//! cargo run -p chunklab-parse --example parse_dump -- FILE... > dump.txt
//! ```
//! For each file: its format, page count, metadata and warnings, then every element (kind, page,
//! byte span) followed by its text.

use chunklab_parse::{parser_for, Limits};
use std::path::Path;

fn main() {
    let mut failed = false;
    for file in std::env::args().skip(1) {
        let path = Path::new(&file);
        println!("=== {file}");
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{file}: {e}");
                failed = true;
                continue;
            }
        };
        let parser = parser_for(path, &bytes);
        match parser.parse(&bytes, path, &Limits::default()) {
            Ok(doc) => {
                println!("format {} pages {:?}", doc.format, doc.pages);
                for (k, v) in &doc.metadata {
                    println!("meta {k}: {v:?}");
                }
                for w in &doc.warnings {
                    println!("warning {w}");
                }
                for e in &doc.elements {
                    let text = doc.text.get(e.start..e.end).unwrap_or("<bad span>");
                    println!(
                        "--- {:?} page {:?} [{}..{}]",
                        e.kind, e.page, e.start, e.end
                    );
                    println!("{text}");
                }
                println!("=== text {} bytes", doc.text.len());
            }
            Err(e) => println!("error {e}"),
        }
    }
    if failed {
        std::process::exit(1);
    }
}
