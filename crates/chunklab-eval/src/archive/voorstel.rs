//! A proposal to the council (raadsvoorstel) with its dossier number: summary, proposed
//! decision, introduction, intended effect, arguments, caveats, finances, participation,
//! implementation, and for long ones an appendix (a policy note) with numbered chapters.

use super::prose;
use super::render::{fill_to_target, Job, PassageKind};
use super::topics::TOPICS;
use super::vocab::{date, MONTH_DAYS};
use super::writer::Writer;

const PROPOSALS: &[&str] = &[
    "in te stemmen met {ding} zoals beschreven in dit voorstel",
    "een krediet van {bedrag} beschikbaar te stellen",
    "de begroting {jaar} overeenkomstig te wijzigen",
    "het college opdracht te geven de uitvoering voor te bereiden",
    "de nota {onderwerp} {jaar} vast te stellen",
    "de reserve {portefeuille} met {bedrag} te verlagen",
];

const EFFECTS: &[&str] = &[
    "Met dit voorstel wil het college bereiken dat {ding} beter aansluit bij de behoefte van inwoners.",
    "Het beoogde effect is een merkbare verbetering voor inwoners van {plaats} en {plaats2}.",
    "Doel is dat in {volgend_jaar} de eerste resultaten zichtbaar zijn.",
    "Het voorstel draagt bij aan de ambities uit het coalitieakkoord.",
];

/// Render the proposal.
pub fn render(job: &mut Job) -> String {
    let plan = job.plan;
    let f = &plan.docs[job.index];
    let term = plan.council.term(f.year);
    let subject = plan.subject(job.index);
    let wethouder = term.alderman_for(TOPICS[f.topic].portfolio);
    let ctx = job.ctx("", wethouder, "");
    let meeting_month = if f.month < 12 { f.month + 1 } else { 12 };
    let meeting_day = f.day.min(MONTH_DAYS[meeting_month as usize - 1]);

    let mut w = Writer::new(
        f.format,
        &format!("Raadsvoorstel: {subject}"),
        f.words * 8 + 2_048,
    );
    w.fields(&[
        ("Registratienummer", f.dossier()),
        ("Datum", date(f.year, f.month, f.day)),
        ("Onderwerp", ctx.topic.key.to_string()),
        (
            "Portefeuillehouder",
            format!("{wethouder}, {}", ctx.topic.portfolio),
        ),
        ("Raadsvergadering", date(f.year, meeting_month, meeting_day)),
    ]);

    w.heading(1, "Samenvatting");
    let mut p = format!("Dit voorstel gaat over {}. ", subject_phrase(&subject));
    let n = job.rng.range(2, 3);
    p.push_str(&prose::paragraph(
        &ctx,
        &mut job.rng,
        &[ctx.topic.context],
        n,
    ));
    w.para(&p);

    let start = w.heading(1, "Voorgesteld besluit");
    let picks = {
        let k = job.rng.range(1, 3);
        job.rng.sample(PROPOSALS.len(), k)
    };
    let items: Vec<String> = picks
        .iter()
        .map(|&k| prose::filled(PROPOSALS[k], &ctx, &mut job.rng) + ";")
        .collect();
    w.list('1', &items);
    job.passage(&w, PassageKind::Decision, start);

    w.heading(1, "Inleiding");
    let n = job.rng.range(3, 5);
    let p = prose::paragraph(
        &ctx,
        &mut job.rng,
        &[ctx.topic.context, prose::BACKGROUND],
        n,
    );
    w.para(&p);

    w.heading(1, "Beoogd effect");
    w.para(&prose::filled(job.rng.pick(EFFECTS), &ctx, &mut job.rng));

    w.heading(1, "Argumenten");
    for k in 1..=job.rng.range(2, 3) {
        let title = prose::filled(job.rng.pick(prose::ARGUMENTS), &ctx, &mut job.rng);
        w.heading(2, &format!("{k}. {}", title.trim_end_matches('.')));
        let n = job.rng.range(2, 4);
        let p = prose::paragraph(
            &ctx,
            &mut job.rng,
            &[ctx.topic.context, prose::BACKGROUND],
            n,
        );
        w.para(&p);
    }

    for (title, pool) in [
        ("Kanttekeningen", prose::RISKS),
        ("Financiën", prose::FINANCE),
        ("Communicatie en participatie", prose::PARTICIPATION),
        ("Uitvoering en evaluatie", prose::PLANNING),
    ] {
        w.heading(1, title);
        let n = job.rng.range(2, 4);
        let p = prose::paragraph(&ctx, &mut job.rng, &[pool], n);
        w.para(&p);
    }
    w.para(&format!(
        "Burgemeester en wethouders van {},",
        super::vocab::GEMEENTE
    ));
    w.para(&format!(
        "de secretaris, {}, de burgemeester, {}",
        term.secretary, term.mayor
    ));

    if w.words() < f.words {
        let bijlage = format!("Bijlage: Nota {} {}", ctx.topic.key, f.year);
        w.heading(1, &bijlage);
        fill_to_target(job, &mut w, &ctx, 2, true);
    }
    w.finish()
}

/// The subject as part of a sentence: first letter lower case unless it starts with a name.
fn subject_phrase(subject: &str) -> String {
    let first_word = subject.split(' ').next().unwrap_or("");
    let keep = first_word.chars().skip(1).any(|c| c.is_uppercase())
        || super::vocab::KERNEN.iter().any(|k| subject.starts_with(k));
    if keep {
        return subject.to_string();
    }
    let mut c = subject.chars();
    match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}
