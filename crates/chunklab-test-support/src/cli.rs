//! Running the `chunklab` binary from integration tests and reading what it wrote.
//!
//! Cargo tells only the integration tests of the package that builds a binary where it is
//! (`env!("CARGO_BIN_EXE_chunklab")`), so the path comes from the caller: [`crate::cli!`] reads it
//! in the calling test crate, [`Cli::new`] takes it explicitly.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A binary under test (normally `chunklab`), run as a real process.
#[derive(Debug, Clone)]
pub struct Cli {
    bin: PathBuf,
}

/// A [`Cli`] for the `chunklab` binary, in the integration tests of the package that builds it
/// (`chunklab-cli`): `chunklab_test_support::cli!().run(&["chunk", "a.md"])`.
#[macro_export]
macro_rules! cli {
    () => {
        $crate::Cli::new(env!("CARGO_BIN_EXE_chunklab"))
    };
}

impl Cli {
    /// The binary at `bin`.
    pub fn new(bin: impl Into<PathBuf>) -> Self {
        Cli { bin: bin.into() }
    }

    /// The binary's path.
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// A command for the binary, to add arguments, environment or pipes to.
    pub fn command(&self) -> Command {
        Command::new(&self.bin)
    }

    /// Run with `args`, no stdin, stdout and stderr captured.
    ///
    /// # Panics
    ///
    /// When the process cannot be started.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command()
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.bin.display()))
    }

    /// Run with `args`, writing `stdin` (if any) to its standard input, then closing it.
    ///
    /// The process may exit before reading (bad parameters): a broken pipe is not an error.
    ///
    /// # Panics
    ///
    /// When the process cannot be started or waited for.
    pub fn run_with_stdin(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.bin.display()));
        {
            let mut sin = child.stdin.take().expect("piped stdin");
            if let Some(data) = stdin {
                let _ = sin.write_all(data);
            }
        }
        child.wait_with_output().expect("wait for the process")
    }
}

/// The process's standard output as text (lossy).
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The process's standard error as text (lossy).
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output parsed as JSON Lines, whatever the exit status.
///
/// # Panics
///
/// When stdout is not UTF-8 or a line is not one JSON value (the line is in the message).
pub fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .expect("stdout is UTF-8")
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("one JSON object per line: {e}\nline: {l}"))
        })
        .collect()
}

/// [`json_lines`] of a run that must have succeeded.
///
/// # Panics
///
/// When the process failed (its stderr is in the message), or as [`json_lines`].
pub fn ok_json_lines(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", stderr(out));
    json_lines(out)
}
