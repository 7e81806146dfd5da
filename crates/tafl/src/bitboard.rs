//! A set of squares as a `u128`: bit `rank * 11 + file`, bits 121..128 always zero.
//!
//! ```text
//!  11  110 ................ 120
//!   .
//!   2   11  12 ...........  21
//!   1    0   1 ...........  10
//!        a   b ...........   k
//! ```

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::square::{Direction, SIZE, Square};

/// A set of squares.
///
/// ```
/// use tafl::{Bitboard, Square};
/// let corners = Bitboard::CORNERS;
/// assert_eq!(corners.count(), 4);
/// assert!(corners.contains("k11".parse().unwrap()));
/// assert_eq!(Bitboard::EDGE.count(), 40);
/// // Shifts never wrap round the board.
/// assert!(Bitboard::FILE_K.east().is_empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

const fn file_mask(file: u8) -> u128 {
    let mut mask = 0;
    let mut rank = 0;
    while rank < SIZE {
        mask |= 1u128 << (rank * SIZE + file);
        rank += 1;
    }
    mask
}

const fn rank_mask(rank: u8) -> u128 {
    ((1u128 << SIZE) - 1) << (rank * SIZE)
}

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 121 squares.
    pub const ALL: Bitboard = Bitboard((1u128 << 121) - 1);
    /// File `a`.
    pub const FILE_A: Bitboard = Bitboard(file_mask(0));
    /// File `k`.
    pub const FILE_K: Bitboard = Bitboard(file_mask(SIZE - 1));
    /// Rank 1.
    pub const RANK_1: Bitboard = Bitboard(rank_mask(0));
    /// Rank 11.
    pub const RANK_11: Bitboard = Bitboard(rank_mask(SIZE - 1));
    /// The 40 edge squares (corners included).
    pub const EDGE: Bitboard =
        Bitboard(file_mask(0) | file_mask(SIZE - 1) | rank_mask(0) | rank_mask(SIZE - 1));
    /// The four corners.
    pub const CORNERS: Bitboard = Bitboard(1 | 1 << 10 | 1 << 110 | 1 << 120);
    /// The throne, `f6`.
    pub const THRONE: Bitboard = Bitboard(1 << 60);
    /// The squares only the king may stop on: corners and throne.
    pub const RESTRICTED: Bitboard = Bitboard(Self::CORNERS.0 | Self::THRONE.0);

    /// The set holding just `sq`.
    #[must_use]
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Whether the set is empty.
    #[must_use]
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has a square.
    #[must_use]
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The number of squares.
    #[must_use]
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `sq` is in the set.
    #[must_use]
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The set with `sq` added.
    #[must_use]
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set with `sq` removed.
    #[must_use]
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// The lowest square, if any.
    #[must_use]
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros() as u8))
        }
    }

    /// Every square moved one step north (towards rank 11); squares leaving the board
    /// vanish.
    #[must_use]
    #[inline]
    pub const fn north(self) -> Bitboard {
        Bitboard((self.0 << SIZE) & Self::ALL.0)
    }

    /// Every square moved one step south.
    #[must_use]
    #[inline]
    pub const fn south(self) -> Bitboard {
        Bitboard(self.0 >> SIZE)
    }

    /// Every square moved one step east (towards file `k`).
    #[must_use]
    #[inline]
    pub const fn east(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_K.0) << 1)
    }

    /// Every square moved one step west.
    #[must_use]
    #[inline]
    pub const fn west(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_A.0) >> 1)
    }

    /// Every square moved one step in `dir`.
    #[must_use]
    #[inline]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        match dir {
            Direction::North => self.north(),
            Direction::South => self.south(),
            Direction::East => self.east(),
            Direction::West => self.west(),
        }
    }

    /// The squares orthogonally adjacent to some square of the set.
    #[must_use]
    #[inline]
    pub const fn neighbours(self) -> Bitboard {
        Bitboard(self.north().0 | self.south().0 | self.east().0 | self.west().0)
    }

    /// The squares reachable from `self` through squares of `through`, orthogonally,
    /// `self` included (a flood fill).
    #[must_use]
    pub const fn flood(self, through: Bitboard) -> Bitboard {
        let mut filled = self.0;
        loop {
            let next = (filled | Bitboard(filled).neighbours().0 & through.0) | self.0;
            if next == filled {
                return Bitboard(filled);
            }
            filled = next;
        }
    }

    /// An iterator over the squares, lowest first.
    #[must_use]
    #[inline]
    pub const fn squares(self) -> Squares {
        Squares(self.0)
    }
}

/// The squares of a [`Bitboard`], lowest first.
#[derive(Clone, Debug)]
pub struct Squares(u128);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Square::from_index_unchecked(index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.squares()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Self {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Self {
        Bitboard::from_square(sq)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl std::ops::SubAssign for Bitboard {
    #[inline]
    fn sub_assign(&mut self, rhs: Bitboard) {
        self.0 &= !rhs.0;
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the board.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::ALL.0)
    }
}

impl fmt::Debug for Bitboard {
    /// Draws the set as an 11x11 diagram, rank 11 at the top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for rank in (0..SIZE).rev() {
            for file in 0..SIZE {
                let c = if self.contains(Square::new(file, rank)) {
                    'x'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_match_square_steps() {
        for sq in Bitboard::ALL {
            for dir in Direction::ALL {
                let moved = Bitboard::from_square(sq).shift(dir);
                match sq.step(dir) {
                    Some(to) => assert_eq!(moved, Bitboard::from_square(to)),
                    None => assert!(moved.is_empty(), "{sq} {dir:?}"),
                }
            }
        }
    }

    #[test]
    fn flood_stops_at_walls() {
        let wall: Bitboard = ["b1", "b2", "a3", "b3"]
            .iter()
            .map(|s| s.parse::<Square>().unwrap())
            .collect();
        let start = Bitboard::from_square("a1".parse().unwrap());
        assert_eq!(start.flood(!wall).count(), 2);
        assert_eq!(start.flood(Bitboard::ALL).count(), 121);
    }
}
