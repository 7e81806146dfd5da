//! Zobrist keys, generated at compile time by a `const fn` PRNG (SplitMix64).
//!
//! A position's hash is the XOR of one key per piece (player, kind, square), a key when
//! Black is to move, and one key per player for the number of castle moves used (none
//! for zero). The fifty-move count is deliberately left out: positions that differ only
//! in it are the same position for repetition (D2).

use game::Player;
use game::splitmix64;

use crate::position::Piece;
use crate::square::Square;

pub(crate) struct Keys {
    pieces: [[[u64; 256]; 2]; 2],
    black_to_move: u64,
    castle_moves: [[u64; 3]; 2],
}

const fn build() -> Keys {
    let mut state = 0x4341_4D45_4C4F_5421; // "CAMELOT!"
    let mut keys = Keys {
        pieces: [[[0; 256]; 2]; 2],
        black_to_move: 0,
        castle_moves: [[0; 3]; 2],
    };
    let mut player = 0;
    while player < 2 {
        let mut piece = 0;
        while piece < 2 {
            let mut i = 0;
            while i < 160 {
                let (next, key) = splitmix64(state);
                state = next;
                keys.pieces[player][piece][Square::ALL[i].index()] = key;
                i += 1;
            }
            piece += 1;
        }
        let mut count = 1;
        while count < 3 {
            let (next, key) = splitmix64(state);
            state = next;
            keys.castle_moves[player][count] = key;
            count += 1;
        }
        player += 1;
    }
    let (_, key) = splitmix64(state);
    keys.black_to_move = key;
    keys
}

static KEYS: Keys = build();

/// The key of `player`'s `piece` on `sq`.
#[inline]
pub(crate) fn piece(player: Player, piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[player.index()][piece as usize][sq.index()]
}

/// The key XORed in when Black is to move.
#[inline]
pub(crate) fn black_to_move() -> u64 {
    KEYS.black_to_move
}

/// The key of `player` having used `count` castle moves (0 for none).
#[inline]
pub(crate) fn castle_moves(player: Player, count: u8) -> u64 {
    KEYS.castle_moves[player.index()][usize::from(count.min(2))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut seen = HashSet::new();
        for player in Player::BOTH {
            for kind in [Piece::Knight, Piece::Man] {
                for sq in Square::ALL {
                    assert!(seen.insert(piece(player, kind, sq)));
                }
            }
            assert_eq!(castle_moves(player, 0), 0);
            assert!(seen.insert(castle_moves(player, 1)));
            assert!(seen.insert(castle_moves(player, 2)));
        }
        assert!(seen.insert(black_to_move()));
        assert!(!seen.contains(&0));
    }
}
