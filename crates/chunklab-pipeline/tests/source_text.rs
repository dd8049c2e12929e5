//! `Pipeline::with_processed` (plain text chunked from the text as read, without the parsed
//! document) gives what `prepare` + `process` give, for large and small texts, byte order
//! marks, pages (form feeds), blank text, CRLF, Markdown and strategies that need structure.

use chunklab_core::{ChunkConfig, Strategy};
use chunklab_pipeline::{Input, Pipeline, PipelineConfig};

fn lines(pipeline: &Pipeline, input: &Input) -> (Vec<String>, usize, Vec<String>) {
    let prepared = pipeline.prepare(input, false).expect("prepare");
    let source = input.source();
    let doc = pipeline
        .process(input, &source, &prepared)
        .expect("process");
    let chunks = doc
        .chunks
        .iter()
        .map(|c| serde_json::to_string(c).expect("json"))
        .collect();
    (chunks, doc.bytes, doc.warnings)
}

#[test]
fn processed_in_one_go_is_prepare_and_process() {
    let dir = tempfile::tempdir().expect("tmp");
    let para = "De raad besluit over windenergie op zee — één “besluit”.\nTweede regel.\n\n";
    let big = para.repeat(1_200_000 / para.len());
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("big.txt", big.clone().into_bytes()),
        ("small.txt", para.repeat(20).into_bytes()),
        (
            "bom.txt",
            [b"\xEF\xBB\xBF".as_slice(), para.repeat(20).as_bytes()].concat(),
        ),
        (
            "bom2.txt",
            [
                b"\xEF\xBB\xBF\xEF\xBB\xBF".as_slice(),
                para.repeat(20).as_bytes(),
            ]
            .concat(),
        ),
        (
            "pages.txt",
            format!("{}\x0C{}", para.repeat(10), para.repeat(10)).into_bytes(),
        ),
        ("blank.txt", b" \n\t\n".repeat(1000)),
        ("empty.txt", Vec::new()),
        (
            "crlf.txt",
            para.replace('\n', "\r\n").repeat(30).into_bytes(),
        ),
        (
            "notes.md",
            format!("# Titel\n\n{}## Twee\n\n{}", para.repeat(5), para.repeat(5)).into_bytes(),
        ),
    ];
    let cfgs = [
        ChunkConfig::new(Strategy::Recursive, 200),
        ChunkConfig {
            overlap: 20,
            ..ChunkConfig::new(Strategy::Fixed, 150)
        },
        ChunkConfig::new(Strategy::Sentence, 200),
        ChunkConfig::new(Strategy::Headings, 200),
    ];
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        let input = Input::file(&path);
        for cfg in &cfgs {
            let pipeline = Pipeline::new(PipelineConfig {
                chunking: cfg.clone(),
                ..PipelineConfig::default()
            })
            .expect("pipeline");
            let want = lines(&pipeline, &input);
            let got = pipeline
                .with_processed(&input, |doc| {
                    let chunks: Vec<String> = doc
                        .chunks
                        .iter()
                        .map(|c| serde_json::to_string(c).expect("json"))
                        .collect();
                    (chunks, doc.bytes, doc.warnings)
                })
                .expect("with_processed");
            assert_eq!(got, want, "{name} {}", cfg.strategy);
        }
    }
}

#[test]
fn invalid_utf8_is_reported_at_the_same_byte() {
    // A small file (read), a large one (mapped, checked in parts), with and without a byte
    // order mark: the error names the first bad byte of the file.
    let dir = tempfile::tempdir().expect("tmp");
    let pipeline = Pipeline::new(PipelineConfig::default()).expect("pipeline");
    for (k, (repeat, bom)) in [(100, false), (100, true), (300_000, false), (300_000, true)]
        .into_iter()
        .enumerate()
    {
        let mut bytes = if bom {
            b"\xEF\xBB\xBF".to_vec()
        } else {
            Vec::new()
        };
        bytes.extend("één twee drie\n".repeat(repeat).into_bytes());
        let at = bytes.len() * 3 / 4 + 1;
        bytes[at] = 0xFF;
        let at = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
        let path = dir.path().join(format!("bad{k}.txt"));
        std::fs::write(&path, &bytes).expect("write");
        let input = Input::file(&path);
        let err = match pipeline.with_processed(&input, |_| ()) {
            Err(chunklab_pipeline::Skip::Error(e)) => e.to_string(),
            _ => panic!("expected an error"),
        };
        assert!(
            err.contains(&format!("not valid UTF-8 at byte {at}")),
            "{err}"
        );
        // prepare says the same.
        let err2 = match pipeline.prepare(&input, false) {
            Err(chunklab_pipeline::Skip::Error(e)) => e.to_string(),
            _ => panic!("expected an error"),
        };
        assert_eq!(err, err2);
    }
}
