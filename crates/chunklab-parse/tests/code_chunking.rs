//! The `code` strategy on parsed source code, measured in real cl100k tokens: hard size limit,
//! whole units whenever they fit, every non-whitespace char kept, and useful metadata.

use chunklab_core::document::ParsedDocument;
use chunklab_core::strategies::{self, Code};
use chunklab_core::{CharSizer, ChunkMeta, Chunker, Sizer, Span};
use chunklab_parse::code::{parse_code, CodeLanguage, CodeParser};
use chunklab_parse::{Limits, Parser};
use chunklab_tokenizers::Tiktoken;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse(path: &Path) -> ParsedDocument {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    CodeParser::new()
        .parse(&bytes, path, &Limits::default())
        .unwrap()
}

/// The fixtures of every language plus some of this repository's own (larger) sources.
fn corpus() -> Vec<(String, ParsedDocument)> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for own in [
        "chunklab-core/src/strategies/recursive.rs",
        "chunklab-core/src/segment.rs",
        "chunklab-parse/src/code.rs",
    ] {
        paths.push(crates_dir().join(own));
    }
    paths
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                parse(&p),
            )
        })
        .collect()
}

/// Byte offsets just after each newline, for 1-based line numbers by binary search.
fn line_starts(text: &str) -> Vec<usize> {
    text.match_indices('\n').map(|(i, _)| i + 1).collect()
}

fn line_of(starts: &[usize], b: usize) -> u32 {
    starts.partition_point(|&s| s <= b) as u32 + 1
}

/// Sorted, disjoint, stripped spans; real sizes (prefix included) within the limit; exact
/// lines; language set; no non-whitespace char lost.
fn check(
    name: &str,
    doc: &ParsedDocument,
    chunks: &[(Span, ChunkMeta)],
    sizer: &dyn Sizer,
    size: usize,
) {
    let text = &doc.text;
    let starts = line_starts(text);
    let mut covered = 0;
    for (i, (s, meta)) in chunks.iter().enumerate() {
        let chunk = &text[s.start..s.end];
        assert!(
            !chunk.is_empty() && chunk.trim() == chunk,
            "{name}: {chunk:?}"
        );
        assert!(
            s.start >= covered,
            "{name}: chunk {i} overlaps the previous one"
        );
        let gap = &text[covered..s.start];
        assert!(gap.trim().is_empty(), "{name}: lost {gap:?}");
        covered = s.end;
        assert_eq!(
            s.tokens,
            sizer.count(&meta.embed_text(chunk)),
            "{name}: {chunk:?}"
        );
        assert!(s.tokens <= size, "{name}: {} > {size}: {chunk:?}", s.tokens);
        assert_eq!(
            meta.lines,
            Some((line_of(&starts, s.start), line_of(&starts, s.end - 1))),
            "{name}"
        );
        assert_eq!(
            meta.language.as_deref(),
            doc.metadata.get("language").map(|s| s.as_str())
        );
        assert!(
            meta.kind.is_some() || doc.elements.is_empty(),
            "{name}: {chunk:?}"
        );
        check_symbols(name, doc, s, meta);
    }
    assert!(text[covered..].trim().is_empty(), "{name}: lost the tail");
}

/// A chunk names only symbols of units it overlaps: module-level code after a function (the
/// `scanstring = c_scanstring or py_scanstring` lines after `JSONObject` in CPython's
/// json/decoder.py) carries no symbol, or only those of units it shares text with.
fn check_symbols(name: &str, doc: &ParsedDocument, s: &Span, meta: &ChunkMeta) {
    let Some(symbols) = meta.symbol.as_deref() else {
        return;
    };
    // (A unit may itself name several symbols: Go's `const ( A = 1; B = 2 )` is `A, B`.)
    let overlapped: Vec<&str> = doc
        .elements
        .iter()
        .filter(|e| e.start < s.end && s.start < e.end)
        .filter_map(|e| e.symbol())
        .flat_map(|symbols| symbols.split(", "))
        .collect();
    for symbol in symbols.split(", ").filter(|&s| s != "…") {
        let overlapping = overlapped.contains(&symbol);
        assert!(
            overlapping,
            "{name}: chunk {}..{} names {symbol:?}, a unit it does not overlap: {:?}",
            s.start,
            s.end,
            &doc.text[s.start..s.end]
        );
    }
}

/// Every unit whose text fits in `size` tokens lies whole inside one chunk.
fn check_units_whole(
    name: &str,
    doc: &ParsedDocument,
    chunks: &[(Span, ChunkMeta)],
    sizer: &dyn Sizer,
    size: usize,
) {
    for e in &doc.elements {
        let unit = doc.text[e.start..e.end].trim();
        if sizer.count(unit) > size {
            continue;
        }
        let (s, t) = (e.start, e.end);
        let whole = chunks.iter().any(|(c, _)| {
            c.start <= s + (doc.text[s..t].len() - doc.text[s..t].trim_start().len())
                && c.end >= t - (doc.text[s..t].len() - doc.text[s..t].trim_end().len())
        });
        assert!(
            whole,
            "{name} size {size}: {:?} {:?} was cut",
            e.code_kind(),
            e.symbol()
        );
    }
}

#[test]
fn cl100k_limits_hold_units_stay_whole_and_nothing_is_lost() {
    let cl100k = Tiktoken::cl100k();
    for (name, doc) in corpus() {
        for size in [24, 64, 160, 400, 1000] {
            for title_prefix in [false, true] {
                let code = Code::new(Arc::new(cl100k), size, title_prefix).unwrap();
                let chunks = code.chunk_parsed(&doc).unwrap();
                check(&name, &doc, &chunks, &cl100k, size);
                if !title_prefix {
                    check_units_whole(&name, &doc, &chunks, &cl100k, size);
                }
            }
        }
    }
}

#[test]
fn chars_limits_hold_too() {
    for (name, doc) in corpus() {
        // (Tiny sizes only on the fixtures: one chunk per char is slow in debug builds.)
        let sizes: &[usize] = if doc.text.len() < 8000 {
            &[1, 7, 80, 300, 2000]
        } else {
            &[80, 300, 2000]
        };
        for &size in sizes {
            let code = Code::new(Arc::new(CharSizer), size, size > 80).unwrap();
            let chunks = code.chunk_parsed(&doc).unwrap();
            check(&name, &doc, &chunks, &CharSizer, size);
            if size >= 80 {
                check_units_whole(&name, &doc, &chunks, &CharSizer, size);
            }
        }
    }
}

fn chunk_with(doc: &ParsedDocument, size: usize, title_prefix: bool) -> Vec<(String, ChunkMeta)> {
    let code = Code::new(Arc::new(Tiktoken::cl100k()), size, title_prefix).unwrap();
    code.chunk_parsed(doc)
        .unwrap()
        .into_iter()
        .map(|(s, m)| (doc.text[s.start..s.end].to_string(), m))
        .collect()
}

fn fixture(name: &str) -> ParsedDocument {
    parse(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/code")
            .join(name),
    )
}

#[test]
fn small_units_merge_and_large_classes_open_at_their_methods() {
    let doc = fixture("billing.py");
    // Big budget: the whole file is a few chunks of whole top-level units.
    let chunks = chunk_with(&doc, 400, false);
    assert!(chunks.len() <= 4, "{}", chunks.len());
    let first = &chunks[0].1;
    assert_eq!(
        first.kind.as_deref(),
        Some("comment, imports, statements, class")
    );
    assert!(
        first
            .symbol
            .as_deref()
            .unwrap()
            .starts_with("Usage, InvoiceError"),
        "{first:?}"
    );

    // A budget below the Invoice class: it is opened; the header and docstring go with the
    // first method, and no method is cut.
    let chunks = chunk_with(&doc, 110, false);
    let header = chunks
        .iter()
        .find(|(t, _)| t.starts_with("class Invoice:"))
        .unwrap();
    assert!(header.0.contains("def __init__"), "{}", header.0);
    assert_eq!(
        header.1.symbol.as_deref(),
        Some("Invoice, Invoice.__init__")
    );
    let render = chunks
        .iter()
        .find(|(t, _)| t.contains("def render"))
        .unwrap();
    assert!(render.0.trim_end().ends_with("return \"\\n\".join(rows)"));
    assert!(render
        .1
        .symbol
        .as_deref()
        .unwrap()
        .contains("Invoice.render"));
    assert_eq!(render.1.lines.map(|l| l.1), Some(73));

    // With title_prefix the method chunks carry the class line, counted in the size.
    let chunks = chunk_with(&doc, 110, true);
    let render = chunks
        .iter()
        .find(|(t, _)| t.contains("def render"))
        .unwrap();
    assert_eq!(render.1.prefix.as_deref(), Some("class Invoice:\n"));
    let header = chunks
        .iter()
        .find(|(t, _)| t.starts_with("class Invoice:"))
        .unwrap();
    assert_eq!(header.1.prefix, None);
}

#[test]
fn rust_impl_split_by_method_with_the_impl_line_as_prefix() {
    let doc = fixture("inventory.rs");
    // `impl Inventory` (261 tokens) is opened; `transfer` (153) fits with the prefix.
    let chunks = chunk_with(&doc, 200, true);
    let transfer = chunks
        .iter()
        .find(|(t, _)| t.starts_with("/// Move `n` items"))
        .expect("the transfer method starts a chunk with its doc comment");
    // The impl's closing brace came along; brackets do not add a symbol.
    assert_eq!(transfer.1.symbol.as_deref(), Some("Inventory::transfer"));
    assert_eq!(transfer.1.prefix.as_deref(), Some("impl Inventory {\n"));
    assert_eq!(transfer.1.lines, Some((72, 86)));
    assert!(transfer.0.ends_with("Ok(())\n    }\n}"));
    // A function larger than the budget is cut at lines, never mid-line here.
    let chunks = chunk_with(&doc, 40, false);
    let pieces: Vec<_> = chunks
        .iter()
        .filter(|(_, m)| m.symbol.as_deref() == Some("Inventory::transfer"))
        .collect();
    assert!(pieces.len() >= 2, "{pieces:?}");
    for (t, _) in &pieces {
        assert!(
            doc.text.contains(&format!("{t}\n")),
            "{t:?} does not end a line"
        );
    }
}

#[test]
fn registered_in_build_and_needs_a_parsed_document() {
    let cfg = chunklab_core::ChunkConfig::new(chunklab_core::Strategy::Code, 200);
    let chunker = strategies::build(&cfg, Arc::new(CharSizer), None).unwrap();
    assert_eq!(chunker.strategy(), "code");
    let err = chunker.spans("fn main() {}").unwrap_err();
    assert!(err.to_string().contains("parsed document"), "{err}");
    assert!(strategies::catalog().iter().any(|s| s.name == "code"));
    // A document without elements is still chunked (as one stretch of lines).
    let doc = ParsedDocument::plain("a\nb\nc\n".repeat(100));
    let chunks = chunker.chunk_parsed(&doc).unwrap();
    check("plain", &doc, &chunks, &CharSizer, 200);
}

#[test]
fn hostile_sources_chunk_without_panic() {
    let cl100k = Tiktoken::cl100k();
    let limits = Limits::default();
    let cases = [
        (
            CodeLanguage::Rust,
            format!("fn f() {}{}\n", "{".repeat(10_000), "}".repeat(10_000)),
        ),
        (
            CodeLanguage::Rust,
            format!("{}{}", "mod m { ".repeat(10_000), "}".repeat(10_000)),
        ),
        (
            CodeLanguage::Python,
            format!("x = \"{}\"\n", "a".repeat(1 << 20)),
        ),
        (CodeLanguage::JavaScript, "é(".repeat(50_000)),
    ];
    for (lang, src) in cases {
        let doc = parse_code(&src, lang, &limits).unwrap();
        let code = Code::new(Arc::new(cl100k), 256, true).unwrap();
        let chunks = code.chunk_parsed(&doc).unwrap();
        check(lang.name(), &doc, &chunks, &cl100k, 256);
    }
}

/// Throughput of parsing plus `code` chunking, on the directories in `CHUNKLAB_CODE_CORPUS`
/// (`:`-separated; default: this workspace's crates):
/// `cargo test --release -p chunklab-parse --test integration code_chunking::code_throughput -- --ignored --nocapture`
#[test]
#[ignore]
fn code_throughput() {
    let dirs = std::env::var("CHUNKLAB_CODE_CORPUS")
        .unwrap_or_else(|_| crates_dir().display().to_string());
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.split(':').map(PathBuf::from).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() && !p.ends_with("target") {
                stack.push(p);
            } else if CodeLanguage::from_path(&p).is_some() {
                if let Ok(bytes) = std::fs::read(&p) {
                    files.push((p, bytes));
                }
            }
        }
    }
    files.sort();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let mib = bytes as f64 / (1 << 20) as f64;
    let limits = Limits::default();
    let t = std::time::Instant::now();
    let docs: Vec<ParsedDocument> = files
        .iter()
        .filter_map(|(p, b)| CodeParser::new().parse(b, p, &limits).ok())
        .collect();
    let parse_s = t.elapsed().as_secs_f64();
    let units: usize = docs.iter().map(|d| d.elements.len()).sum();
    eprintln!(
        "{} files, {mib:.1} MiB, {units} elements: parse {parse_s:.2}s = {:.1} MiB/s",
        docs.len(),
        mib / parse_s
    );
    let sizers: [(&str, Arc<dyn Sizer>, usize); 2] = [
        ("cl100k 400", Arc::new(Tiktoken::cl100k()), 400),
        ("chars 2000", Arc::new(CharSizer), 2000),
    ];
    for (label, sizer, size) in sizers {
        let code = Code::new(sizer, size, false).unwrap();
        let t = std::time::Instant::now();
        let n: usize = docs
            .iter()
            .map(|d| code.chunk_parsed(d).unwrap().len())
            .sum();
        let chunk_s = t.elapsed().as_secs_f64();
        eprintln!(
            "code {label}: {n} chunks, chunking {chunk_s:.2}s = {:.1} MiB/s; parse + chunk = {:.1} MiB/s",
            mib / chunk_s,
            mib / (parse_s + chunk_s)
        );
    }
}

/// Issue 20, item 9: module-level lines right before a large function (json/decoder.py's
/// `scanstring = c_scanstring or py_scanstring` before `def JSONObject`) packed with it as a
/// lead-in were labelled with the function's symbol even in a chunk of module code alone; and
/// the function's later chunks carried the lead-in's symbols. Every chunk at every size names
/// only units it overlaps.
#[test]
fn a_lead_in_packed_with_a_large_function_keeps_its_own_symbols() {
    let doc = fixture("decoder_shape.py");
    let lead_in = doc.text.find("# Use the speedup").unwrap();
    let mut lead_in_alone = 0;
    for size in (40..=400).step_by(20) {
        let cl100k = Tiktoken::cl100k();
        let chunks = Code::new(Arc::new(cl100k), size, false)
            .unwrap()
            .chunk_parsed(&doc)
            .unwrap();
        for (span, meta) in &chunks {
            check_symbols(&format!("size {size}"), &doc, span, meta);
            let function = doc.text.find("def parse_object").unwrap();
            if span.start >= lead_in && span.end <= function {
                lead_in_alone += 1;
                assert_eq!(meta.symbol, None, "size {size}: module code named");
            }
        }
    }
    assert!(
        lead_in_alone > 0,
        "no size put the module lines in a chunk of their own"
    );
}
