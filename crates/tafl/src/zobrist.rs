//! Zobrist keys, computed at compile time from a fixed seed (so hashes are the same in
//! every build and on every machine).

use crate::position::Piece;
use crate::square::Square;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

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
