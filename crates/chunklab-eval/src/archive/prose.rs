//! Dutch municipal prose from templates: `{slot}`s are filled from the document's context (topic,
//! year, project, alderman, regulation) or drawn fresh (a village, a street, an amount), so the
//! same template reads differently in every document.

use super::prng::Rng;
use super::topics::Topic;
use super::vocab::{self, euros};

/// What a document is about; fills the fixed slots.
pub struct Ctx<'a> {
    pub topic: &'static Topic,
    pub year: u16,
    /// The project the document is about (`{project}`).
    pub project: &'a str,
    /// The responsible alderman (`{wethouder}`).
    pub wethouder: &'a str,
    /// The regulation's name (`{verordening}`).
    pub verordening: &'a str,
}

/// Append `template` to `out` with its slots filled. Unknown slots are written as they are.
pub fn fill(out: &mut String, template: &str, ctx: &Ctx, rng: &mut Rng) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return;
        };
        slot(out, &after[..close], ctx, rng);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
}

/// `template` filled, as a new string.
pub fn filled(template: &str, ctx: &Ctx, rng: &mut Rng) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    fill(&mut out, template, ctx, rng);
    out
}

fn slot(out: &mut String, name: &str, ctx: &Ctx, rng: &mut Rng) {
    use std::fmt::Write;
    match name {
        "onderwerp" => out.push_str(ctx.topic.key),
        "ding" => out.push_str(rng.pick(ctx.topic.nouns)),
        "project" => out.push_str(ctx.project),
        "wethouder" => out.push_str(ctx.wethouder),
        "verordening" => out.push_str(ctx.verordening),
        "portefeuille" => out.push_str(ctx.topic.portfolio),
        "gemeente" => out.push_str(vocab::GEMEENTE),
        "plaats" | "plaats2" => out.push_str(rng.pick(vocab::KERNEN)),
        "wijk" => out.push_str(rng.pick(vocab::WIJKEN)),
        "straat" => out.push_str(rng.pick(vocab::STRAATEN)),
        "partner" => out.push_str(rng.pick(vocab::PARTNERS)),
        "jaar" => {
            let _ = write!(out, "{}", ctx.year);
        }
        "vorig_jaar" => {
            let _ = write!(out, "{}", ctx.year - 1);
        }
        "volgend_jaar" => {
            let _ = write!(out, "{}", ctx.year + 1);
        }
        "bedrag" => out.push_str(&euros(amount(rng))),
        "euro_klein" => out.push_str(&euros(rng.range(2, 40) as u64 * 5)),
        "aantal" => {
            let n = [
                rng.range(12, 95),
                rng.range(100, 950),
                rng.range(1_000, 9_500),
            ][rng.below(3)];
            let _ = write!(out, "{n}");
        }
        "klein" => {
            let _ = write!(out, "{}", rng.range(2, 9));
        }
        "pct" => {
            let _ = write!(out, "{}", rng.range(3, 85));
        }
        "afstand" => {
            let _ = write!(out, "{}", rng.range(4, 12) * 100);
        }
        "termijn" => {
            let _ = write!(out, "{}", [2, 4, 6, 8, 12, 13][rng.below(6)]);
        }
        "kwartaal" => out.push_str(rng.pick(&["eerste", "tweede", "derde", "vierde"])),
        "datum" => {
            let month = rng.range(1, 12) as u8;
            let day = rng.range(1, vocab::MONTH_DAYS[month as usize - 1] as usize) as u8;
            out.push_str(&vocab::date(ctx.year, month, day));
        }
        other => {
            out.push('{');
            out.push_str(other);
            out.push('}');
        }
    }
}

/// A round amount of money between a few thousand and a few million euros.
pub fn amount(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => rng.range(2, 99) as u64 * 1_000,
        1 => rng.range(10, 99) as u64 * 10_000,
        2 => rng.range(100, 950) as u64 * 5_000,
        _ => rng.range(11, 95) as u64 * 100_000,
    }
}

/// A paragraph of `n` sentences drawn from `pools` (a pool first chosen at random per sentence);
/// a template is not used twice in one paragraph unless the pools run out of fresh ones.
pub fn paragraph(ctx: &Ctx, rng: &mut Rng, pools: &[&[&str]], n: usize) -> String {
    let mut out = String::with_capacity(n * 120);
    let mut used: Vec<*const u8> = Vec::with_capacity(n);
    for i in 0..n {
        let mut tpl = "";
        for _ in 0..6 {
            let pool = pools[rng.below(pools.len())];
            tpl = rng.pick(pool);
            if !used.contains(&tpl.as_ptr()) {
                break;
            }
        }
        used.push(tpl.as_ptr());
        if i > 0 {
            out.push(' ');
        }
        fill(&mut out, tpl, ctx, rng);
    }
    out
}

/// Opening sentences of letters to the council.
pub const LETTER_OPENINGS: &[&str] = &[
    "Met deze brief informeren wij u over de stand van zaken rond {ding}.",
    "In de raadsvergadering van {datum} hebben wij toegezegd u nader te informeren over {ding}.",
    "Graag brengen wij u op de hoogte van de laatste ontwikkelingen op het gebied van {onderwerp}.",
    "Naar aanleiding van vragen uit uw raad over {ding} geven wij u met deze brief een toelichting.",
    "Wij informeren u hierbij over de voortgang van het project {project}.",
    "Met deze raadsinformatiebrief geven wij uitvoering aan de motie over {onderwerp} die uw raad eerder heeft ingediend.",
];

/// General background sentences.
pub const BACKGROUND: &[&str] = &[
    "Het college werkt hierbij nauw samen met {partner}.",
    "In het coalitieakkoord is afgesproken dat de gemeente hierin een actieve rol speelt.",
    "Sinds {vorig_jaar} is er veel veranderd in de wet- en regelgeving rond {ding}.",
    "De opgave is groot en vraagt om een lange adem van gemeente, inwoners en partners.",
    "Eerder dit jaar is in {plaats} een bijeenkomst gehouden waar ruim {aantal} inwoners op afkwamen.",
    "Uit de inwonersenquête blijkt dat {pct} procent van de inwoners {ding} belangrijk vindt.",
    "De afgelopen periode is intensief overleg gevoerd met {partner} en {partner}.",
    "De uitvoering ligt grotendeels bij de afdeling {portefeuille} van de gemeente.",
    "Ook in de regio staat {onderwerp} hoog op de agenda.",
    "Landelijk onderzoek laat zien dat gemeenten van vergelijkbare omvang tegen dezelfde vragen aanlopen.",
    "De ervaringen in {plaats} en {plaats2} worden gebruikt bij de verdere uitwerking.",
    "Wij hebben daarbij gekeken naar de aanpak in omliggende gemeenten.",
];

/// Arguments for a proposal.
pub const ARGUMENTS: &[&str] = &[
    "Het voorstel sluit aan bij het beleid dat uw raad eerder heeft vastgesteld.",
    "Met deze aanpak wordt voorkomen dat de kosten in de komende jaren verder oplopen.",
    "De maatregelen zijn in overleg met {partner} tot stand gekomen en kunnen op breed draagvlak rekenen.",
    "Inwoners van {plaats} hebben in de participatieavonden aangegeven het plan te steunen.",
    "Door nu te investeren ontstaat op de lange termijn een structurele besparing.",
    "Het plan draagt bij aan de doelen uit de omgevingsvisie.",
    "Een vergelijkbare aanpak is in {plaats2} succesvol gebleken.",
    "De uitvoering kan grotendeels worden gecombineerd met lopende werkzaamheden in {wijk}.",
    "Met dit besluit geeft de raad helderheid aan inwoners en ondernemers.",
    "De provincie heeft toegezegd een deel van de kosten te dragen.",
];

/// Caveats (kanttekeningen) and risks.
pub const RISKS: &[&str] = &[
    "Er is een risico dat de aanbesteding hogere prijzen oplevert dan geraamd.",
    "De planning is krap, omdat de vergunningprocedure nog moet worden doorlopen.",
    "Niet alle inwoners zijn positief; in {plaats} zijn zorgen geuit over de gevolgen voor de buurt.",
    "Tegen het besluit kan bezwaar en beroep worden ingesteld, wat tot vertraging kan leiden.",
    "De personele capaciteit van de organisatie is beperkt.",
    "De stijgende bouwkosten kunnen leiden tot een hogere investering.",
    "De effecten van de maatregelen worden pas na enkele jaren zichtbaar.",
    "De beschikbaarheid van de netcapaciteit is onzeker.",
];

/// Financial sentences.
pub const FINANCE: &[&str] = &[
    "De kosten bedragen {bedrag} en worden gedekt uit de reserve {portefeuille}.",
    "Voor de uitvoering is in de begroting {jaar} een bedrag van {bedrag} opgenomen.",
    "De jaarlijkse kapitaallasten van {bedrag} worden verwerkt in de eerstvolgende begrotingswijziging.",
    "Het Rijk stelt via een specifieke uitkering {bedrag} beschikbaar.",
    "Het voorstel heeft geen gevolgen voor de hoogte van de lokale lasten.",
    "De structurele exploitatielasten worden geraamd op {bedrag} per jaar.",
    "Een eventueel tekort wordt opgevangen binnen het budget van het programma {portefeuille}.",
];

/// Participation and communication.
pub const PARTICIPATION: &[&str] = &[
    "Inwoners zijn via een digitale enquête en twee inloopavonden betrokken bij de plannen.",
    "Wij informeren de omwonenden met een bewonersbrief en een bericht op de gemeentelijke website.",
    "De dorpsraad van {plaats} is vooraf geconsulteerd.",
    "Na het besluit van uw raad volgt een persbericht.",
    "Ondernemers in {wijk} worden persoonlijk benaderd door de accountmanager van de gemeente.",
    "De adviesraad sociaal domein heeft een positief advies uitgebracht.",
    "Op het participatieplatform van de gemeente konden inwoners reageren; er kwamen {aantal} reacties binnen.",
];

/// Planning and evaluation.
pub const PLANNING: &[&str] = &[
    "De uitvoering start in het {kwartaal} kwartaal van {volgend_jaar}.",
    "Wij verwachten de werkzaamheden voor de zomer van {volgend_jaar} af te ronden.",
    "Over twee jaar evalueren wij de maatregelen en informeren wij uw raad over de resultaten.",
    "De voortgang wordt gemeld in de tussentijdse rapportages.",
    "Na vaststelling wordt de aanbesteding voorbereid.",
    "De eerste resultaten verwachten wij eind {jaar}.",
];

/// Closing sentences of letters.
pub const LETTER_CLOSINGS: &[&str] = &[
    "Wij vertrouwen erop u hiermee voldoende te hebben geïnformeerd.",
    "Zodra er nieuwe ontwikkelingen zijn, informeren wij u opnieuw.",
    "Voor vragen kunt u contact opnemen met de afdeling {portefeuille}.",
    "Wij houden u op de hoogte van de verdere voortgang.",
];

/// Sentences for long reports (bijlagen): analysis and findings.
pub const ANALYSIS: &[&str] = &[
    "Uit de analyse blijkt dat de situatie in {wijk} afwijkt van het gemeentelijk gemiddelde.",
    "In de periode {vorig_jaar}–{jaar} is het aantal meldingen over {ding} met {pct} procent toegenomen.",
    "De onderzoekers constateren dat de doelen uit het vorige beleidsplan grotendeels zijn gehaald.",
    "Respondenten in {plaats} waarderen de dienstverlening van de gemeente gemiddeld met een {klein}.",
    "Een belangrijk knelpunt is de samenwerking tussen de verschillende partijen.",
    "De kosten per inwoner liggen in Lindeveld iets boven het landelijk gemiddelde.",
    "Tabel {klein} geeft een overzicht van de belangrijkste kengetallen.",
    "De resultaten moeten met enige voorzichtigheid worden geïnterpreteerd, omdat het aantal waarnemingen beperkt is.",
    "Vergeleken met {vorig_jaar} is sprake van een lichte verbetering.",
    "Ook {partner} ziet de noodzaak van een gezamenlijke aanpak van {ding}.",
    "In {plaats} en {plaats2} loopt een proef waarvan de eerste resultaten bemoedigend zijn.",
    "De aanbevelingen zijn besproken met {partner}.",
];
