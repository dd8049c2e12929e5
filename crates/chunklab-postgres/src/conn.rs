//! Connections: any libpq URL (`postgres://` or `postgresql://`, TCP or a unix socket via
//! `?host=/run/postgresql`), the password from the URL or `$PGPASSWORD`; connecting and
//! re-running after a dropped connection retry with exponential backoff, then fail with an error
//! that names the server (never the password), the attempts and the last cause.

use chunklab_index::Error;
use postgres::{Client, Config, NoTls};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Attempts (the first included) before a connection error is reported.
pub const ATTEMPTS: u32 = 5;
/// First backoff; doubled after every failed attempt (100, 200, 400, 800 ms: 1.5 s in all).
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// The scheme of a sharded location (`crate::shards`).
pub const CLUSTER_SCHEME: &str = "postgres-cluster://";

/// `true` for URLs this crate opens.
pub fn is_postgres_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://") || s.starts_with(CLUSTER_SCHEME)
}

/// A parsed server address: the client configuration and a display form without the password.
#[derive(Clone)]
pub struct Target {
    config: Config,
    shown: String,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Target {
    /// Parse a libpq connection URL; `$PGPASSWORD` is used when the URL has no password.
    pub fn parse(url: &str) -> Result<Target, Error> {
        let shown = hide_password(url);
        let mut config: Config = url.parse().map_err(|e| {
            Error::Store(format!(
                "`{shown}` is not a PostgreSQL connection URL: {e} (e.g. postgres://user@localhost:5432/archief or postgresql://user@/archief?host=/run/postgresql)"
            ))
        })?;
        if config.get_password().is_none() {
            if let Ok(pw) = std::env::var("PGPASSWORD") {
                config.password(pw);
            }
        }
        if config.get_user().is_none() {
            if let Ok(u) = std::env::var("PGUSER").or_else(|_| std::env::var("USER")) {
                config.user(&u);
            }
        }
        if config.get_hosts().is_empty() {
            match std::env::var("PGHOST") {
                Ok(h) if !h.is_empty() => {
                    config.host(&h);
                }
                // Refused now: connecting would fail the same way after every retry.
                _ => {
                    return Err(Error::Store(format!(
                        "`{shown}` names no server: give a host (postgres://user@localhost:5432/archief), a socket directory (postgresql://user@/archief?host=/run/postgresql) or $PGHOST"
                    )))
                }
            }
        }
        config.connect_timeout(Duration::from_secs(5));
        config.application_name("chunklab");
        Ok(Target { config, shown })
    }

    /// The URL without its password.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The database name.
    pub fn dbname(&self) -> Option<&str> {
        self.config.get_dbname()
    }

    /// Connect, retrying with backoff ([`ATTEMPTS`], [`FIRST_BACKOFF`]).
    pub fn connect(&self) -> Result<Client, Error> {
        let started = Instant::now();
        let mut wait = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            match self.config.connect(NoTls) {
                Ok(c) => return Ok(c),
                // Authentication and missing databases do not get better by waiting.
                Err(e) if e.code().is_some() => {
                    return Err(Error::Store(format!("PostgreSQL at {}: {e}", self.shown)))
                }
                Err(e) if attempt >= ATTEMPTS => {
                    return Err(Error::Store(format!(
                        "PostgreSQL at {} cannot be reached: {attempt} attempts over {:.1} s failed; last error: {}",
                        self.shown,
                        started.elapsed().as_secs_f64(),
                        cause(&e)
                    )))
                }
                Err(_) => {
                    std::thread::sleep(wait);
                    wait *= 2;
                    attempt += 1;
                }
            }
        }
    }
}

/// The error and its sources, one line.
pub fn cause(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        let m = x.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        src = x.source();
    }
    s
}

/// `true` when an error means the connection is gone (server restarted, backend terminated,
/// network dropped), so that reconnecting and running the statement again may succeed.
pub fn is_connection_lost(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        // admin_shutdown, crash_shutdown, cannot_connect_now, connection_exception class
        Some(c) => {
            let c = c.code();
            c == "57P01" || c == "57P02" || c == "57P03" || c.starts_with("08")
        }
        None => {
            let s = cause(e).to_lowercase();
            lost_io(e)
                || s.contains("connection")
                || s.contains("broken pipe")
                || s.contains("unexpected eof")
        }
    }
}

/// `true` when an I/O error in `e`'s chain says the socket is gone (a terminated backend can
/// reset the connection before the client sees it closed: "Connection reset by peer").
fn lost_io(e: &(dyn std::error::Error + 'static)) -> bool {
    use std::io::ErrorKind::*;
    let mut src = Some(e);
    while let Some(x) = src {
        if let Some(io) = x.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof | NotConnected
            ) {
                return true;
            }
        }
        src = x.source();
    }
    false
}

/// `user:password@` → `user:***@`, and a `password=` query parameter's value → `***`; in a
/// `postgres-cluster://` location, in each shard's URLs.
pub fn hide_password(url: &str) -> String {
    if let Some(shards) = url.strip_prefix(CLUSTER_SCHEME) {
        let shards: Vec<String> = shards
            .split(';')
            .map(|s| {
                s.split('|')
                    .map(hide_password)
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect();
        return format!("{}{}", CLUSTER_SCHEME, shards.join(";"));
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{user}:***@{host}")
        }
        _ => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// A few connections to one server, reused across calls: a search takes one, runs, and gives
/// it back; a dropped connection is replaced with backoff and the work run again once.
pub struct Pool {
    target: Target,
    idle: Mutex<Vec<Client>>,
}

impl Pool {
    /// A pool for `target`, connecting once now (so that a bad URL fails at open).
    pub fn open(target: Target) -> Result<Pool, Error> {
        let first = target.connect()?;
        Ok(Pool {
            target,
            idle: Mutex::new(vec![first]),
        })
    }

    /// The server.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Run `f` on a connection; when the connection turns out to be lost, reconnect (with
    /// backoff) and run it again, once.
    pub fn with<T>(
        &self,
        what: &str,
        mut f: impl FnMut(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, Error> {
        let mut retried = false;
        loop {
            let taken = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let mut client = match taken {
                Some(c) if !c.is_closed() => c,
                _ => self.target.connect()?,
            };
            match f(&mut client) {
                Ok(v) => {
                    self.idle
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(client);
                    return Ok(v);
                }
                Err(e) if is_connection_lost(&e) && !retried => {
                    retried = true;
                    // Stale pooled connections are all suspect after a drop.
                    self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
                }
                Err(e) => {
                    if !client.is_closed() {
                        self.idle
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(client);
                    }
                    return Err(Error::Store(format!(
                        "PostgreSQL at {}: {what}: {}",
                        self.target.shown,
                        cause(&e)
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_socket_is_a_lost_connection() {
        #[derive(Debug)]
        struct Wrapped(std::io::Error);
        impl std::fmt::Display for Wrapped {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error communicating with the server")
            }
        }
        impl std::error::Error for Wrapped {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let reset = std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        assert!(lost_io(&Wrapped(reset)));
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!lost_io(&Wrapped(denied)));
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            hide_password("postgres://u:secret@db:5432/x"),
            "postgres://u:***@db:5432/x"
        );
        assert_eq!(
            hide_password("postgresql://u@/x?host=/run/postgresql"),
            "postgresql://u@/x?host=/run/postgresql"
        );
        assert_eq!(
            hide_password("postgres://u@db/x?sslmode=disable&password=s3cret&application_name=a"),
            "postgres://u@db/x?sslmode=disable&password=***&application_name=a"
        );
        assert_eq!(
            hide_password("postgres://u:a@db?password=b"),
            "postgres://u:***@db?password=***"
        );
        assert_eq!(hide_password("not a url"), "not a url");
        assert_eq!(
            hide_password("postgres-cluster://postgres://u:a@h1/x|postgres://u:b@h2/x;postgres://h3/x?password=c"),
            "postgres-cluster://postgres://u:***@h1/x|postgres://u:***@h2/x;postgres://h3/x?password=***"
        );
    }

    #[test]
    fn unix_socket_urls_parse() {
        let t = Target::parse("postgresql://u@/archief?host=/run/postgresql").unwrap();
        assert_eq!(t.dbname(), Some("archief"));
        let err = Target::parse("postgres://u@h/x?bogus=1").unwrap_err();
        assert!(
            err.to_string().contains("not a PostgreSQL connection URL"),
            "{err}"
        );
        assert!(!Target::parse("postgres://u:pw@h/x")
            .unwrap()
            .shown()
            .contains("pw"));
    }

    #[test]
    fn an_unreachable_server_is_a_clear_error_after_backoff() {
        // A port nothing listens on: every attempt is refused at once, the backoff is the wait.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let t = Target::parse(&format!("postgres://u:pw@127.0.0.1:{port}/x")).unwrap();
        let started = Instant::now();
        let err = t.connect().err().unwrap().to_string();
        let waited = started.elapsed();
        assert!(err.contains(&format!("{ATTEMPTS} attempts")), "{err}");
        assert!(err.contains("cannot be reached"), "{err}");
        assert!(!err.contains("pw@"), "{err}");
        assert!(waited >= Duration::from_millis(1500), "{waited:?}");
    }
}
