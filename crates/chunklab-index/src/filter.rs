//! Metadata filters: `source=GLOB`, `acl=GROUP` and `FIELD=VALUE`, applied inside both searches
//! (tantivy's collector and the vector index's predicate), so `k` matching results come back
//! whenever `k` chunks match — never fewer because non-matching ones were cut first.
//!
//! Semantics: values given for the same field are alternatives (OR); different fields must all
//! match (AND). `source` globs match the document id (path relative to the indexed directory) or
//! the source path; `acl=GROUP` matches documents whose access groups (`chunklab index --acl`)
//! include `GROUP` — a document without groups only appears when no `acl` filter is given.

use crate::error::{Error, Result};
use crate::store::{ChunkRecord, DocRecord};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::BTreeMap;

/// Fields every index knows, besides the custom fields of its documents.
pub const BUILTIN_FIELDS: &[&str] = &[
    "source", "doc_id", "acl", "kind", "language", "lang", "level", "page", "heading", "symbol",
];

#[derive(Debug)]
enum Clause {
    Source(GlobSet, Vec<String>),
    Acl(Vec<String>),
    Field(String, Vec<String>),
}

/// One clause of a [`Filter`], as [`Filter::clauses`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterClause<'a> {
    /// The document id or source matches one of these globs (globset syntax, `*` crosses `/`).
    Source(&'a [String]),
    /// The document's access groups include one of these.
    Acl(&'a [String]),
    /// The field (a [`BUILTIN_FIELDS`] name other than source/acl, or a custom field) has one of
    /// these values.
    Field(&'a str, &'a [String]),
}

/// A parsed set of filters (see the module docs).
#[derive(Debug, Default)]
pub struct Filter {
    clauses: Vec<Clause>,
}

impl Filter {
    /// Parse `FIELD=VALUE` specs. `custom` are the index's custom field names; any other field
    /// than those and [`BUILTIN_FIELDS`] is an error that lists the known ones.
    ///
    /// ```
    /// use chunklab_index::filter::Filter;
    /// let f = Filter::parse(&["source=besluiten/**".into(), "acl=team-a".into()], &[]).unwrap();
    /// assert!(!f.is_empty());
    /// let err = Filter::parse(&["colour=red".into()], &[]).unwrap_err();
    /// assert!(err.to_string().contains("unknown filter field `colour`"));
    /// let err = Filter::parse(&["page=abc".into()], &[]).unwrap_err();
    /// assert!(err.to_string().contains("`page` is a number"));
    /// ```
    pub fn parse(specs: &[String], custom: &[String]) -> Result<Filter> {
        let mut by_field: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for spec in specs {
            let (field, value) = spec.split_once('=').ok_or_else(|| {
                Error::BadFilter(format!(
                    "filter `{spec}` is not FIELD=VALUE (e.g. source='docs/**', acl=team-a, kind=table)"
                ))
            })?;
            let field = field.trim();
            if field.is_empty() || value.is_empty() {
                return Err(Error::BadFilter(format!(
                    "filter `{spec}` needs a field and a value (FIELD=VALUE)"
                )));
            }
            if !BUILTIN_FIELDS.contains(&field) && !custom.iter().any(|c| c == field) {
                let mut known: Vec<String> = BUILTIN_FIELDS.iter().map(|s| s.to_string()).collect();
                known.extend(custom.iter().cloned());
                return Err(Error::BadFilter(format!(
                    "unknown filter field `{field}` in `{spec}`; known fields: {}",
                    known.join(", ")
                )));
            }
            // Numeric fields take numbers: `page=abc` could never match and is an error.
            if matches!(field, "page" | "level") && value.trim().parse::<u64>().is_err() {
                return Err(Error::BadFilter(format!(
                    "filter `{spec}`: `{field}` is a number (e.g. {field}=3), not `{value}`"
                )));
            }
            by_field
                .entry(field.to_string())
                .or_default()
                .push(value.to_string());
        }
        let mut clauses = Vec::new();
        for (field, values) in by_field {
            clauses.push(match field.as_str() {
                "source" => {
                    let mut b = GlobSetBuilder::new();
                    for v in &values {
                        b.add(Glob::new(v).map_err(|e| {
                            Error::BadFilter(format!("filter source={v}: invalid glob: {e}"))
                        })?);
                    }
                    let set = b
                        .build()
                        .map_err(|e| Error::BadFilter(format!("filter source: {e}")))?;
                    Clause::Source(set, values)
                }
                "acl" => Clause::Acl(values),
                _ => Clause::Field(field, values),
            });
        }
        Ok(Filter { clauses })
    }

    /// Also require that a document's access groups include one of `groups` (ANDed with every
    /// other clause, including an `acl=` filter the user gave): how a server confines a caller
    /// to the groups its token holds. An empty `groups` lets nothing through.
    ///
    /// ```
    /// use chunklab_index::filter::Filter;
    /// let mut f = Filter::parse(&["acl=finance".into()], &[]).unwrap();
    /// f.require_acl(vec!["legal".into()]);
    /// assert!(!f.is_empty());
    /// ```
    pub fn require_acl(&mut self, groups: Vec<String>) {
        self.clauses.push(Clause::Acl(groups));
    }

    /// The clauses, for stores that evaluate filters themselves (PostgreSQL translates them to
    /// SQL inside its candidate search): all must match, each with alternatives.
    pub fn clauses(&self) -> Vec<FilterClause<'_>> {
        self.clauses
            .iter()
            .map(|c| match c {
                Clause::Source(_, globs) => FilterClause::Source(globs),
                Clause::Acl(groups) => FilterClause::Acl(groups),
                Clause::Field(f, values) => FilterClause::Field(f, values),
            })
            .collect()
    }

    /// `true` when there is nothing to filter on.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }

    /// Whether a chunk of a document passes.
    pub fn matches(&self, chunk: &ChunkRecord, doc: &DocRecord) -> bool {
        self.clauses.iter().all(|c| match c {
            Clause::Source(set, _) => set.is_match(&doc.doc_id) || set.is_match(&doc.source),
            Clause::Acl(groups) => doc.acl.iter().any(|g| groups.contains(g)),
            Clause::Field(field, values) => {
                let is = |v: &str| values.iter().any(|x| x == v);
                match field.as_str() {
                    "doc_id" => is(&doc.doc_id),
                    "kind" => chunk.kind.as_deref().is_some_and(is),
                    "language" => chunk.language.as_deref().is_some_and(is),
                    "lang" => is(&doc.lang),
                    "level" => chunk.level.is_some_and(|l| is(&l.to_string())),
                    "page" => chunk.page.is_some_and(|p| is(&p.to_string())),
                    "heading" => chunk.headings.iter().any(|h| is(h)),
                    "symbol" => chunk.symbol.as_deref().is_some_and(is),
                    custom => doc.fields.get(custom).is_some_and(|v| is(v)),
                }
            }
        })
    }
}
