//! The `acl` and `meta` rules of an index: `GLOB=GROUP` and `GLOB=FIELD:VALUE`, matched
//! against a document's id and path.

use anyhow::{bail, Context as _, Result};
use globset::{Glob, GlobMatcher};
use std::collections::BTreeMap;
use std::path::Path;

/// A glob over document ids / paths with what it assigns.
pub(super) struct Rule<T> {
    pub(super) glob: GlobMatcher,
    pub(super) value: T,
}

pub(super) fn rules<T>(
    specs: &[String],
    param: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<Rule<T>>> {
    specs
        .iter()
        .map(|s| {
            let (glob, value) = s
                .rsplit_once('=')
                .filter(|(g, v)| !g.is_empty() && !v.is_empty())
                .with_context(|| format!("{param} `{s}` is not GLOB=VALUE"))?;
            let value =
                parse(value).with_context(|| format!("{param} `{s}`: bad value `{value}`"))?;
            let glob = Glob::new(glob)
                .with_context(|| format!("{param} `{s}`: invalid glob"))?
                .compile_matcher();
            Ok(Rule { glob, value })
        })
        .collect()
}

/// A metadata field name a document may carry (not a built-in filter field, not empty).
pub(super) fn check_field(name: &str, param: &str) -> Result<()> {
    if name.is_empty() {
        bail!("{param}: a metadata field needs a name");
    }
    if chunklab_index::filter::BUILTIN_FIELDS.contains(&name) {
        bail!("{param} field `{name}` is a built-in filter field; choose another name");
    }
    Ok(())
}

/// The access groups and metadata fields `acl` / `meta` rules give a document.
pub(super) fn assigned(
    acl: &[Rule<String>],
    meta: &[Rule<(String, String)>],
    doc_id: &str,
    path: &Path,
) -> (Vec<String>, BTreeMap<String, String>) {
    let matches = |g: &GlobMatcher| g.is_match(doc_id) || g.is_match(path);
    let groups = acl
        .iter()
        .filter(|r| matches(&r.glob))
        .map(|r| r.value.clone())
        .collect();
    let fields = meta
        .iter()
        .filter(|r| matches(&r.glob))
        .map(|r| r.value.clone())
        .collect();
    (groups, fields)
}
