//! `Pipeline::process_windowed` hands out exactly `process`'s chunks, for a big plain text (the
//! streaming path) and for a parsed document (processed whole, handed out in windows).

use chunklab_core::{Chunk, ChunkConfig, Strategy};
use chunklab_pipeline::{Input, Pipeline, PipelineConfig};

fn windows(pipeline: &Pipeline, input: &Input, big: bool, window: usize) -> (Vec<String>, usize) {
    let prepared = pipeline.prepare(input, big).expect("prepare");
    let source = input.source();
    let whole: Vec<String> = pipeline
        .process(input, &source, &prepared)
        .expect("process")
        .chunks
        .iter()
        .map(line)
        .collect();
    let mut got = Vec::new();
    let done = pipeline
        .process_windowed(input, &source, &prepared, window, &mut |w| {
            got.extend(w.chunks[w.new].iter().map(line));
            Ok(())
        })
        .expect("windowed");
    assert_eq!(done.chunks, whole.len());
    assert_eq!(got, whole, "window {window}");
    (got, done.bytes)
}

fn line(c: &Chunk) -> String {
    serde_json::to_string(c).expect("json")
}

#[test]
fn windows_equal_the_whole_document() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("raad.txt");
    let text =
        "De raad besluit over windenergie op zee.\n\nArtikel 2. Parkeervergunningen.\n".repeat(50);
    std::fs::write(&path, &text).expect("write");
    let input = Input::file(&path);
    for strategy in [Strategy::Recursive, Strategy::Sentence, Strategy::Fixed] {
        let cfg = PipelineConfig {
            chunking: ChunkConfig::new(strategy, 120),
            ..PipelineConfig::default()
        };
        let pipeline = Pipeline::new(cfg).expect("pipeline");
        for window in [1, 3, 64] {
            // big = true: plain text, chunked a window at a time.
            let (chunks, bytes) = windows(&pipeline, &input, true, window);
            assert!(chunks.len() > 10);
            assert_eq!(bytes, text.len());
            // big = false: parsed (lines), processed whole, handed out in windows.
            windows(&pipeline, &input, false, window);
        }
    }
}

#[test]
fn an_error_from_the_writer_stops_the_document() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("a.txt");
    std::fs::write(&path, "Een. Twee. Drie. Vier. Vijf. Zes.".repeat(20)).expect("write");
    let input = Input::file(&path);
    let cfg = PipelineConfig {
        chunking: ChunkConfig::new(Strategy::Sentence, 20),
        ..PipelineConfig::default()
    };
    let pipeline = Pipeline::new(cfg).expect("pipeline");
    let prepared = pipeline.prepare(&input, true).expect("prepare");
    let source = input.source();
    let mut calls = 0;
    let r = pipeline.process_windowed(&input, &source, &prepared, 2, &mut |_| {
        calls += 1;
        anyhow::bail!("disk full")
    });
    assert_eq!(calls, 1);
    let err = match r {
        Err(chunklab_pipeline::Skip::Error(e)) => e.to_string(),
        other => panic!("expected an error, got {other:?}"),
    };
    assert!(err.contains("disk full"), "{err}");
}
