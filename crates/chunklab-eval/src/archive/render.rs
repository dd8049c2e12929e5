//! Turns one document's facts into its text, recording the passages queries can point at.

use super::plan::Plan;
use super::prng::Rng;
use super::prose::{self, Ctx};
use super::topics::TOPICS;
use super::vocab;
use super::writer::Writer;

/// What a recorded passage holds.
#[derive(Debug, Clone, PartialEq)]
pub enum PassageKind {
    /// An article of a regulation: number, title and the question it answers (if specific).
    Article {
        number: usize,
        title: String,
        question: Option<&'static str>,
    },
    /// The paragraph of a letter that states the project's amount.
    Amount,
    /// The decision: a motion's requests, a proposal's proposed decision, a decision's articles.
    Decision,
}

/// A passage as a byte range of the document's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub kind: PassageKind,
    pub start: usize,
    pub end: usize,
}

/// A rendered document.
pub struct Rendered {
    pub text: String,
    pub passages: Vec<Passage>,
}

/// Everything a kind's renderer needs.
pub struct Job<'a> {
    pub plan: &'a Plan,
    pub index: usize,
    pub rng: Rng,
    pub passages: Vec<Passage>,
}

impl Job<'_> {
    /// The document's context for the prose templates.
    pub fn ctx<'b>(&self, project: &'b str, wethouder: &'b str, verordening: &'b str) -> Ctx<'b> {
        let f = &self.plan.docs[self.index];
        Ctx {
            topic: &TOPICS[f.topic],
            year: f.year,
            project,
            wethouder,
            verordening,
        }
    }

    /// Record a passage from `start` to the end of the content written so far.
    pub fn passage(&mut self, w: &Writer, kind: PassageKind, start: usize) {
        self.passages.push(Passage {
            kind,
            start,
            end: w.content_end(),
        });
    }
}

/// Chapter titles of long reports and explanations.
pub const CHAPTERS: &[&str] = &[
    "Inleiding",
    "Aanleiding",
    "Huidige situatie",
    "Analyse",
    "Doelen en ambities",
    "Maatregelen",
    "Financiële vertaling",
    "Uitvoeringsprogramma",
    "Monitoring en evaluatie",
    "Participatie",
    "Juridisch kader",
    "Risico's",
    "Samenwerking in de regio",
    "Conclusies en aanbevelingen",
];

/// Write sections of prose until the document reaches its target length: a level-`level`
/// heading per section (`Chapter 3. Analyse`-style when `numbered`), each with a few paragraphs
/// of topic context and general analysis. Sections get sub-sections when the target is long.
pub fn fill_to_target(job: &mut Job, w: &mut Writer, ctx: &Ctx, level: u8, numbered: bool) {
    let target = job.plan.docs[job.index].words;
    let mut section = 0;
    while w.words() < target {
        section += 1;
        // Unnumbered sections follow a document's own opening sections: skip the openings.
        let chapters = if numbered { CHAPTERS } else { &CHAPTERS[2..] };
        let title = chapters[(section - 1) % chapters.len()];
        let title = if section > chapters.len() {
            format!("{title}: {}", rng_place(&mut job.rng))
        } else {
            title.to_string()
        };
        let heading = if numbered {
            format!("{section}. {title}")
        } else {
            title
        };
        w.heading(level, &heading);
        let remaining = target.saturating_sub(w.words());
        let subsections = if remaining > 3_000 {
            job.rng.range(2, 5)
        } else {
            1
        };
        for s in 1..=subsections {
            if subsections > 1 {
                let title = prose::filled(job.rng.pick(SUBSECTIONS), ctx, &mut job.rng);
                let sub = if numbered {
                    format!("{section}.{s} {title}")
                } else {
                    title
                };
                w.heading(level + 1, &sub);
            }
            for _ in 0..job.rng.range(2, 4) {
                let n = job.rng.range(3, 6);
                let p = prose::paragraph(
                    ctx,
                    &mut job.rng,
                    &[
                        ctx.topic.context,
                        prose::ANALYSIS,
                        prose::BACKGROUND,
                        prose::PLANNING,
                    ],
                    n,
                );
                w.para(&p);
                if w.words() >= target {
                    return;
                }
            }
        }
    }
}

fn rng_place(rng: &mut Rng) -> &'static str {
    rng.pick(vocab::KERNEN)
}

/// Sub-section titles (templates).
const SUBSECTIONS: &[&str] = &[
    "De situatie in {plaats}",
    "Ontwikkelingen sinds {vorig_jaar}",
    "Kosten en baten",
    "Betrokken partners",
    "Ervaringen van inwoners",
    "Aandachtspunten voor {wijk}",
    "Planning {volgend_jaar}",
    "Wettelijk kader",
    "Kengetallen",
    "De rol van {partner}",
];

/// The signature of a letter or decision: the secretary and the mayor of the term.
pub fn signature(job: &Job, w: &mut Writer, clerk: bool) {
    let f = &job.plan.docs[job.index];
    let term = job.plan.council.term(f.year);
    let (role, name) = if clerk {
        ("de griffier", &term.clerk)
    } else {
        ("de secretaris", &term.secretary)
    };
    w.para(&format!(
        "{role}, {name}, de voorzitter, {mayor}",
        mayor = term.mayor
    ));
}
