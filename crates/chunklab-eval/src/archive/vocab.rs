//! Names and words of the fictional municipality of Lindeveld: its villages, neighbourhoods,
//! streets, partners and people, the parties in its council, and Dutch dates and amounts.

/// The municipality.
pub const GEMEENTE: &str = "Lindeveld";

/// First year of the archive.
pub const FIRST_YEAR: u16 = 2002;
/// Last year of the archive.
pub const LAST_YEAR: u16 = 2026;

/// Villages (kernen) of the municipality.
pub const KERNEN: &[&str] = &[
    "Lindeveld",
    "Oosterbroek",
    "Haarwijk",
    "Nieuw-Dalem",
    "Ravenhorst",
    "Sluisdijk",
    "Westermeer",
    "Eikenrode",
    "Bremmelo",
    "Achterveen",
];

/// Neighbourhoods and business parks.
pub const WIJKEN: &[&str] = &[
    "de Binnenstad",
    "Lindeveld-Noord",
    "de Vogelbuurt",
    "het Stationskwartier",
    "de Schildersbuurt",
    "Park Haarwijk",
    "de Molenwijk",
    "Oosterbroek-Zuid",
    "de Havenkom",
    "bedrijventerrein De Kamp",
    "bedrijventerrein Sluisdijk-Oost",
    "de Bloemenbuurt",
    "Ravenhorst-West",
    "de Rivierzone",
];

/// Streets.
pub const STRAATEN: &[&str] = &[
    "Dorpsstraat",
    "Kerkstraat",
    "Molenweg",
    "Stationsweg",
    "Julianalaan",
    "Beatrixstraat",
    "Burgemeester de Bruijnlaan",
    "Havenkade",
    "Schoolstraat",
    "Lindelaan",
    "Oude Rijksweg",
    "Sluisweg",
    "Industrieweg",
    "Eikenlaan",
    "Veldweg",
    "Marktplein",
];

/// Organisations the municipality works with.
pub const PARTNERS: &[&str] = &[
    "de provincie",
    "het waterschap Rijn en Veenen",
    "woningcorporatie Lindeveld Wonen",
    "woningstichting Het Baken",
    "de GGD",
    "de veiligheidsregio",
    "de omgevingsdienst",
    "Stichting Welzijn Lindeveld",
    "de regiogemeenten",
    "de ondernemersvereniging",
    "de dorpsraad",
    "het jongerenwerk",
    "de energiecoöperatie Lindeveld Energie",
    "de buurtvereniging",
    "het Rijk",
];

/// Council parties: (name, first year present, last year present, base strength).
pub const PARTIES: &[(&str, u16, u16, u32)] = &[
    ("VVD", 2002, 2026, 16),
    ("CDA", 2002, 2026, 15),
    ("PvdA", 2002, 2026, 14),
    ("GroenLinks", 2002, 2026, 10),
    ("D66", 2002, 2026, 8),
    ("SP", 2006, 2026, 7),
    ("ChristenUnie", 2002, 2026, 5),
    ("Lokaal Lindeveld", 2002, 2026, 14),
    ("Leefbaar Lindeveld", 2002, 2018, 9),
    ("Partij voor de Dieren", 2014, 2026, 4),
    ("50PLUS", 2014, 2022, 3),
    ("Volt", 2022, 2026, 3),
    ("BBB", 2026, 2026, 6),
];

/// Seats in the council.
pub const SEATS: u32 = 37;

/// First letters of first names.
pub const INITIALS: &[&str] = &[
    "A.", "B.", "C.", "D.", "E.", "F.", "G.", "H.", "I.", "J.", "K.", "L.", "M.", "N.", "P.", "R.",
    "S.", "T.", "W.", "Y.", "A.M.", "J.P.", "H.J.", "M.C.",
];

/// Surnames.
pub const SURNAMES: &[&str] = &[
    "de Vries",
    "Jansen",
    "Bakker",
    "Visser",
    "Smit",
    "Meijer",
    "de Boer",
    "Mulder",
    "de Groot",
    "Bos",
    "Vos",
    "Peters",
    "Hendriks",
    "van Leeuwen",
    "Dekker",
    "Brouwer",
    "de Wit",
    "Dijkstra",
    "Smits",
    "de Graaf",
    "van der Meer",
    "van der Linden",
    "Kok",
    "Jacobs",
    "de Haan",
    "Vermeulen",
    "van den Berg",
    "van Dijk",
    "Koster",
    "Willems",
    "Çelik",
    "El Amrani",
    "Yılmaz",
    "Hoekstra",
    "Prins",
    "Verhoeven",
    "van Beek",
    "Kuipers",
    "Postma",
    "Schouten",
];

/// Dutch month names.
pub const MONTHS: [&str; 12] = [
    "januari",
    "februari",
    "maart",
    "april",
    "mei",
    "juni",
    "juli",
    "augustus",
    "september",
    "oktober",
    "november",
    "december",
];

/// Days in each month (February: 28; the archive never dates anything on 29 February).
pub const MONTH_DAYS: [u8; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/// `14 maart 2019`.
pub fn date(year: u16, month: u8, day: u8) -> String {
    format!("{day} {} {year}", MONTHS[(month as usize - 1) % 12])
}

/// An amount in euros written the Dutch way: `€ 1.250.000`.
pub fn euros(amount: u64) -> String {
    let digits = amount.to_string();
    let mut out = String::from("€ ");
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('.');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn euros_groups_thousands() {
        assert_eq!(super::euros(950), "€ 950");
        assert_eq!(super::euros(1_250_000), "€ 1.250.000");
        assert_eq!(super::euros(12_000), "€ 12.000");
    }
}
