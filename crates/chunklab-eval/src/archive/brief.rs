//! A letter of the executive to the council (raadsinformatiebrief): occasion, state of affairs
//! with the paragraph that states the project's amount, finances, next steps and more sections
//! up to the target length.

use super::prose;
use super::render::{fill_to_target, signature, Job, PassageKind};
use super::topics::TOPICS;
use super::vocab::{date, euros};
use super::writer::Writer;

const TITLES: &[&str] = &[
    "Raadsinformatiebrief: {project}",
    "Stand van zaken {project}",
    "Voortgang {project}",
    "Informatie over {project}",
];

const AMOUNT_SENTENCES: &[&str] = &[
    "Voor {project} is in totaal {AMOUNT} beschikbaar.",
    "Het college stelt voor {project} een budget van {AMOUNT} beschikbaar.",
    "De totale kosten van {project} bedragen {AMOUNT}.",
    "Met {project} is een investering van {AMOUNT} gemoeid.",
];

/// Render the letter.
pub fn render(job: &mut Job) -> String {
    let plan = job.plan;
    let f = &plan.docs[job.index];
    let term = plan.council.term(f.year);
    let wethouder = term.alderman_for(TOPICS[f.topic].portfolio);
    let ctx = job.ctx(&f.project, wethouder, "");
    let when = date(f.year, f.month, f.day);
    let title = prose::filled(job.rng.pick(TITLES), &ctx, &mut job.rng);

    let mut w = Writer::new(f.format, &title, f.words * 8 + 2_048);
    w.fields(&[
        ("Datum", when),
        ("Kenmerk", f.dossier()),
        ("Onderwerp", ctx.topic.key.to_string()),
        ("Project", f.project.clone()),
        (
            "Portefeuillehouder",
            format!("{wethouder}, {}", ctx.topic.portfolio),
        ),
    ]);
    w.para("Geachte leden van de raad,");
    w.heading(1, "Aanleiding");
    let mut p = prose::filled(job.rng.pick(prose::LETTER_OPENINGS), &ctx, &mut job.rng);
    p.push(' ');
    let n = job.rng.range(2, 4);
    p.push_str(&prose::paragraph(
        &ctx,
        &mut job.rng,
        &[prose::BACKGROUND],
        n,
    ));
    w.para(&p);

    w.heading(1, "Stand van zaken");
    let n = job.rng.range(2, 4);
    let p = prose::paragraph(&ctx, &mut job.rng, &[ctx.topic.context], n);
    w.para(&p);
    let start = w.pos();
    let sentence = job
        .rng
        .pick(AMOUNT_SENTENCES)
        .replace("{project}", &f.project)
        .replace("{AMOUNT}", &euros(f.amount));
    let planning = prose::filled(job.rng.pick(prose::PLANNING), &ctx, &mut job.rng);
    w.para(&format!("{sentence} {planning}"));
    job.passage(&w, PassageKind::Amount, start);
    let n = job.rng.range(2, 4);
    let p = prose::paragraph(&ctx, &mut job.rng, &[ctx.topic.context, prose::RISKS], n);
    w.para(&p);

    w.heading(1, "Vervolg");
    let n = job.rng.range(2, 3);
    let p = prose::paragraph(
        &ctx,
        &mut job.rng,
        &[prose::PLANNING, prose::PARTICIPATION],
        n,
    );
    w.para(&p);

    let closing = prose::filled(job.rng.pick(prose::LETTER_CLOSINGS), &ctx, &mut job.rng);
    if w.words() < f.words {
        fill_to_target(job, &mut w, &ctx, 1, false);
    }
    w.para(&closing);
    w.para("Met vriendelijke groet,");
    w.para(&format!(
        "burgemeester en wethouders van {}",
        super::vocab::GEMEENTE
    ));
    signature(job, &mut w, false);
    w.finish()
}
