//! Progress reporting of a benchmark run: the CLI draws bars, tests pass [`NoProgress`].

/// Progress reporting; the CLI draws bars, tests pass [`NoProgress`].
pub trait Progress: Sync {
    /// A stage with `total` steps begins.
    fn start(&self, what: &str, total: u64);
    /// `done` of the stage's steps are finished.
    fn set(&self, done: u64);
    /// The stage is over.
    fn finish(&self);
    /// Something worth telling the user.
    fn note(&self, msg: &str);
}

/// Reports nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn set(&self, _: u64) {}
    fn finish(&self) {}
    fn note(&self, _: &str) {}
}
