//! Importer for Chroma's chunking-evaluation set (brandonstarxel/chunking_evaluation, used by
//! the technical report "Evaluating Chunking Strategies for Retrieval"): `corpora/*.md` (five
//! corpora) and `questions_df.csv` with columns `question, references, corpus_id`, where
//! `references` is a JSON list of `{content, start_index, end_index}` in Unicode code-point
//! offsets into the corpus file.
//!
//! Documents get the corpus id as their id (`chatlogs`, `finance`, ...); each question becomes a
//! query with that document as its relevant document and its references as relevant spans.
//! Every reference is checked: its offsets must lie in the corpus and `corpus[start..end]`
//! must equal its `content`; a bad row is an error with its CSV line number.

use crate::dataset::{Dataset, Document, Query, RelevantSpan};
use crate::error::{io_err, Error, Result};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct Reference {
    content: String,
    start_index: usize,
    end_index: usize,
}

/// Load the set from its directory (`corpora/` and `questions_df.csv`). Queries keep the CSV's
/// order; their ids are the 0-based row numbers the report's code uses (`"0"`, `"1"`, ...).
pub fn load(dir: &Path) -> Result<Dataset> {
    let corpora = dir.join("corpora");
    let csv_path = dir.join("questions_df.csv");
    if !corpora.is_dir() || !csv_path.is_file() {
        return Err(Error::Dataset(format!(
            "{}: not Chroma's chunking-evaluation set (expected corpora/ and questions_df.csv)",
            dir.display()
        )));
    }
    let mut entries: Vec<_> = std::fs::read_dir(&corpora)
        .map_err(io_err(&corpora))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    entries.sort();
    let mut docs = Vec::new();
    for p in entries {
        let text = std::fs::read_to_string(&p).map_err(io_err(&p))?;
        let id = p.file_stem().unwrap().to_string_lossy().into_owned();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        docs.push(Document { id, name, text });
    }
    if docs.is_empty() {
        return Err(Error::Dataset(format!(
            "{}: no corpora (*.md)",
            corpora.display()
        )));
    }
    let csv_text = std::fs::read_to_string(&csv_path).map_err(io_err(&csv_path))?;
    let queries = parse_questions(&csv_text, &docs).map_err(|problems| Error::Invalid {
        path: csv_path.clone(),
        problems,
    })?;
    Ok(Dataset {
        name: "chroma".into(),
        docs,
        queries,
        parsed: Default::default(),
    })
}

/// Parse `questions_df.csv` against the corpora; problems as `(line, message)`.
pub fn parse_questions(
    csv_text: &str,
    docs: &[Document],
) -> std::result::Result<Vec<Query>, Vec<(usize, String)>> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(csv_text.as_bytes());
    let mut problems = Vec::new();
    let headers = match rdr.headers() {
        Ok(h) => h.clone(),
        Err(e) => return Err(vec![(1, format!("bad header: {e}"))]),
    };
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (Some(qc), Some(rc), Some(cc)) = (col("question"), col("references"), col("corpus_id"))
    else {
        return Err(vec![(
            1,
            format!("expected columns question, references, corpus_id; got {headers:?}"),
        )]);
    };
    // Char offsets → byte offsets per document, for checking references cheaply.
    let char_starts: Vec<Vec<usize>> = docs
        .iter()
        .map(|d| {
            let mut v: Vec<usize> = d.text.char_indices().map(|(b, _)| b).collect();
            v.push(d.text.len());
            v
        })
        .collect();
    let mut out = Vec::new();
    for (row, rec) in rdr.records().enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                problems.push((line, format!("malformed CSV row: {e}")));
                continue;
            }
        };
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let (question, refs, corpus) = (
            rec.get(qc).unwrap_or(""),
            rec.get(rc).unwrap_or(""),
            rec.get(cc).unwrap_or(""),
        );
        let Some(di) = docs.iter().position(|d| d.id == corpus) else {
            problems.push((line, format!("unknown corpus_id `{corpus}`")));
            continue;
        };
        let refs: Vec<Reference> = match serde_json::from_str(refs) {
            Ok(r) => r,
            Err(e) => {
                problems.push((line, format!("`references` is not a JSON list of {{content, start_index, end_index}}: {e}")));
                continue;
            }
        };
        if question.trim().is_empty() || refs.is_empty() {
            problems.push((line, "empty question or no references".into()));
            continue;
        }
        let starts = &char_starts[di];
        let mut spans = Vec::new();
        for r in &refs {
            let ok = r.start_index < r.end_index
                && r.end_index < starts.len()
                && docs[di].text[starts[r.start_index]..starts[r.end_index]] == r.content;
            if !ok {
                problems.push((
                    line,
                    format!(
                        "reference {}..{} does not match corpus `{corpus}` (outside it, or its text differs from `content`)",
                        r.start_index, r.end_index
                    ),
                ));
                continue;
            }
            spans.push(RelevantSpan {
                doc_id: corpus.to_string(),
                start_char: r.start_index,
                end_char: r.end_index,
            });
        }
        out.push(Query {
            id: row.to_string(),
            query: question.to_string(),
            relevant_docs: vec![corpus.to_string()],
            relevant_spans: spans,
        });
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Document> {
        vec![Document {
            id: "c".into(),
            name: "c.md".into(),
            text: "Één zin. Nog één.".into(),
        }]
    }

    #[test]
    fn rows_with_code_point_offsets() {
        let csv = "question,references,corpus_id\n\"Wat?\",\"[{\"\"content\"\": \"\"Nog één\"\", \"\"start_index\"\": 9, \"\"end_index\"\": 16}]\",c\n";
        let q = parse_questions(csv, &docs()).unwrap();
        assert_eq!(q[0].relevant_spans[0].start_char, 9);
        assert_eq!(q[0].relevant_docs, ["c"]);
        assert_eq!(q[0].id, "0");
    }

    #[test]
    fn bad_rows_name_their_line() {
        let csv = "question,references,corpus_id\nA,\"[{\"\"content\"\": \"\"zin\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 3}]\",c\nB,[],x\nC,not json,c\n";
        let p = parse_questions(csv, &docs()).unwrap_err();
        let lines: Vec<usize> = p.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![2, 3, 4], "{p:?}");
        assert!(p[0].1.contains("does not match"));
        assert!(p[1].1.contains("unknown corpus_id `x`"));
    }

    #[test]
    fn the_shared_set_loads_completely() {
        let dir = crate::shared_dir().join("datasets/chroma");
        let d = load(&dir).unwrap();
        assert_eq!(d.docs.len(), 5);
        assert_eq!(d.queries.len(), 472);
        let spans: usize = d.queries.iter().map(|q| q.relevant_spans.len()).sum();
        assert_eq!(spans, 790);
    }
}
