//! Fast token boundaries for pre-tokenizer pieces: whole-piece vocabulary hits, a short-piece
//! merge, and a per-thread memo.
//!
//! tiktoken runs BPE on one piece at a time, so a piece's tokens are a pure function of its
//! bytes, and most pieces of natural text (` the`, ` document`, `.\n`) are a single token.
//! [`PieceTokenizer::token_ends`] answers for a piece of at most [`MAX_PIECE_LEN`] bytes:
//!
//! 1. from this thread's [`PieceCache`] when the piece was seen before;
//! 2. otherwise, for pieces of at most 15 bytes, from [`Vocab`], a global table of the
//!    vocabulary's tokens of at most 15 bytes with their ranks: a piece that *is* a token is
//!    that one token (tiktoken looks the whole piece up before merging), and any other piece is
//!    merged exactly as tiktoken's `byte_pair_merge` does — every token it can produce is no
//!    longer than the piece, so the table holds them all;
//! 3. otherwise with bpe-openai's backtracking encoder.
//!
//! Answers are exact whatever the caches hold; only speed depends on them. Memory is bounded: the
//! per-thread tables are cleared when full.

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Longest piece, in bytes, [`PieceTokenizer::token_ends`] takes (its answer is a `u64` mask).
pub(crate) const MAX_PIECE_LEN: usize = 64;

/// Longest token [`Vocab`] holds: its bytes and length pack into a `u128`.
const MAX_PACKED_LEN: usize = 15;
/// Longest piece the per-thread short table holds: 13 key bytes, the 13-bit end mask in bytes
/// 13–14 and the length in byte 15 share one `u128` slot.
const MAX_SHORT_LEN: usize = 13;
/// log2 of the short table's slots (16 bytes each: 1 MiB per vocabulary and thread).
const SHORT_BITS: u32 = 16;
/// The long-piece map is cleared when it holds this many pieces.
const MAX_LONG_ENTRIES: usize = 1 << 14;

/// Mask of the end-mask bits (bytes 13–14) inside a short-table slot.
const SHORT_ENDS_FIELD: u128 = 0xFFFF << 104;

/// The bytes of `text[start..end]` (`end - start <= MAX_PACKED_LEN`), little-endian and
/// zero-padded, with the length in the top byte. Distinct pieces get distinct keys; never 0.
#[inline(always)]
fn pack(text: &[u8], start: usize, end: usize) -> u128 {
    let len = end - start;
    debug_assert!(len > 0 && len <= MAX_PACKED_LEN);
    let bytes = if start + 16 <= text.len() {
        let word = u128::from_le_bytes(text[start..start + 16].try_into().expect("16 bytes"));
        word & ((1u128 << (8 * len)) - 1)
    } else {
        let mut buf = [0u8; 16];
        buf[..len].copy_from_slice(&text[start..end]);
        u128::from_le_bytes(buf)
    };
    bytes | (len as u128) << 120
}

/// Table index of a packed key: the top `bits` bits of a multiplicative hash.
#[inline(always)]
fn slot_of(key: u128, bits: u32) -> usize {
    let (lo, hi) = (key as u64, (key >> 64) as u64);
    let h = (lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ hi).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    (h >> (64 - bits)) as usize
}

/// A vocabulary's tokens of at most [`MAX_PACKED_LEN`] bytes and their ranks (open addressing,
/// linear probing, load below one half). Built once per process and vocabulary (≈ 6 ms and
/// 5 MiB for cl100k, ≈ 20 ms and 10 MiB for o200k).
pub(crate) struct Vocab {
    slots: Box<[u128]>,
    /// The rank (token id) of the token in the same slot.
    ranks: Box<[u32]>,
    bits: u32,
    /// The rank of every two-byte token, indexed by `b0 | b1 << 8` (`u32::MAX`: not a token), for
    /// the merge's first round of lookups (256 KiB, cache-friendly where `slots` is not).
    pairs: Box<[u32]>,
}

impl Vocab {
    fn build(bpe: &BytePairEncoding) -> Self {
        let tokens = bpe.num_tokens() as u32;
        let bits = (2 * tokens as usize).next_power_of_two().trailing_zeros();
        let mut slots = vec![0u128; 1 << bits].into_boxed_slice();
        let mut ranks = vec![u32::MAX; 1 << bits].into_boxed_slice();
        let mut pairs = vec![u32::MAX; 1 << 16].into_boxed_slice();
        let mask = slots.len() - 1;
        for id in 0..tokens {
            let bytes = bpe.token_bytes(id);
            if let &[b0, b1] = bytes {
                pairs[b0 as usize | (b1 as usize) << 8] = id;
            }
            if bytes.len() <= MAX_PACKED_LEN {
                let key = pack(bytes, 0, bytes.len());
                let mut i = slot_of(key, bits);
                while slots[i] != 0 && slots[i] != key {
                    i = (i + 1) & mask;
                }
                slots[i] = key;
                ranks[i] = id;
            }
        }
        Self {
            slots,
            ranks,
            bits,
            pairs,
        }
    }

    /// The slot holding the packed piece, if it is a token.
    #[inline(always)]
    fn find(&self, key: u128) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(key, self.bits);
        loop {
            let slot = self.slots[i];
            if slot == key {
                return Some(i);
            }
            if slot == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Token end mask of a piece of at most [`MAX_PACKED_LEN`] bytes, packed as `key`.
    #[inline]
    fn token_ends(&self, key: u128, piece: &[u8]) -> u64 {
        if self.find(key).is_some() {
            1 << (piece.len() - 1)
        } else {
            self.merge(piece)
        }
    }

    /// The rank of `buf[start..end]` if it is a token (`u32::MAX` otherwise); `buf` extends at
    /// least 16 bytes past `start`.
    #[inline(always)]
    fn rank(&self, buf: &[u8], start: usize, end: usize) -> u32 {
        self.find(pack(buf, start, end))
            .map_or(u32::MAX, |i| self.ranks[i])
    }

    /// tiktoken's byte-pair merge of a piece of at most [`MAX_PACKED_LEN`] bytes (every token it
    /// can produce is then in this table): repeatedly merge the adjacent pair whose concatenation
    /// has the lowest rank, leftmost first. Returns the token end mask.
    fn merge(&self, piece: &[u8]) -> u64 {
        let n = piece.len();
        debug_assert!(n > 0 && n <= MAX_PACKED_LEN);
        let mut buf = [0u8; 32];
        buf[..n].copy_from_slice(piece);
        // Part starts (plus the end), and the rank of merging part i with part i + 1; ranks from
        // index `parts - 1` on are always u32::MAX (no such pair).
        let mut starts: [u8; 17] = std::array::from_fn(|i| i as u8);
        let mut ranks: [u32; 16] = std::array::from_fn(|i| {
            if i + 1 < n {
                self.pairs[buf[i] as usize | (buf[i + 1] as usize) << 8]
            } else {
                u32::MAX
            }
        });
        let mut parts = n;
        loop {
            // The lowest rank, leftmost on ties.
            let mut best = 0;
            for i in 1..parts.saturating_sub(1) {
                if ranks[i] < ranks[best] {
                    best = i;
                }
            }
            if ranks[best] == u32::MAX {
                break;
            }
            // Merge parts best and best + 1; the pairs after them shift left by one.
            starts.copy_within(best + 2..=parts, best + 1);
            ranks.copy_within(best + 2..parts, best + 1);
            parts -= 1;
            let span = |i: usize| (starts[i] as usize, starts[i + 2] as usize);
            if best + 1 < parts {
                let (a, b) = span(best);
                ranks[best] = self.rank(&buf, a, b);
            } else {
                ranks[best] = u32::MAX;
            }
            if best > 0 {
                let (a, b) = span(best - 1);
                ranks[best - 1] = self.rank(&buf, a, b);
            }
        }
        let mut ends = 0u64;
        for &end in &starts[1..=parts] {
            ends |= 1 << (end - 1);
        }
        ends
    }
}

/// A fast multiply-xorshift hasher for the long-piece map (keys are whole pieces).
#[derive(Default)]
struct PieceHasher(u64);

impl Hasher for PieceHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x517C_C1B7_2722_0A95);
        }
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

/// This thread's memo of piece → token end mask for one vocabulary.
pub(crate) struct PieceCache {
    /// Pieces of at most [`MAX_SHORT_LEN`] bytes: packed key with the end mask in bytes 13–14.
    short: Box<[u128]>,
    short_entries: usize,
    /// Longer pieces (up to [`MAX_PIECE_LEN`] bytes) → end mask.
    long: HashMap<Box<[u8]>, u64, BuildHasherDefault<PieceHasher>>,
}

impl PieceCache {
    fn new() -> Self {
        Self {
            short: vec![0u128; 1 << SHORT_BITS].into_boxed_slice(),
            short_entries: 0,
            long: HashMap::default(),
        }
    }
}

/// Token boundaries of pieces for one vocabulary, with this thread's cache borrowed.
pub(crate) struct PieceTokenizer<'c> {
    bpe: &'static BytePairEncoding,
    vocab: &'static Vocab,
    cache: &'c mut PieceCache,
}

impl PieceTokenizer<'_> {
    /// Token end mask of the piece `text[start..end]` (`0 < end - start <= MAX_PIECE_LEN`, a
    /// whole pre-tokenizer piece): bit `i` is set when one of its tokens ends after byte `i + 1`
    /// of the piece.
    #[inline]
    pub(crate) fn token_ends(&mut self, text: &[u8], start: usize, end: usize) -> u64 {
        let len = end - start;
        debug_assert!(len > 0 && len <= MAX_PIECE_LEN);
        if len <= MAX_SHORT_LEN {
            self.short_piece(pack(text, start, end), &text[start..end])
        } else {
            self.long_piece(&text[start..end])
        }
    }

    #[inline]
    fn short_piece(&mut self, key: u128, piece: &[u8]) -> u64 {
        let cache = &mut *self.cache;
        let mask = cache.short.len() - 1;
        let mut i = slot_of(key, SHORT_BITS);
        loop {
            let slot = cache.short[i];
            if slot & !SHORT_ENDS_FIELD == key {
                return ((slot & SHORT_ENDS_FIELD) >> 104) as u64;
            }
            if slot == 0 {
                break;
            }
            i = (i + 1) & mask;
        }
        let ends = self.vocab.token_ends(key, piece);
        if cache.short_entries >= cache.short.len() / 2 {
            cache.short.fill(0);
            cache.short_entries = 0;
            i = slot_of(key, SHORT_BITS);
        }
        cache.short[i] = key | (ends as u128) << 104;
        cache.short_entries += 1;
        ends
    }

    #[cold]
    fn long_piece(&mut self, piece: &[u8]) -> u64 {
        if let Some(&ends) = self.cache.long.get(piece) {
            return ends;
        }
        let ends = if piece.len() <= MAX_PACKED_LEN {
            self.vocab.token_ends(pack(piece, 0, piece.len()), piece)
        } else {
            bpe_token_ends(self.bpe, piece)
        };
        if self.cache.long.len() >= MAX_LONG_ENTRIES {
            self.cache.long.clear();
        }
        self.cache.long.insert(piece.into(), ends);
        ends
    }
}

/// BPE-encodes a piece of at most 64 bytes and returns its token end mask.
fn bpe_token_ends(bpe: &BytePairEncoding, piece: &[u8]) -> u64 {
    let mut pos = 0;
    let mut ends = 0u64;
    for token in bpe.encode_via_backtracking(piece) {
        pos += bpe.token_len(token);
        ends |= 1 << (pos - 1);
    }
    ends
}

static VOCABS: [OnceLock<Vocab>; 2] = [OnceLock::new(), OnceLock::new()];

thread_local! {
    /// One cache per vocabulary, per thread.
    static CACHES: RefCell<[Option<PieceCache>; 2]> = const { RefCell::new([None, None]) };
}

/// Runs `f` with a [`PieceTokenizer`] for vocabulary `id` (0 or 1, one id per BPE vocabulary)
/// using this thread's cache.
pub(crate) fn with_piece_tokenizer<R>(
    id: usize,
    bpe: &'static BytePairEncoding,
    f: impl FnOnce(&mut PieceTokenizer<'_>) -> R,
) -> R {
    let vocab = VOCABS[id].get_or_init(|| Vocab::build(bpe));
    CACHES.with(|caches| {
        let mut caches = caches.borrow_mut();
        let cache = caches[id].get_or_insert_with(PieceCache::new);
        f(&mut PieceTokenizer { bpe, vocab, cache })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The shortcut's premise: every token short enough for the set encodes to itself alone.
    #[test]
    fn every_packed_token_encodes_to_itself() {
        for tok in [bpe_openai::cl100k_base(), bpe_openai::o200k_base()] {
            let bpe = &tok.bpe;
            for id in 0..bpe.num_tokens() as u32 {
                let bytes = bpe.token_bytes(id);
                if bytes.len() <= MAX_PACKED_LEN {
                    assert_eq!(bpe.encode_via_backtracking(bytes), [id], "{bytes:?}");
                }
            }
        }
    }

    fn vocab(id: usize) -> (&'static BytePairEncoding, &'static Vocab) {
        let tok = [bpe_openai::cl100k_base(), bpe_openai::o200k_base()][id];
        (&tok.bpe, VOCABS[id].get_or_init(|| Vocab::build(&tok.bpe)))
    }

    #[test]
    fn vocab_holds_exactly_the_short_tokens_with_their_ranks() {
        for id in 0..2 {
            let (bpe, vocab) = vocab(id);
            let mut short = 0;
            for token in 0..bpe.num_tokens() as u32 {
                let bytes = bpe.token_bytes(token);
                if bytes.len() <= MAX_PACKED_LEN {
                    short += 1;
                    assert_eq!(
                        vocab.rank(&[bytes, &[0; 16]].concat(), 0, bytes.len()),
                        token
                    );
                }
            }
            assert_eq!(vocab.slots.iter().filter(|&&s| s != 0).count(), short);
            for pair in 0..1usize << 16 {
                let buf = [[pair as u8, (pair >> 8) as u8].as_slice(), &[0; 16]].concat();
                assert_eq!(vocab.pairs[pair], vocab.rank(&buf, 0, 2), "{pair:#x}");
            }
            let text = b"hello world xqzv                ";
            assert!(vocab.find(pack(text, 5, 11)).is_some()); // " world"
            assert!(vocab.find(pack(text, 11, 16)).is_none()); // " xqzv"
        }
    }

    fn piece_strategy() -> impl Strategy<Value = Vec<u8>> {
        let atom = prop_oneof![
            3 => proptest::sample::select(&[
                "a", "e", "t", "s", "ing", "tion", " the", " ", "  ", "\n", "'", "0", "12",
                "é", "ë", "中", "😀", "-", "=", "*", "Z", "Qu", "xyl", "ij",
            ][..])
            .prop_map(|s: &str| s.as_bytes().to_vec()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        proptest::collection::vec(atom, 1..8).prop_map(|atoms| {
            let mut piece = atoms.concat();
            piece.truncate(MAX_PACKED_LEN);
            piece
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The in-crate merge (and whole-token shortcut) equals bpe-openai's encoder on any
        /// byte string it takes, valid UTF-8 or not.
        #[test]
        fn short_piece_merge_matches_bpe_openai(piece in piece_strategy()) {
            for id in 0..2 {
                let (bpe, vocab) = vocab(id);
                let ends = vocab.token_ends(pack(&piece, 0, piece.len()), &piece);
                prop_assert_eq!(ends, bpe_token_ends(bpe, &piece), "{:?}", piece);
            }
        }
    }

    #[test]
    fn short_table_is_cleared_when_half_full() {
        let (bpe, vocab) = vocab(0);
        let mut cache = PieceCache::new();
        let mut pieces = PieceTokenizer {
            bpe,
            vocab,
            cache: &mut cache,
        };
        // Distinct pieces, more than the table may hold.
        for n in 0..(1usize << SHORT_BITS) {
            let piece = format!("qz{n}x");
            let ends = pieces.token_ends(piece.as_bytes(), 0, piece.len());
            assert_eq!(ends, bpe_token_ends(bpe, piece.as_bytes()), "{piece}");
        }
        assert!(cache.short_entries <= cache.short.len() / 2);
        assert!(cache.short_entries > 0);
    }

    #[test]
    fn long_pieces_are_exact_and_memoized() {
        let (bpe, vocab) = vocab(1);
        let mut cache = PieceCache::new();
        let mut pieces = PieceTokenizer {
            bpe,
            vocab,
            cache: &mut cache,
        };
        for piece in [
            "internationalization",
            "Pneumonoultramicroscopic",
            "              ",
            "===============",
        ] {
            for _ in 0..2 {
                let ends = pieces.token_ends(piece.as_bytes(), 0, piece.len());
                assert_eq!(ends, bpe_token_ends(bpe, piece.as_bytes()), "{piece}");
            }
        }
        assert_eq!(cache.long.len(), 4);
    }
}
