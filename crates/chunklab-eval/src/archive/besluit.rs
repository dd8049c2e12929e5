//! A council decision (raadsbesluit): the preamble (`gelezen het voorstel ...`, `gelet op ...`),
//! the numbered decision, the vote and signature, and an explanation sized to the target length.

use super::council::{tally, votes};
use super::prose;
use super::render::{fill_to_target, signature, Job, PassageKind};
use super::topics::TOPICS;
use super::vocab::{date, euros, GEMEENTE};
use super::writer::Writer;

const LEGAL_BASES: &[&str] = &[
    "artikel 147 van de Gemeentewet",
    "artikel 108 van de Gemeentewet",
    "artikel 189 van de Gemeentewet",
    "de Algemene wet bestuursrecht",
    "artikel 2.4 van de Omgevingswet",
    "de Financiële verordening gemeente Lindeveld",
];

const DECISIONS: &[&str] = &[
    "een krediet van {bedrag} beschikbaar te stellen voor de uitvoering",
    "de begroting {jaar} overeenkomstig te wijzigen",
    "het college op te dragen de raad binnen een jaar over de uitvoering te informeren",
    "de kosten te dekken uit de algemene reserve",
    "in te stemmen met de uitgangspunten voor {ding}",
    "de zienswijze van de raad kenbaar te maken aan {partner}",
    "het college te machtigen de benodigde overeenkomsten met {partner} aan te gaan",
];

/// Render the decision.
pub fn render(job: &mut Job) -> String {
    let plan = job.plan;
    let f = &plan.docs[job.index];
    let term = plan.council.term(f.year);
    let subject = plan.subject(job.index);
    let wethouder = term.alderman_for(TOPICS[f.topic].portfolio);
    let ctx = job.ctx("", wethouder, "");
    let when = date(f.year, f.month, f.day);

    let mut w = Writer::new(
        f.format,
        &format!("Raadsbesluit: {subject}"),
        f.words * 8 + 2_048,
    );
    let mut fields = vec![
        ("Nummer", f.dossier()),
        ("Datum", when.clone()),
        ("Onderwerp", ctx.topic.key.to_string()),
    ];
    if let Some(p) = f.proposal {
        fields.push(("Raadsvoorstel", plan.docs[p].dossier()));
    }
    w.fields(&fields);
    w.para(&format!("De raad van de gemeente {GEMEENTE};"));
    match f.proposal {
        Some(p) => {
            let v = &plan.docs[p];
            w.para(&format!(
                "gelezen het voorstel van burgemeester en wethouders van {}, nr. {};",
                date(v.year, v.month, v.day),
                v.dossier()
            ));
        }
        None => w.para("gelezen het initiatiefvoorstel uit de raad;"),
    }
    w.para(&format!("gelet op {};", job.rng.pick(LEGAL_BASES)));

    let start = w.heading(1, "Besluit");
    w.para("besluit:");
    let mut items = vec![format!("in te stemmen met het voorstel ‘{subject}’")];
    for k in {
        let k = job.rng.range(1, 3);
        job.rng.sample(DECISIONS.len(), k)
    } {
        items.push(prose::filled(DECISIONS[k], &ctx, &mut job.rng));
    }
    let last = items.len() - 1;
    let items: Vec<String> = items
        .into_iter()
        .enumerate()
        .map(|(i, s)| if i == last { s + "." } else { s + ";" })
        .collect();
    w.list('1', &items);
    job.passage(&w, PassageKind::Decision, start);

    let all: Vec<usize> = term.seats.iter().map(|s| s.0).collect();
    let votes = votes(term, &all[..1], true, &mut job.rng);
    let (yes, no) = tally(&votes);
    w.para(&format!(
        "Aldus besloten in de openbare vergadering van {when}, met {yes} stemmen voor en {no} stemmen tegen."
    ));
    signature(job, &mut w, true);

    if w.words() < f.words {
        w.heading(1, "Toelichting");
        let n = job.rng.range(3, 5);
        let p = prose::paragraph(&ctx, &mut job.rng, &[prose::ARGUMENTS, prose::FINANCE], n);
        w.para(&p);
        if job.rng.chance(0.3) {
            w.para(&format!(
                "Met dit besluit is een bedrag gemoeid van {}.",
                euros(prose::amount(&mut job.rng))
            ));
        }
        fill_to_target(job, &mut w, &ctx, 2, false);
    }
    w.finish()
}
