//! `Pipeline::with_processed` (plain text chunked from the text as read, without the parsed
//! document) gives what `prepare` + `process` give, for large and small texts, byte order
//! marks, pages (form feeds), blank text, CRLF, Markdown and strategies that need structure;
//! and `Pipeline::with_processed_each` gives what `with_processed` gives input by input.

use chunklab_core::{ChunkConfig, Strategy};
use chunklab_pipeline::{Input, Pipeline, PipelineConfig};

/// A processed document as comparable text: its chunks as JSON, bytes and warnings.
type Seen = (Vec<String>, usize, Vec<String>);

fn seen(doc: chunklab_pipeline::Processed<'_>) -> Seen {
    let chunks = doc
        .chunks
        .iter()
        .map(|c| serde_json::to_string(c).expect("json"))
        .collect();
    (chunks, doc.bytes, doc.warnings)
}

fn lines(pipeline: &Pipeline, input: &Input) -> Seen {
    let prepared = pipeline.prepare(input, false).expect("prepare");
    let source = input.source();
    seen(
        pipeline
            .process(input, &source, &prepared)
            .expect("process"),
    )
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
                .with_processed(&input, seen)
                .expect("with_processed");
            assert_eq!(got, want, "{name} {}", cfg.strategy);
        }
    }
}

fn or_skip(r: Result<Seen, chunklab_pipeline::Skip>) -> Result<Seen, String> {
    r.map_err(|skip| match skip {
        chunklab_pipeline::Skip::Error(e) => format!("error: {e:#}"),
        other => format!("{other:?}"),
    })
}

#[test]
fn processed_together_is_processed_one_by_one() {
    // Documents chunked as read (their ids hashed together) among documents that are parsed
    // (pages, footnotes), skipped (binary, missing) or fail (invalid UTF-8), in every order.
    let dir = tempfile::tempdir().expect("tmp");
    let para = "De raad besluit over windenergie op zee — één “besluit”.\nTweede regel.\n\n";
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.txt", para.repeat(3).into_bytes()),
        ("pages.txt", format!("{para}\x0C{para}").into_bytes()),
        (
            "b.md",
            format!("# Titel\n\n{}", para.repeat(40)).into_bytes(),
        ),
        (
            "notes.md",
            format!("Tekst[^1].\n\n[^1]: {para}").into_bytes(),
        ),
        ("bad.txt", b"een \xFF twee".to_vec()),
        ("bin.dat", b"\x00\x01\x02binary".to_vec()),
        ("empty.txt", Vec::new()),
        ("c.txt", para.repeat(200).into_bytes()),
        ("d.txt", "x".repeat(5000).into_bytes()),
    ];
    let mut inputs = Vec::new();
    for (name, bytes) in &files {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        inputs.push(Input::file(&path));
    }
    inputs.insert(3, Input::file(dir.path().join("missing.txt")));
    for cfg in [
        ChunkConfig::new(Strategy::Recursive, 100),
        ChunkConfig::new(Strategy::Headings, 200),
    ] {
        let pipeline = Pipeline::new(PipelineConfig {
            chunking: cfg.clone(),
            ..PipelineConfig::default()
        })
        .expect("pipeline");
        for order in [false, true] {
            let mut inputs = inputs.clone();
            if order {
                inputs.reverse();
            }
            let want: Vec<_> = inputs
                .iter()
                .map(|input| or_skip(pipeline.with_processed(input, seen)))
                .collect();
            let got: Vec<_> = pipeline
                .with_processed_each(&inputs, seen)
                .into_iter()
                .map(or_skip)
                .collect();
            assert_eq!(got, want, "{}", cfg.strategy);
            assert!(want.iter().filter(|w| w.is_ok()).count() >= 7);
            assert!(want
                .iter()
                .any(|w| w.as_ref().is_err_and(|e| e.contains("UTF-8"))));
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
