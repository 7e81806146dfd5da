//! Per-square geometry computed at compile time: neighbours and leaps.

use crate::bitboard::Bitboard;
use crate::square::{Direction, Square};

/// Frame index that stands for "no square". Index 255 is file 15 of rank 16, in the guard
/// band, so it is never in any set: tests of it against a bitboard are simply false.
pub(crate) const NONE: u8 = 255;

/// A leap from a square in one direction: the square leapt over and the landing square,
/// both [`NONE`] when the landing square does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leap {
    pub(crate) over: u8,
    pub(crate) land: u8,
}

const fn build_leaps() -> [[Leap; 8]; 256] {
    let none = Leap {
        over: NONE,
        land: NONE,
    };
    let mut table = [[none; 8]; 256];
    let mut i = 0;
    while i < 160 {
        let sq = Square::ALL[i];
        let mut d = 0;
        while d < 8 {
            let dir = Direction::ALL[d];
            if let Some(over) = sq.step(dir)
                && let Some(land) = over.step(dir)
            {
                table[sq.index()][d] = Leap {
                    over: over.index() as u8,
                    land: land.index() as u8,
                };
            }
            d += 1;
        }
        i += 1;
    }
    table
}

const fn build_adjacent() -> [Bitboard; 256] {
    let mut table = [Bitboard::EMPTY; 256];
    let mut i = 0;
    while i < 160 {
        let sq = Square::ALL[i];
        table[sq.index()] = Bitboard::from_square(sq).neighbours();
        i += 1;
    }
    table
}

/// `LEAPS[square index][direction index]`.
pub(crate) static LEAPS: [[Leap; 8]; 256] = build_leaps();

/// The squares next to each square.
pub(crate) static ADJACENT: [Bitboard; 256] = build_adjacent();

/// The square with frame index `index`, which must exist.
#[inline(always)]
pub(crate) fn square(index: u8) -> Square {
    Square::from_index_unchecked(index as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaps_agree_with_steps() {
        for sq in Square::ALL {
            for (d, dir) in Direction::ALL.into_iter().enumerate() {
                let leap = LEAPS[sq.index()][d];
                match sq.step(dir).and_then(|o| o.step(dir)) {
                    Some(land) => {
                        assert_eq!(square(leap.land), land);
                        assert_eq!(Some(square(leap.over)), sq.step(dir));
                    }
                    None => assert_eq!(
                        leap,
                        Leap {
                            over: NONE,
                            land: NONE
                        }
                    ),
                }
            }
            assert_eq!(
                ADJACENT[sq.index()].count() as usize,
                Direction::ALL
                    .iter()
                    .filter(|&&d| sq.step(d).is_some())
                    .count()
            );
        }
        assert!(!Bitboard::ALL.contains_index(NONE));
    }
}
