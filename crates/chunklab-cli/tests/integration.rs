//! chunklab's integration tests as one test binary: each file beside this one is a module, so the
//! workspace links one executable per crate rather than one per file (a debug test binary
//! carries the whole dependency graph; one per file filled a CI disk). Run one file's tests with
//! `cargo test -p chunklab --test integration <file>::`.

mod bench_cli;
mod cli;
mod embed_cli;
mod index_cli;
mod inputs_cli;
mod late_cli;
mod limits_cli;
mod llm_cli;
mod model_strategies_cli;
mod serve_cli;
mod store_cli;
mod unparsed;
