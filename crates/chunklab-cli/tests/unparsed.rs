//! Markdown and reStructuredText chunked from their text as read, without their parse
//! (`Pipeline::chunks_unparsed`, for strategies that read only locations), give exactly the
//! chunks and warnings of the full parse (`prepare` + `process`): on every Markdown and reST
//! document of the shared data sets and on hand-made edge cases, for every such strategy. The
//! chunks are compared as JSON with every field; every output format is rendered from them.
//! The shared data sets must be there (`$CHUNKLAB_SHARED`, `data/` or `../shared`).

use chunklab_core::config::{Compat, Unit};
use chunklab_core::{ChunkConfig, Strategy};
use chunklab_pipeline::{Input, Pipeline, PipelineConfig};
use chunklab_test_support::{cli, shared_path, stderr};
use std::path::PathBuf;

/// Every strategy that reads only locations, in a few sizes and units.
fn configs() -> Vec<ChunkConfig> {
    vec![
        ChunkConfig {
            overlap: 200,
            compat: Compat::LangChain,
            ..ChunkConfig::new(Strategy::Recursive, 2000)
        },
        ChunkConfig::new(Strategy::Recursive, 300),
        ChunkConfig {
            overlap: 20,
            ..ChunkConfig::new(Strategy::Fixed, 250)
        },
        ChunkConfig {
            unit: Some(Unit::Words),
            ..ChunkConfig::new(Strategy::Sliding, 60)
        },
        ChunkConfig {
            overlap: 1,
            ..ChunkConfig::new(Strategy::Sentence, 400)
        },
        ChunkConfig::new(Strategy::Paragraph, 500),
    ]
}

type Output = (Vec<String>, usize, Vec<String>);

fn json(chunks: &[chunklab_core::Chunk<'_>]) -> Vec<String> {
    chunks
        .iter()
        .map(|c| serde_json::to_string(c).expect("json"))
        .collect()
}

/// The full parse: `prepare` + `process`.
fn parsed(pipeline: &Pipeline, input: &Input) -> Output {
    let prepared = pipeline.prepare(input, false).expect("prepare");
    let source = input.source();
    let doc = pipeline
        .process(input, &source, &prepared)
        .expect("process");
    (json(&doc.chunks), doc.bytes, doc.warnings)
}

/// What `chunklab chunk` runs: `with_processed`.
fn in_one_go(pipeline: &Pipeline, input: &Input) -> Output {
    pipeline
        .with_processed(input, |doc| (json(&doc.chunks), doc.bytes, doc.warnings))
        .expect("with_processed")
}

/// Whether `with_processed` skips the parse of `path`.
fn unparsed(pipeline: &Pipeline, path: &PathBuf, parser: &str) -> bool {
    let text = std::fs::read_to_string(path).expect("read");
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    pipeline.chunks_unparsed(parser, text)
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = shared_path(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files in {}", dir.display());
    files
}

#[test]
fn shared_markdown_and_rst_chunk_the_same_unparsed() {
    let mut docs: Vec<(PathBuf, &str)> = Vec::new();
    for path in files("datasets/documents/markdown", "md") {
        docs.push((path, "markdown"));
    }
    for path in files("datasets/chroma/corpora", "md") {
        docs.push((path, "markdown"));
    }
    for path in files("datasets/documents/rst", "rst") {
        docs.push((path, "rst"));
    }
    let mut skipped = 0;
    for cfg in configs() {
        let pipeline = Pipeline::new(PipelineConfig {
            chunking: cfg.clone(),
            ..PipelineConfig::default()
        })
        .expect("pipeline");
        for (path, parser) in &docs {
            let input = Input::file(path);
            let want = parsed(&pipeline, &input);
            assert!(!want.0.is_empty(), "{}: no chunks", path.display());
            let got = in_one_go(&pipeline, &input);
            assert_eq!(got, want, "{} {cfg:?}", path.display());
            skipped += usize::from(unparsed(&pipeline, path, parser));
        }
    }
    // The comparison is of the unparsed path: every one of these documents takes it.
    assert_eq!(skipped, docs.len() * configs().len());
}

#[test]
fn edge_cases_chunk_the_same_unparsed() {
    let dir = tempfile::tempdir().expect("tmp");
    let para = "De raad *besluit* over [windenergie](https://x.nl) op zee — één “besluit”.\nTweede regel.\n\n";
    let deep = ">".repeat(300) + " diep\n";
    let toc =
        "  * [`pathlib` \u{2014} Paden](pathlib.html)\n    * [Gebruik](pathlib.html#gebruik)\n"
            .repeat(300);
    // Emphasis and underscores on every line (as in the Python docs' contents.md): over the
    // one-pass bound (3,600 openers in one run), under the bound cut at each list item.
    let toc_openers = format!(
        "Inhoud\n{}",
        "  * [`__future__` \u{2014} _Future_ statements](library/__future__.html)\n    * [*Gebruik*](x.html#_gebruik)\n".repeat(300)
    );
    let plan = format!("Plan:\n\n{}\n", "          ->  Seq Scan on t\n".repeat(40));
    let nested = |open: &str, close: &str| format!("{}x{}\n", open.repeat(300), close.repeat(300));
    let indented: String = (0..150)
        .map(|k| format!("{}- a\n", "  ".repeat(k)))
        .collect();
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "front.md",
            format!("---\ntitle: Notitie\n---\n# Kop\n\n{}", para.repeat(8)).into_bytes(),
            true,
        ),
        (
            "bom.md",
            [b"\xEF\xBB\xBF".as_slice(), para.repeat(8).as_bytes()].concat(),
            true,
        ),
        (
            "bom2.md",
            [
                b"\xEF\xBB\xBF\xEF\xBB\xBF".as_slice(),
                para.repeat(8).as_bytes(),
            ]
            .concat(),
            false,
        ),
        (
            "crlf.md",
            para.replace('\n', "\r\n").repeat(8).into_bytes(),
            true,
        ),
        (
            "cr.md",
            para.replace('\n', "\r").repeat(8).into_bytes(),
            true,
        ),
        ("blank.md", b" \n\t\n\n".repeat(50), true),
        ("empty.md", Vec::new(), true),
        ("refs.md", b"[a]: https://example.org\n".to_vec(), true),
        ("comment.md", b"<!-- alleen commentaar -->\n".to_vec(), true),
        ("pages.md", format!("{para}\x0C{para}").into_bytes(), true),
        (
            "nbsp.md",
            "\u{a0}\n\u{2003}x\u{a0}\n".as_bytes().to_vec(),
            true,
        ),
        (
            "footnote.md",
            format!("Zie[^1].\n\n[^1]: {para}").into_bytes(),
            false,
        ),
        // Nested past the parser's limit: its warning, so the parse.
        ("deep.md", deep.clone().into_bytes(), false),
        // Hundreds of links or indented lines in one run of lines: no parse (links never
        // contain links, so `[` × 300 nests one link).
        ("toc.md", toc.into_bytes(), true),
        ("toc-openers.md", toc_openers.clone().into_bytes(), true),
        // The same with a fenced code block, which the list items' bound refuses.
        (
            "toc-fence.md",
            format!("```\ncode\n```\n{toc_openers}").into_bytes(),
            false,
        ),
        ("plan.md", plan.into_bytes(), true),
        ("links.md", nested("[", "](y)").into_bytes(), true),
        // Images, emphasis, bullets and indentation that do nest past the limit.
        ("images.md", nested("![", "](y)").into_bytes(), false),
        ("strong.md", nested("**", "**").into_bytes(), false),
        (
            "bullets.md",
            format!("{}x\n", "- ".repeat(200)).into_bytes(),
            false,
        ),
        ("indented.md", indented.into_bytes(), false),
        (
            "lists.md",
            "- a\n  - b\n    - c\n\n      d *e* __f__\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"
                .repeat(20)
                .into_bytes(),
            true,
        ),
        (
            "titel.rst",
            format!(
                "=====\nTitel\n=====\n\n{}.. note::\n\n   Let op.\n",
                para.repeat(8)
            )
            .into_bytes(),
            true,
        ),
        (
            "bom2.rst",
            [
                b"\xEF\xBB\xBF\xEF\xBB\xBF".as_slice(),
                para.repeat(8).as_bytes(),
            ]
            .concat(),
            false,
        ),
        ("blank.rst", b"\n  \n".to_vec(), true),
        (
            "crlf.rst",
            "Kop\r\n===\r\n\r\n* punt\r\n".repeat(30).into_bytes(),
            true,
        ),
    ];
    for cfg in configs() {
        let pipeline = Pipeline::new(PipelineConfig {
            chunking: cfg.clone(),
            ..PipelineConfig::default()
        })
        .expect("pipeline");
        for (name, bytes, skips) in &cases {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).expect("write");
            let input = Input::file(&path);
            let want = parsed(&pipeline, &input);
            let got = in_one_go(&pipeline, &input);
            assert_eq!(got, want, "{name} {cfg:?}");
            if ["deep", "images", "strong", "bullets", "indented"]
                .contains(&&name[..name.len() - 3])
            {
                // The bound is needed: the parse does warn.
                assert_eq!(want.2.len(), 1, "{name}: {:?}", want.2);
            }
            let parser = if name.ends_with(".md") {
                "markdown"
            } else {
                "rst"
            };
            assert_eq!(unparsed(&pipeline, &path, parser), *skips, "{name}");
        }
    }
    // Structure-reading strategies still get the parse.
    let headings = Pipeline::new(PipelineConfig {
        chunking: ChunkConfig::new(Strategy::Headings, 300),
        ..PipelineConfig::default()
    })
    .expect("pipeline");
    assert!(!headings.chunks_unparsed("markdown", "# a\n"));
    // The deep file's warning still reaches `chunklab chunk`'s stderr.
    let deep_path = dir.path().join("deep.md");
    let out = cli!().run(&[
        "chunk",
        "-q",
        "--strategy",
        "recursive",
        deep_path.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nested deeper than"),
        "{}",
        stderr(&out)
    );
}
