//! The policy topics of the archive: for each, the words and sentence templates its moties,
//! letters and proposals are written from, the projects it runs and, for some, the regulation
//! (verordening) the council adopts about it. Templates use `{slots}` (see `prose.rs`).

/// One article of a regulation that is specific to a topic.
pub struct ArticleSpec {
    /// Heading after `Artikel N`.
    pub title: &'static str,
    /// The members (leden) of the article, as templates.
    pub leden: &'static [&'static str],
    /// A question this article answers; `{verordening}` is the regulation's name.
    pub question: &'static str,
}

/// A regulation about a topic.
pub struct Regulation {
    /// Base names; the year of adoption is appended (`Parkeerverordening 2012`).
    pub names: &'static [&'static str],
    /// Defined terms for `Artikel 1 Begripsbepalingen`: (term, definition).
    pub terms: &'static [(&'static str, &'static str)],
    /// Topic-specific articles, placed after the definitions.
    pub articles: &'static [ArticleSpec],
}

/// A policy topic.
pub struct Topic {
    /// The topic word, written into every motie about it (`Onderwerp: windenergie`) and used in
    /// queries.
    pub key: &'static str,
    /// The alderman's portfolio it belongs to.
    pub portfolio: &'static str,
    /// Things the topic is about (fill `{ding}`).
    pub nouns: &'static [&'static str],
    /// Subjects of moties and proposals.
    pub titles: &'static [&'static str],
    /// `constaterende dat ...` clauses.
    pub observing: &'static [&'static str],
    /// `overwegende dat ...` clauses.
    pub considering: &'static [&'static str],
    /// `verzoekt het college ...` requests.
    pub requests: &'static [&'static str],
    /// Sentences for letters, proposals and reports.
    pub context: &'static [&'static str],
    /// Project names (templates).
    pub projects: &'static [&'static str],
    /// The regulation the council adopts about this topic, if any.
    pub regulation: Option<Regulation>,
}

/// All topics. The first two are the energy topics the reference question is about.
pub const TOPICS: &[Topic] = &[
    Topic {
        key: "windenergie",
        portfolio: "Duurzaamheid en Energie",
        nouns: &["windturbines", "windmolens", "het windpark", "de windturbines langs de dijk", "grote windmolens"],
        titles: &[
            "Lokaal eigendom van windturbines",
            "Ruimte voor windenergie op {wijk}",
            "Geen windturbines binnen 800 meter van woningen",
            "Omwonenden financieel laten meeprofiteren van windenergie",
            "Onderzoek naar een windpark bij {plaats}",
            "Participatie bij nieuwe windmolens",
        ],
        observing: &[
            "de gemeente in de Regionale Energiestrategie heeft toegezegd jaarlijks {aantal} gigawattuur duurzame stroom op te wekken",
            "er in de omgeving van {plaats} zorgen leven over slagschaduw en geluid van windturbines",
            "de provincie zoekgebieden voor windenergie heeft aangewezen, waaronder {wijk}",
            "de energiecoöperatie Lindeveld Energie zich heeft gemeld als mogelijke initiatiefnemer van het windpark",
            "het netwerkbedrijf heeft laten weten dat de netcapaciteit rond {plaats} beperkt is",
        ],
        considering: &[
            "windenergie een belangrijke bijdrage levert aan de doelstelling om in 2040 energieneutraal te zijn",
            "draagvlak onder omwonenden een voorwaarde is voor het slagen van windprojecten",
            "de opbrengsten van windturbines zoveel mogelijk in de lokale gemeenschap moeten blijven",
            "de landelijke norm van vijftig procent lokaal eigendom ook in Lindeveld moet gelden",
            "heldere afstandsnormen rust en duidelijkheid geven aan inwoners en initiatiefnemers",
        ],
        requests: &[
            "een gebiedsfonds in te stellen waarin per geproduceerde megawattuur een vaste bijdrage wordt gestort",
            "bij elk nieuw windproject ten minste vijftig procent lokaal eigendom na te streven",
            "voor de zomer een participatieplan voor windenergie aan de raad voor te leggen",
            "in overleg met de provincie de zoekgebieden voor windturbines te heroverwegen",
            "de raad jaarlijks te informeren over de voortgang van de windprojecten",
        ],
        context: &[
            "Het windpark bij {plaats} bestaat uit {klein} turbines met een ashoogte van ongeveer honderdtwintig meter.",
            "Omwonenden binnen een straal van één kilometer zijn uitgenodigd voor een informatieavond over de windturbines.",
            "De verwachte jaarlijkse opbrengst van de windturbines is voldoende voor ongeveer {aantal} huishoudens.",
            "Volgens het akoestisch onderzoek blijft het geluid van de windmolens op alle gevels onder de wettelijke norm.",
            "Het college heeft met de initiatiefnemer afspraken gemaakt over een omgevingsfonds van {bedrag} per jaar.",
            "De slagschaduwberekening laat zien dat bij de dichtstbijzijnde woningen een stilstandvoorziening nodig is.",
        ],
        projects: &["Windpark {plaats}", "Windpark Sluisdijk-Oost", "Windturbines bedrijventerrein De Kamp"],
        regulation: Some(Regulation {
            names: &["Verordening gebiedsfonds windenergie", "Beleidsregel windenergie"],
            terms: &[
                ("windturbine", "installatie voor het opwekken van elektriciteit uit windkracht met een ashoogte van meer dan vijftien meter"),
                ("gebiedsfonds", "fonds waaruit projecten in de omgeving van een windpark worden bekostigd"),
                ("omwonende", "natuurlijk persoon die woont binnen 1.500 meter van een windturbine"),
                ("initiatiefnemer", "degene die voornemens is een windturbine te bouwen of te exploiteren"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Afstand tot woningen",
                    leden: &[
                        "Een windturbine wordt niet geplaatst binnen {afstand} meter van een woning van derden.",
                        "Het college kan van het eerste lid afwijken indien de bewoners van de betrokken woningen schriftelijk instemmen.",
                    ],
                    question: "Welke minimale afstand tot woningen geldt voor windturbines volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Bijdrage aan het gebiedsfonds",
                    leden: &[
                        "De exploitant draagt jaarlijks per opgewekte megawattuur een bijdrage af aan het gebiedsfonds.",
                        "Het college stelt de hoogte van de bijdrage vast na overleg met de initiatiefnemer en de omwonenden.",
                    ],
                    question: "Hoe wordt de bijdrage aan het gebiedsfonds bepaald volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Lokaal eigendom",
                    leden: &[
                        "De initiatiefnemer biedt inwoners en lokale ondernemers de mogelijkheid om ten minste vijftig procent van het project in eigendom te verwerven.",
                        "De initiatiefnemer legt in een participatieplan vast op welke wijze aan het eerste lid wordt voldaan.",
                    ],
                    question: "Wat zegt de {verordening} over lokaal eigendom van windprojecten?",
                },
            ],
        }),
    },
    Topic {
        key: "zonne-energie",
        portfolio: "Duurzaamheid en Energie",
        nouns: &["zonneparken", "zonnepanelen", "zonnedaken", "het zonnepark", "zonnevelden"],
        titles: &[
            "Zonnepanelen op alle gemeentelijke daken",
            "Geen zonneparken op vruchtbare landbouwgrond",
            "Een zonneladder voor Lindeveld",
            "Zonnepark {plaats} met lokaal eigendom",
            "Zonne-energie voor huurders",
        ],
        observing: &[
            "op de daken van gemeentelijke gebouwen nog ruim {aantal} vierkante meter geschikt is voor zonnepanelen",
            "er aanvragen zijn ingediend voor zonneparken met een gezamenlijke omvang van {klein}0 hectare",
            "huurders nauwelijks profiteren van de subsidieregelingen voor zonnepanelen",
            "de netbeheerder waarschuwt voor congestie op het elektriciteitsnet rond {plaats}",
        ],
        considering: &[
            "zonne-energie op daken de voorkeur verdient boven zonneparken in het buitengebied",
            "een zonneladder duidelijkheid geeft over de volgorde waarin locaties in aanmerking komen",
            "lokaal eigendom bijdraagt aan draagvlak voor zonneparken",
            "de gemeente een voorbeeldfunctie heeft bij de verduurzaming van haar eigen vastgoed",
        ],
        requests: &[
            "alle geschikte gemeentelijke daken binnen twee jaar van zonnepanelen te voorzien",
            "een zonneladder op te stellen en deze ter vaststelling aan de raad voor te leggen",
            "met de woningcorporaties afspraken te maken over zonnepanelen op huurwoningen",
            "geen medewerking te verlenen aan zonneparken op landbouwgrond van hoge kwaliteit",
        ],
        context: &[
            "Het zonnepark bij {plaats} heeft een oppervlakte van ongeveer {klein} hectare en levert stroom voor circa {aantal} huishoudens.",
            "Op {aantal} daken van scholen en sporthallen zijn inmiddels zonnepanelen geplaatst.",
            "De zonneladder geeft aan dat eerst daken, dan restgronden en pas als laatste landbouwgrond worden benut.",
            "Inwoners konden via de energiecoöperatie certificaten kopen in het zonnepark vanaf {euro_klein}.",
            "De landschappelijke inpassing van het zonnepark bestaat uit een haag van inheemse struiken en een wandelpad.",
        ],
        projects: &["Zonnepark {plaats}", "Zonnedak sporthal {plaats}", "Zonneveld {wijk}"],
        regulation: Some(Regulation {
            names: &["Subsidieverordening zonnepanelen", "Verordening stimulering zonne-energie"],
            terms: &[
                ("zonnepaneel", "paneel dat zonlicht omzet in elektriciteit"),
                ("eigenaar-bewoner", "natuurlijk persoon die eigenaar is van de woning waarin hij woont"),
                ("zonnepark", "grondgebonden opstelling van zonnepanelen met een oppervlakte van meer dan 5.000 vierkante meter"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Hoogte van de subsidie",
                    leden: &[
                        "De subsidie bedraagt {pct} procent van de subsidiabele kosten, met een maximum van {bedrag} per woning.",
                        "Voor verenigingen van eigenaren geldt een maximum per appartementsrecht.",
                    ],
                    question: "Hoe hoog is de subsidie voor zonnepanelen volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Subsidiabele kosten",
                    leden: &[
                        "Voor subsidie komen in aanmerking de kosten van aanschaf en installatie van zonnepanelen en omvormers.",
                        "Kosten van onderhoud, verzekering en financiering komen niet voor subsidie in aanmerking.",
                    ],
                    question: "Welke kosten komen in aanmerking voor subsidie op grond van de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "warmtetransitie",
        portfolio: "Duurzaamheid en Energie",
        nouns: &["het warmtenet", "aardgasvrije wijken", "warmtepompen", "de transitievisie warmte", "isolatiemaatregelen"],
        titles: &[
            "Aardgasvrij {wijk} in stappen",
            "Een warmtenet in publieke handen",
            "Isolatie eerst",
            "Ontzorgen van inwoners bij de warmtetransitie",
        ],
        observing: &[
            "de transitievisie warmte {wijk} aanwijst als eerste wijk die van het aardgas af gaat",
            "veel woningen in {plaats} zijn gebouwd voor 1970 en slecht geïsoleerd zijn",
            "de kosten van een warmtepomp voor veel huishoudens niet op te brengen zijn",
        ],
        considering: &[
            "de warmtetransitie betaalbaar moet blijven voor alle inwoners",
            "isoleren de goedkoopste manier is om energie te besparen",
            "een warmtenet een natuurlijk monopolie is dat publieke sturing vraagt",
        ],
        requests: &[
            "een isolatieoffensief te starten voor woningen met een laag energielabel",
            "te onderzoeken hoe de gemeente zeggenschap kan houden over het toekomstige warmtenet",
            "inwoners van {wijk} tijdig en persoonlijk te informeren over het wijkuitvoeringsplan",
        ],
        context: &[
            "In {wijk} is een wijkuitvoeringsplan opgesteld waarin het warmtenet als voorkeursalternatief is gekozen.",
            "Het energieloket gaf vorig jaar {aantal} adviezen over isolatie en warmtepompen.",
            "De duurzaamheidslening maakt het mogelijk om maatregelen tegen een lage rente te financieren.",
            "Voor het warmtenet wordt restwarmte van de industrie op {wijk} gebruikt.",
        ],
        projects: &["Warmtenet {wijk}", "Isolatieaanpak {plaats}"],
        regulation: Some(Regulation {
            names: &["Verordening duurzaamheidslening", "Verordening stimuleringslening energiebesparing"],
            terms: &[
                ("duurzaamheidslening", "lening voor het treffen van energiebesparende maatregelen aan een bestaande woning"),
                ("energiebesparende maatregel", "maatregel die het energieverbruik van een woning blijvend verlaagt"),
            ],
            articles: &[ArticleSpec {
                title: "Voorwaarden van de lening",
                leden: &[
                    "De lening bedraagt ten minste € 2.500 en ten hoogste {bedrag}.",
                    "De looptijd van de lening is ten hoogste vijftien jaar.",
                ],
                question: "Wat zijn de voorwaarden van de lening volgens de {verordening}?",
            }],
        }),
    },
    Topic {
        key: "parkeren",
        portfolio: "Verkeer en Vervoer",
        nouns: &["parkeervergunningen", "parkeerplaatsen", "betaald parkeren", "de parkeerdruk", "blauwe zones"],
        titles: &[
            "Gratis parkeren op koopzondagen",
            "Uitbreiding betaald parkeren in {wijk}",
            "Een parkeergarage bij het station",
            "Bewonersvergunningen voor mantelzorgers",
            "Parkeernormen bij nieuwbouw",
        ],
        observing: &[
            "de parkeerdruk in {wijk} 's avonds boven de negentig procent ligt",
            "ondernemers in de binnenstad klagen over het teruglopen van het aantal bezoekers",
            "de parkeertarieven sinds {vorig_jaar} met {pct} procent zijn gestegen",
        ],
        considering: &[
            "een bereikbare binnenstad van belang is voor de lokale economie",
            "bewoners met een vergunning een redelijke kans op een parkeerplaats moeten hebben",
            "mantelzorgers niet moeten worden belemmerd in het verlenen van zorg",
        ],
        requests: &[
            "op koopzondagen parkeren in de binnenstad gratis te maken",
            "een parkeeronderzoek uit te voeren in {wijk} en de resultaten met de raad te delen",
            "een mantelzorgvergunning in te voeren tegen het tarief van een bewonersvergunning",
        ],
        context: &[
            "Uit de parkeertelling blijkt dat in {wijk} overdag gemiddeld {pct} procent van de plaatsen bezet is.",
            "Het tarief voor een bewonersvergunning bedraagt dit jaar {bedrag} per jaar.",
            "De parkeergarage aan de {straat} telt {aantal} plaatsen en is dagelijks geopend van zeven tot middernacht.",
            "Handhaving van het betaald parkeren gebeurt met een scanauto.",
        ],
        projects: &["Parkeergarage {straat}", "Parkeerregulering {wijk}"],
        regulation: Some(Regulation {
            names: &["Parkeerverordening", "Verordening parkeerbelastingen"],
            terms: &[
                ("parkeren", "het doen of laten staan van een voertuig anders dan gedurende de tijd nodig voor het laden of lossen van goederen of het in- of uitstappen van personen"),
                ("bewoner", "natuurlijk persoon die volgens de basisregistratie personen woonachtig is in het vergunninggebied"),
                ("vergunninggebied", "gebied waarvoor het college parkeervergunningen verleent"),
                ("belanghebbende", "bewoner of bedrijf gevestigd in het vergunninggebied"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Aanvraag bewonersvergunning",
                    leden: &[
                        "Een bewoner kan bij het college een parkeervergunning aanvragen voor ten hoogste twee voertuigen.",
                        "Bij de aanvraag wordt het kenteken vermeld van het voertuig waarvoor de vergunning wordt gevraagd.",
                    ],
                    question: "Hoe vraagt een bewoner een parkeervergunning aan volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Parkeerplaatsen voor gehandicapten",
                    leden: &[
                        "Het college kan een gehandicaptenparkeerplaats aanwijzen op kenteken van de aanvrager.",
                        "De aanwijzing vervalt zodra de houder niet langer over een gehandicaptenparkeerkaart beschikt.",
                    ],
                    question: "Wanneer wijst het college een gehandicaptenparkeerplaats aan volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Tarieven",
                    leden: &[
                        "Het tarief voor parkeren op een betaalplaats bedraagt {euro_klein} per uur.",
                        "Het tarief voor een bewonersvergunning wordt jaarlijks bij de belastingverordeningen vastgesteld.",
                    ],
                    question: "Wat kost parkeren per uur volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "woningbouw",
        portfolio: "Wonen en Ruimtelijke Ordening",
        nouns: &["sociale huurwoningen", "starterswoningen", "het woningbouwprogramma", "nieuwbouwwoningen", "tiny houses"],
        titles: &[
            "Meer betaalbare woningen in {plaats}",
            "Voorrang voor starters uit eigen gemeente",
            "Woningbouw op de locatie {straat}",
            "Dertig procent sociale huur bij elk bouwplan",
            "Ruimte voor tiny houses",
        ],
        observing: &[
            "de wachttijd voor een sociale huurwoning is opgelopen tot {klein} jaar",
            "jongeren uit {plaats} steeds vaker de gemeente verlaten omdat zij geen woning kunnen vinden",
            "het woningbouwprogramma voorziet in {aantal} woningen tot 2030",
        ],
        considering: &[
            "voldoende betaalbare woningen een basisvoorwaarde is voor leefbare kernen",
            "de gemeente via grondbeleid en prestatieafspraken invloed heeft op het woningaanbod",
            "ook kleine kernen ruimte moeten krijgen voor nieuwbouw naar behoefte",
        ],
        requests: &[
            "in alle nieuwe bouwplannen ten minste dertig procent sociale huurwoningen op te nemen",
            "een starterslening beschikbaar te stellen voor jongeren uit de gemeente",
            "te onderzoeken of de locatie aan de {straat} versneld kan worden ontwikkeld",
        ],
        context: &[
            "Op de locatie aan de {straat} in {plaats} worden {aantal} woningen gebouwd, waarvan een derde in de sociale huur.",
            "De prestatieafspraken met {partner} voorzien in de bouw van {aantal} sociale huurwoningen.",
            "De grondexploitatie van het plan sluit met een positief saldo van {bedrag}.",
            "De eerste woningen worden naar verwachting in het {kwartaal} kwartaal van {volgend_jaar} opgeleverd.",
            "Het bestemmingsplan voor de uitbreidingslocatie heeft zes weken ter inzage gelegen.",
        ],
        projects: &["Woningbouwplan {straat}", "Nieuwbouwwijk {plaats}-Zuid", "Herontwikkeling {wijk}"],
        regulation: Some(Regulation {
            names: &["Huisvestingsverordening", "Doelgroepenverordening"],
            terms: &[
                ("woonruimte", "besloten ruimte die bestemd is om door een huishouden te worden bewoond"),
                ("huishouden", "een alleenstaande of twee of meer personen die een duurzame gemeenschappelijke huishouding voeren"),
                ("urgentie", "voorrang bij de toewijzing van woonruimte op grond van een noodsituatie"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Urgentie",
                    leden: &[
                        "Het college verleent urgentie aan een woningzoekende die door een noodsituatie op korte termijn andere woonruimte nodig heeft.",
                        "Urgentie wordt niet verleend indien de woningzoekende de noodsituatie zelf had kunnen voorkomen.",
                    ],
                    question: "Wanneer krijgt een woningzoekende urgentie volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Voorrang voor lokale binding",
                    leden: &[
                        "Ten hoogste {pct} procent van de vrijkomende woonruimte kan met voorrang worden toegewezen aan woningzoekenden met lokale binding.",
                    ],
                    question: "Hoeveel woonruimte mag met voorrang naar mensen met lokale binding volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "jeugdzorg",
        portfolio: "Zorg en Welzijn",
        nouns: &["de jeugdhulp", "het jeugdteam", "jeugdhulpaanbieders", "de wachtlijsten in de jeugdzorg", "pleegzorg"],
        titles: &[
            "Wachtlijsten jeugdzorg terugdringen",
            "Een onafhankelijke cliëntondersteuner voor ouders",
            "Grip op de kosten van de jeugdzorg",
            "Jeugdhulp dichtbij in {plaats}",
        ],
        observing: &[
            "de uitgaven aan jeugdzorg in {vorig_jaar} {bedrag} hoger uitvielen dan begroot",
            "kinderen gemiddeld {klein} maanden moeten wachten op specialistische jeugdhulp",
            "het jeugdteam in {plaats} kampt met personeelstekorten",
        ],
        considering: &[
            "kinderen en ouders recht hebben op tijdige en passende hulp",
            "vroegtijdige ondersteuning dure specialistische zorg kan voorkomen",
            "de gemeente sinds de decentralisatie van 2015 verantwoordelijk is voor de jeugdhulp",
        ],
        requests: &[
            "binnen drie maanden een plan van aanpak voor de wachtlijsten in de jeugdzorg te presenteren",
            "met de regiogemeenten afspraken te maken over een betere sturing op de kosten",
            "een praktijkondersteuner jeugd bij alle huisartsenpraktijken in te zetten",
        ],
        context: &[
            "Het aantal jeugdigen met een vorm van jeugdhulp steeg vorig jaar tot {aantal}.",
            "Het jeugdteam voerde {aantal} keukentafelgesprekken met gezinnen.",
            "Samen met de regiogemeenten is een nieuwe inkoopstrategie voor specialistische jeugdhulp vastgesteld.",
            "De praktijkondersteuners jeugd verwijzen minder vaak door naar specialistische zorg.",
        ],
        projects: &["Jeugdteam {plaats}", "Inkoop jeugdhulp {jaar}"],
        regulation: Some(Regulation {
            names: &["Verordening jeugdhulp", "Verordening jeugdhulp en pleegzorg"],
            terms: &[
                ("jeugdige", "persoon die de leeftijd van achttien jaar nog niet heeft bereikt"),
                ("individuele voorziening", "op de jeugdige toegesneden jeugdhulp waarvoor een beschikking nodig is"),
                ("persoonsgebonden budget", "budget waarmee de jeugdige of zijn ouders jeugdhulp zelf inkopen"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Toegang tot jeugdhulp",
                    leden: &[
                        "Een jeugdige of zijn ouders kunnen zich voor jeugdhulp melden bij het jeugdteam.",
                        "Het college bevestigt de melding schriftelijk en nodigt de jeugdige en zijn ouders uit voor een gesprek.",
                    ],
                    question: "Hoe krijgt een gezin toegang tot jeugdhulp volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Persoonsgebonden budget",
                    leden: &[
                        "Het college verstrekt op verzoek een persoonsgebonden budget indien de jeugdige of zijn ouders in staat zijn de hulp zelf te regelen.",
                        "De hoogte van het budget is gebaseerd op het tarief van de goedkoopste passende voorziening in natura.",
                    ],
                    question: "Onder welke voorwaarden verstrekt het college een persoonsgebonden budget volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "afvalinzameling",
        portfolio: "Openbare Ruimte",
        nouns: &["het restafval", "de ondergrondse containers", "het gft-afval", "de milieustraat", "diftar"],
        titles: &[
            "Omgekeerd inzamelen in {plaats}",
            "Gratis grof afval ophalen voor ouderen",
            "Zwerfafval aanpakken",
            "Een tweede milieustraat",
            "Invoering van diftar",
        ],
        observing: &[
            "de hoeveelheid restafval per inwoner {aantal} kilo per jaar bedraagt",
            "de afvalstoffenheffing sinds de invoering van diftar met {pct} procent is gestegen",
            "bij de ondergrondse containers in {wijk} regelmatig afval wordt bijgeplaatst",
        ],
        considering: &[
            "afval scheiden aan de bron de meest duurzame en goedkoopste route is",
            "de afvalstoffenheffing kostendekkend maar betaalbaar moet blijven",
            "bijplaatsingen leiden tot overlast en een verloederd straatbeeld",
        ],
        requests: &[
            "de ledigingsfrequentie van de containers in {wijk} te verhogen",
            "ouderen en mensen met een beperking eenmaal per jaar gratis grof afval te laten ophalen",
            "de raad voor de begrotingsbehandeling een evaluatie van het afvalbeleid te sturen",
        ],
        context: &[
            "Sinds de invoering van omgekeerd inzamelen daalde de hoeveelheid restafval tot {aantal} kilo per inwoner.",
            "De milieustraat aan de {straat} is op zaterdag geopend van negen tot vier.",
            "De inzameling van gft-afval gebeurt in de zomermaanden wekelijks.",
            "Het afvalscheidingspercentage kwam vorig jaar uit op {pct} procent.",
        ],
        projects: &["Milieustraat {plaats}", "Omgekeerd inzamelen {wijk}"],
        regulation: Some(Regulation {
            names: &["Afvalstoffenverordening", "Verordening afvalstoffenheffing"],
            terms: &[
                ("huishoudelijke afvalstoffen", "afvalstoffen afkomstig uit particuliere huishoudens"),
                ("grof huishoudelijk afval", "huishoudelijke afvalstoffen die vanwege hun omvang of gewicht niet in een minicontainer passen"),
                ("inzamelmiddel", "minicontainer, ondergrondse container of ander middel dat het college voor de inzameling aanwijst"),
                ("inzameldienst", "de dienst die door het college is belast met de inzameling van huishoudelijke afvalstoffen"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Grof huishoudelijk afval",
                    leden: &[
                        "Grof huishoudelijk afval wordt op afspraak aan huis opgehaald of kan worden gebracht naar de milieustraat.",
                        "Per ophaalbeurt wordt ten hoogste twee kubieke meter grof huishoudelijk afval meegenomen.",
                    ],
                    question: "Hoe kan grof huishoudelijk afval worden aangeboden volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Aanbieden van huishoudelijke afvalstoffen",
                    leden: &[
                        "Huishoudelijke afvalstoffen worden uitsluitend met het daarvoor bestemde inzamelmiddel aangeboden.",
                        "Het is verboden afvalstoffen naast een ondergrondse container te plaatsen.",
                        "Een minicontainer wordt op de inzameldag niet eerder dan 19.00 uur op de voorafgaande dag aan de weg geplaatst.",
                    ],
                    question: "Wanneer mag een minicontainer aan de weg worden gezet volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "armoedebeleid",
        portfolio: "Werk en Inkomen",
        nouns: &["de minimaregelingen", "de bijzondere bijstand", "schuldhulpverlening", "de individuele inkomenstoeslag", "het kindpakket"],
        titles: &[
            "Een kindpakket voor alle minimagezinnen",
            "Schuldhulp zonder drempels",
            "Verhoging van de inkomensgrens minimaregelingen",
            "Energiearmoede bestrijden",
        ],
        observing: &[
            "in Lindeveld {aantal} kinderen opgroeien in een huishouden met een laag inkomen",
            "slechts {pct} procent van de rechthebbenden gebruikmaakt van de minimaregelingen",
            "het aantal aanmeldingen bij de schuldhulpverlening in {vorig_jaar} sterk is toegenomen",
        ],
        considering: &[
            "geen kind in Lindeveld mag opgroeien zonder mee te kunnen doen aan sport en cultuur",
            "vroegsignalering van schulden erger leed en hogere kosten voorkomt",
            "niet-gebruik van regelingen vaak samenhangt met schaamte en onbekendheid",
        ],
        requests: &[
            "de inkomensgrens voor de minimaregelingen te verhogen naar 130 procent van het sociaal minimum",
            "een kindpakket in te voeren met een vast bedrag per kind per jaar",
            "met woningcorporaties en energieleveranciers afspraken te maken over vroegsignalering van betalingsachterstanden",
        ],
        context: &[
            "De gemeente verstrekte vorig jaar {aantal} keer een individuele inkomenstoeslag.",
            "Via het kindpakket ontvingen {aantal} kinderen een bijdrage voor sport, cultuur of schoolspullen.",
            "De gemiddelde schuld van huishoudens in de schuldhulpverlening bedraagt {bedrag}.",
            "Vrijwilligers van de formulierenbrigade helpen inwoners bij het aanvragen van toeslagen.",
        ],
        projects: &["Kindpakket {jaar}", "Energietoeslag {jaar}", "Formulierenbrigade {plaats}"],
        regulation: Some(Regulation {
            names: &["Verordening individuele inkomenstoeslag", "Verordening maatschappelijke participatie"],
            terms: &[
                ("langdurig laag inkomen", "een inkomen dat gedurende ten minste drie jaar niet hoger is dan 110 procent van de bijstandsnorm"),
                ("referteperiode", "de periode van drie jaar voorafgaand aan de datum van de aanvraag"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Hoogte van de toeslag",
                    leden: &[
                        "De individuele inkomenstoeslag bedraagt voor een alleenstaande {bedrag} per jaar.",
                        "Voor een alleenstaande ouder en voor gehuwden wordt de toeslag verhoogd.",
                    ],
                    question: "Hoe hoog is de individuele inkomenstoeslag volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Uitzicht op inkomensverbetering",
                    leden: &[
                        "Bij de beoordeling of uitzicht op inkomensverbetering bestaat, betrekt het college de krachten en bekwaamheden van de aanvrager.",
                    ],
                    question: "Waar let het college op bij uitzicht op inkomensverbetering volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "fietspaden",
        portfolio: "Verkeer en Vervoer",
        nouns: &["het fietspad", "de snelfietsroute", "fietsenstallingen", "vrijliggende fietspaden", "de fietsstraat"],
        titles: &[
            "Een veilig fietspad langs de {straat}",
            "Snelfietsroute {plaats}–{plaats2}",
            "Meer fietsenstallingen bij het station",
            "Verlichting op fietspaden in het buitengebied",
        ],
        observing: &[
            "op de {straat} in {vorig_jaar} {klein} ongevallen met fietsers plaatsvonden",
            "scholieren uit {plaats} dagelijks over een onverlichte polderweg fietsen",
            "de fietsenstalling bij het station structureel overvol is",
        ],
        considering: &[
            "de fiets een gezonde en duurzame vorm van vervoer is",
            "veilige fietsroutes naar scholen een hoge prioriteit verdienen",
            "de provincie subsidie verstrekt voor snelfietsroutes",
        ],
        requests: &[
            "een vrijliggend fietspad langs de {straat} in het meerjarenprogramma op te nemen",
            "subsidie aan te vragen bij de provincie voor de snelfietsroute",
            "de fietsenstalling bij het station met ten minste {aantal} plaatsen uit te breiden",
        ],
        context: &[
            "Het nieuwe fietspad tussen {plaats} en {plaats2} is {klein} kilometer lang en krijgt een rode asfaltverharding.",
            "De provincie draagt {bedrag} bij aan de aanleg van de snelfietsroute.",
            "Uit tellingen blijkt dat er dagelijks ruim {aantal} fietsers over de route rijden.",
            "Bij het ontwerp van de fietsstraat is rekening gehouden met de bereikbaarheid van de winkels.",
        ],
        projects: &["Fietspad {straat}", "Snelfietsroute {plaats}", "Fietsenstalling Stationsplein"],
        regulation: None,
    },
    Topic {
        key: "openbaar groen",
        portfolio: "Openbare Ruimte",
        nouns: &["bomen", "het openbaar groen", "de groenstroken", "bloemrijke bermen", "de bomenkap"],
        titles: &[
            "Geen kap van gezonde bomen",
            "Meer bloemrijke bermen",
            "Een groenfonds voor {plaats}",
            "Herplantplicht voor gekapte bomen",
        ],
        observing: &[
            "in {vorig_jaar} {aantal} bomen in de openbare ruimte zijn gekapt",
            "inwoners van {wijk} bezwaar maken tegen het kappen van de lindes aan de {straat}",
            "het onderhoudsniveau van het openbaar groen in {plaats} is gedaald",
        ],
        considering: &[
            "bomen bijdragen aan verkoeling, biodiversiteit en een prettige leefomgeving",
            "gekapte bomen zoveel mogelijk in de directe omgeving moeten worden herplant",
            "inwoners graag zelf bijdragen aan het onderhoud van groen in hun buurt",
        ],
        requests: &[
            "voor elke gekapte boom ten minste één nieuwe boom te planten",
            "bermen in het buitengebied ecologisch te beheren",
            "buurtbewoners de mogelijkheid te geven groenstroken zelf te adopteren",
        ],
        context: &[
            "Het bomenbeleidsplan wijst {aantal} monumentale bomen aan die extra bescherming krijgen.",
            "In het najaar worden in {wijk} {aantal} nieuwe bomen geplant.",
            "De bermen worden voortaan twee keer per jaar gemaaid en het maaisel wordt afgevoerd.",
            "Inwoners adopteerden vorig jaar {klein}0 groenvakken in hun buurt.",
        ],
        projects: &["Bomenplan {wijk}", "Vergroening {straat}"],
        regulation: Some(Regulation {
            names: &["Bomenverordening", "Verordening bescherming houtopstanden"],
            terms: &[
                ("houtopstand", "één of meer bomen, hakhout of een grienden"),
                ("vellen", "kappen, rooien of verplanten, alsmede het verrichten van handelingen die de dood of ernstige beschadiging van een houtopstand tot gevolg kunnen hebben"),
                ("monumentale boom", "boom die is opgenomen op de lijst van monumentale bomen"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Verbod tot vellen",
                    leden: &[
                        "Het is verboden zonder omgevingsvergunning van het college een houtopstand te vellen of te doen vellen.",
                        "Het verbod geldt niet voor bomen met een stamdiameter van minder dan twintig centimeter op 1,30 meter hoogte.",
                    ],
                    question: "Voor welke bomen is een vergunning nodig om te kappen volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Herplantplicht",
                    leden: &[
                        "Het college kan aan de vergunning de voorwaarde verbinden dat binnen een bepaalde termijn een nieuwe houtopstand wordt geplant.",
                        "Indien herplant niet mogelijk is, kan het college een financiële compensatie in het groenfonds verlangen.",
                    ],
                    question: "Wat zegt de {verordening} over herplanten na het kappen van een boom?",
                },
            ],
        }),
    },
    Topic {
        key: "sportaccommodaties",
        portfolio: "Sport en Cultuur",
        nouns: &["de sporthal", "het zwembad", "kunstgrasvelden", "de sportparken", "de gymzalen"],
        titles: &[
            "Behoud van het zwembad in {plaats}",
            "Een nieuwe sporthal voor {plaats}",
            "Geen rubberkorrels op kunstgrasvelden",
            "Betaalbare huur voor sportverenigingen",
        ],
        observing: &[
            "het zwembad in {plaats} ruim veertig jaar oud is en grote onderhoudsachterstanden heeft",
            "sportverenigingen in {plaats} wachtlijsten hebben voor jeugdleden",
            "de huurtarieven voor sportaccommodaties sinds {vorig_jaar} met {pct} procent zijn verhoogd",
        ],
        considering: &[
            "sport en bewegen bijdragen aan gezondheid en sociale samenhang",
            "een zwembad in de eigen kern belangrijk is voor zwemles aan kinderen",
            "verenigingen een onmisbare rol spelen in het maatschappelijk leven",
        ],
        requests: &[
            "een scenario voor renovatie van het zwembad uit te werken",
            "de huurtarieven voor jeugdsport te bevriezen",
            "bij vervanging van kunstgrasvelden te kiezen voor een milieuvriendelijke infill",
        ],
        context: &[
            "De nieuwe sporthal in {plaats} krijgt drie zaaldelen en een tribune voor {aantal} toeschouwers.",
            "De renovatie van het zwembad kost naar schatting {bedrag}.",
            "Sportverenigingen in Lindeveld tellen samen ruim {aantal} leden.",
            "De combinatiefunctionarissen organiseerden {aantal} sportactiviteiten op basisscholen.",
        ],
        projects: &["Sporthal {plaats}", "Renovatie zwembad De Wissel", "Sportpark {plaats}"],
        regulation: Some(Regulation {
            names: &["Subsidieverordening sport", "Verordening sportstimulering"],
            terms: &[
                ("sportvereniging", "vereniging met volledige rechtsbevoegdheid die sportactiviteiten organiseert"),
                ("jeugdlid", "lid dat op 1 januari van het subsidiejaar jonger is dan achttien jaar"),
            ],
            articles: &[ArticleSpec {
                title: "Subsidie per jeugdlid",
                leden: &[
                    "Een sportvereniging ontvangt jaarlijks een subsidie van {euro_klein} per jeugdlid.",
                    "Het aantal jeugdleden wordt aangetoond met een ledenlijst per 1 januari van het subsidiejaar.",
                ],
                question: "Hoeveel subsidie krijgt een sportvereniging per jeugdlid volgens de {verordening}?",
            }],
        }),
    },
    Topic {
        key: "cameratoezicht",
        portfolio: "Openbare Orde en Veiligheid",
        nouns: &["cameratoezicht", "de camera's in het uitgaansgebied", "de handhavers", "boa's", "het veiligheidsbeleid"],
        titles: &[
            "Cameratoezicht in het uitgaansgebied",
            "Meer boa's op straat",
            "Tijdelijke camera's bij de Havenkade",
            "Evaluatie cameratoezicht",
        ],
        observing: &[
            "het aantal meldingen van overlast in {wijk} in {vorig_jaar} met {pct} procent is gestegen",
            "de burgemeester cameratoezicht heeft ingesteld voor een periode van twee jaar",
            "inwoners zich 's avonds onveilig voelen rond het station",
        ],
        considering: &[
            "cameratoezicht een inbreuk op de privacy betekent en dus proportioneel moet zijn",
            "zichtbare handhaving bijdraagt aan het veiligheidsgevoel",
            "de politie heeft aangegeven dat camerabeelden helpen bij de opsporing",
        ],
        requests: &[
            "het cameratoezicht na één jaar te evalueren en de raad over de resultaten te informeren",
            "de inzet van boa's in de avonduren uit te breiden",
            "samen met de politie en ondernemers een veiligheidsplan voor het uitgaansgebied op te stellen",
        ],
        context: &[
            "In het uitgaansgebied hangen {klein} camera's die worden uitgekeken in de meldkamer.",
            "Het aantal geweldsincidenten in het uitgaansgebied daalde vorig jaar tot {aantal}.",
            "De boa's schreven {aantal} processen-verbaal uit voor overlast en afval.",
        ],
        projects: &["Cameratoezicht {wijk}", "Veilig uitgaan {plaats}"],
        regulation: None,
    },
    Topic {
        key: "evenementen",
        portfolio: "Economie en Evenementen",
        nouns: &["evenementenvergunningen", "de kermis", "het zomerfestival", "de evenementenkalender", "geluidsoverlast"],
        titles: &[
            "Ruimte voor het zomerfestival op het Marktplein",
            "Minder regels voor kleine evenementen",
            "Geluidsnormen bij festivals",
            "Behoud van de kermis in {plaats}",
        ],
        observing: &[
            "het zomerfestival jaarlijks ruim {aantal} bezoekers trekt",
            "organisatoren van kleine buurtfeesten worden geconfronteerd met hoge leges",
            "omwonenden van het park klachten hebben ingediend over geluidsoverlast",
        ],
        considering: &[
            "evenementen bijdragen aan de levendigheid en de lokale economie",
            "vrijwilligers niet moeten worden ontmoedigd door onnodige regels",
            "de belangen van omwonenden en bezoekers zorgvuldig moeten worden afgewogen",
        ],
        requests: &[
            "voor kleine evenementen een meldingsplicht in plaats van een vergunningplicht in te voeren",
            "de leges voor buurtfeesten af te schaffen",
            "een evenementenbeleid op te stellen met duidelijke geluidsnormen per locatie",
        ],
        context: &[
            "Voor het zomerfestival zijn {klein} podia gepland op het Marktplein en in het park.",
            "De gemeente verleende vorig jaar {aantal} evenementenvergunningen.",
            "De muziek moet op zaterdag uiterlijk om 23.00 uur stoppen.",
        ],
        projects: &["Zomerfestival {plaats}", "Kermis {plaats}"],
        regulation: Some(Regulation {
            names: &["Evenementenverordening", "Verordening evenementen en markten"],
            terms: &[
                ("evenement", "elke voor publiek toegankelijke verrichting van vermaak"),
                ("klein evenement", "evenement met ten hoogste 250 aanwezigen dat tussen 9.00 en 23.00 uur plaatsvindt"),
            ],
            articles: &[
                ArticleSpec {
                    title: "Melding klein evenement",
                    leden: &[
                        "Voor een klein evenement volstaat een melding aan de burgemeester ten minste tien werkdagen voor aanvang.",
                        "De burgemeester kan binnen vijf werkdagen na de melding besluiten het evenement te verbieden.",
                    ],
                    question: "Wanneer moet een klein evenement worden gemeld volgens de {verordening}?",
                },
                ArticleSpec {
                    title: "Geluidsnormen",
                    leden: &[
                        "Het geluidsniveau mag op de gevel van de dichtstbijzijnde woning niet meer bedragen dan {klein}5 dB(A).",
                        "Muziek wordt uiterlijk om 23.00 uur beëindigd.",
                    ],
                    question: "Welke geluidsnorm geldt bij evenementen volgens de {verordening}?",
                },
            ],
        }),
    },
    Topic {
        key: "klimaatadaptatie",
        portfolio: "Openbare Ruimte",
        nouns: &["wateroverlast", "hittestress", "de riolering", "regenwaterberging", "groene schoolpleinen"],
        titles: &[
            "Geveltuinen tegen hittestress",
            "Afkoppelen van regenwater in {wijk}",
            "Een klimaatadaptatieplan voor Lindeveld",
            "Subsidie voor groene daken",
        ],
        observing: &[
            "bij de hoosbui van {datum} in {wijk} tientallen kelders onder water liepen",
            "de stresstest laat zien dat {wijk} kwetsbaar is voor hittestress",
            "het rioolstelsel in {plaats} niet berekend is op extreme neerslag",
        ],
        considering: &[
            "extreme weersomstandigheden door klimaatverandering vaker voorkomen",
            "regenwater zoveel mogelijk moet worden vastgehouden waar het valt",
            "inwoners met geveltuinen en groene daken zelf kunnen bijdragen",
        ],
        requests: &[
            "een subsidieregeling voor groene daken en regentonnen in te stellen",
            "bij herinrichting van straten standaard regenwater af te koppelen",
            "samen met het waterschap een plan voor {wijk} op te stellen",
        ],
        context: &[
            "In {wijk} wordt bij de rioolvervanging het regenwater afgekoppeld en naar een wadi geleid.",
            "Inwoners legden vorig jaar {aantal} vierkante meter groen dak aan met subsidie van de gemeente.",
            "Het waterschap en de gemeente trekken samen {bedrag} uit voor extra waterberging.",
        ],
        projects: &["Wadi {wijk}", "Rioolvervanging {straat}"],
        regulation: Some(Regulation {
            names: &["Verordening afvoer hemelwater en grondwater", "Subsidieverordening groene daken"],
            terms: &[
                ("hemelwater", "neerslag die op daken en verhardingen valt"),
                ("afkoppelen", "het niet langer lozen van hemelwater op het gemengde riool"),
            ],
            articles: &[ArticleSpec {
                title: "Verplichting tot afkoppelen",
                leden: &[
                    "In de aangewezen gebieden is het verboden hemelwater op het gemengde riool te lozen.",
                    "Het college wijst de gebieden aan na overleg met het waterschap.",
                ],
                question: "Wat regelt de {verordening} over het lozen van hemelwater op het riool?",
            }],
        }),
    },
    Topic {
        key: "mantelzorg",
        portfolio: "Zorg en Welzijn",
        nouns: &["mantelzorgers", "respijtzorg", "de mantelzorgwaardering", "dagbesteding", "het steunpunt mantelzorg"],
        titles: &[
            "Waardering voor mantelzorgers",
            "Respijtzorg dichtbij huis",
            "Jonge mantelzorgers in beeld",
            "Een mantelzorgwoning in de tuin",
        ],
        observing: &[
            "in Lindeveld naar schatting {aantal} inwoners mantelzorg verlenen",
            "veel mantelzorgers overbelast raken en geen gebruik maken van respijtzorg",
            "jonge mantelzorgers op school vaak niet worden herkend",
        ],
        considering: &[
            "mantelzorgers een onmisbare bijdrage leveren aan de zorg voor kwetsbare inwoners",
            "tijdige ondersteuning overbelasting kan voorkomen",
            "een mantelzorgwoning langer thuis wonen mogelijk maakt",
        ],
        requests: &[
            "de jaarlijkse mantelzorgwaardering te verhogen",
            "het aanbod van respijtzorg in alle kernen beschikbaar te maken",
            "samen met scholen jonge mantelzorgers actief op te sporen en te ondersteunen",
        ],
        context: &[
            "Het steunpunt mantelzorg ondersteunde vorig jaar {aantal} mantelzorgers.",
            "De mantelzorgwaardering bestaat uit een bon van {euro_klein} die bij lokale ondernemers kan worden besteed.",
            "Voor respijtzorg kunnen mantelzorgers terecht bij de dagbesteding in {plaats}.",
        ],
        projects: &["Mantelzorgwaardering {jaar}", "Steunpunt mantelzorg {plaats}"],
        regulation: Some(Regulation {
            names: &["Verordening maatschappelijke ondersteuning", "Verordening mantelzorgwaardering"],
            terms: &[
                ("mantelzorg", "hulp ten behoeve van zelfredzaamheid en participatie die rechtstreeks voortvloeit uit een tussen personen bestaande sociale relatie"),
                ("maatwerkvoorziening", "op de behoeften en omstandigheden van een persoon afgestemd geheel van diensten en hulpmiddelen"),
            ],
            articles: &[ArticleSpec {
                title: "Jaarlijkse blijk van waardering",
                leden: &[
                    "Het college bepaalt jaarlijks de wijze waarop aan mantelzorgers een blijk van waardering wordt gegeven.",
                    "De waardering wordt op aanvraag verstrekt door tussenkomst van het steunpunt mantelzorg.",
                ],
                question: "Hoe krijgen mantelzorgers hun jaarlijkse waardering volgens de {verordening}?",
            }],
        }),
    },
    Topic {
        key: "openbaar vervoer",
        portfolio: "Verkeer en Vervoer",
        nouns: &["de buslijnen", "de buurtbus", "het station", "de dienstregeling", "de bushaltes"],
        titles: &[
            "Behoud van buslijn 12 naar {plaats}",
            "Een buurtbus voor de kleine kernen",
            "Toegankelijke bushaltes",
            "Een tweede station voor Lindeveld",
        ],
        observing: &[
            "de vervoerder heeft aangekondigd buslijn 12 naar {plaats} in de avonduren te schrappen",
            "ouderen in de kleine kernen zonder busverbinding afhankelijk zijn van familie",
            "nog {pct} procent van de bushaltes niet toegankelijk is voor rolstoelgebruikers",
        ],
        considering: &[
            "goed openbaar vervoer essentieel is voor de bereikbaarheid van de kleine kernen",
            "de provincie als concessieverlener verantwoordelijk is voor de dienstregeling",
            "een buurtbus met vrijwilligers een betaalbaar alternatief kan zijn",
        ],
        requests: &[
            "bij de provincie aan te dringen op behoud van de avondbussen naar {plaats}",
            "een buurtbusvereniging te ondersteunen met een startsubsidie",
            "alle bushaltes voor 2025 toegankelijk te maken",
        ],
        context: &[
            "De buurtbus rijdt op werkdagen ieder uur tussen {plaats} en het station van Lindeveld.",
            "Met de provincie is afgesproken dat {aantal} bushaltes worden aangepast.",
            "Het aantal reizigers op lijn 12 bedraagt gemiddeld {aantal} per dag.",
        ],
        projects: &["Buurtbus {plaats}", "Busstation Lindeveld"],
        regulation: None,
    },
    Topic {
        key: "detailhandel",
        portfolio: "Economie en Evenementen",
        nouns: &["de leegstand", "het winkelcentrum", "de binnenstad", "de weekmarkt", "de detailhandel"],
        titles: &[
            "Leegstand in het winkelcentrum aanpakken",
            "Een centrummanager voor de binnenstad",
            "Wonen boven winkels",
            "Verplaatsing van de weekmarkt",
        ],
        observing: &[
            "in het winkelcentrum {klein}0 panden leegstaan",
            "de ondernemersvereniging pleit voor een gezamenlijke aanpak van de binnenstad",
            "de weekmarkt in {plaats} steeds minder kramen telt",
        ],
        considering: &[
            "een levendig centrum belangrijk is voor de aantrekkelijkheid van de gemeente",
            "transformatie van leegstaande winkels naar woningen kansen biedt",
            "ondernemers, vastgoedeigenaren en gemeente samen verantwoordelijk zijn",
        ],
        requests: &[
            "samen met de ondernemersvereniging een centrumplan op te stellen",
            "een subsidieregeling voor wonen boven winkels in te stellen",
            "de mogelijkheden te onderzoeken om de weekmarkt naar het Marktplein te verplaatsen",
        ],
        context: &[
            "De leegstand in het winkelcentrum daalde tot {pct} procent van het winkelvloeroppervlak.",
            "Met de regeling wonen boven winkels zijn {aantal} woningen toegevoegd aan de binnenstad.",
            "De centrummanager wordt voor de helft betaald door de ondernemers.",
        ],
        projects: &["Centrumplan {plaats}", "Herinrichting Marktplein"],
        regulation: None,
    },
    Topic {
        key: "onderwijshuisvesting",
        portfolio: "Onderwijs",
        nouns: &["de schoolgebouwen", "het integraal huisvestingsplan", "de brede school", "de gymzaal", "het binnenklimaat"],
        titles: &[
            "Nieuwbouw voor basisschool De Regenboog",
            "Gezond binnenklimaat in alle scholen",
            "Een kindcentrum in {plaats}",
            "Frisse scholen",
        ],
        observing: &[
            "de CO2-concentratie in {klein}0 procent van de lokalen boven de norm ligt",
            "basisschool De Regenboog in {plaats} kampt met ruimtegebrek",
            "het integraal huisvestingsplan uitgaat van {aantal} leerlingen in 2030",
        ],
        considering: &[
            "kinderen recht hebben op een gezonde en veilige leeromgeving",
            "nieuwbouw duurzamer kan zijn dan renovatie van verouderde gebouwen",
            "een kindcentrum onderwijs en opvang onder één dak brengt",
        ],
        requests: &[
            "de nieuwbouw van basisschool De Regenboog naar voren te halen",
            "voor alle scholen een plan voor ventilatie op te stellen",
            "de raad jaarlijks te informeren over de uitvoering van het huisvestingsplan",
        ],
        context: &[
            "Het nieuwe kindcentrum in {plaats} biedt ruimte aan {aantal} leerlingen en een kinderopvang.",
            "De kosten van de nieuwbouw worden geraamd op {bedrag}.",
            "Met de schoolbesturen is afgesproken dat de gebouwen energieneutraal worden gebouwd.",
        ],
        projects: &["Kindcentrum {plaats}", "Nieuwbouw De Regenboog"],
        regulation: None,
    },
];

/// Index of a topic by its key.
pub fn topic_index(key: &str) -> Option<usize> {
    TOPICS.iter().position(|t| t.key == key)
}
