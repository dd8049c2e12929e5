//! A motion (motie): metadata, Motivering (`constaterende dat`, `overwegende dat`),
//! Beslispunt(en) (`verzoekt het college`), an optional Toelichting, and the Stemverhouding with
//! every party's vote and the outcome (aangenomen / verworpen).

use super::council::{tally, votes};
use super::plan::party;
use super::prose;
use super::render::{fill_to_target, Job, PassageKind};
use super::vocab::{date, GEMEENTE};
use super::writer::Writer;

/// Render the motion.
pub fn render(job: &mut Job) -> String {
    let plan = job.plan;
    let f = &plan.docs[job.index];
    let term = plan.council.term(f.year);
    let subject = plan.subject(job.index);
    let wethouder = term.alderman_for(super::topics::TOPICS[f.topic].portfolio);
    let ctx = job.ctx("", wethouder, "");
    let topic = ctx.topic;
    let when = date(f.year, f.month, f.day);
    let outcome = if f.passed { "aangenomen" } else { "verworpen" };
    let submitters: Vec<String> = f
        .submitters
        .iter()
        .enumerate()
        .map(|(k, &p)| term.member(p, k + job.index))
        .collect();

    let mut w = Writer::new(f.format, &format!("Motie: {subject}"), f.words * 8 + 2_048);
    let agenda = job.rng.range(3, 14);
    let agenda = if job.rng.chance(0.4) {
        format!("{agenda}, motie vreemd aan de orde van de dag")
    } else {
        format!("{agenda}, {}", capitalized(topic.portfolio))
    };
    w.fields(&[
        ("Nummer", f.dossier()),
        ("Vergadering", format!("gemeenteraad van {when}")),
        ("Agendapunt", agenda),
        ("Onderwerp", topic.key.to_string()),
        ("Indieners", submitters.join(", ")),
        ("Uitkomst", outcome.to_string()),
    ]);
    w.para(&format!(
        "De raad van de gemeente {GEMEENTE}, in vergadering bijeen op {when}, gehoord de beraadslaging,"
    ));

    w.heading(1, "Motivering");
    let observing = {
        let k = job.rng.range(1, 3);
        job.rng.sample(topic.observing.len(), k)
    };
    w.para("constaterende dat:");
    let items: Vec<String> = observing
        .iter()
        .map(|&k| clause(prose::filled(topic.observing[k], &ctx, &mut job.rng)))
        .collect();
    w.list('-', &items);
    let considering = {
        let k = job.rng.range(2, 3);
        job.rng.sample(topic.considering.len(), k)
    };
    w.para("overwegende dat:");
    let items: Vec<String> = considering
        .iter()
        .map(|&k| clause(prose::filled(topic.considering[k], &ctx, &mut job.rng)))
        .collect();
    w.list('-', &items);

    let requests = {
        let k = job.rng.range(1, 3);
        job.rng.sample(topic.requests.len(), k)
    };
    let start = w.heading(
        1,
        if requests.len() == 1 {
            "Beslispunt"
        } else {
            "Beslispunten"
        },
    );
    w.para("verzoekt het college:");
    let items: Vec<String> = requests
        .iter()
        .map(|&k| clause(prose::filled(topic.requests[k], &ctx, &mut job.rng)))
        .collect();
    w.list('1', &items);
    w.para("en gaat over tot de orde van de dag.");
    job.passage(&w, PassageKind::Decision, start);

    // The vote is written last but decided now, so the explanation can be sized around it.
    let votes = votes(term, &f.submitters, f.passed, &mut job.rng);
    let target = f.words.saturating_sub(90 + 8 * votes.len());
    if w.words() < target {
        w.heading(1, "Toelichting");
        while w.words() < target {
            let n = job.rng.range(3, 5);
            let p = prose::paragraph(
                &ctx,
                &mut job.rng,
                &[topic.context, prose::BACKGROUND, prose::ARGUMENTS],
                n,
            );
            w.para(&p);
            if target - w.words().min(target) > 1_500 {
                // A long explanation gets its own chapters.
                fill_to_target(job, &mut w, &ctx, 2, false);
                break;
            }
        }
    }

    w.heading(1, "Stemverhouding");
    let rows: Vec<Vec<String>> = votes
        .iter()
        .map(|v| {
            vec![
                party(v.party).to_string(),
                v.present.to_string(),
                if v.present == 0 {
                    "afwezig".to_string()
                } else if v.for_ {
                    "voor".to_string()
                } else {
                    "tegen".to_string()
                },
            ]
        })
        .collect();
    w.table(&["Fractie", "Aanwezig", "Stem"], &rows);
    let (yes, no) = tally(&votes);
    if no == 0 {
        w.para("De motie is met algemene stemmen aangenomen.");
    } else {
        w.para(&format!(
            "De motie is {outcome} met {yes} stemmen voor en {no} stemmen tegen."
        ));
    }
    let names: Vec<String> = submitters.iter().map(|s| s.to_string()).collect();
    w.para(&format!("Ondertekend door: {}.", names.join(", ")));
    w.finish()
}

/// `Duurzaamheid en Energie` stays; a lower-case start becomes upper case.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A clause ends with `;`.
fn clause(mut s: String) -> String {
    s.push(';');
    s
}
