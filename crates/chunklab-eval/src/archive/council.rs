//! The council of Lindeveld through the years: seats per party in each four-year term (elections
//! in 2002, 2006, ... 2026), council members, the mayor and the aldermen with their portfolios,
//! and the votes on a motion, consistent with its outcome.

use super::prng::Rng;
use super::vocab::{INITIALS, PARTIES, SEATS, SURNAMES};

/// First years of the council terms.
pub const TERMS: [u16; 7] = [2002, 2006, 2010, 2014, 2018, 2022, 2026];

/// Portfolios of the aldermen (the mayor holds public order and safety).
const PORTFOLIOS: [&str; 9] = [
    "Duurzaamheid en Energie",
    "Verkeer en Vervoer",
    "Wonen en Ruimtelijke Ordening",
    "Zorg en Welzijn",
    "Openbare Ruimte",
    "Werk en Inkomen",
    "Sport en Cultuur",
    "Economie en Evenementen",
    "Onderwijs",
];

/// One council term.
pub struct Term {
    /// (party index into `PARTIES`, seats), largest first.
    pub seats: Vec<(usize, u32)>,
    /// Members per party, parallel to `seats` (`J. de Vries`).
    pub members: Vec<Vec<String>>,
    pub mayor: String,
    /// (name, party index) of the aldermen.
    pub aldermen: Vec<(String, usize)>,
    pub clerk: String,
    pub secretary: String,
}

/// All terms.
pub struct Council {
    pub terms: Vec<Term>,
}

fn person(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(INITIALS), rng.pick(SURNAMES))
}

impl Council {
    /// The council for an archive seed.
    pub fn new(seed: u64) -> Self {
        let terms = TERMS
            .iter()
            .enumerate()
            .map(|(t, &start)| {
                let mut rng = Rng::derive(seed, 0xC0C1, t as u64);
                let present: Vec<usize> = (0..PARTIES.len())
                    .filter(|&p| PARTIES[p].1 <= start && start <= PARTIES[p].2)
                    .collect();
                let weights: Vec<f64> = present
                    .iter()
                    .map(|&p| PARTIES[p].3 as f64 * rng.lognormal(1.0, 0.35))
                    .collect();
                let seats = apportion(&weights, SEATS);
                let mut seats: Vec<(usize, u32)> = present
                    .iter()
                    .zip(seats)
                    .filter(|&(_, s)| s > 0)
                    .map(|(&p, s)| (p, s))
                    .collect();
                seats.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let members = seats
                    .iter()
                    .map(|&(_, s)| (0..s).map(|_| person(&mut rng)).collect())
                    .collect();
                // Coalition: the largest parties until a majority.
                let mut coalition = Vec::new();
                let mut total = 0;
                for &(p, s) in &seats {
                    if total > SEATS / 2 {
                        break;
                    }
                    coalition.push(p);
                    total += s;
                }
                let aldermen = (0..rng.range(4, 5))
                    .map(|i| (person(&mut rng), coalition[i % coalition.len()]))
                    .collect();
                Term {
                    seats,
                    members,
                    mayor: person(&mut rng),
                    aldermen,
                    clerk: person(&mut rng),
                    secretary: person(&mut rng),
                }
            })
            .collect();
        Council { terms }
    }

    /// The term a year falls in.
    pub fn term(&self, year: u16) -> &Term {
        let t = TERMS.iter().rposition(|&s| s <= year).unwrap_or(0);
        &self.terms[t]
    }
}

impl Term {
    /// Seats of a party in this term (0 when absent).
    pub fn seats_of(&self, party: usize) -> u32 {
        self.seats
            .iter()
            .find(|&&(p, _)| p == party)
            .map_or(0, |&(_, s)| s)
    }

    /// The alderman holding a portfolio: `J. de Vries`.
    pub fn alderman_for(&self, portfolio: &str) -> &str {
        let i = PORTFOLIOS.iter().position(|&p| p == portfolio).unwrap_or(0);
        &self.aldermen[i % self.aldermen.len()].0
    }

    /// A member of a party's group (`slot` picks which), with the party: `J. de Vries (VVD)`.
    pub fn member(&self, party: usize, slot: usize) -> String {
        let i = self
            .seats
            .iter()
            .position(|&(p, _)| p == party)
            .unwrap_or(0);
        let members = &self.members[i];
        format!("{} ({})", members[slot % members.len()], PARTIES[party].0)
    }
}

/// How one party voted on a motion.
pub struct PartyVote {
    pub party: usize,
    /// Members present.
    pub present: u32,
    pub for_: bool,
}

/// Votes of all parties on a motion submitted by `submitters`, consistent with `passed`
/// (a tie means rejected, as in the Gemeentewet).
pub fn votes(term: &Term, submitters: &[usize], passed: bool, rng: &mut Rng) -> Vec<PartyVote> {
    let unanimous = passed && rng.chance(0.15);
    let mut votes: Vec<PartyVote> = term
        .seats
        .iter()
        .map(|&(party, seats)| {
            let absent = if seats > 1 && rng.chance(0.15) { 1 } else { 0 };
            PartyVote {
                party,
                present: seats - absent,
                for_: unanimous || submitters.contains(&party) || rng.chance(0.45),
            }
        })
        .collect();
    loop {
        let (yes, no) = tally(&votes);
        let ok = if passed { yes > no } else { yes <= no };
        if ok {
            return votes;
        }
        // Flip the largest party on the wrong side that did not submit the motion.
        let flip = votes
            .iter()
            .enumerate()
            .filter(|(_, v)| v.for_ != passed && !submitters.contains(&v.party))
            .max_by_key(|(i, v)| (v.present, std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        match flip {
            Some(i) => votes[i].for_ = passed,
            // Only submitters left on the wrong side: absentees decide.
            None => {
                for v in votes.iter_mut().filter(|v| v.for_ != passed) {
                    v.present = 0;
                }
            }
        }
    }
}

/// (votes for, votes against).
pub fn tally(votes: &[PartyVote]) -> (u32, u32) {
    votes.iter().fold((0, 0), |(y, n), v| {
        if v.for_ {
            (y + v.present, n)
        } else {
            (y, n + v.present)
        }
    })
}

/// Largest-remainder apportionment of `total` seats by `weights`.
fn apportion(weights: &[f64], total: u32) -> Vec<u32> {
    let sum: f64 = weights.iter().sum();
    let quotas: Vec<f64> = weights.iter().map(|w| w / sum * total as f64).collect();
    let mut seats: Vec<u32> = quotas.iter().map(|q| q.floor() as u32).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    let mut left = total - seats.iter().sum::<u32>();
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        seats[i] += 1;
        left -= 1;
    }
    seats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_fills_the_council() {
        let council = Council::new(42);
        for term in &council.terms {
            assert_eq!(term.seats.iter().map(|s| s.1).sum::<u32>(), SEATS);
            assert!(!term.aldermen.is_empty());
        }
    }

    #[test]
    fn votes_match_the_outcome() {
        let council = Council::new(1);
        let mut rng = Rng::derive(1, 2, 3);
        for i in 0..200 {
            let term = &council.terms[i % council.terms.len()];
            let submitter = term.seats[i % term.seats.len()].0;
            let passed = i % 2 == 0;
            let (yes, no) = tally(&votes(term, &[submitter], passed, &mut rng));
            assert_eq!(yes > no, passed, "{yes} for, {no} against");
        }
    }
}
