//! A regulation (verordening): preamble, chapters (`Hoofdstuk 1. Algemene bepalingen`) with
//! numbered articles (`Artikel 1 Begripsbepalingen`, the topic's own articles, procedure,
//! enforcement, final provisions up to `Citeertitel`), every article recorded as a passage, and
//! an explanation (toelichting) for the rest of the target length.

use super::prose::{self, Ctx};
use super::render::{fill_to_target, Job, PassageKind};
use super::topics::{ArticleSpec, TOPICS};
use super::vocab::{date, GEMEENTE, WIJKEN};
use super::writer::Writer;

/// Procedure articles every regulation has.
const PROCEDURE: &[ArticleSpec] = &[
    ArticleSpec {
        title: "Aanvraag",
        leden: &[
            "Een aanvraag wordt ingediend met een door het college vastgesteld formulier.",
            "Het college kan nadere regels stellen over de gegevens die bij de aanvraag worden verstrekt.",
        ],
        question: "Hoe wordt een aanvraag ingediend op grond van de {verordening}?",
    },
    ArticleSpec {
        title: "Beslistermijn",
        leden: &[
            "Het college beslist binnen {termijn} weken na ontvangst van de volledige aanvraag.",
            "Het college kan de beslissing eenmaal voor ten hoogste {termijn} weken verdagen.",
        ],
        question: "Binnen welke termijn beslist het college op een aanvraag volgens de {verordening}?",
    },
    ArticleSpec {
        title: "Weigeringsgronden",
        leden: &[
            "Het college weigert de aanvraag indien de aanvrager onjuiste of onvolledige gegevens heeft verstrekt.",
            "Het college kan de aanvraag weigeren indien het belang van de openbare orde of de bescherming van het milieu zich daartegen verzet.",
            "Een weigering wordt schriftelijk gemotiveerd.",
        ],
        question: "Op welke gronden kan het college een aanvraag weigeren volgens de {verordening}?",
    },
    ArticleSpec {
        title: "Intrekking en wijziging",
        leden: &[
            "Het college kan een besluit intrekken of wijzigen indien de omstandigheden na het nemen van het besluit zodanig zijn veranderd dat handhaving niet langer redelijk is.",
            "Het college kan een besluit eveneens intrekken indien het op grond van onjuiste gegevens is genomen.",
        ],
        question: "Wanneer kan het college een besluit op grond van de {verordening} intrekken?",
    },
];

/// Articles for the enforcement chapter.
const ENFORCEMENT: &[ArticleSpec] = &[
    ArticleSpec {
        title: "Toezicht",
        leden: &[
            "Met het toezicht op de naleving van deze verordening zijn belast de door het college aangewezen ambtenaren.",
            "De toezichthouders kunnen zich doen vergezellen door personen die daartoe door hen zijn aangewezen.",
        ],
        question: "Wie houdt toezicht op de naleving van de {verordening}?",
    },
    ArticleSpec {
        title: "Strafbepaling",
        leden: &[
            "Overtreding van deze verordening wordt gestraft met een geldboete van de tweede categorie.",
            "De feiten strafbaar gesteld in het eerste lid zijn overtredingen.",
        ],
        question: "Welke straf staat op overtreding van de {verordening}?",
    },
];

/// Final provisions; the last two close every regulation.
const FINAL: &[ArticleSpec] = &[
    ArticleSpec {
        title: "Hardheidsclausule",
        leden: &["Het college kan in bijzondere gevallen ten gunste van de aanvrager afwijken van deze verordening, indien toepassing tot onbillijkheden van overwegende aard leidt."],
        question: "Kan het college in bijzondere gevallen afwijken van de {verordening}?",
    },
    ArticleSpec {
        title: "Overgangsrecht",
        leden: &["Aanvragen die zijn ingediend voor de inwerkingtreding van deze verordening worden afgehandeld volgens de regels die golden op het moment van indiening."],
        question: "Wat gebeurt er volgens de {verordening} met aanvragen die voor de inwerkingtreding zijn ingediend?",
    },
    ArticleSpec {
        title: "Inwerkingtreding",
        leden: &["Deze verordening treedt in werking op 1 januari {volgend_jaar}."],
        question: "Wanneer treedt de {verordening} in werking?",
    },
    ArticleSpec {
        title: "Citeertitel",
        leden: &["Deze verordening wordt aangehaald als: {verordening}."],
        question: "Hoe wordt de {verordening} aangehaald?",
    },
];

/// Definitions most regulations share (`Begripsbepalingen` runs to dozens of terms in the
/// reference archive's regulations); each regulation takes some of them beside its topic's own
/// terms, in alphabetical order, so its topic articles start past the first few hundred words.
const GENERAL_TERMS: &[(&str, &str)] = &[
    ("aanvraag", "een verzoek van een belanghebbende om een besluit te nemen als bedoeld in artikel 1:3, derde lid, van de Algemene wet bestuursrecht"),
    ("aanvrager", "de natuurlijke persoon of rechtspersoon die een aanvraag indient of namens wie een aanvraag wordt ingediend"),
    ("Awb", "de Algemene wet bestuursrecht"),
    ("belanghebbende", "degene wiens belang rechtstreeks bij een besluit op grond van deze verordening is betrokken"),
    ("college", "het college van burgemeester en wethouders van de gemeente Lindeveld"),
    ("gemeenteblad", "het elektronische blad waarin de gemeente haar algemeen verbindende voorschriften en andere besluiten bekendmaakt"),
    ("ingezetene", "degene die volgens de basisregistratie personen woonachtig is in de gemeente"),
    ("inkomen", "het inkomen als bedoeld in artikel 32 van de Participatiewet, berekend over de twaalf maanden voorafgaand aan de aanvraag"),
    ("openbare ruimte", "de voor publiek toegankelijke ruimte, met inbegrip van wegen, pleinen, plantsoenen, parken en water, die in beheer is bij de gemeente"),
    ("perceel", "een kadastraal perceel of een deel daarvan dat als een eenheid wordt gebruikt"),
    ("raad", "de gemeenteraad van de gemeente Lindeveld"),
    ("rechtspersoon", "een rechtspersoon als bedoeld in Boek 2 van het Burgerlijk Wetboek, met inbegrip van een vereniging zonder volledige rechtsbevoegdheid"),
    ("subsidieplafond", "het bedrag dat ten hoogste beschikbaar is voor de verstrekking van subsidies of bijdragen op grond van deze verordening gedurende een bepaald tijdvak"),
    ("toezichthouder", "de ambtenaar die door het college is aangewezen als toezichthouder als bedoeld in artikel 5:11 van de Algemene wet bestuursrecht"),
    ("weg", "een weg als bedoeld in artikel 1, eerste lid, onder b, van de Wegenverkeerswet 1994, met de daarin liggende bruggen en duikers"),
    ("werkdag", "een dag die geen zaterdag, zondag of algemeen erkende feestdag is als bedoeld in de Algemene termijnenwet"),
    ("woning", "een zelfstandige woonruimte die bestemd is voor de huisvesting van één huishouden, met de daarbij behorende erven"),
    ("zakelijk gerechtigde", "degene die een zakelijk recht heeft op een perceel of een bouwwerk, anders dan de eigenaar"),
];

/// Considerations (`overwegende dat ...`) of the preamble: why the council regulates the topic.
const CONSIDERATIONS: &[&str] = &[
    "het wenselijk is regels te stellen over {onderwerp} in de gemeente",
    "de raad bij de behandeling van de begroting heeft gevraagd de regels over {onderwerp} te herzien",
    "de bestaande regels over {onderwerp} niet meer aansluiten bij de praktijk en bij de landelijke wetgeving",
    "inwoners, ondernemers en maatschappelijke organisaties over het ontwerp van deze verordening zijn geraadpleegd",
    "het college in de evaluatie van de vorige verordening heeft voorgesteld de procedures te vereenvoudigen",
    "het in het belang van de rechtszekerheid is de regels over {onderwerp} in één verordening samen te brengen",
];

/// Articles for long regulations: rules per area (templates with `{wijk}`).
const AREA_RULES: &[(&str, &[&str])] = &[
    ("Aanwijzing van gebieden", &[
        "Het college kan delen van {gebied} aanwijzen waarin dit hoofdstuk van toepassing is.",
        "Een aanwijzing wordt bekendgemaakt in het gemeenteblad en op de gemeentelijke website.",
    ]),
    ("Meldingsplicht", &[
        "Het is verboden zonder voorafgaande melding aan het college in {gebied} werkzaamheden te verrichten als bedoeld in dit hoofdstuk.",
        "De melding wordt ten minste {termijn} weken voor aanvang gedaan.",
    ]),
    ("Nadere regels", &[
        "Het college kan voor {gebied} nadere regels stellen ter uitvoering van dit hoofdstuk.",
        "Nadere regels kunnen per straat of bouwblok verschillen en worden vooraf besproken met {partner}.",
    ]),
    ("Vrijstelling", &[
        "Het college kan voor {gebied} vrijstelling verlenen van het bepaalde in dit hoofdstuk.",
        "Aan een vrijstelling kunnen voorschriften worden verbonden.",
    ]),
    ("Verslaglegging", &[
        "Het college brengt jaarlijks verslag uit aan de raad over de toepassing van dit hoofdstuk in {gebied}.",
    ]),
    ("Gegevensverstrekking", &[
        "Een aanvrager in {gebied} verstrekt het college op verzoek alle gegevens die nodig zijn voor de uitvoering van dit hoofdstuk.",
        "Het college verwerkt persoonsgegevens niet langer dan nodig is voor de uitvoering.",
    ]),
];

/// Render the regulation.
pub fn render(job: &mut Job) -> String {
    let plan = job.plan;
    let f = &plan.docs[job.index];
    let term = plan.council.term(f.year);
    let topic = &TOPICS[f.topic];
    let reg = topic.regulation.as_ref().expect("regulation topic");
    let wethouder = term.alderman_for(topic.portfolio);
    let name = f.name.as_str();
    let ctx = job.ctx("", wethouder, name);

    let mut w = Writer::new(f.format, name, f.words * 8 + 2_048);
    w.para(&format!("De raad van de gemeente {GEMEENTE};"));
    w.para(&format!(
        "gelezen het voorstel van burgemeester en wethouders van {}, nr. {};",
        date(f.year, f.month, f.day),
        f.dossier()
    ));
    let considerations: Vec<String> = {
        let k = job.rng.range(2, 4);
        job.rng
            .sample(CONSIDERATIONS.len(), k)
            .into_iter()
            .map(|c| CONSIDERATIONS[c].replace("{onderwerp}", topic.key))
            .collect()
    };
    for c in considerations {
        w.para(&format!("overwegende dat {c};"));
    }
    w.para("gelet op artikel 149 van de Gemeentewet;");
    w.para(&format!(
        "besluit vast te stellen de volgende verordening: {name}."
    ));

    let mut article = 0;
    let mut chapter = 0;
    let mut next_chapter = |w: &mut Writer, title: &str| {
        chapter += 1;
        w.heading(1, &format!("Hoofdstuk {chapter}. {title}"));
    };

    // Hoofdstuk 1: definitions and scope.
    next_chapter(&mut w, "Algemene bepalingen");
    article += 1;
    let start = w.heading(2, &format!("Artikel {article} Begripsbepalingen"));
    w.para("In deze verordening wordt verstaan onder:");
    let mut defs: Vec<(&str, &str)> = reg.terms.to_vec();
    let general = job.rng.range(8, 12);
    for g in job.rng.sample(GENERAL_TERMS.len(), general) {
        if !defs.iter().any(|d| d.0 == GENERAL_TERMS[g].0) {
            defs.push(GENERAL_TERMS[g]);
        }
    }
    defs.sort_by_key(|d| d.0.to_lowercase());
    let terms: Vec<String> = defs
        .iter()
        .enumerate()
        .map(|(i, (term, def))| {
            let end = if i + 1 == defs.len() { '.' } else { ';' };
            format!("{term}: {def}{end}")
        })
        .collect();
    w.list('a', &terms);
    job.passage(
        &w,
        PassageKind::Article {
            number: article,
            title: "Begripsbepalingen".into(),
            question: None,
        },
        start,
    );

    next_chapter(&mut w, &format!("Bijzondere bepalingen {}", topic.key));
    write_articles(job, &mut w, &ctx, &mut article, reg.articles);

    next_chapter(&mut w, "Procedure");
    write_articles(job, &mut w, &ctx, &mut article, PROCEDURE);

    // Long regulations: a chapter of rules per area, until the regulation proper has had its
    // share of the target (the rest is explanation).
    let body_target = f.words * 3 / 5;
    let mut areas = WIJKEN.iter().cycle().skip(job.rng.below(WIJKEN.len()));
    while w.words() + 250 < body_target {
        let area = areas.next().expect("cycle");
        next_chapter(&mut w, &format!("Regels voor {area}"));
        for k in {
            let k = job.rng.range(2, 4);
            job.rng.sample(AREA_RULES.len(), k)
        } {
            article += 1;
            let (title, leden) = AREA_RULES[k];
            let leden: Vec<String> = leden.iter().map(|l| l.replace("{gebied}", area)).collect();
            let leden: Vec<&str> = leden.iter().map(String::as_str).collect();
            let title = format!("{title} {area}");
            write_article(job, &mut w, &ctx, article, &title, &leden, None);
        }
    }

    next_chapter(&mut w, "Toezicht en handhaving");
    write_articles(job, &mut w, &ctx, &mut article, ENFORCEMENT);
    next_chapter(&mut w, "Slotbepalingen");
    write_articles(job, &mut w, &ctx, &mut article, FINAL);
    w.para(&format!(
        "Aldus vastgesteld in de openbare vergadering van de raad van {}.",
        date(f.year, f.month, f.day)
    ));
    w.para(&format!(
        "de griffier, {}, de voorzitter, {}",
        term.clerk, term.mayor
    ));

    if w.words() < f.words {
        w.heading(1, "Toelichting");
        w.heading(2, "Algemene toelichting");
        let n = job.rng.range(3, 5);
        let p = prose::paragraph(&ctx, &mut job.rng, &[topic.context, prose::BACKGROUND], n);
        w.para(&p);
        w.heading(2, "Artikelsgewijze toelichting");
        // Explanations that name articles again: near misses for article questions.
        let mut k = 1;
        while k <= article && w.words() < f.words {
            let n = job.rng.range(1, 3);
            let p = prose::paragraph(&ctx, &mut job.rng, &[prose::ARGUMENTS, topic.context], n);
            w.para(&format!("Artikel {k}. {p}"));
            k += 1 + job.rng.below(3);
        }
        fill_to_target(job, &mut w, &ctx, 2, false);
    }
    w.finish()
}

/// Consecutive articles from `specs`, numbered on from `article`.
fn write_articles(
    job: &mut Job,
    w: &mut Writer,
    ctx: &Ctx,
    article: &mut usize,
    specs: &[ArticleSpec],
) {
    for spec in specs {
        *article += 1;
        write_article(
            job,
            w,
            ctx,
            *article,
            spec.title,
            spec.leden,
            Some(spec.question),
        );
    }
}

/// One article: heading, then its members (numbered when more than one); recorded as a passage.
#[allow(clippy::too_many_arguments)]
fn write_article(
    job: &mut Job,
    w: &mut Writer,
    ctx: &Ctx,
    number: usize,
    title: &str,
    leden: &[&str],
    question: Option<&'static str>,
) {
    let start = w.heading(2, &format!("Artikel {number} {title}"));
    let leden: Vec<String> = leden
        .iter()
        .map(|l| prose::filled(l, ctx, &mut job.rng))
        .collect();
    if leden.len() == 1 {
        w.para(&leden[0]);
    } else {
        w.list('1', &leden);
    }
    job.passage(
        w,
        PassageKind::Article {
            number,
            title: title.to_string(),
            question,
        },
        start,
    );
}
