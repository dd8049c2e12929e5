//! The built-in archive: deterministic, well-formed, with queries whose gold labels are checked
//! against the generated text itself (fields of the motions, register numbers, article spans).

use chunklab_eval::archive::{
    documents, generate, queries, topic_words, ArchiveOptions, DEFAULT_DOCS,
};
use chunklab_eval::dataset::{Dataset, Document, Query};
use chunklab_parse::{parser_for, ElementKind, Limits};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

fn small() -> ArchiveOptions {
    ArchiveOptions { docs: 60, seed: 3 }
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The value of a metadata field (`Onderwerp`, `Uitkomst`, ...) in any of the three formats.
fn field<'a>(doc: &'a Document, name: &str) -> Option<&'a str> {
    let line = doc.text.lines().find(|l| l.contains(&format!("{name}:")))?;
    let value = &line[line.find(&format!("{name}:"))? + name.len() + 1..];
    Some(
        value
            .trim_start_matches("**")
            .trim_start_matches("</strong>")
            .trim_end_matches("</li>")
            .trim(),
    )
}

/// Year of a document from its id (`moties/2019/motie-2019-0412.md`).
fn year(doc: &Document) -> u16 {
    doc.id.split('/').nth(1).unwrap().parse().unwrap()
}

fn by_id(data: &Dataset) -> HashMap<&str, &Document> {
    data.docs.iter().map(|d| (d.id.as_str(), d)).collect()
}

fn chars(text: &str, start: usize, end: usize) -> String {
    text.chars().skip(start).take(end - start).collect()
}

#[test]
fn same_seed_same_bytes_other_seed_other_archive() {
    let a = generate(&small());
    let b = generate(&small());
    assert_eq!(a, b);
    let streamed: Vec<Document> = documents(&small()).collect();
    assert_eq!(streamed, a.docs);
    assert_eq!(queries(&small()), a.queries);
    let c = generate(&ArchiveOptions { seed: 4, ..small() });
    assert_eq!(c.docs.len(), a.docs.len());
    let same = a
        .docs
        .iter()
        .zip(&c.docs)
        .filter(|(x, y)| x.text == y.text)
        .count();
    assert_eq!(same, 0, "a different seed must give different documents");
    assert_ne!(a.queries, c.queries);
}

#[test]
fn ids_are_unique_and_filed_by_kind_and_year() {
    let data = generate(&ArchiveOptions { docs: 400, seed: 9 });
    assert_eq!(data.name, "archive");
    assert_eq!(data.docs.len(), 400);
    let ids: HashSet<&str> = data.docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids.len(), data.docs.len());
    let mut formats = BTreeSet::new();
    for d in &data.docs {
        let parts: Vec<&str> = d.id.split('/').collect();
        assert_eq!(parts.len(), 3, "{}", d.id);
        assert_eq!(parts[2], d.name);
        let y = year(d);
        assert!((2002..=2026).contains(&y), "{}", d.id);
        let (stem, ext) = d.name.rsplit_once('.').unwrap();
        formats.insert(ext);
        let expected_prefix = match parts[0] {
            "moties" => "motie",
            "raadsbesluiten" => "raadsbesluit",
            "collegebrieven" => "collegebrief",
            "raadsvoorstellen" => "raadsvoorstel",
            "verordeningen" => "verordening",
            other => panic!("unexpected folder {other}"),
        };
        let number = stem
            .strip_prefix(&format!("{expected_prefix}-{y}-"))
            .unwrap_or_else(|| panic!("{}", d.id));
        assert_eq!(number.len(), 4, "{}", d.id);
        // Every template slot is filled.
        assert!(!d.text.contains('{') && !d.text.contains('}'), "{}", d.id);
        // The register number is written in the document.
        assert!(d.text.contains(&format!("{y}/{number}")), "{}", d.id);
    }
    assert_eq!(
        formats,
        ["html", "md", "txt"].into_iter().collect::<BTreeSet<_>>()
    );
}

/// The default archive: hundreds of short documents (the bench embeds all of them twice), a few
/// long regulations, and enough questions with spans for narrow intervals.
#[test]
fn default_archive_is_hundreds_of_short_documents_with_enough_queries() {
    let data = generate(&ArchiveOptions::default());
    assert_eq!(data.docs.len(), DEFAULT_DOCS);
    assert!((200..=400).contains(&data.docs.len()));
    let mut lengths: Vec<usize> = data.docs.iter().map(|d| words(&d.text)).collect();
    lengths.sort_unstable();
    let total: usize = lengths.iter().sum();
    assert!((40_000..=90_000).contains(&total), "{total} words");
    let median = lengths[lengths.len() / 2];
    assert!((200..=500).contains(&median), "median {median} words");
    let long = data
        .docs
        .iter()
        .filter(|d| d.id.starts_with("verordeningen/") && words(&d.text) > 1_000)
        .count();
    assert!(long >= 2, "{long} regulations past 1,000 words");
    assert!(
        (80..=120).contains(&data.queries.len()),
        "{}",
        data.queries.len()
    );
    let spans = data
        .queries
        .iter()
        .filter(|q| !q.relevant_spans.is_empty())
        .count();
    assert!(spans >= 50, "{spans} queries with spans");
    assert_eq!(
        data.queries[0].query,
        "Welke moties over windenergie zijn tussen 2018 en 2022 aangenomen?"
    );
    assert!(data.queries[0].relevant_docs.len() >= 2);
}

/// Article questions asked as residents ask them: no regulation name, no topic word, not the
/// article's own title; the regulation's year, which no other regulation on its topic shares,
/// while another regulation (another year) has the same article: a near-duplicate distractor
/// with other facts.
#[test]
fn resident_questions_paraphrase_and_have_distractors() {
    let topics: Vec<&str> = topic_words().collect();
    let mut checked = 0;
    for opts in [
        ArchiveOptions::default(),
        ArchiveOptions {
            docs: 600,
            seed: 13,
        },
    ] {
        let data = generate(&opts);
        let docs = by_id(&data);
        let regulations: Vec<&Document> = data
            .docs
            .iter()
            .filter(|d| d.id.starts_with("verordeningen/"))
            .collect();
        let mut resident = 0;
        for q in data
            .queries
            .iter()
            .filter(|q| q.relevant_docs[0].starts_with("verordeningen/"))
        {
            let doc = docs[q.relevant_docs[0].as_str()];
            let name = doc.text.lines().next().unwrap().trim_start_matches("# ");
            if q.query.contains(name) {
                continue;
            }
            resident += 1;
            let s = &q.relevant_spans[0];
            let article = chars(&doc.text, s.start_char, s.end_char);
            let heading = article.lines().next().unwrap();
            let title: String = heading
                .trim_start_matches("Artikel ")
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim()
                .to_string();
            let lower = q.query.to_lowercase();
            assert!(
                !lower.contains(&title.to_lowercase()),
                "{} / {title}",
                q.query
            );
            for t in &topics {
                assert!(!lower.contains(t), "{} names the topic {t}", q.query);
            }
            let y = year(doc).to_string();
            assert!(q.query.contains(&y), "{} / {}", q.query, doc.id);
            // The distractor: another regulation (not of that year) with the same article.
            let twins = regulations
                .iter()
                .filter(|r| {
                    r.id != doc.id
                        && r.text.lines().any(|l| {
                            l.contains("Artikel ")
                                && (l.ends_with(&format!(" {title}"))
                                    || l.contains(&format!(" {title}<")))
                        })
                })
                .collect::<Vec<_>>();
            assert!(!twins.is_empty(), "no distractor for {}", q.query);
            assert!(twins.iter().all(|r| year(r) != year(doc)), "{}", q.query);
        }
        assert!(resident >= 5, "only {resident} resident questions");
        checked += resident;
    }
    assert!(checked >= 10);
}

/// What makes the default archive discriminate between fixed-size and heading-aware chunks
/// (docs/EVALUATION.md): every question about a regulation has at least four other regulations
/// on its topic (other years, the same articles with other numbers), and its
/// answer lies past the regulation's first 512 cl100k tokens (preamble and definitions), where a
/// fixed-size chunk no longer holds the regulation's name and year and a heading-aware chunk
/// still has them in its heading path.
#[test]
fn regulation_answers_have_versions_beyond_k_and_lie_past_the_title() {
    let cl100k = chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false).unwrap();
    let data = generate(&ArchiveOptions::default());
    let docs = by_id(&data);
    // The chapter of the topic's own articles: `Hoofdstuk 2. Bijzondere bepalingen parkeren`.
    let topic_of = |d: &Document| {
        topic_words()
            .find(|t| {
                d.text
                    .split(&format!("Bijzondere bepalingen {t}"))
                    .skip(1)
                    .any(|rest| !rest.starts_with(char::is_alphanumeric))
            })
            .unwrap_or_else(|| panic!("no topic in {}", d.id))
    };
    let mut per_topic: HashMap<&str, usize> = HashMap::new();
    for d in data
        .docs
        .iter()
        .filter(|d| d.id.starts_with("verordeningen/"))
    {
        *per_topic.entry(topic_of(d)).or_default() += 1;
    }
    let (mut asked, mut past) = (0, 0);
    for q in &data.queries {
        let Some(s) = q.relevant_spans.first() else {
            continue;
        };
        if !s.doc_id.starts_with("verordeningen/") {
            continue;
        }
        let doc = docs[s.doc_id.as_str()];
        let versions = per_topic[topic_of(doc)];
        assert!(
            versions >= 5,
            "{}: {versions} regulations on its topic",
            q.query
        );
        let before = chars(&doc.text, 0, s.start_char);
        let tokens = cl100k.count(&before);
        assert!(tokens >= 256, "{}: answer after {tokens} tokens", q.query);
        asked += 1;
        past += usize::from(tokens >= 512);
    }
    assert!(asked >= 20, "{asked} regulation questions with spans");
    assert!(
        past * 4 >= asked * 3,
        "{past} of {asked} answers past 512 tokens"
    );
}

#[test]
fn lengths_have_the_reference_median_and_a_long_tail() {
    let mut lengths: Vec<usize> = documents(&ArchiveOptions {
        docs: 1_000,
        seed: 2_018,
    })
    .map(|d| words(&d.text))
    .collect();
    lengths.sort_unstable();
    let median = lengths[lengths.len() / 2] as f64;
    assert!(
        (1_400.0 * 0.85..=1_400.0 * 1.15).contains(&median),
        "median {median}"
    );
    let long = lengths.iter().filter(|&&w| w > 20_000).count();
    assert!(long >= 3, "{long} documents past 20,000 words");
    assert!(lengths[0] >= 150, "shortest {}", lengths[0]);
}

/// Every query names existing documents; spans are in bounds, in Markdown or text documents,
/// and inside a relevant document.
#[test]
fn gold_labels_point_into_the_archive() {
    for opts in [
        ArchiveOptions::default(),
        small(),
        ArchiveOptions {
            docs: 700,
            seed: 11,
        },
    ] {
        let data = generate(&opts);
        let docs = by_id(&data);
        let ids: HashSet<&str> = data.queries.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids.len(), data.queries.len());
        let texts: HashSet<&str> = data.queries.iter().map(|q| q.query.as_str()).collect();
        assert_eq!(texts.len(), data.queries.len(), "duplicate questions");
        for q in &data.queries {
            assert!(!q.relevant_docs.is_empty(), "{}", q.query);
            assert!(q.relevant_docs.len() <= 10, "{}", q.query);
            for id in &q.relevant_docs {
                assert!(docs.contains_key(id.as_str()), "{id}");
            }
            for s in &q.relevant_spans {
                let doc = docs[s.doc_id.as_str()];
                assert!(q.relevant_docs.contains(&s.doc_id));
                assert!(!doc.name.ends_with(".html"), "{}", doc.id);
                assert!(s.start_char < s.end_char);
                assert!(s.end_char <= doc.text.chars().count());
                let text = chars(&doc.text, s.start_char, s.end_char);
                assert_eq!(text.trim(), text, "span is trimmed: {:?}", text);
            }
        }
    }
}

/// Motion lists: the gold set is exactly the motions whose own fields (Onderwerp, Uitkomst,
/// Indieners) and year match the question.
#[test]
fn motion_lists_match_the_motions_fields() {
    let topics: Vec<&str> = topic_words().collect();
    let mut checked = 0;
    for opts in [
        ArchiveOptions::default(),
        small(),
        ArchiveOptions {
            docs: 2_000,
            seed: 5,
        },
    ] {
        let data = generate(&opts);
        let motions: Vec<&Document> = data
            .docs
            .iter()
            .filter(|d| d.id.starts_with("moties/"))
            .collect();
        for q in data.queries.iter().filter(|q| q.query.contains("moties")) {
            let topic = topics
                .iter()
                .filter(|t| q.query.contains(&format!("over {t}")))
                .max_by_key(|t| t.len())
                .unwrap_or_else(|| panic!("no topic in {}", q.query));
            let outcome = if q.query.contains("aangenomen") {
                "aangenomen"
            } else {
                assert!(q.query.contains("verworpen"), "{}", q.query);
                "verworpen"
            };
            let years: Vec<u16> = q
                .query
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| s.len() == 4)
                .map(|s| s.parse().unwrap())
                .collect();
            let (a, b) = (years[0], *years.last().unwrap());
            let party = q
                .query
                .split_once("moties van ")
                .or_else(|| q.query.split_once("door "))
                .map(|(_, rest)| {
                    rest.split(" over ")
                        .next()
                        .unwrap()
                        .trim_end_matches(" ingediende moties")
                });
            let expected: BTreeSet<&str> = motions
                .iter()
                .filter(|d| {
                    field(d, "Onderwerp") == Some(topic)
                        && field(d, "Uitkomst") == Some(outcome)
                        && (a..=b).contains(&year(d))
                        && party.is_none_or(|p| {
                            field(d, "Indieners").unwrap().contains(&format!("({p})"))
                        })
                })
                .map(|d| d.id.as_str())
                .collect();
            let gold: BTreeSet<&str> = q.relevant_docs.iter().map(String::as_str).collect();
            assert_eq!(gold, expected, "{}", q.query);
            for id in &gold {
                let text = &data.docs.iter().find(|d| d.id == *id).unwrap().text;
                assert!(text.contains(topic) && text.contains(outcome));
                // Plain text writes section headings in capitals.
                let lower = text.to_lowercase();
                assert!(lower.contains("overwegende dat") && lower.contains("stemverhouding"));
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} motion questions");
}

/// Article questions point at exactly that article of the named regulation.
#[test]
fn article_spans_are_the_articles() {
    let mut checked = 0;
    for opts in [
        ArchiveOptions::default(),
        ArchiveOptions {
            docs: 500,
            seed: 77,
        },
    ] {
        let data = generate(&opts);
        let docs = by_id(&data);
        for q in data
            .queries
            .iter()
            .filter(|q| q.relevant_docs[0].starts_with("verordeningen/"))
        {
            assert_eq!(q.relevant_spans.len(), 1, "{}", q.query);
            let s = &q.relevant_spans[0];
            let doc = docs[s.doc_id.as_str()];
            let text = chars(&doc.text, s.start_char, s.end_char);
            assert!(text.starts_with("Artikel "), "{text:?}");
            // The regulation's name (its title, the first line) is in the question, or (asked
            // as a resident asks) the year it was adopted.
            let title = doc.text.lines().next().unwrap().trim_start_matches("# ");
            assert!(
                q.query.contains(title) || q.query.contains(&year(doc).to_string()),
                "{} / {title}",
                q.query
            );
            // "artikel N" in the question is the article of the span.
            if let Some((_, rest)) = q.query.split_once("artikel ") {
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                assert!(
                    text.starts_with(&format!("Artikel {n} ")),
                    "{} / {text:?}",
                    q.query
                );
            }
            // The span ends where the article ends: next comes another heading or the end.
            let after = chars(&doc.text, s.end_char, doc.text.chars().count());
            let next = after.trim_start().lines().next().unwrap_or("");
            assert!(
                next.is_empty()
                    || next
                        .trim_start_matches('#')
                        .trim_start()
                        .starts_with("Artikel ")
                    || next
                        .trim_start_matches('#')
                        .trim_start()
                        .starts_with("Hoofdstuk ")
                    || next.starts_with("Aldus vastgesteld"),
                "after the article: {next:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} article questions");
}

/// Look-ups by register number and amounts in letters.
#[test]
fn lookups_and_amounts_hold_their_facts() {
    let months = [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ];
    let data = generate(&ArchiveOptions {
        docs: 800,
        seed: 21,
    });
    let docs = by_id(&data);
    let (mut lookups, mut amounts) = (0, 0);
    for q in &data.queries {
        let doc = docs[q.relevant_docs[0].as_str()];
        let span = q
            .relevant_spans
            .first()
            .map(|s| chars(&doc.text, s.start_char, s.end_char));
        if let Some(number) = q
            .query
            .split_whitespace()
            .map(|w| w.trim_end_matches('?'))
            .find(|w| w.len() == 9 && w.as_bytes()[4] == b'/')
        {
            assert_eq!(q.relevant_docs.len(), 1);
            assert!(doc.text.contains(number), "{} / {}", q.query, doc.id);
            let (y, n) = number.split_once('/').unwrap();
            assert!(doc.id.ends_with(&format!(
                "-{y}-{n}.{}",
                doc.name.rsplit('.').next().unwrap()
            )));
            if let Some(text) = span {
                assert!(
                    ["BESLISPUNT", "BESLUIT", "VOORGESTELD BESLUIT"]
                        .iter()
                        .any(|h| text.to_uppercase().starts_with(h)),
                    "{text:?}"
                );
            }
            lookups += 1;
        } else if doc.id.starts_with("collegebrieven/") {
            // The date in the question is the letter's date; the span states an amount.
            let date = months
                .iter()
                .find_map(|m| {
                    let (before, after) = q.query.split_once(&format!(" {m} "))?;
                    let day = before.rsplit(' ').next()?;
                    let year: String = after.chars().take(4).collect();
                    Some(format!("{day} {m} {year}"))
                })
                .unwrap_or_else(|| panic!("no date in {}", q.query));
            assert!(
                field(doc, "Datum") == Some(date.as_str()),
                "{} / {}",
                q.query,
                doc.id
            );
            let project = field(doc, "Project").unwrap();
            assert!(q.query.contains(project), "{} / {project}", q.query);
            if let Some(text) = span {
                assert!(text.contains(project) && text.contains("€ "), "{text:?}");
            }
            amounts += 1;
        }
    }
    assert!(
        lookups >= 8 && amounts >= 8,
        "{lookups} look-ups, {amounts} amounts"
    );
}

/// The parsers find the structure: Markdown and HTML headings, the vote table, and the
/// `Hoofdstuk` / `Artikel` headings of plain-text regulations.
#[test]
fn parsers_find_headings_and_tables() {
    let data = generate(&ArchiveOptions { docs: 300, seed: 8 });
    let mut seen = HashSet::new();
    for doc in &data.docs {
        let ext = doc.name.rsplit('.').next().unwrap();
        let parser = parser_for(Path::new(&doc.name), doc.text.as_bytes());
        let parsed = parser
            .parse(
                doc.text.as_bytes(),
                Path::new(&doc.name),
                &Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", doc.id));
        let headings: Vec<&str> = parsed
            .elements
            .iter()
            .filter(|e| matches!(e.kind, ElementKind::Heading { .. } | ElementKind::Title))
            .map(|e| parsed.text[e.start..e.end].trim())
            .collect();
        let folder = doc.id.split('/').next().unwrap();
        match ext {
            "md" => {
                assert!(doc.text.starts_with("# "), "{}", doc.id);
                assert!(headings.len() >= 3, "{}: {headings:?}", doc.id);
            }
            "html" => {
                assert!(doc.text.starts_with("<!DOCTYPE html>") && doc.text.ends_with("</html>\n"));
                assert!(headings.len() >= 3, "{}: {headings:?}", doc.id);
            }
            _ => {}
        }
        if folder == "moties" && ext != "txt" {
            for section in ["Motivering", "Stemverhouding"] {
                assert!(
                    headings.iter().any(|h| h.ends_with(section)),
                    "{}: {headings:?}",
                    doc.id
                );
            }
            assert!(
                parsed.elements.iter().any(|e| e.kind == ElementKind::Table),
                "{}: no vote table",
                doc.id
            );
        }
        if folder == "verordeningen" && ext == "txt" {
            assert!(
                headings.iter().any(|h| h.starts_with("Hoofdstuk 1.")),
                "{headings:?}"
            );
            assert!(
                headings.contains(&"Artikel 1 Begripsbepalingen"),
                "{}: {headings:?}",
                doc.id
            );
        }
        seen.insert((folder.to_string(), ext.to_string()));
    }
    for needed in [
        ("moties", "html"),
        ("moties", "md"),
        ("verordeningen", "txt"),
        ("verordeningen", "md"),
    ] {
        assert!(
            seen.contains(&(needed.0.to_string(), needed.1.to_string())),
            "{needed:?}"
        );
    }
}

#[test]
fn queries_do_not_depend_on_building_the_documents() {
    // `queries` alone equals the queries of the full dataset at a size where building every
    // document would be wasteful.
    let opts = ArchiveOptions {
        docs: 3_000,
        seed: 1,
    };
    let q: Vec<Query> = queries(&opts);
    assert_eq!(q.len(), 120);
    let wanted: HashSet<&str> = q
        .iter()
        .flat_map(|q| q.relevant_docs.iter().map(String::as_str))
        .collect();
    let found: Vec<Document> = documents(&opts)
        .filter(|d| wanted.contains(d.id.as_str()))
        .collect();
    assert_eq!(found.len(), wanted.len());
}
