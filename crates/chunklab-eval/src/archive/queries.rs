//! Questions about the archive whose answers follow from the plan's facts: motion lists (topic,
//! outcome, years, sometimes a party), look-ups by register number, regulation articles and the
//! amounts in letters. Only the documents a question points into are rendered (for exact spans);
//! the rest of the archive is never built.

use super::kinds::render;
use super::plan::{party, stream, Facts, Kind, Plan, REFERENCE_YEARS};
use super::prng::Rng;
use super::render::{PassageKind, Rendered};
use super::topics::{topic_index, TOPICS};
use super::vocab::date;
use super::writer::Format;
use crate::dataset::{Query, RelevantSpan};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Most documents a question's answer may have.
const MAX_GOLD: usize = 10;

/// A question before it is numbered.
struct Draft {
    query: String,
    docs: Vec<usize>,
    /// (document, passage byte range).
    spans: Vec<(usize, usize, usize)>,
}

/// Build up to `n` queries for the plan.
pub fn build(plan: &Plan, n: usize) -> Vec<Query> {
    let mut rng = Rng::derive(plan.seed, stream::QUERIES, 0);
    let mut cache: BTreeMap<usize, Rendered> = BTreeMap::new();
    // Shares of the families: motion lists, articles, look-ups, amounts.
    let quotas = [n * 3 / 10, n * 3 / 10, n / 5, n - n * 3 / 10 * 2 - n / 5];
    let mut families = [
        motions(plan, &mut rng, n),
        articles(plan, &mut rng, &mut cache, n),
        lookups(plan, &mut rng, &mut cache, n),
        amounts(plan, &mut rng, &mut cache, n),
    ];
    // Take each family's share; a family that falls short leaves its share to the others.
    let mut take = [0usize; 4];
    let mut left = n;
    loop {
        let mut progressed = false;
        for f in 0..4 {
            if left > 0
                && take[f] < families[f].len()
                && (take[f] < quotas[f] || all_met(&take, &quotas, &families))
            {
                take[f] += 1;
                left -= 1;
                progressed = true;
            }
        }
        if !progressed || left == 0 {
            break;
        }
    }
    let mut chosen: Vec<Vec<Draft>> = families
        .iter_mut()
        .zip(take)
        .map(|(f, t)| f.drain(..t).collect())
        .collect();
    // Interleave the families so any prefix of the list is a mix.
    let mut drafts = Vec::with_capacity(n);
    let mut round = 0;
    while drafts.len() < take.iter().sum::<usize>() {
        for family in chosen.iter_mut() {
            if round < family.len() {
                drafts.push(std::mem::replace(
                    &mut family[round],
                    Draft {
                        query: String::new(),
                        docs: Vec::new(),
                        spans: Vec::new(),
                    },
                ));
            }
        }
        round += 1;
    }
    drafts
        .into_iter()
        .enumerate()
        .map(|(k, d)| finish(plan, &mut cache, k, d))
        .collect()
}

/// Whether every family has its share or has run out.
fn all_met(take: &[usize; 4], quotas: &[usize; 4], families: &[Vec<Draft>; 4]) -> bool {
    (0..4).all(|f| take[f] >= quotas[f] || take[f] >= families[f].len())
}

fn finish(plan: &Plan, cache: &mut BTreeMap<usize, Rendered>, k: usize, d: Draft) -> Query {
    let mut ids: Vec<String> = d.docs.iter().map(|&i| plan.id(i)).collect();
    ids.sort();
    ids.dedup();
    let relevant_spans = d
        .spans
        .iter()
        .map(|&(i, start, end)| {
            let text = &rendered(plan, cache, i).text;
            let start_char = text[..start].chars().count();
            RelevantSpan {
                doc_id: plan.id(i),
                start_char,
                end_char: start_char + text[start..end].chars().count(),
            }
        })
        .collect();
    Query {
        id: format!("q{:03}", k + 1),
        query: d.query,
        relevant_docs: ids,
        relevant_spans,
    }
}

fn rendered<'a>(plan: &Plan, cache: &'a mut BTreeMap<usize, Rendered>, i: usize) -> &'a Rendered {
    cache.entry(i).or_insert_with(|| render(plan, i))
}

/// The span of document `i`'s first passage of `kind`, when its text is the file (not HTML).
fn passage_span(
    plan: &Plan,
    cache: &mut BTreeMap<usize, Rendered>,
    i: usize,
    kind: PassageKind,
) -> Vec<(usize, usize, usize)> {
    if plan.docs[i].format == Format::Html {
        return Vec::new();
    }
    rendered(plan, cache, i)
        .passages
        .iter()
        .find(|p| p.kind == kind)
        .map(|p| (i, p.start, p.end))
        .into_iter()
        .collect()
}

/// Documents of a kind in a random order.
fn shuffled(plan: &Plan, rng: &mut Rng, keep: impl Fn(&Facts) -> bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..plan.docs.len())
        .filter(|&i| keep(&plan.docs[i]))
        .collect();
    rng.shuffle(&mut idx);
    idx
}

/// "Which motions on X passed between A and B?" — the reference question first, when its
/// answer has at most ten motions; then questions around randomly chosen motions, widening the
/// year range as far as the answer stays small, narrowing by party when it is too big.
fn motions(plan: &Plan, rng: &mut Rng, n: usize) -> Vec<Draft> {
    let mut out = Vec::new();
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    // Per (topic, outcome): its motions, so answers are counted without scanning the archive.
    let mut groups: BTreeMap<(usize, bool), Vec<usize>> = BTreeMap::new();
    for (i, f) in plan.docs.iter().enumerate() {
        if f.kind == Kind::Motie {
            groups.entry((f.topic, f.passed)).or_default().push(i);
        }
    }
    let gold = |topic: usize, passed: bool, years: (u16, u16), by: Option<usize>| -> Vec<usize> {
        groups.get(&(topic, passed)).map_or(Vec::new(), |docs| {
            docs.iter()
                .copied()
                .filter(|&i| {
                    let f = &plan.docs[i];
                    f.is_motion(topic, passed, years)
                        && by.is_none_or(|p| f.submitters.contains(&p))
                })
                .collect()
        })
    };
    let wind = topic_index("windenergie").expect("windenergie");
    let reference = gold(wind, true, REFERENCE_YEARS, None);
    if (1..=MAX_GOLD).contains(&reference.len()) {
        seen.insert(reference.clone());
        out.push(Draft {
            query: format!(
                "Welke moties over windenergie zijn tussen {} en {} aangenomen?",
                REFERENCE_YEARS.0, REFERENCE_YEARS.1
            ),
            docs: reference,
            spans: Vec::new(),
        });
    }
    let count =
        |topic: usize, passed: bool, years: (u16, u16)| gold(topic, passed, years, None).len();
    for i in shuffled(plan, rng, |f| f.kind == Kind::Motie) {
        if out.len() >= n {
            break;
        }
        let f = &plan.docs[i];
        let span = [1u16, 2, 3, 4, 5, 7][rng.below(6)];
        let lo = f
            .year
            .saturating_sub(rng.below(span as usize) as u16)
            .max(2002);
        let mut years = (lo, (lo + span - 1).min(2026));
        let mut by = None;
        if count(f.topic, f.passed, years) > MAX_GOLD {
            years = (f.year, f.year);
            if count(f.topic, f.passed, years) > MAX_GOLD {
                by = f.submitters.first().copied();
            }
        }
        let mut docs = gold(f.topic, f.passed, years, by);
        if docs.len() == 1 && by.is_none() && rng.chance(0.6) {
            // A lone answer: widen the period when that still gives a short list.
            let wider = (years.0.saturating_sub(6).max(2002), (years.1 + 6).min(2026));
            let more = gold(f.topic, f.passed, wider, None);
            if more.len() <= MAX_GOLD {
                (years, docs) = (wider, more);
            }
        }
        if docs.len() > MAX_GOLD || !seen.insert(docs.clone()) {
            continue;
        }
        out.push(Draft {
            query: motion_question(rng, TOPICS[f.topic].key, f.passed, years, by),
            docs,
            spans: Vec::new(),
        });
    }
    out
}

fn motion_question(
    rng: &mut Rng,
    topic: &str,
    passed: bool,
    years: (u16, u16),
    by: Option<usize>,
) -> String {
    let o = if passed { "aangenomen" } else { "verworpen" };
    let (a, b) = years;
    if let Some(p) = by {
        let p = party(p);
        return if a == b {
            match rng.below(2) {
                0 => format!("Welke moties van {p} over {topic} zijn in {a} {o}?"),
                _ => format!("Welke door {p} ingediende moties over {topic} werden in {a} {o}?"),
            }
        } else {
            match rng.below(2) {
                0 => format!("Welke moties van {p} over {topic} zijn tussen {a} en {b} {o}?"),
                _ => format!("Welke door {p} ingediende moties over {topic} werden in de periode {a}–{b} {o}?"),
            }
        };
    }
    if a == b {
        return match rng.below(3) {
            0 => format!("Welke moties over {topic} zijn in {a} {o}?"),
            1 => format!("Welke {o} moties over {topic} zijn er uit {a}?"),
            _ => format!("Heeft de gemeenteraad in {a} moties over {topic} {o}? Welke?"),
        };
    }
    match rng.below(4) {
        0 => format!("Welke moties over {topic} zijn tussen {a} en {b} {o}?"),
        1 => format!("Geef een overzicht van de {o} moties over {topic} uit de periode {a}–{b}."),
        2 => format!("Welke moties over {topic} heeft de raad van {a} tot en met {b} {o}?"),
        _ => format!("Zijn er tussen {a} en {b} moties over {topic} {o}? Zo ja, welke?"),
    }
}

/// "What does article N of regulation X regulate?" and the article's own question, with the
/// article's exact span; Markdown and plain-text regulations only (their text is the file).
fn articles(
    plan: &Plan,
    rng: &mut Rng,
    cache: &mut BTreeMap<usize, Rendered>,
    n: usize,
) -> Vec<Draft> {
    let regs = shuffled(plan, rng, |f| {
        f.kind == Kind::Verordening && f.format != Format::Html
    });
    let mut used: HashSet<(usize, usize)> = HashSet::new();
    let mut out = Vec::new();
    for _round in 0..4 {
        for &i in &regs {
            if out.len() >= n {
                return out;
            }
            let f = &plan.docs[i];
            let passages: Vec<(usize, usize, usize, String, Option<&'static str>)> =
                rendered(plan, cache, i)
                    .passages
                    .iter()
                    .filter_map(|p| match &p.kind {
                        PassageKind::Article {
                            number,
                            title,
                            question,
                        } => Some((*number, p.start, p.end, title.clone(), *question)),
                        _ => None,
                    })
                    .filter(|a| !used.contains(&(i, a.0)))
                    .collect();
            if passages.is_empty() {
                continue;
            }
            // Mostly the article is one of the regulation's own (topic-specific) ones.
            let own: Vec<usize> = (0..passages.len())
                .filter(|&a| resident_question(&passages[a].3).is_some())
                .collect();
            let pick = if !own.is_empty() && rng.chance(0.75) {
                own[rng.below(own.len())]
            } else {
                rng.below(passages.len())
            };
            let (number, start, end, title, question) = passages[pick].clone();
            used.insert((i, number));
            let name = &f.name;
            // As a resident asks it: the article's matter in everyday words and the year the
            // regulation was adopted, neither its name nor its topic word nor the article's
            // title; only where another regulation on the topic (a near-duplicate with other
            // facts) exists and none is of the same year.
            let asked = resident_question(&title).filter(|_| {
                regs_in_year(plan, f.topic, None) >= 2
                    && regs_in_year(plan, f.topic, Some(f.year)) == 1
                    && rng.chance(RESIDENT_SHARE)
            });
            let query = match (number, question, rng.below(3)) {
                _ if asked.is_some() => {
                    let (template, anchor) = (asked.unwrap_or_default(), rng.below(3));
                    template.replace("{jaar}", &year_anchor(f.year, anchor))
                }
                (1, _, 0) => {
                    format!("Welke begrippen worden gedefinieerd in artikel 1 van de {name}?")
                }
                (1, _, _) => {
                    let terms = TOPICS[f.topic]
                        .regulation
                        .as_ref()
                        .map_or(&[][..], |r| r.terms);
                    match terms.get(rng.below(terms.len().max(1))) {
                        Some((term, _)) => format!("Wat wordt in de {name} verstaan onder {term}?"),
                        None => format!("Wat regelt artikel 1 van de {name}?"),
                    }
                }
                (_, Some(q), 0 | 1) => q.replace("{verordening}", name),
                (_, _, 0) => format!("Wat regelt artikel {number} van de {name}?"),
                (_, _, _) => format!("Wat staat er in artikel {number} ({title}) van de {name}?"),
            };
            out.push(Draft {
                query,
                docs: vec![i],
                spans: vec![(i, start, end)],
            });
        }
    }
    out
}

/// Share of article questions (where the regulation's year is unambiguous) asked as a resident
/// would ask them.
const RESIDENT_SHARE: f64 = 0.85;

/// How many regulations on `topic` the archive has (from `year`, when given).
fn regs_in_year(plan: &Plan, topic: usize, year: Option<u16>) -> usize {
    plan.docs
        .iter()
        .filter(|f| {
            f.kind == Kind::Verordening && f.topic == topic && year.is_none_or(|y| f.year == y)
        })
        .count()
}

/// The regulation's year as a resident names it (`{jaar}` of [`RESIDENT`]).
fn year_anchor(year: u16, variant: usize) -> String {
    match variant {
        0 => format!("volgens de regels van {year}"),
        1 => format!("in de regeling die de raad in {year} vaststelde"),
        _ => format!("volgens de gemeentelijke regels uit {year}"),
    }
}

/// The resident's question about a topic-specific article, by the article's title.
pub fn resident_question(title: &str) -> Option<&'static str> {
    RESIDENT.iter().find(|(t, _)| *t == title).map(|(_, q)| *q)
}

/// Topic-specific articles as residents ask about them: synonyms and paraphrase instead of the
/// article's own words (`windmolen` for `windturbine`, `kliko` for `minicontainer`), never the
/// regulation's name or its topic word; `{jaar}` places the year of the regulation.
pub const RESIDENT: &[(&str, &str)] = &[
    ("Afstand tot woningen", "Hoe dicht bij mijn huis mag een windmolen worden neergezet, {jaar}?"),
    ("Bijdrage aan het gebiedsfonds", "Moet de eigenaar van de windmolens geld afstaan aan de buurt, en wie bepaalt hoeveel, {jaar}?"),
    ("Lokaal eigendom", "Kunnen mensen en bedrijven uit de gemeente mede-eigenaar worden van een park met windmolens, {jaar}?"),
    ("Hoogte van de subsidie", "Hoeveel geld krijg ik van de gemeente als ik panelen op mijn dak leg, {jaar}?"),
    ("Subsidiabele kosten", "Welke uitgaven voor panelen op het dak worden vergoed en welke niet, {jaar}?"),
    ("Voorwaarden van de lening", "Hoeveel kan ik lenen om mijn huis van het gas af te halen en hoe lang mag ik over terugbetalen doen, {jaar}?"),
    ("Aanvraag bewonersvergunning", "Voor hoeveel auto's kan ik als bewoner een vergunning krijgen om in mijn straat te staan, {jaar}?"),
    ("Parkeerplaatsen voor gehandicapten", "Kan ik met een invalidenkaart een eigen plek voor mijn auto bij mijn deur krijgen, {jaar}?"),
    ("Tarieven", "Wat betaal ik per uur als ik mijn auto in het centrum neerzet, {jaar}?"),
    ("Urgentie", "Ik moet door een noodsituatie snel ander onderdak hebben: kom ik dan eerder aan de beurt, {jaar}?"),
    ("Voorrang voor lokale binding", "Welk deel van de vrije huurhuizen gaat eerst naar mensen die al in de gemeente wonen of werken, {jaar}?"),
    ("Toegang tot jeugdhulp", "Mijn kind heeft hulp nodig: waar meld ik ons en wat gebeurt er daarna, {jaar}?"),
    ("Persoonsgebonden budget", "Wanneer mogen ouders de hulp voor hun kind zelf inkopen met eigen geld van de gemeente, {jaar}?"),
    ("Grof huishoudelijk afval", "Hoe kom ik van een oude bank of kast af en hoeveel nemen ze per keer mee, {jaar}?"),
    ("Aanbieden van huishoudelijke afvalstoffen", "Vanaf hoe laat mag de kliko de avond voor het legen buiten staan, {jaar}?"),
    ("Hoogte van de toeslag", "Hoeveel extra geld per jaar krijgt iemand die al lang van weinig geld rond moet komen, {jaar}?"),
    ("Uitzicht op inkomensverbetering", "Hoe beoordeelt de gemeente of iemand met weinig geld nog kans heeft om meer te gaan verdienen, {jaar}?"),
    ("Verbod tot vellen", "Mag ik de boom in mijn tuin zomaar omzagen of heb ik toestemming nodig, {jaar}?"),
    ("Herplantplicht", "Moet ik na het omhakken van een boom een nieuwe terugzetten, {jaar}?"),
    ("Subsidie per jeugdlid", "Hoeveel geld krijgt onze voetbalclub voor elk kind dat lid is, {jaar}?"),
    ("Melding klein evenement", "Hoe lang van tevoren moet ik een buurtfeest doorgeven, {jaar}?"),
    ("Geluidsnormen", "Hoe hard mag de muziek op een feest of festival en tot hoe laat, {jaar}?"),
    ("Verplichting tot afkoppelen", "Mag het regenwater van mijn dak nog op de gewone afvoer, {jaar}?"),
    ("Jaarlijkse blijk van waardering", "Ik zorg voor mijn zieke moeder: krijg ik daar elk jaar iets voor van de gemeente, en hoe, {jaar}?"),
];

/// Look-ups by register number: what a proposal proposes, what a decision decided, what a
/// motion asks; with the decision passage as span where the text is the file.
fn lookups(
    plan: &Plan,
    rng: &mut Rng,
    cache: &mut BTreeMap<usize, Rendered>,
    n: usize,
) -> Vec<Draft> {
    let mut out = Vec::new();
    let kinds = |f: &Facts| {
        matches!(
            f.kind,
            Kind::Raadsvoorstel | Kind::Raadsbesluit | Kind::Motie
        )
    };
    for i in shuffled(plan, rng, kinds) {
        if out.len() >= n {
            break;
        }
        let f = &plan.docs[i];
        let d = f.dossier();
        let query = match (f.kind, rng.below(2)) {
            (Kind::Raadsvoorstel, 0) => format!("Wat stelt het college voor in raadsvoorstel {d}?"),
            (Kind::Raadsvoorstel, _) => {
                format!("Welk besluit wordt de raad gevraagd te nemen in raadsvoorstel {d}?")
            }
            (Kind::Raadsbesluit, 0) => {
                format!("Wat heeft de gemeenteraad besloten in raadsbesluit {d}?")
            }
            (Kind::Raadsbesluit, _) => format!("Wat houdt het raadsbesluit met nummer {d} in?"),
            (_, 0) => format!("Wat vraagt motie {d} van het college?"),
            (_, _) => format!("Waartoe verzoekt de raad het college in motie {d}?"),
        };
        out.push(Draft {
            query,
            docs: vec![i],
            spans: passage_span(plan, cache, i, PassageKind::Decision),
        });
    }
    out
}

/// "How much is available for project X according to the letter of (date)?" with the paragraph
/// that states the amount; only letters whose project and date are unique.
fn amounts(
    plan: &Plan,
    rng: &mut Rng,
    cache: &mut BTreeMap<usize, Rendered>,
    n: usize,
) -> Vec<Draft> {
    let mut seen: BTreeMap<(&str, u16, u8, u8), usize> = BTreeMap::new();
    for f in plan.docs.iter().filter(|f| f.kind == Kind::Collegebrief) {
        *seen
            .entry((f.project.as_str(), f.year, f.month, f.day))
            .or_default() += 1;
    }
    let mut projects: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for i in shuffled(plan, rng, |f| f.kind == Kind::Collegebrief) {
        if out.len() >= n {
            break;
        }
        let f = &plan.docs[i];
        if seen[&(f.project.as_str(), f.year, f.month, f.day)] > 1 {
            continue;
        }
        // One question per project keeps the set varied.
        if !projects.insert(f.project.as_str()) && projects.len() < n {
            continue;
        }
        let when = date(f.year, f.month, f.day);
        let p = &f.project;
        let query = match rng.below(4) {
            0 => format!(
                "Welk bedrag is volgens de raadsinformatiebrief van {when} beschikbaar voor {p}?"
            ),
            1 => format!(
                "Hoeveel geld is er volgens de brief van het college van {when} gemoeid met {p}?"
            ),
            2 => format!("Wat kost {p} volgens de collegebrief van {when}?"),
            _ => format!("Noem het budget voor {p} uit de raadsinformatiebrief van {when}."),
        };
        out.push(Draft {
            query,
            docs: vec![i],
            spans: passage_span(plan, cache, i, PassageKind::Amount),
        });
    }
    out
}
