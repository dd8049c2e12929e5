//! chunklab-parse's integration tests as one test binary: each file beside this one is a module, so the
//! workspace links one executable per crate rather than one per file (a debug test binary
//! carries the whole dependency graph; one per file filled a CI disk). Run one file's tests with
//! `cargo test -p chunklab-parse --test integration <file>::`.

mod common;

mod code;
mod code_chunking;
mod fuzz_regressions;
mod html_docx_odt;
mod ocr;
mod office_stream;
mod pdf;
mod pdf_damage;
mod text_flat;
mod text_formats;
