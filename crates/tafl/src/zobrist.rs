//! Zobrist keys, computed at compile time from a fixed seed (so hashes are the same in
//! every build and on every machine).

use crate::position::Piece;
use crate::square::Square;
use game::splitmix64;

const fn make_keys() -> ([[u64; 121]; 3], u64) {
    let mut keys = [[0u64; 121]; 3];
    let mut state = 0x4B49_4E47_5354_4142; // "KINGSTAB"
    let mut piece = 0;
    while piece < 3 {
        let mut sq = 0;
        while sq < 121 {
            let (next, value) = splitmix64(state);
            state = next;
            keys[piece][sq] = value;
            sq += 1;
        }
        piece += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const KEYS: ([[u64; 121]; 3], u64) = make_keys();

/// The key of `piece` on `sq`.
#[inline]
pub(crate) const fn piece_key(piece: Piece, sq: Square) -> u64 {
    KEYS.0[piece as usize][sq.index()]
}

/// XORed in when the defenders are to move.
pub(crate) const DEFENDERS_TO_MOVE: u64 = KEYS.1;
