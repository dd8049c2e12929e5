//! Running an external program (tesseract, pdftoppm) with input on stdin, output from stdout,
//! and a wall-clock limit: on timeout the process is killed, never waited on forever.

use super::OcrError;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// What a finished process wrote.
pub(crate) struct Output {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub success: bool,
}

/// Run `cmd` with `stdin` written to it; `what` names it in errors; `package` is the Debian
/// package to suggest when the program is missing.
pub(crate) fn run(
    mut cmd: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    what: &str,
    package: &'static str,
) -> Result<Output, OcrError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| OcrError::Missing {
        program: program.clone(),
        package,
        detail: e.to_string(),
    })?;
    let writer = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => Some(std::thread::spawn(move || {
            // A broken pipe (the program stopped reading) shows up as its own error below.
            let _ = pipe.write_all(&bytes);
        })),
        _ => None,
    };
    let mut out_pipe = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let mut err_pipe = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.take(64 << 10).read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    });
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(OcrError::Timeout {
                what: what.to_string(),
                secs: timeout.as_secs(),
            });
        }
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(OcrError::Failed(format!(
                "{what}: waiting for {program}: {e}"
            )));
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Output {
        stdout,
        stderr,
        success: status.success(),
    })
}
