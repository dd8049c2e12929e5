//! Reciprocal rank fusion: `score(d) = Σ_r weight_r / (k + rank_r(d))` over the retrievers that
//! returned `d` (ranks from 1). Ties are broken by key, so fusion is deterministic.
//!
//! [`names_identifier`] is the per-query signal hybrid search uses to weight BM25 up: a query
//! that names an identifier (`motie 2018/0077`, `COVID-19`, `ISO-9001`) wants the chunk that
//! contains it verbatim, which BM25 finds and a dense embedding does not represent.

/// Fuse ranked key lists with reciprocal rank fusion.
///
/// `lists` holds each retriever's keys, best first, with the retriever's weight; `k` is the RRF
/// constant (60 in the original paper). Returns `(key, fused score)`, best first, ties by key.
///
/// ```
/// use chunklab_index::fusion::rrf;
/// let bm25 = [7, 3, 9];
/// let dense = [3, 5];
/// let fused = rrf(&[(&bm25[..], 1.0), (&dense[..], 1.0)], 60.0);
/// assert_eq!(fused[0].0, 3); // second and first: 1/62 + 1/61
/// assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [3, 7, 5, 9]);
/// ```
pub fn rrf(lists: &[(&[u64], f32)], k: f32) -> Vec<(u64, f32)> {
    let mut scores: std::collections::HashMap<u64, f64> = std::collections::HashMap::new();
    for (keys, weight) in lists {
        for (rank, key) in keys.iter().enumerate() {
            *scores.entry(*key).or_default() += *weight as f64 / (k as f64 + rank as f64 + 1.0);
        }
    }
    let mut out: Vec<(u64, f64)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(key, s)| (key, s as f32)).collect()
}

/// Whether `query` names an identifier: a word (split at whitespace, with surrounding
/// punctuation and quotes removed) that holds an ASCII digit and also a letter or one of `/`,
/// `_`, `#` — `2018/0077`, `nr.2019/0412`, `COVID-19`, `v2`, `B-12`, `art_7`, `#4411`. Plain
/// numbers, amounts, times, decimals and year ranges (`2023`, `1.250.000`, `19.00`, `3,5`,
/// `2018-2022`) are not identifiers, and neither are ordinals (`2e`, `3de`, `21st`, `4th`).
///
/// ```
/// use chunklab_index::fusion::names_identifier;
/// assert!(names_identifier("Waartoe verzoekt de raad het college in motie 2018/0077?"));
/// assert!(names_identifier("symptoms of COVID-19"));
/// assert!(!names_identifier("Welke moties zijn tussen 2018 en 2022 aangenomen?"));
/// assert!(!names_identifier("Hoeveel kost het, 1.250.000 euro of 19.00 uur?"));
/// ```
pub fn names_identifier(query: &str) -> bool {
    query.split_whitespace().any(|word| {
        let w = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '#');
        let w = w.trim_end_matches(|c: char| !c.is_alphanumeric());
        if !w.bytes().any(|b| b.is_ascii_digit()) || is_ordinal(w) {
            return false;
        }
        w.chars()
            .any(|c| c.is_alphabetic() || matches!(c, '/' | '_' | '#'))
    })
}

/// `2e`, `3de`, `1ste`, `21st`, `2nd`, `3rd`, `4th`: digits, then an ordinal suffix.
fn is_ordinal(word: &str) -> bool {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && matches!(
            word[digits..].to_ascii_lowercase().as_str(),
            "e" | "de" | "ste" | "st" | "nd" | "rd" | "th"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_numbers() {
        for q in [
            "motie 2018/0077",
            "nr. 2019/0412;",
            "(2019/0412)",
            "COVID-19 vaccine",
            "firmware v2 update",
            "form B-12",
            "art_7",
            "issue #4411",
            "\"ISO9001\"",
            "1/2",
        ] {
            assert!(names_identifier(q), "{q}");
        }
        for q in [
            "",
            "windenergie",
            "volgens de regels van 2023",
            "tussen 2018-2022",
            "€ 1.250.000",
            "om 19.00 uur",
            "3,5 procent",
            "de 2e Kamer",
            "het 3de lid",
            "the 21st century",
            "on 4th street",
            "100%",
            "-42",
        ] {
            assert!(!names_identifier(q), "{q}");
        }
    }

    #[test]
    fn weights_and_ties() {
        // Equal ranks in two lists of equal weight tie; the smaller key wins.
        let f = rrf(&[(&[2, 1], 1.0), (&[1, 2], 1.0)], 60.0);
        assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2]);
        // A heavier retriever decides.
        let f = rrf(&[(&[2, 1], 1.0), (&[1, 2], 2.0)], 60.0);
        assert_eq!(f[0].0, 1);
        let f = rrf(&[(&[2, 1], 3.0), (&[1, 2], 1.0)], 60.0);
        assert_eq!(f[0].0, 2);
        // Weight 0 switches a retriever off.
        let f = rrf(&[(&[5], 0.0), (&[6], 1.0)], 60.0);
        assert_eq!(f[0].0, 6);
        assert!((f[0].1 - 1.0 / 61.0).abs() < 1e-7);
        assert!(rrf(&[], 60.0).is_empty());
    }
}
