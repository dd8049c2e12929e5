//! chunklab-core's integration tests as one test binary: each file beside this one is a module, so the
//! workspace links one executable per crate rather than one per file (a debug test binary
//! carries the whole dependency graph; one per file filled a CI disk). Run one file's tests with
//! `cargo test -p chunklab-core --test integration <file>::`.

mod invariants;
mod lines;
mod model_strategies;
mod parallel;
mod parsed_units;
mod structured;
mod windowed;
