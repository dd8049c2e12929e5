//! chunklab-eval's integration tests as one test binary: each file beside this one is a module, so the
//! workspace links one executable per crate rather than one per file (a debug test binary
//! carries the whole dependency graph; one per file filled a CI disk). Run one file's tests with
//! `cargo test -p chunklab-eval --test integration <file>::`.

mod archive;
mod merge;
mod ocr_corpus;
