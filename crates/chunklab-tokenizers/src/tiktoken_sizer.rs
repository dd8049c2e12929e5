//! [`Tiktoken`] as a [`Sizer`]: counting and measuring piece by piece, and windows counted by
//! [`TokenCursor`] (`token_cursor.rs`). Apart from `tiktoken.rs`, so that the cursor, which
//! holds a `Tiktoken`, and the tokenizer do not import each other.

use crate::tiktoken::{tokens_in, PieceTokens, Tiktoken};
use crate::token_cursor::TokenCursor;
use chunklab_core::{Measure, Sizer, UnitCursor};

impl Sizer for Tiktoken {
    fn name(&self) -> &str {
        self.name
    }

    fn count(&self, text: &str) -> usize {
        let mut count = 0;
        self.for_each_piece(text, |_, tokens| match tokens {
            PieceTokens::Ends(mask) => count += tokens_in(mask),
            PieceTokens::Long(piece) => count += self.tok.bpe.count(piece),
        });
        count
    }

    fn measure(&self, text: &str) -> Measure {
        let mut ends = Vec::with_capacity(text.len() / 4 + 1);
        self.for_each_piece(text, |start, tokens| match tokens {
            PieceTokens::Ends(mut mask) => {
                while mask != 0 {
                    ends.push((start + mask.trailing_zeros() as usize + 1) as u32);
                    mask &= mask - 1;
                }
            }
            PieceTokens::Long(piece) => {
                let mut pos = start;
                for token in self.tok.bpe.encode_via_backtracking(piece) {
                    pos += self.tok.bpe.token_len(token);
                    ends.push(pos as u32);
                }
            }
        });
        Measure::Ends(ends)
    }

    /// Streams the document's tokens a block at a time and verifies windows by re-tokenizing
    /// only their edges (see `token_cursor.rs`).
    fn cursor<'a>(&'a self, text: &'a str) -> Option<Box<dyn UnitCursor + 'a>> {
        Some(Box::new(TokenCursor::new(*self, text)))
    }
}
