//! Bearer tokens from a TOML file, each with its access groups and a role:
//!
//! ```toml
//! [[token]]
//! name = "alice"            # shown in logs and errors, never the secret
//! token = "s3cret-alice"    # what the client sends: `authorization: Bearer s3cret-alice`
//! groups = ["team-a"]       # ACL groups: a search only sees chunks of documents with one of these
//! role = "write"            # read (search, chunks) or write (also add/replace/delete documents)
//! ```
//!
//! Tokens are compared in constant time (BLAKE3 digests), so timing does not leak a prefix.

use crate::error::ApiError;
use axum::http::HeaderMap;
use serde::Deserialize;
use std::path::Path;

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Search and read chunks.
    Read,
    /// Also add, replace and delete documents.
    Write,
}

/// One token of the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenEntry {
    /// Who the token belongs to.
    pub name: String,
    /// The secret.
    pub token: String,
    /// ACL groups the token holds.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Read or write.
    pub role: Role,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    #[serde(default)]
    token: Vec<TokenEntry>,
}

/// The server's tokens.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    entries: Vec<(blake3::Hash, TokenEntry)>,
}

/// The caller a valid token identifies.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The token's name.
    pub name: String,
    /// Its ACL groups.
    pub groups: Vec<String>,
    /// Its role.
    pub role: Role,
}

impl Tokens {
    /// Parse a tokens file's text (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Tokens> {
        let file: TokenFile = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim()))?;
        if file.token.is_empty() {
            anyhow::bail!(
                "{}: no [[token]] entries (each needs name, token, role and groups)",
                path.display()
            );
        }
        let mut entries = Vec::new();
        for t in file.token {
            if t.token.len() < 8 {
                anyhow::bail!(
                    "{}: token `{}` is shorter than 8 characters",
                    path.display(),
                    t.name
                );
            }
            let h = blake3::hash(t.token.as_bytes());
            if entries
                .iter()
                .any(|(o, _): &(blake3::Hash, TokenEntry)| *o == h)
            {
                anyhow::bail!(
                    "{}: token `{}` repeats another token's secret",
                    path.display(),
                    t.name
                );
            }
            entries.push((h, t));
        }
        Ok(Tokens { entries })
    }

    /// Read and parse a tokens file.
    pub fn load(path: &Path) -> anyhow::Result<Tokens> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read tokens file: {e}", path.display()))?;
        Tokens::parse(&text, path)
    }

    /// How many tokens there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` without tokens.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The caller of a request: 401 without a bearer token or with an unknown one.
    pub fn caller(&self, headers: &HeaderMap) -> Result<Caller, ApiError> {
        let value = headers
            .get(axum::http::header::AUTHORIZATION)
            .ok_or_else(|| {
                ApiError::unauthorized("this endpoint needs `authorization: Bearer TOKEN`")
            })?;
        let value = value
            .to_str()
            .map_err(|_| ApiError::unauthorized("the authorization header is not ASCII"))?;
        let secret = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .map(str::trim)
            .ok_or_else(|| {
                ApiError::unauthorized("the authorization header is not `Bearer TOKEN`")
            })?;
        // blake3::Hash compares in constant time.
        let h = blake3::hash(secret.as_bytes());
        self.entries
            .iter()
            .find(|(o, _)| *o == h)
            .map(|(_, t)| Caller {
                name: t.name.clone(),
                groups: t.groups.clone(),
                role: t.role,
            })
            .ok_or_else(|| ApiError::unauthorized("unknown token"))
    }
}

impl Caller {
    /// 403 unless the caller has the write role.
    pub fn require_write(&self) -> Result<(), ApiError> {
        match self.role {
            Role::Write => Ok(()),
            Role::Read => Err(ApiError::forbidden(format!(
                "token `{}` is read-only; this needs a write token",
                self.name
            ))),
        }
    }
}
