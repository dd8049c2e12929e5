//! Our dataset format on disk: a corpus directory (every text file is a document, and so is
//! every PDF, DOCX, ODT or image file, read through the pipeline's parsers with OCR; its id the
//! path relative to the directory) plus a queries JSONL file, one query per line:
//!
//! ```json
//! {"id": "q1", "query": "Wanneer is de motie aangenomen?", "relevant_docs": ["moties/2021-114.md"],
//!  "relevant_spans": [{"doc_id": "moties/2021-114.md", "start_char": 120, "end_char": 240}]}
//! ```
//!
//! Either list may be empty, not both. Span offsets are Unicode scalar (char) offsets into the
//! document text, end exclusive: for a text file the file itself, for a parsed document (PDF,
//! DOCX, ODT, image) the parse's text, which `chunklab parse --full-text` shows. Every problem
//! is reported with its file and line; nothing is dropped silently: files that are skipped are
//! listed in [`Corpus::skipped`].

use crate::dataset::{Dataset, Document, Query, RelevantSpan};
use crate::error::{io_err, Error, Result};
use chunklab_core::document::ParsedDocument;
use chunklab_parse::detect::{format_for, is_binary_format};
use chunklab_pipeline::{Input, OcrOptions, Prepared, Reading, ReadingConfig, Skip};
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Documents read from a directory, plus the files that were not documents.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub docs: Vec<Document>,
    /// `(path, why)` for every file left out (binary, hidden).
    pub skipped: Vec<(PathBuf, String)>,
    /// The documents parsed from their own bytes (PDF, DOCX, ODT, images), by id; their
    /// [`Document::text`] is the parse's text.
    pub parsed: BTreeMap<String, Arc<ParsedDocument>>,
    /// `(path, warning)` from the parsers: pages without text, pages turned or read with low
    /// OCR confidence, undecodable images.
    pub warnings: Vec<(PathBuf, String)>,
}

/// Sniffed bytes: a NUL among them makes a file binary.
const SNIFF: usize = 8192;

/// [`load_corpus_with`] with the default OCR options (`auto`, `nld+eng`).
pub fn load_corpus(dir: &Path) -> Result<Corpus> {
    load_corpus_with(dir, &OcrOptions::default())
}

/// Read every file under `dir` (sorted, recursively; hidden files and directories are left
/// out and listed) as a document. `dir` may also be a single file.
///
/// - A PDF, DOCX, ODT or image file (PNG, JPEG, TIFF), by its extension or, for a file that is
///   not UTF-8 text, by its first bytes, is read and parsed by the pipeline's reading
///   ([`chunklab_pipeline::prepare`], as `chunklab chunk` and `index` read it), scanned pages
///   and images OCR'd as `ocr` says; the document's text is the parse's text. A file that
///   does not parse is an error naming it.
/// - Any other file is a UTF-8 text document, its text the file, exactly as read. A file with
///   a NUL byte in its first 8 KiB is binary and listed in `skipped`; a file that is not UTF-8
///   is an error naming it and the byte offset.
pub fn load_corpus_with(dir: &Path, ocr: &OcrOptions) -> Result<Corpus> {
    let meta = std::fs::metadata(dir).map_err(io_err(dir))?;
    let mut files = Vec::new();
    let mut corpus = Corpus::default();
    if meta.is_file() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push((dir.to_path_buf(), name));
    } else {
        walk(dir, dir, &mut files, &mut corpus.skipped)?;
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    let mut problems = Vec::new();
    // (position in `corpus.docs`, path, id) of the files the parsers read.
    let mut to_parse = Vec::new();
    for (path, id) in files {
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if parsed_format(&path, &bytes) {
            to_parse.push((corpus.docs.len(), path, id.clone()));
            corpus.docs.push(Document {
                id,
                name,
                text: String::new(),
            });
            continue;
        }
        if bytes[..bytes.len().min(SNIFF)].contains(&0) {
            corpus.skipped.push((path, "binary (NUL bytes)".into()));
            continue;
        }
        match String::from_utf8(bytes) {
            Ok(text) => corpus.docs.push(Document { id, name, text }),
            Err(e) => problems.push(format!(
                "{}: not UTF-8 (first invalid byte at offset {})",
                path.display(),
                e.utf8_error().valid_up_to()
            )),
        }
    }
    if !to_parse.is_empty() {
        let reading = Reading::new(&ReadingConfig {
            ocr: ocr.clone(),
            ..ReadingConfig::default()
        })
        .map_err(|e| Error::Config(format!("{e:#}")))?;
        let parses: Vec<_> = to_parse
            .par_iter()
            .map(|(_, path, _)| {
                chunklab_pipeline::prepare(&Input::file(path), true, &reading, false)
            })
            .collect();
        for ((at, path, id), parse) in to_parse.into_iter().zip(parses) {
            match parse {
                Ok(Prepared::Parsed(doc, warnings)) => {
                    corpus.docs[at].text = doc.text.clone();
                    corpus
                        .warnings
                        .extend(warnings.into_iter().map(|w| (path.clone(), w)));
                    corpus.parsed.insert(id, Arc::new(doc));
                }
                Ok(Prepared::Plain(text)) => corpus.docs[at].text = text.as_str().to_string(),
                Err(Skip::Binary) => {
                    corpus.skipped.push((path, "binary (NUL bytes)".into()));
                    corpus.docs[at].id.clear();
                }
                // The pipeline's errors start with the file's path.
                Err(Skip::Error(e)) => problems.push(format!("{e:#}")),
            }
        }
        corpus.docs.retain(|d| !d.id.is_empty());
    }
    if !problems.is_empty() {
        return Err(Error::Invalid {
            path: dir.to_path_buf(),
            problems: problems.into_iter().map(|p| (0, p)).collect(),
        });
    }
    if corpus.docs.is_empty() {
        return Err(Error::Dataset(format!(
            "{}: empty corpus (no text files{})",
            dir.display(),
            if corpus.skipped.is_empty() {
                String::new()
            } else {
                format!("; {} skipped", corpus.skipped.len())
            }
        )));
    }
    Ok(corpus)
}

/// Whether `path` is read by a parser from its own bytes (PDF, DOCX, ODT, image) rather than
/// as UTF-8 text: its extension names such a format, or its first bytes do and it is not
/// UTF-8 text (so a text file is read as text, as it always was).
fn parsed_format(path: &Path, bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF)];
    if !is_binary_format(format_for(path, head)) {
        return false;
    }
    is_binary_format(format_for(path, &[]))
        || head.contains(&0)
        || std::str::from_utf8(bytes).is_err()
}

fn walk(
    root: &Path,
    dir: &Path,
    files: &mut Vec<(PathBuf, String)>,
    skipped: &mut Vec<(PathBuf, String)>,
) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io_err(dir))?
        .collect::<std::io::Result<_>>()
        .map_err(io_err(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let hidden = e.file_name().to_string_lossy().starts_with('.');
        let ft = e.file_type().map_err(io_err(&path))?;
        if hidden {
            skipped.push((path, "hidden".into()));
        } else if ft.is_dir() {
            walk(root, &path, files, skipped)?;
        } else if path.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let id = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            files.push((path, id));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuery {
    id: Option<serde_json::Value>,
    query: String,
    #[serde(default)]
    relevant_docs: Vec<String>,
    #[serde(default)]
    relevant_spans: Vec<RelevantSpan>,
}

/// Read a queries JSONL file and check it against `docs`: every line must parse, ids must be
/// unique (a missing id becomes `line-N`), documents must exist, spans must lie inside their
/// document and not be empty, and each query needs a relevant document or span. Blank lines
/// are allowed. All problems are reported together, each with its line number.
pub fn load_queries(path: &Path, docs: &[Document]) -> Result<Vec<Query>> {
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    let invalid = |problems| Error::Invalid {
        path: path.to_path_buf(),
        problems,
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            // Name the line and byte of the first invalid byte.
            let at = e.utf8_error().valid_up_to();
            let before = &e.as_bytes()[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let col = at
                - before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
            return Err(invalid(vec![(
                line,
                format!(
                    "not valid UTF-8 at byte {at} (byte {} of the line)",
                    col + 1
                ),
            )]));
        }
    };
    parse_queries(&text, docs).map_err(invalid)
}

/// [`load_queries`] on the file's text; problems as `(line, message)`.
pub fn parse_queries(
    text: &str,
    docs: &[Document],
) -> std::result::Result<Vec<Query>, Vec<(usize, String)>> {
    let lens: HashMap<&str, usize> = docs
        .iter()
        .map(|d| (d.id.as_str(), d.text.chars().count()))
        .collect();
    let mut problems = Vec::new();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // A byte-order mark (as Windows editors write one) is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let raw: RawQuery = match serde_json::from_str(line) {
            Ok(q) => q,
            Err(e) => {
                problems.push((n, format!("malformed query: {e}")));
                continue;
            }
        };
        let id = match raw.id {
            None => format!("line-{n}"),
            Some(serde_json::Value::String(s)) => s,
            Some(serde_json::Value::Number(x)) => x.to_string(),
            Some(other) => {
                problems.push((n, format!("`id` must be a string or number, got {other}")));
                continue;
            }
        };
        let before = problems.len();
        if !seen.insert(id.clone()) {
            problems.push((n, format!("duplicate query id `{id}`")));
        }
        if raw.query.trim().is_empty() {
            problems.push((n, format!("query `{id}` has an empty `query`")));
        }
        if raw.relevant_docs.is_empty() && raw.relevant_spans.is_empty() {
            problems.push((
                n,
                format!("query `{id}` has neither `relevant_docs` nor `relevant_spans`"),
            ));
        }
        for d in &raw.relevant_docs {
            if !lens.contains_key(d.as_str()) {
                problems.push((n, unknown_doc(&id, d, docs)));
            }
        }
        for s in &raw.relevant_spans {
            match lens.get(s.doc_id.as_str()) {
                None => problems.push((n, unknown_doc(&id, &s.doc_id, docs))),
                Some(&len) if s.start_char >= s.end_char || s.end_char > len => problems.push((
                    n,
                    format!(
                        "query `{id}`: span {}..{} is outside document `{}` ({len} chars) or empty",
                        s.start_char, s.end_char, s.doc_id
                    ),
                )),
                Some(_) => {}
            }
        }
        if problems.len() == before {
            out.push(Query {
                id,
                query: raw.query,
                relevant_docs: raw.relevant_docs,
                relevant_spans: raw.relevant_spans,
            });
        }
    }
    if out.is_empty() && problems.is_empty() {
        problems.push((0, "no queries".into()));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn unknown_doc(id: &str, doc: &str, docs: &[Document]) -> String {
    // A path written from elsewhere (`corpus/a.md`, `/data/corpus/a.md`) or one missing its
    // folder (`a.md` for `notes/a.md`): name the one document it can only mean.
    let same_file = |d: &&Document| {
        let (long, short) = if d.id.len() > doc.len() {
            (d.id.as_str(), doc)
        } else {
            (doc, d.id.as_str())
        };
        long.strip_suffix(short)
            .is_some_and(|rest| rest.ends_with('/') || rest.ends_with('\\'))
    };
    let mut near = docs.iter().filter(same_file);
    match (near.next(), near.next()) {
        (Some(d), None) => format!(
            "query `{id}` refers to unknown document `{doc}`; did you mean `{}`? (document ids are paths relative to the corpus)",
            d.id
        ),
        _ => {
            let example = docs.first().map(|d| d.id.as_str()).unwrap_or("");
            format!("query `{id}` refers to unknown document `{doc}` (document ids are paths relative to the corpus, e.g. `{example}`)")
        }
    }
}

/// Load a dataset in our format: the corpus directory and the queries file.
pub fn load_dataset(corpus: &Path, queries: &Path) -> Result<(Dataset, Corpus)> {
    load_dataset_with(corpus, queries, &OcrOptions::default())
}

/// [`load_dataset`], the corpus read with [`load_corpus_with`] and `ocr`.
pub fn load_dataset_with(
    corpus: &Path,
    queries: &Path,
    ocr: &OcrOptions,
) -> Result<(Dataset, Corpus)> {
    let mut c = load_corpus_with(corpus, ocr)?;
    let queries = load_queries(queries, &c.docs)?;
    let name = corpus
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "corpus".into());
    let docs = std::mem::take(&mut c.docs);
    let parsed = std::mem::take(&mut c.parsed);
    Ok((
        Dataset {
            name,
            docs,
            queries,
            parsed,
        },
        c,
    ))
}

/// Write `queries` as JSONL (the format [`load_queries`] reads).
pub fn write_queries(path: &Path, queries: &[Query]) -> Result<()> {
    let mut out = String::new();
    for q in queries {
        out.push_str(&serde_json::to_string(q).map_err(|e| Error::Run(e.to_string()))?);
        out.push('\n');
    }
    std::fs::write(path, out).map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Document> {
        vec![Document {
            id: "a.md".into(),
            name: "a.md".into(),
            text: "één twee drie".into(),
        }]
    }

    #[test]
    fn good_lines_parse_and_blank_lines_are_allowed() {
        let text = r#"{"id": "q1", "query": "twee?", "relevant_docs": ["a.md"]}

{"id": 2, "query": "drie?", "relevant_spans": [{"doc_id": "a.md", "start_char": 9, "end_char": 13}]}
{"query": "no id", "relevant_docs": ["a.md"]}"#;
        let q = parse_queries(text, &docs()).unwrap();
        assert_eq!(q.len(), 3);
        assert_eq!(q[1].id, "2");
        assert_eq!(q[2].id, "line-4");
    }

    #[test]
    fn an_unknown_document_names_the_one_it_can_only_mean() {
        let doc = |id: &str| Document {
            id: id.into(),
            name: id.into(),
            text: "tekst".into(),
        };
        let docs = vec![doc("notes/a.md"), doc("b.md"), doc("x/c.md"), doc("y/c.md")];
        let problem = |q: &str| {
            let line = format!(r#"{{"id": "q", "query": "x", "relevant_docs": ["{q}"]}}"#);
            let problems = parse_queries(&line, &docs).unwrap_err();
            problems[0].1.clone()
        };
        // Without its folder, or with the corpus's path before it: the one document meant.
        assert!(problem("a.md").contains("`a.md`; did you mean `notes/a.md`?"));
        assert!(problem("/data/corpus/b.md").contains("did you mean `b.md`?"));
        // Two candidates, or none: no guess, an example id.
        assert!(problem("c.md").ends_with("relative to the corpus, e.g. `notes/a.md`)"));
        assert!(problem("ab.md").ends_with("e.g. `notes/a.md`)"));
    }

    #[test]
    fn a_byte_order_mark_and_invalid_utf8_are_handled_with_their_line() {
        let line = r#"{"id": "q1", "query": "x", "relevant_docs": ["a.md"]}"#;
        let q = parse_queries(&format!("\u{feff}{line}\n"), &docs()).unwrap();
        assert_eq!(q[0].id, "q1");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.jsonl");
        let mut bytes = format!("{line}\n{line}\n").into_bytes();
        let at = bytes.len() - 5;
        bytes[at] = 0xff;
        std::fs::write(&path, bytes).unwrap();
        match load_queries(&path, &docs()) {
            Err(Error::Invalid { problems, .. }) => {
                assert_eq!(problems[0].0, 2, "{problems:?}");
                assert!(problems[0].1.contains("not valid UTF-8"), "{problems:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_problem_has_its_line() {
        let text = r#"{"id": "q1", "query": "x", "relevant_docs": ["b.md"]}
not json
{"id": "q3", "query": "x", "relevant_spans": [{"doc_id": "a.md", "start_char": 5, "end_char": 14}]}
{"id": "q4", "query": "x"}
{"id": "q4", "query": "x", "relevant_docs": ["a.md"]}
{"id": "q6", "query": "x", "relevant_docs": ["a.md"], "extra": 1}"#;
        let p = parse_queries(text, &docs()).unwrap_err();
        let lines: Vec<usize> = p.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![1, 2, 3, 4, 5, 6], "{p:?}");
        assert!(p[0].1.contains("unknown document `b.md`"));
        assert!(p[2].1.contains("outside document `a.md` (13 chars)"));
        assert!(p[3].1.contains("neither"));
        assert!(p[4].1.contains("duplicate"));
    }

    #[test]
    fn empty_file_is_an_error() {
        assert_eq!(
            parse_queries("\n\n", &docs()).unwrap_err()[0].1,
            "no queries"
        );
    }

    #[test]
    fn corpus_directory_is_read_sorted_with_relative_ids() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.txt"), "bee").unwrap();
        std::fs::write(dir.path().join("a.md"), "# A").unwrap();
        std::fs::write(dir.path().join("bin.dat"), b"x\0y").unwrap();
        std::fs::write(dir.path().join(".hidden"), "h").unwrap();
        let c = load_corpus(dir.path()).unwrap();
        let ids: Vec<_> = c.docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["a.md", "sub/b.txt"]);
        assert_eq!(c.skipped.len(), 2);
        std::fs::write(dir.path().join("bad.txt"), b"ok\xff").unwrap();
        let e = load_corpus(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("bad.txt: not UTF-8 (first invalid byte at offset 2)"),
            "{e}"
        );
    }

    #[test]
    fn empty_corpus_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = load_corpus(dir.path()).unwrap_err().to_string();
        assert!(e.contains("empty corpus"), "{e}");
    }
}
