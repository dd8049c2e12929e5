//! The archive's facts, decided before any text is written: for every document its kind,
//! format, date, registration number, topic, target length and what queries can ask about it
//! (a motion's outcome and submitters, a letter's project and amount, a regulation's name).
//! Documents are rendered from these facts and queries are derived from them, so neither needs
//! the other in memory.

use super::council::Council;
use super::prng::Rng;
use super::prose::{self, Ctx};
use super::topics::{topic_index, TOPICS};
use super::vocab::{FIRST_YEAR, LAST_YEAR, MONTH_DAYS, PARTIES, SEATS};
use super::writer::Format;
use std::collections::{BTreeMap, HashSet};

/// What kind of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Motie,
    Raadsbesluit,
    Collegebrief,
    Raadsvoorstel,
    Verordening,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Motie,
        Kind::Raadsbesluit,
        Kind::Collegebrief,
        Kind::Raadsvoorstel,
        Kind::Verordening,
    ];

    /// Folder of the archive this kind is filed in.
    pub fn folder(self) -> &'static str {
        match self {
            Kind::Motie => "moties",
            Kind::Raadsbesluit => "raadsbesluiten",
            Kind::Collegebrief => "collegebrieven",
            Kind::Raadsvoorstel => "raadsvoorstellen",
            Kind::Verordening => "verordeningen",
        }
    }

    /// File name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Motie => "motie",
            Kind::Raadsbesluit => "raadsbesluit",
            Kind::Collegebrief => "collegebrief",
            Kind::Raadsvoorstel => "raadsvoorstel",
            Kind::Verordening => "verordening",
        }
    }

    /// Share of the archive (percent), median length in words and lognormal shape.
    fn profile(self) -> (u32, f64, f64) {
        match self {
            Kind::Motie => (30, 800.0, 0.35),
            Kind::Raadsbesluit => (15, 1_000.0, 0.45),
            Kind::Collegebrief => (25, 1_800.0, 0.6),
            Kind::Raadsvoorstel => (20, 3_200.0, 0.95),
            Kind::Verordening => (10, 3_800.0, 0.9),
        }
    }

    /// Share of the reference lengths a bench-sized archive (fewer than [`BENCH_SIZED`]
    /// documents) is written at: motions, decisions, letters and proposals at their few
    /// hundred words of structure, regulations at 15% (a few past 1,200 words, the longest
    /// about 1,500), so hundreds of documents can be embedded for two chunkings within the
    /// default bench's three minutes on two cores. From [`BENCH_SIZED`] documents up the
    /// lengths have the reference median (~1,400 words) and its long tail.
    pub fn bench_scale(self) -> f64 {
        match self {
            Kind::Verordening => 0.15,
            _ => 0.08,
        }
    }

    /// Share of a bench-sized archive (percent): regulations twice their reference share, so
    /// that each of the few regulations such an archive has comes in several re-adopted
    /// versions (see [`BENCH_REGULATED_TOPICS`]), as in the reference archive, where thousands of
    /// regulations on a dozen topics make every version a near-duplicate of others.
    fn bench_share(self) -> u32 {
        match self {
            Kind::Verordening => 20,
            Kind::Motie => 27,
            Kind::Raadsbesluit => 13,
            Kind::Collegebrief => 22,
            Kind::Raadsvoorstel => 18,
        }
    }

    /// Weights of Markdown, HTML and plain text.
    fn formats(self) -> [u32; 3] {
        match self {
            Kind::Motie => [70, 25, 5],
            Kind::Raadsbesluit => [55, 20, 25],
            Kind::Collegebrief => [60, 30, 10],
            Kind::Raadsvoorstel => [70, 15, 15],
            Kind::Verordening => [45, 10, 45],
        }
    }
}

/// The facts of one document.
#[derive(Debug, Clone)]
pub struct Facts {
    pub kind: Kind,
    pub format: Format,
    pub year: u16,
    pub month: u8,
    pub day: u8,
    /// Number in the year's register: the document is `{year}/{number:04}`.
    pub number: u32,
    /// Index into `TOPICS`.
    pub topic: usize,
    /// Index into the topic's titles (moties, proposals and decisions).
    pub subject: usize,
    /// Target length in words.
    pub words: usize,
    /// Moties: passed (aangenomen) or rejected (verworpen).
    pub passed: bool,
    /// Moties: submitting parties (indices into `PARTIES`), first is the main submitter.
    pub submitters: Vec<usize>,
    /// Letters: the project and the amount the letter states.
    pub project: String,
    pub amount: u64,
    /// Regulations: the unique name (`Parkeerverordening 2012`).
    pub name: String,
    /// Decisions: index of the proposal decided on.
    pub proposal: Option<usize>,
}

impl Facts {
    /// `2019/0412`.
    pub fn dossier(&self) -> String {
        format!("{}/{:04}", self.year, self.number)
    }

    /// Whether the document is a motion with this outcome, topic and year range.
    pub fn is_motion(&self, topic: usize, passed: bool, years: (u16, u16)) -> bool {
        self.kind == Kind::Motie
            && self.topic == topic
            && self.passed == passed
            && years.0 <= self.year
            && self.year <= years.1
    }
}

/// Streams of the generator (each purpose draws from its own generator).
pub mod stream {
    pub const PLAN: u64 = 1;
    pub const NUMBERS: u64 = 2;
    pub const SUBJECT: u64 = 3;
    pub const RENDER: u64 = 4;
    pub const QUERIES: u64 = 5;
}

/// All facts of an archive.
pub struct Plan {
    pub seed: u64,
    pub docs: Vec<Facts>,
    pub council: Council,
}

/// Years the reference question asks about.
pub const REFERENCE_YEARS: (u16, u16) = (2018, 2022);

impl Plan {
    /// Plan `n` documents for `seed`.
    pub fn new(n: usize, seed: u64) -> Self {
        let council = Council::new(seed);
        let mut rng = Rng::derive(seed, stream::PLAN, 0);
        let cap = (60 * n).clamp(2_500, 200_000);
        let bench = n < BENCH_SIZED;
        let mut docs: Vec<Facts> = anchors(&mut rng, bench)
            .into_iter()
            .take(n)
            .map(|(kind, topic, years, passed, format)| {
                let mut f = draw(&mut rng, kind, Some(topic), cap, bench);
                f.year = rng.range(years.0 as usize, years.1 as usize) as u16;
                f.passed = passed;
                if let Some(format) = format {
                    f.format = format;
                }
                f
            })
            .collect();
        // Two anchored passing wind motions in the same year would be fine, but different years
        // make the reference question's answer a real list.
        if docs.len() >= 2 && docs[0].year == docs[1].year {
            docs[1].year = if docs[0].year == 2022 {
                2019
            } else {
                docs[0].year + 1
            };
        }
        while docs.len() < n {
            let shares = Kind::ALL.map(|k| {
                if bench {
                    k.bench_share()
                } else {
                    k.profile().0
                }
            });
            let kind = Kind::ALL[rng.weighted(&shares)];
            docs.push(draw(&mut rng, kind, None, cap, bench));
        }
        rng.shuffle(&mut docs);
        for f in &mut docs {
            date(&mut rng, f);
        }
        let mut plan = Plan {
            seed,
            docs,
            council,
        };
        plan.link_decisions();
        plan.number();
        plan.details(&mut rng);
        plan
    }

    /// A decision adopts the topic, subject and (a month later) date of an undecided proposal
    /// of the same year, when there is one.
    fn link_decisions(&mut self) {
        let mut open: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
        for (i, f) in self.docs.iter().enumerate() {
            if f.kind == Kind::Raadsvoorstel && f.month < 12 {
                open.entry(f.year).or_default().push(i);
            }
        }
        for i in 0..self.docs.len() {
            if self.docs[i].kind != Kind::Raadsbesluit {
                continue;
            }
            let year = self.docs[i].year;
            let Some(p) = open.get_mut(&year).and_then(|v| v.pop()) else {
                continue;
            };
            let (topic, subject, month, day) = {
                let v = &self.docs[p];
                (v.topic, v.subject, v.month, v.day)
            };
            let d = &mut self.docs[i];
            d.proposal = Some(p);
            d.topic = topic;
            d.subject = subject;
            d.month = month + 1;
            d.day = day.min(MONTH_DAYS[month as usize]);
        }
    }

    /// Register numbers: per year in date order, with small random gaps.
    fn number(&mut self) {
        let mut per_year: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
        for (i, f) in self.docs.iter().enumerate() {
            per_year.entry(f.year).or_default().push(i);
        }
        for (year, mut idx) in per_year {
            let mut rng = Rng::derive(self.seed, stream::NUMBERS, year as u64);
            idx.sort_by_key(|&i| (self.docs[i].month, self.docs[i].day, i));
            let mut number = rng.range(1, 40) as u32;
            let max_gap = (9_000 / idx.len()).clamp(1, 12);
            for i in idx {
                self.docs[i].number = number;
                number += rng.range(1, max_gap) as u32;
            }
        }
    }

    /// Submitters, projects, amounts and regulation names.
    fn details(&mut self, rng: &mut Rng) {
        let mut names: HashSet<String> = HashSet::new();
        for i in 0..self.docs.len() {
            let (kind, year, topic) = (self.docs[i].kind, self.docs[i].year, self.docs[i].topic);
            match kind {
                Kind::Motie => {
                    let term = self.council.term(year);
                    let mut parties: Vec<usize> = term.seats.iter().map(|s| s.0).collect();
                    rng.shuffle(&mut parties);
                    parties.truncate(rng.weighted(&[0, 5, 3, 2]));
                    if !self.docs[i].passed {
                        // Rejected motions are not submitted by a majority.
                        while parties.len() > 1
                            && parties.iter().map(|&p| term.seats_of(p)).sum::<u32>()
                                > SEATS / 2 - 2
                        {
                            parties.pop();
                        }
                    }
                    self.docs[i].submitters = parties;
                }
                Kind::Collegebrief => {
                    let t = &TOPICS[topic];
                    let ctx = Ctx {
                        topic: t,
                        year,
                        project: "",
                        wethouder: "",
                        verordening: "",
                    };
                    self.docs[i].project = prose::filled(rng.pick(t.projects), &ctx, rng);
                    self.docs[i].amount = prose::amount(rng);
                }
                Kind::Verordening => {
                    let reg = TOPICS[topic].regulation.as_ref().expect("regulation topic");
                    let base = reg.names[rng.below(reg.names.len())];
                    let mut name = format!("{base} {year}");
                    let mut k = 2;
                    while names.contains(&name) {
                        name = format!("{base} {year} ({k})");
                        k += 1;
                    }
                    names.insert(name.clone());
                    self.docs[i].name = name;
                }
                _ => {}
            }
        }
    }

    /// The document's id: `moties/2019/motie-2019-0412.md`.
    pub fn id(&self, i: usize) -> String {
        let f = &self.docs[i];
        format!("{}/{}/{}", f.kind.folder(), f.year, self.file_name(i))
    }

    /// The document's file name: `motie-2019-0412.md`.
    pub fn file_name(&self, i: usize) -> String {
        let f = &self.docs[i];
        format!(
            "{}-{}-{:04}.{}",
            f.kind.prefix(),
            f.year,
            f.number,
            f.format.extension()
        )
    }

    /// The subject of a motion, proposal or decision (a decision has its proposal's subject).
    pub fn subject(&self, i: usize) -> String {
        let f = &self.docs[i];
        let source = f.proposal.unwrap_or(i);
        let t = &TOPICS[f.topic];
        let mut rng = Rng::derive(self.seed, stream::SUBJECT, source as u64);
        let ctx = Ctx {
            topic: t,
            year: f.year,
            project: "",
            wethouder: "",
            verordening: "",
        };
        prose::filled(t.titles[f.subject % t.titles.len()], &ctx, &mut rng)
    }
}

type Anchor = (Kind, usize, (u16, u16), bool, Option<Format>);

/// Documents every archive of at least this many documents has, so the reference question
/// ("which motions on wind energy passed 2018–2022?") has an answer list and near misses at any
/// size: passing and rejected wind motions in the period, an earlier passing one, a passing solar
/// motion in the period, and a regulation, letter and proposal on wind energy.
fn anchors(rng: &mut Rng, bench: bool) -> Vec<Anchor> {
    let wind = topic_index("windenergie").expect("windenergie topic");
    let solar = topic_index("zonne-energie").expect("zonne-energie topic");
    let regulated: Vec<usize> = topic_weights(Kind::Verordening, bench)
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0)
        .map(|(t, _)| t)
        .collect();
    let period = REFERENCE_YEARS;
    vec![
        (Kind::Motie, wind, period, true, Some(Format::Markdown)),
        (Kind::Motie, wind, period, true, None),
        (Kind::Motie, wind, period, false, Some(Format::Markdown)),
        (Kind::Motie, wind, (2014, 2017), true, None),
        (Kind::Motie, solar, (2019, 2021), true, None),
        (
            Kind::Verordening,
            rng.pick(&regulated),
            (2008, 2024),
            true,
            Some(Format::Markdown),
        ),
        (
            Kind::Collegebrief,
            wind,
            (2016, 2024),
            true,
            Some(Format::Markdown),
        ),
        (
            Kind::Verordening,
            rng.pick(&regulated),
            (2004, 2025),
            true,
            Some(Format::Text),
        ),
        (Kind::Raadsvoorstel, wind, (2017, 2023), true, None),
        (Kind::Motie, wind, (2023, 2026), false, None),
    ]
}

/// Regulation topics of a bench-sized archive: the first this many topics that have a
/// regulation (windenergie, zonne-energie, warmtetransitie, parkeren, woningbouw, jeugdzorg). With
/// [`Kind::bench_share`] that is 5–11 versions of each (other years, other numbers, the same
/// articles), so a question about one version has near-duplicates in the collection beyond k = 5
/// chunks, as every question about a regulation has in the reference archive (92k documents,
/// about 9,000 regulations on 13 topics); the 13 topics of a full-size archive would leave two
/// versions of each among 200 documents, which any k = 5 retrieval covers.
pub const BENCH_REGULATED_TOPICS: usize = 6;

/// Topic weights: energy, housing and care come up more often than the rest. Regulations are
/// only on topics that have one, and in a bench-sized archive on the first
/// [`BENCH_REGULATED_TOPICS`] of those.
fn topic_weights(kind: Kind, bench: bool) -> Vec<u32> {
    let mut regulated = 0;
    TOPICS
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let allowed = t.regulation.is_some() && (!bench || regulated < BENCH_REGULATED_TOPICS);
            if t.regulation.is_some() {
                regulated += 1;
            }
            if kind == Kind::Verordening && !allowed {
                0
            } else {
                [5, 5, 3, 5, 6, 5, 5, 4, 4, 3][i.min(9)]
            }
        })
        .collect()
}

/// Year weights: the archive grows over time; the current year is half over.
fn year_weight(year: u16) -> u32 {
    let w = 10 + 2 * (year - FIRST_YEAR) as u32;
    if year == LAST_YEAR {
        w / 2
    } else {
        w
    }
}

/// Archives smaller than this are bench-sized: written at [`Kind::bench_scale`] of the
/// reference lengths.
pub const BENCH_SIZED: usize = 1_000;

fn draw(rng: &mut Rng, kind: Kind, topic: Option<usize>, cap: usize, bench: bool) -> Facts {
    let scale = if bench { kind.bench_scale() } else { 1.0 };
    let topic = topic.unwrap_or_else(|| rng.weighted(&topic_weights(kind, bench)));
    let years: Vec<u32> = (FIRST_YEAR..=LAST_YEAR).map(year_weight).collect();
    let year = FIRST_YEAR + rng.weighted(&years) as u16;
    let format = [Format::Markdown, Format::Html, Format::Text][rng.weighted(&kind.formats())];
    let (_, median, sigma) = kind.profile();
    let words = (rng.lognormal(median * scale, sigma) as usize).clamp(200, cap);
    Facts {
        kind,
        format,
        year,
        month: 1,
        day: 1,
        number: 0,
        topic,
        subject: rng.below(TOPICS[topic].titles.len()),
        words,
        passed: rng.chance(0.55),
        submitters: Vec::new(),
        project: String::new(),
        amount: 0,
        name: String::new(),
        proposal: None,
    }
}

/// A date in the document's year (the current year runs to June).
fn date(rng: &mut Rng, f: &mut Facts) {
    let last_month = if f.year == LAST_YEAR { 6 } else { 12 };
    f.month = rng.range(1, last_month) as u8;
    f.day = rng.range(1, MONTH_DAYS[f.month as usize - 1] as usize) as u8;
}

/// Party name.
pub fn party(p: usize) -> &'static str {
    PARTIES[p].0
}
