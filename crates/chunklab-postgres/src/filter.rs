//! chunklab's filters ([`chunklab_index::Filter`]) as SQL over `chunklab.chunks c`, so that
//! PostgreSQL applies them inside the candidate searches (the HNSW scan with pgvector's
//! iterative scans, the full-text bitmap scan), not to their results: `k` matching chunks come
//! back whenever `k` match, as in the embedded index.

use chunklab_index::filter::FilterClause;
use chunklab_index::Filter;
use postgres::types::ToSql;

/// Positional parameters of a statement being built.
#[derive(Default)]
pub struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
}

impl Params {
    /// Add a value; returns its placeholder (`$n`).
    pub fn push(&mut self, v: impl ToSql + Sync + 'static) -> String {
        self.values.push(Box::new(v));
        format!("${}", self.values.len())
    }

    /// The values, for `query`.
    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|b| b.as_ref()).collect()
    }
}

/// The SQL condition (`TRUE` when there is nothing to filter) for `filter` plus, with
/// `leaves_only`, "not a parent chunk" (small-to-big and auto-merging retrieve leaves).
pub fn condition(filter: Option<&Filter>, leaves_only: bool, p: &mut Params) -> String {
    let mut parts: Vec<String> = Vec::new();
    if leaves_only {
        parts.push("NOT c.is_parent".into());
    }
    for clause in filter.map(Filter::clauses).unwrap_or_default() {
        parts.push(match clause {
            FilterClause::Source(globs) => {
                let res: Vec<String> = globs.iter().map(|g| glob_to_regex(g)).collect();
                let ph = p.push(res);
                format!("(c.doc_id ~ ANY({ph}) OR c.source ~ ANY({ph}))")
            }
            FilterClause::Acl(groups) => format!("c.acl && {}::text[]", p.push(groups.to_vec())),
            FilterClause::Field(field, values) => {
                let values = values.to_vec();
                match field {
                    "doc_id" | "kind" | "language" | "symbol" | "lang" => {
                        format!("c.{field} = ANY({})", p.push(values))
                    }
                    "level" | "page" => {
                        let nums: Vec<i32> = values
                            .iter()
                            .filter_map(|v| v.trim().parse().ok())
                            .collect();
                        format!("c.{field} = ANY({})", p.push(nums))
                    }
                    "heading" => format!("c.headings && {}::text[]", p.push(values)),
                    custom => format!(
                        "(c.metadata ->> {}) = ANY({})",
                        p.push(custom.to_string()),
                        p.push(values)
                    ),
                }
            }
        });
    }
    if parts.is_empty() {
        "TRUE".into()
    } else {
        parts.join(" AND ")
    }
}

/// A globset glob (default options: `*` and `?` also match `/`, `**` anything, `[...]` classes,
/// `{a,b}` alternatives) as an anchored POSIX regular expression for PostgreSQL's `~`.
pub fn glob_to_regex(glob: &str) -> String {
    let mut re = String::from("^");
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    let mut in_alt = 0usize;
    while i < chars.len() {
        let ch = chars[i];
        match ch {
            '*' => {
                // `**/` matches zero or more directories; any other run of stars anything.
                while i + 1 < chars.len() && chars[i + 1] == '*' {
                    i += 1;
                }
                if i + 1 < chars.len() && chars[i + 1] == '/' && i >= 1 && chars[i - 1] == '*' {
                    re.push_str("(.*/)?");
                    i += 1;
                } else {
                    re.push_str(".*");
                }
            }
            '?' => re.push('.'),
            '[' => {
                let mut j = i + 1;
                let mut class = String::from("[");
                if j < chars.len() && chars[j] == '!' {
                    class.push('^');
                    j += 1;
                }
                while j < chars.len() && chars[j] != ']' {
                    if chars[j] == '\\' {
                        class.push('\\');
                    }
                    class.push(chars[j]);
                    j += 1;
                }
                class.push(']');
                re.push_str(&class);
                i = j;
            }
            '{' => {
                in_alt += 1;
                re.push_str("(?:");
            }
            '}' if in_alt > 0 => {
                in_alt -= 1;
                re.push(')');
            }
            ',' if in_alt > 0 => re.push('|'),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                push_literal(&mut re, chars[i]);
            }
            c => push_literal(&mut re, c),
        }
        i += 1;
    }
    re.push('$');
    re
}

fn push_literal(re: &mut String, c: char) {
    if "\\.^$|()[]{}*+?".contains(c) {
        re.push('\\');
    }
    re.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_become_anchored_regexes() {
        assert_eq!(glob_to_regex("besluiten/**"), "^besluiten/.*$");
        assert_eq!(glob_to_regex("**/*.md"), "^(.*/)?.*\\.md$");
        assert_eq!(glob_to_regex("a?.{md,txt}"), "^a.\\.(?:md|txt)$");
        assert_eq!(glob_to_regex("[!x]y"), "^[^x]y$");
    }

    #[test]
    fn filters_become_sql() {
        let f = Filter::parse(
            &[
                "acl=financien".into(),
                "page=3".into(),
                "type=besluit".into(),
                "source=a/**".into(),
            ],
            &["type".into()],
        )
        .unwrap();
        let mut p = Params::default();
        let sql = condition(Some(&f), true, &mut p);
        assert!(sql.starts_with("NOT c.is_parent AND "), "{sql}");
        assert!(sql.contains("c.acl && $"), "{sql}");
        assert!(sql.contains("c.page = ANY($"), "{sql}");
        assert!(sql.contains("(c.metadata ->> $"), "{sql}");
        assert!(sql.contains("c.source ~ ANY($"), "{sql}");
        assert_eq!(p.refs().len(), 5);
        assert_eq!(condition(None, false, &mut Params::default()), "TRUE");
    }
}
