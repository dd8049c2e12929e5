//! A real PostgreSQL (+ pgvector) server for tests: [`pg_url`].
//!
//! CI starts one before the tests (`.ci/services/postgres.sh`) and exports `CHUNKLAB_PG_URL`.
//! Without it, the first test that asks starts one with `scripts/pg-server.sh` in
//! `target/ci/pg-tests` (under a file lock, so parallel test binaries share it) and later tests,
//! in this or another process, reuse it while it answers. Nothing is mocked: when neither works
//! the test panics with what was tried, i.e. fails, never passes silently.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// The variable naming the server the tests use (`CHUNKLAB_PG_URL`).
pub const PG_URL_ENV: &str = "CHUNKLAB_PG_URL";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `host:port` of a `postgresql://user@host:port/db` URL.
fn host_port(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let hp = rest.split(['/', '?']).next()?;
    (!hp.is_empty()).then(|| {
        if hp.contains(':') {
            hp.to_string()
        } else {
            format!("{hp}:5432")
        }
    })
}

/// Whether something listens at the URL's host and port.
fn answers(url: &str) -> bool {
    host_port(url)
        .and_then(|hp| hp.to_socket_addrs().ok()?.next())
        .is_some_and(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
}

/// The URL of a running PostgreSQL server with pgvector available: `$CHUNKLAB_PG_URL`, or a
/// server started (once, then shared) with `scripts/pg-server.sh`.
///
/// # Panics
///
/// When `$CHUNKLAB_PG_URL` is set but nothing answers there, or when it is unset and the script
/// cannot start a server; the message names the URL or the script's error.
#[track_caller]
pub fn pg_url() -> String {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    URL.get_or_init(find_or_start)
        .clone()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn find_or_start() -> Result<String, String> {
    if let Ok(url) = std::env::var(PG_URL_ENV) {
        if !url.trim().is_empty() {
            return if url.contains("host=/") || answers(&url) {
                Ok(url)
            } else {
                Err(format!(
                    "{PG_URL_ENV}={url}: no PostgreSQL answers there (start one with scripts/pg-server.sh start)"
                ))
            };
        }
    }
    let root = repo_root();
    let ci =
        std::env::var_os("CHUNKLAB_CI_DIR").map_or_else(|| root.join("target/ci"), PathBuf::from);
    let dir = ci.join("pg-tests");
    if let Ok(url) = std::fs::read_to_string(dir.join("url")) {
        let url = url.trim().to_string();
        if answers(&url) {
            return Ok(url);
        }
    }
    std::fs::create_dir_all(&ci).map_err(|e| format!("{}: {e}", ci.display()))?;
    let script = root.join("scripts/pg-server.sh");
    // Under a lock: the first test binary starts the server, the others then find it running.
    let cmd = format!(
        "if '{s}' status '{d}' >/dev/null 2>&1; then cat '{d}/url'; else '{s}' stop '{d}' >/dev/null 2>&1; '{s}' start --dir '{d}'; fi",
        d = dir.display(),
        s = script.display(),
    );
    let out = Command::new("flock")
        .arg(ci.join("pg-tests.lock"))
        .args(["bash", "-c", &cmd])
        .output()
        .map_err(|e| format!("PostgreSQL for the tests: {PG_URL_ENV} is not set and `flock bash {}` could not run: {e}", script.display()))?;
    let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || url.is_empty() {
        return Err(format!(
            "PostgreSQL for the tests: {PG_URL_ENV} is not set and {} failed ({}): {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(url)
}

/// `url` with its database replaced by `db` (query string kept).
pub fn with_db(url: &str, db: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (scheme, rest) = base.split_once("://").expect("a URL");
    let host = rest.split('/').next().unwrap_or_default();
    match query {
        Some(q) => format!("{scheme}://{host}/{db}?{q}"),
        None => format!("{scheme}://{host}/{db}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_of_urls() {
        assert_eq!(
            host_port("postgresql://postgres@127.0.0.1:5433/postgres").as_deref(),
            Some("127.0.0.1:5433")
        );
        assert_eq!(host_port("postgres://u:p@db/x").as_deref(), Some("db:5432"));
        assert_eq!(host_port("postgresql:///x?host=/run/postgresql"), None);
    }
}
