//! Fast token boundaries for pre-tokenizer pieces: whole-piece vocabulary hits, an in-crate
//! byte-pair merge, and a per-thread memo.
//!
//! tiktoken runs BPE on one piece at a time, so a piece's tokens are a pure function of its
//! bytes, and most pieces of natural text (` the`, ` document`, `.\n`) are a single token.
//! [`PieceTokenizer::token_ends`] answers for a piece of at most [`MAX_PIECE_LEN`] bytes:
//!
//! 1. a piece of one byte is one token (every byte is a token), and a piece of two bytes is one
//!    token or two, read from [`Vocab`]'s table of two-byte tokens;
//! 2. a longer piece comes from this thread's [`PieceCache`] when it was seen before;
//! 3. otherwise from [`Vocab`], a global table of the vocabulary's tokens of at most
//!    [`MAX_PIECE_LEN`] bytes with their ranks: a piece that *is* a token is that one token
//!    (tiktoken looks the whole piece up before merging), and any other piece of at most
//!    [`MAX_MERGE_LEN`] bytes is merged exactly as tiktoken's `byte_pair_merge` does — every
//!    token it can produce is no longer than the piece, so the table holds them all; longer
//!    pieces go to bpe-openai's backtracking encoder.
//!
//! First-seen pieces cost mostly memory latency (a cold count of 10 MB of documentation meets
//! about 80,000 of them, and a merge looks up about 8 strings), so [`Vocab`] keeps a token and
//! its rank in one cache line, turns most non-tokens away with a 128 KiB Bloom filter before
//! touching its 4 MiB table, and the merge starts both lookups of a round before waiting for
//! either.
//!
//! Answers are exact whatever the caches hold; only speed depends on them. Memory is bounded: the
//! short-piece memo is a fixed 4-way set-associative table (the oldest entry of a full set is
//! replaced), the long-piece map is cleared when full.

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Longest piece, in bytes, [`PieceTokenizer::token_ends`] takes (its answer is a `u64` mask).
pub(crate) const MAX_PIECE_LEN: usize = 64;

/// Longest piece the in-crate merge takes; longer ones go to bpe-openai's backtracking encoder,
/// whose cost grows more slowly with the length.
const MAX_MERGE_LEN: usize = 24;

/// Longest token [`Vocab`]'s packed table holds: its bytes and length pack into a `u128`.
const MAX_PACKED_LEN: usize = 15;
/// Longest piece the per-thread short table holds: 13 key bytes, the 13-bit end mask in bytes
/// 13–14 and the length in byte 15 share one `u128` entry.
const MAX_SHORT_LEN: usize = 13;
/// log2 of the short table's sets (4 entries of 16 bytes, one cache line each: 1 MiB per
/// vocabulary and thread).
const SET_BITS: u32 = 14;
/// The long-piece map is cleared when it holds this many pieces.
const MAX_LONG_ENTRIES: usize = 1 << 14;

/// Mask of the end-mask bits (bytes 13–14) inside a short-table entry.
const SHORT_ENDS_FIELD: u128 = 0xFFFF << 104;

/// The bytes of `text[start..end]` (`end - start <= MAX_PACKED_LEN`), little-endian and
/// zero-padded, with the length in the top byte. Distinct pieces get distinct keys; never 0.
#[inline(always)]
fn pack(text: &[u8], start: usize, end: usize) -> u128 {
    let len = end - start;
    debug_assert!(len > 0 && len <= MAX_PACKED_LEN);
    let bytes = if start + 16 <= text.len() {
        let word = u128::from_le_bytes(text[start..start + 16].try_into().expect("16 bytes"));
        word & LOW_BYTES[len]
    } else {
        let mut buf = [0u8; 16];
        buf[..len].copy_from_slice(&text[start..end]);
        u128::from_le_bytes(buf)
    };
    bytes | (len as u128) << 120
}

/// `LOW_BYTES[n]`: the low `n` bytes of a `u128` set.
static LOW_BYTES: [u128; 16] = {
    let mut masks = [0u128; 16];
    let mut n = 1;
    while n < 16 {
        masks[n] = (1u128 << (8 * n)) - 1;
        n += 1;
    }
    masks
};

/// A multiplicative hash of a packed key (its high bits are the well-mixed ones).
#[inline(always)]
fn hash(key: u128) -> u64 {
    let (lo, hi) = (key as u64, (key >> 64) as u64);
    (lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ hi).wrapping_mul(0xFF51_AFD7_ED55_8CCD)
}

/// Table index of a packed key: the top `bits` bits of its hash.
#[inline(always)]
fn slot_of(key: u128, bits: u32) -> usize {
    (hash(key) >> (64 - bits)) as usize
}

/// log2 of the words of [`Vocab`]'s token filter (128 KiB).
const FILTER_BITS: u32 = 14;

/// Where a key's hash sits in the token filter: a word and the two bits set in it.
#[inline(always)]
fn filter_of(h: u64) -> (usize, u64) {
    let word = (h >> 30) as usize & ((1 << FILTER_BITS) - 1);
    (word, 1 << ((h >> 18) & 63) | 1 << ((h >> 24) & 63))
}

/// Asks the CPU to load the cache line of `value` (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing into the program; the address comes
    // from a live reference.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A rank lookup under way: a packed string and its hash, or the bounds of a longer one.
#[derive(Clone, Copy)]
enum RankLookup {
    Packed(u128, u64),
    Long(usize, usize),
}

/// Three packed tokens and their ranks in one cache line (empty entries are 0, filled in order).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct VocabSet {
    keys: [u128; 3],
    ranks: [u32; 3],
}

/// A vocabulary's tokens of at most [`MAX_PIECE_LEN`] bytes and their ranks: those of at most
/// [`MAX_PACKED_LEN`] bytes packed in a table of 3-entry sets (open addressing over sets, load
/// about one half, one cache line per probe) behind a Bloom filter, the longer ones in a map.
/// Built once per process and vocabulary (4.4 MiB for cl100k, 8.4 MiB for o200k).
pub(crate) struct Vocab {
    bpe: &'static BytePairEncoding,
    sets: Box<[VocabSet]>,
    bits: u32,
    /// A one-word-per-key Bloom filter of the packed tokens (two bits of a word per token): most
    /// strings that are no token are turned away here, in a table small enough to stay in the
    /// CPU's caches, without probing `sets`.
    filter: Box<[u64]>,
    /// The rank of every two-byte token, indexed by `b0 | b1 << 8` (`u32::MAX`: not a token), for
    /// two-byte pieces and the merge's first round (256 KiB, cache-friendly where `sets` is not).
    pairs: Box<[u32]>,
    /// Tokens of `MAX_PACKED_LEN + 1..=MAX_PIECE_LEN` bytes → rank (about a thousand).
    long: HashMap<&'static [u8], u32, BuildHasherDefault<PieceHasher>>,
}

impl Vocab {
    fn build(bpe: &'static BytePairEncoding) -> Self {
        let tokens = bpe.num_tokens() as u32;
        // Sets of three at a load of about one half.
        let bits = (tokens as usize * 4 / 9)
            .next_power_of_two()
            .trailing_zeros();
        let empty = VocabSet {
            keys: [0; 3],
            ranks: [u32::MAX; 3],
        };
        let mut sets = vec![empty; 1 << bits].into_boxed_slice();
        let mut pairs = vec![u32::MAX; 1 << 16].into_boxed_slice();
        let mut filter = vec![0u64; 1 << FILTER_BITS].into_boxed_slice();
        let mut long = HashMap::default();
        let mask = sets.len() - 1;
        let mut single_bytes = 0;
        for id in 0..tokens {
            let bytes = bpe.token_bytes(id);
            match bytes.len() {
                1 => single_bytes += 1,
                2 => pairs[bytes[0] as usize | (bytes[1] as usize) << 8] = id,
                _ => {}
            }
            if bytes.len() <= MAX_PACKED_LEN {
                let key = pack(bytes, 0, bytes.len());
                let (word, bits_of_key) = filter_of(hash(key));
                filter[word] |= bits_of_key;
                let mut i = slot_of(key, bits);
                'insert: loop {
                    for w in 0..3 {
                        if sets[i].keys[w] == 0 {
                            sets[i].keys[w] = key;
                            sets[i].ranks[w] = id;
                            break 'insert;
                        }
                    }
                    i = (i + 1) & mask;
                }
            } else if bytes.len() <= MAX_PIECE_LEN {
                long.insert(bytes, id);
            }
        }
        // `PieceTokenizer::token_ends` answers one-byte pieces without looking.
        assert_eq!(single_bytes, 256, "every byte is a token");
        Self {
            bpe,
            sets,
            bits,
            filter,
            pairs,
            long,
        }
    }

    /// The rank of the packed token `key`, or `u32::MAX` when it is not a token.
    #[inline(always)]
    fn find(&self, key: u128) -> u32 {
        self.find_hashed(key, hash(key))
    }

    /// [`Self::find`] with the key's hash `h` already computed.
    #[inline(always)]
    fn find_hashed(&self, key: u128, h: u64) -> u32 {
        let (word, bits) = filter_of(h);
        if self.filter[word] & bits != bits {
            return u32::MAX;
        }
        let mask = self.sets.len() - 1;
        let mut i = (h >> (64 - self.bits)) as usize;
        loop {
            let set = &self.sets[i];
            for w in 0..3 {
                if set.keys[w] == key {
                    return set.ranks[w];
                }
            }
            if set.keys[2] == 0 {
                return u32::MAX;
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether the two bytes are one token.
    #[inline(always)]
    fn is_pair(&self, b0: u8, b1: u8) -> bool {
        self.pairs[b0 as usize | (b1 as usize) << 8] != u32::MAX
    }

    /// Token end mask of a piece of at most [`MAX_PACKED_LEN`] bytes, packed as `key`.
    #[inline]
    fn token_ends(&self, key: u128, piece: &[u8]) -> u64 {
        if self.find(key) != u32::MAX {
            1 << (piece.len() - 1)
        } else {
            self.merge(piece)
        }
    }

    /// Token end mask of a piece of at most [`MAX_PIECE_LEN`] bytes.
    fn piece_ends(&self, piece: &[u8]) -> u64 {
        let n = piece.len();
        if n <= MAX_PACKED_LEN {
            self.token_ends(pack(piece, 0, n), piece)
        } else if self.long.contains_key(piece) {
            1 << (n - 1)
        } else if n <= MAX_MERGE_LEN {
            self.merge(piece)
        } else {
            backtracking_token_ends(self.bpe, piece)
        }
    }

    /// The rank of `buf[start..end]` if it is a token (`u32::MAX` otherwise); `buf` extends at
    /// least 16 bytes past `start`.
    #[cfg(test)]
    fn rank(&self, buf: &[u8], start: usize, end: usize) -> u32 {
        self.finish_rank(self.start_rank(buf, start, end), buf)
    }

    /// Starts [`Self::rank`] of `buf[start..end]`: hashes it and starts loading what the lookup
    /// will read, so that two lookups can wait for memory together.
    #[inline(always)]
    fn start_rank(&self, buf: &[u8], start: usize, end: usize) -> RankLookup {
        if end - start <= MAX_PACKED_LEN {
            let key = pack(buf, start, end);
            let h = hash(key);
            prefetch(&self.filter[filter_of(h).0]);
            prefetch(&self.sets[(h >> (64 - self.bits)) as usize]);
            RankLookup::Packed(key, h)
        } else {
            RankLookup::Long(start, end)
        }
    }

    /// Finishes a lookup [`Self::start_rank`] started on `buf`.
    #[inline(always)]
    fn finish_rank(&self, lookup: RankLookup, buf: &[u8]) -> u32 {
        match lookup {
            RankLookup::Packed(key, h) => self.find_hashed(key, h),
            RankLookup::Long(start, end) => self.long_rank(&buf[start..end]),
        }
    }

    #[inline(never)]
    fn long_rank(&self, bytes: &[u8]) -> u32 {
        self.long.get(bytes).copied().unwrap_or(u32::MAX)
    }

    /// tiktoken's byte-pair merge of a piece of at most [`MAX_PIECE_LEN`] bytes (every token it
    /// can produce is then in this table): repeatedly merge the adjacent pair whose concatenation
    /// has the lowest rank, leftmost first. Returns the token end mask.
    ///
    /// The parts are kept as the end mask itself (bit `i`: a part ends after byte `i + 1`) and
    /// `ranks[s]`, the rank of merging the part starting at `s` with the next one (`u32::MAX` when
    /// `s` starts no part, starts the last part, or the pair is no token).
    fn merge(&self, piece: &[u8]) -> u64 {
        let n = piece.len();
        debug_assert!(n > 0 && n <= MAX_PIECE_LEN);
        let mut buf = [0u8; MAX_PIECE_LEN + 16];
        buf[..n].copy_from_slice(piece);
        let mut ranks = [u32::MAX; MAX_PIECE_LEN];
        for i in 0..n - 1 {
            ranks[i] = self.pairs[buf[i] as usize | (buf[i + 1] as usize) << 8];
        }
        let mut ends = u64::MAX >> (64 - n);
        // Only parts starting before byte n - 1 have a next part.
        let pairs = &mut ranks[..n - 1];
        loop {
            let (best, low) = lowest(pairs);
            if low == u32::MAX {
                break;
            }
            // Merge the part [best, mid) with [mid, stop).
            let mid = best + (ends >> best).trailing_zeros() as usize + 1;
            let stop = mid + (ends >> mid).trailing_zeros() as usize + 1;
            ends &= !(1 << (mid - 1));
            if mid < n - 1 {
                pairs[mid] = u32::MAX;
            }
            // The new part with the next one, and the previous part with the new one: both
            // lookups are started before either is waited for.
            let next = (stop < n).then(|| stop + (ends >> stop).trailing_zeros() as usize + 1);
            let prev = (best > 0).then(|| {
                // The previous part starts after the last part end before byte best - 1.
                let before = ends & ((1 << (best - 1)) - 1);
                64 - before.leading_zeros() as usize
            });
            let after = next.map(|next| self.start_rank(&buf, best, next));
            let before = prev.map(|prev| self.start_rank(&buf, prev, stop));
            pairs[best] = after.map_or(u32::MAX, |lookup| self.finish_rank(lookup, &buf));
            if let (Some(prev), Some(lookup)) = (prev, before) {
                pairs[prev] = self.finish_rank(lookup, &buf);
            }
        }
        ends
    }
}

/// The lowest rank and its index, leftmost on ties (`ranks` is not empty).
#[inline(always)]
fn lowest(ranks: &[u32]) -> (usize, u32) {
    if ranks.len() <= 16 {
        let mut best = 0;
        let mut low = u32::MAX;
        for (i, &rank) in ranks.iter().enumerate() {
            if rank < low {
                low = rank;
                best = i;
            }
        }
        (best, low)
    } else {
        // Long pieces: a vectorizable minimum, then its first position.
        let low = ranks.iter().copied().min().unwrap_or(u32::MAX);
        (ranks.iter().position(|&r| r == low).unwrap_or(0), low)
    }
}

/// A fast multiply-xorshift hasher for the long-piece maps (keys are whole pieces).
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

/// Four short-table entries in one cache line, newest first (empty entries are 0).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct CacheSet([u128; 4]);

/// This thread's memo of piece → token end mask for one vocabulary.
pub(crate) struct PieceCache {
    /// Pieces of 3 to [`MAX_SHORT_LEN`] bytes: packed key with the end mask in bytes 13–14,
    /// 4-way set-associative; a miss in a full set replaces its oldest entry.
    short: Box<[CacheSet]>,
    /// Longer pieces (up to [`MAX_PIECE_LEN`] bytes) → end mask.
    long: HashMap<Box<[u8]>, u64, BuildHasherDefault<PieceHasher>>,
}

impl PieceCache {
    fn new() -> Self {
        Self {
            short: vec![CacheSet([0; 4]); 1 << SET_BITS].into_boxed_slice(),
            long: HashMap::default(),
        }
    }
}

/// Token boundaries of pieces for one vocabulary, with this thread's cache borrowed.
pub(crate) struct PieceTokenizer<'c> {
    vocab: &'static Vocab,
    cache: &'c mut PieceCache,
}

impl PieceTokenizer<'_> {
    /// Token end mask of the piece `text[start..end]` (`0 < end - start <= MAX_PIECE_LEN`, a
    /// whole pre-tokenizer piece): bit `i` is set when one of its tokens ends after byte `i + 1`
    /// of the piece.
    #[inline(always)]
    pub(crate) fn token_ends(&mut self, text: &[u8], start: usize, end: usize) -> u64 {
        let len = end - start;
        debug_assert!(len > 0 && len <= MAX_PIECE_LEN);
        match len {
            1 => 1,
            2 if self.vocab.is_pair(text[start], text[start + 1]) => 0b10,
            2 => 0b11,
            ..=MAX_SHORT_LEN => self.short_piece(pack(text, start, end), &text[start..end]),
            _ => self.long_piece(&text[start..end]),
        }
    }

    #[inline(always)]
    fn short_piece(&mut self, key: u128, piece: &[u8]) -> u64 {
        let set = &mut self.cache.short[slot_of(key, SET_BITS)];
        for entry in set.0 {
            if entry & !SHORT_ENDS_FIELD == key {
                return ((entry & SHORT_ENDS_FIELD) >> 104) as u64;
            }
        }
        Self::short_miss(self.vocab, set, key, piece)
    }

    /// A first-seen short piece: tokenize it and memoize it as the newest entry of its set.
    #[inline(never)]
    fn short_miss(vocab: &Vocab, set: &mut CacheSet, key: u128, piece: &[u8]) -> u64 {
        let ends = vocab.token_ends(key, piece);
        set.0.copy_within(0..3, 1);
        set.0[0] = key | (ends as u128) << 104;
        ends
    }

    #[cold]
    fn long_piece(&mut self, piece: &[u8]) -> u64 {
        if let Some(&ends) = self.cache.long.get(piece) {
            return ends;
        }
        let ends = self.vocab.piece_ends(piece);
        if self.cache.long.len() >= MAX_LONG_ENTRIES {
            self.cache.long.clear();
        }
        self.cache.long.insert(piece.into(), ends);
        ends
    }
}

/// BPE-encodes a piece of at most 64 bytes with bpe-openai and returns its token end mask.
fn backtracking_token_ends(bpe: &BytePairEncoding, piece: &[u8]) -> u64 {
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
        f(&mut PieceTokenizer { vocab, cache })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bpe_token_ends(bpe: &BytePairEncoding, piece: &[u8]) -> u64 {
        backtracking_token_ends(bpe, piece)
    }

    /// The shortcut's premise: every token a piece can be encodes to itself alone.
    #[test]
    fn every_token_up_to_max_piece_len_encodes_to_itself() {
        for tok in [bpe_openai::cl100k_base(), bpe_openai::o200k_base()] {
            let bpe = &tok.bpe;
            for id in 0..bpe.num_tokens() as u32 {
                let bytes = bpe.token_bytes(id);
                if bytes.len() <= MAX_PIECE_LEN {
                    assert_eq!(bpe.encode_via_backtracking(bytes), [id], "{bytes:?}");
                }
            }
        }
    }

    fn vocab(id: usize) -> (&'static BytePairEncoding, &'static Vocab) {
        let tok = [bpe_openai::cl100k_base(), bpe_openai::o200k_base()][id];
        (&tok.bpe, VOCABS[id].get_or_init(|| Vocab::build(&tok.bpe)))
    }

    fn tokenizer(id: usize, cache: &mut PieceCache) -> PieceTokenizer<'_> {
        PieceTokenizer {
            vocab: vocab(id).1,
            cache,
        }
    }

    #[test]
    fn vocab_holds_exactly_the_tokens_up_to_max_piece_len_with_their_ranks() {
        for id in 0..2 {
            let (bpe, vocab) = vocab(id);
            let (mut packed, mut long) = (0, 0);
            for token in 0..bpe.num_tokens() as u32 {
                let bytes = bpe.token_bytes(token);
                if bytes.len() <= MAX_PIECE_LEN {
                    let buf = [bytes, &[0; 16]].concat();
                    assert_eq!(vocab.rank(&buf, 0, bytes.len()), token);
                    if bytes.len() <= MAX_PACKED_LEN {
                        packed += 1;
                    } else {
                        long += 1;
                    }
                }
            }
            let keys = vocab.sets.iter().flat_map(|set| set.keys);
            assert_eq!(keys.filter(|&k| k != 0).count(), packed);
            assert_eq!(vocab.long.len(), long);
            assert!(long > 100, "{long} long tokens");
            for pair in 0..1usize << 16 {
                let buf = [[pair as u8, (pair >> 8) as u8].as_slice(), &[0; 16]].concat();
                assert_eq!(vocab.pairs[pair], vocab.rank(&buf, 0, 2), "{pair:#x}");
            }
            let text = b"hello world xqzv                ";
            assert_ne!(vocab.find(pack(text, 5, 11)), u32::MAX); // " world"
            assert_eq!(vocab.find(pack(text, 11, 16)), u32::MAX); // " xqzv"
            let not_tokens = [
                &b"xqzvxqzvxqzvxqzvxqzv"[..],
                &[0xFF; 20],
                &[b'a'; MAX_PIECE_LEN],
            ];
            for bytes in not_tokens {
                let buf = [bytes, &[0; 16]].concat();
                assert_eq!(vocab.rank(&buf, 0, bytes.len()), u32::MAX, "{bytes:?}");
            }
        }
    }

    /// The filter never turns a token away (checked above through `rank`) and turns most other
    /// strings away.
    #[test]
    fn filter_turns_most_non_tokens_away() {
        for id in 0..2 {
            let (_, vocab) = vocab(id);
            let (mut tried, mut passed) = (0, 0);
            for n in 0..20_000 {
                let s = format!("zq{n}vx");
                let key = pack(s.as_bytes(), 0, s.len());
                if vocab.find(key) != u32::MAX {
                    continue;
                }
                tried += 1;
                let (word, bits) = filter_of(hash(key));
                if vocab.filter[word] & bits == bits {
                    passed += 1;
                }
            }
            assert!(tried > 19_000);
            assert!(
                passed * 5 < tried,
                "{passed} of {tried} non-tokens passed the filter"
            );
        }
    }

    /// One- and two-byte pieces are answered without the memo: all of them, valid UTF-8 or not.
    #[test]
    fn one_and_two_byte_pieces_are_exact() {
        for id in 0..2 {
            let (bpe, _) = vocab(id);
            let mut cache = PieceCache::new();
            let mut pieces = tokenizer(id, &mut cache);
            for b0 in 0..=255u8 {
                assert_eq!(pieces.token_ends(&[b0], 0, 1), bpe_token_ends(bpe, &[b0]));
                for b1 in 0..=255u8 {
                    let piece = [b0, b1];
                    let ends = pieces.token_ends(&piece, 0, 2);
                    assert_eq!(ends, bpe_token_ends(bpe, &piece), "{piece:?}");
                }
            }
            assert!(cache.short.iter().all(|set| set.0 == [0; 4]));
        }
    }

    fn piece_strategy(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
        let atom = prop_oneof![
            3 => proptest::sample::select(&[
                "a", "e", "t", "s", "ing", "tion", " the", " ", "  ", "\n", "'", "0", "12",
                "é", "ë", "中", "文", "的", "是", "😀", "-", "=", "*", "Z", "Qu", "xyl", "ij",
                "ーー", "----", "        ", "________", "////",
            ][..])
            .prop_map(|s: &str| s.as_bytes().to_vec()),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        proptest::collection::vec(atom, 1..max_len).prop_map(move |atoms| {
            let mut piece = atoms.concat();
            piece.truncate(max_len);
            piece
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The in-crate merge (and whole-token shortcut) equals bpe-openai's encoder on any
        /// byte string it takes, valid UTF-8 or not.
        #[test]
        fn short_piece_merge_matches_bpe_openai(piece in piece_strategy(MAX_PACKED_LEN)) {
            for id in 0..2 {
                let (bpe, vocab) = vocab(id);
                let ends = vocab.token_ends(pack(&piece, 0, piece.len()), &piece);
                prop_assert_eq!(ends, bpe_token_ends(bpe, &piece), "{:?}", piece);
                prop_assert_eq!(vocab.piece_ends(&piece), ends, "{:?}", piece);
            }
        }

        /// The same up to the longest piece the merge can take (long words, CJK runs, rules),
        /// and the merge itself on pieces longer than those it is given in use.
        #[test]
        fn long_piece_merge_matches_bpe_openai(piece in piece_strategy(MAX_PIECE_LEN)) {
            for id in 0..2 {
                let (bpe, vocab) = vocab(id);
                let expected = bpe_token_ends(bpe, &piece);
                prop_assert_eq!(vocab.piece_ends(&piece), expected, "{:?}", piece);
                if expected.count_ones() > 1 {
                    prop_assert_eq!(vocab.merge(&piece), expected, "{:?}", piece);
                }
            }
        }
    }

    /// Long tokens (over the packed length) as whole pieces and inside longer pieces.
    #[test]
    fn pieces_with_long_tokens_are_exact() {
        for id in 0..2 {
            let (bpe, vocab) = vocab(id);
            let mut checked = 0;
            for token in 0..bpe.num_tokens() as u32 {
                let bytes = bpe.token_bytes(token);
                if bytes.len() <= MAX_PACKED_LEN || bytes.len() > MAX_PIECE_LEN {
                    continue;
                }
                assert_eq!(vocab.piece_ends(bytes), 1 << (bytes.len() - 1), "{bytes:?}");
                for piece in [
                    [bytes, b"x"].concat(),
                    [b"xq", bytes].concat(),
                    [&bytes[1..], &bytes[..bytes.len() / 2]].concat(),
                ] {
                    let piece = &piece[..piece.len().min(MAX_PIECE_LEN)];
                    let expected = bpe_token_ends(bpe, piece);
                    assert_eq!(vocab.piece_ends(piece), expected, "{piece:?}");
                    if expected.count_ones() > 1 {
                        assert_eq!(vocab.merge(piece), expected, "{piece:?}");
                    }
                    checked += 1;
                }
            }
            assert!(checked > 300, "{checked}");
        }
    }

    #[test]
    fn full_sets_replace_their_oldest_entry() {
        let (bpe, _) = vocab(0);
        let mut cache = PieceCache::new();
        // Six distinct pieces of one set: more than it holds.
        let target = slot_of(pack(b"qz0x", 0, 4), SET_BITS);
        let same_set: Vec<String> = (0..)
            .map(|n| format!("qz{n}x"))
            .filter(|p| slot_of(pack(p.as_bytes(), 0, p.len()), SET_BITS) == target)
            .take(6)
            .collect();
        let mut pieces = tokenizer(0, &mut cache);
        for _ in 0..2 {
            for piece in &same_set {
                let ends = pieces.token_ends(piece.as_bytes(), 0, piece.len());
                assert_eq!(ends, bpe_token_ends(bpe, piece.as_bytes()), "{piece}");
            }
        }
        // Newest first: the last four pieces asked for.
        let set = cache.short[target].0;
        for (entry, piece) in set.iter().zip(same_set.iter().rev()) {
            let key = pack(piece.as_bytes(), 0, piece.len());
            assert_eq!(entry & !SHORT_ENDS_FIELD, key, "{piece}");
        }
        let occupied = cache.short.iter().flat_map(|s| s.0).filter(|&e| e != 0);
        assert_eq!(occupied.count(), 4);
    }

    #[test]
    fn many_distinct_short_pieces_stay_exact() {
        let (bpe, _) = vocab(0);
        let mut cache = PieceCache::new();
        let mut pieces = tokenizer(0, &mut cache);
        // Distinct pieces, more than the table holds, then again (hits and replaced entries).
        for _ in 0..2 {
            for n in (0..(4usize << SET_BITS) + 1000).step_by(7) {
                let piece = format!("qz{n}x");
                let ends = pieces.token_ends(piece.as_bytes(), 0, piece.len());
                assert_eq!(ends, bpe_token_ends(bpe, piece.as_bytes()), "{piece}");
            }
        }
    }

    #[test]
    fn long_pieces_are_exact_and_memoized() {
        let (bpe, _) = vocab(1);
        let mut cache = PieceCache::new();
        let mut pieces = tokenizer(1, &mut cache);
        for piece in [
            "internationalization",
            "Pneumonoultramicroscopic",
            "              ",
            "===============",
            "，或者切換到應用了修復的內",
            " ドライバを入れてくれとディストロに頼",
        ] {
            for _ in 0..2 {
                let ends = pieces.token_ends(piece.as_bytes(), 0, piece.len());
                assert_eq!(ends, bpe_token_ends(bpe, piece.as_bytes()), "{piece}");
            }
        }
        assert_eq!(cache.long.len(), 6);
    }
}
