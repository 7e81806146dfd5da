//! Sets of squares as 256-bit bitboards.
//!
//! Bit `rank * 16 + file` stands for a square: 16 bits per rank, four ranks per `u64`.
//! Files 12..15 of every rank never exist, so they form a guard band: a shift by one or
//! two squares east or west off the board lands in the band (or off the end of the 256
//! bits) and is masked away, never wrapping onto another rank's real squares.
//!
//! ```text
//!  bit 255                                                   bit 240
//!   rank 16:  [guard guard guard guard] L K J I H G F E D C B A
//!   ...
//!   rank 1:   [guard guard guard guard] L K J I H G F E D C B A
//!  bit 15                                                    bit 0
//! ```
//!
//! ```
//! use camelot::{Bitboard, Direction, Square};
//!
//! let castles = Bitboard::WHITE_CASTLE | Bitboard::BLACK_CASTLE;
//! assert_eq!(castles.count(), 4);
//! // Nothing lies east of G1: the shift falls into the guard band and is dropped.
//! assert!(Bitboard::from_square(Square::G1).shift(Direction::East).is_empty());
//! assert_eq!(
//!     Bitboard::from_square(Square::F1).shift(Direction::East),
//!     Bitboard::from_square(Square::G1)
//! );
//! ```

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::square::{Direction, Square, exists};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard([u64; 4]);

const fn valid_mask() -> [u64; 4] {
    let mut words = [0u64; 4];
    let mut index = 0;
    while index < 256 {
        if exists((index % 16) as u8, (index / 16) as u8) {
            words[index / 64] |= 1 << (index % 64);
        }
        index += 1;
    }
    words
}

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard([0; 4]);
    /// All 160 squares.
    pub const ALL: Bitboard = Bitboard(valid_mask());
    /// White's castle, F1 and G1.
    pub const WHITE_CASTLE: Bitboard = Bitboard::from_square(Square::F1).with(Square::G1);
    /// Black's castle, F16 and G16.
    pub const BLACK_CASTLE: Bitboard = Bitboard::from_square(Square::F16).with(Square::G16);

    /// The set holding one square.
    #[must_use]
    pub const fn from_square(sq: Square) -> Bitboard {
        let i = sq.index();
        let mut words = [0u64; 4];
        words[i / 64] = 1 << (i % 64);
        Bitboard(words)
    }

    /// The four 64-bit words, lowest ranks first (for hashing and debugging).
    #[must_use]
    pub const fn words(self) -> [u64; 4] {
        self.0
    }

    /// The set of the squares among the bits of `words` (as [`Bitboard::words`] gives
    /// them); bits of the guard band are dropped.
    #[must_use]
    pub const fn from_words(words: [u64; 4]) -> Bitboard {
        Bitboard(words).intersection(Bitboard::ALL)
    }

    /// Whether `sq` is in the set.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        let i = sq.index();
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    /// Whether frame index `index` is in the set; indexes of squares that do not exist
    /// are never in any set.
    #[must_use]
    pub(crate) const fn contains_index(self, index: u8) -> bool {
        self.0[(index / 64) as usize] >> (index % 64) & 1 != 0
    }

    /// The set with frame index `index` (of an existing square) added.
    #[must_use]
    pub(crate) const fn with_index(self, index: u8) -> Bitboard {
        let mut words = self.0;
        words[(index / 64) as usize] |= 1 << (index % 64);
        Bitboard(words)
    }

    /// The set holding frame index `index` (of an existing square).
    #[must_use]
    pub(crate) const fn from_index(index: u8) -> Bitboard {
        Bitboard::EMPTY.with_index(index)
    }

    /// The set with `sq` added.
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        self.union(Bitboard::from_square(sq))
    }

    /// The set with `sq` removed.
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        self.minus(Bitboard::from_square(sq))
    }

    /// Squares in either set.
    #[must_use]
    pub const fn union(self, other: Bitboard) -> Bitboard {
        let (a, b) = (self.0, other.0);
        Bitboard([a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]])
    }

    /// Squares in both sets.
    #[must_use]
    pub const fn intersection(self, other: Bitboard) -> Bitboard {
        let (a, b) = (self.0, other.0);
        Bitboard([a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3]])
    }

    /// Squares in `self` but not in `other`.
    #[must_use]
    pub const fn minus(self, other: Bitboard) -> Bitboard {
        let (a, b) = (self.0, other.0);
        Bitboard([a[0] & !b[0], a[1] & !b[1], a[2] & !b[2], a[3] & !b[3]])
    }

    /// Squares in exactly one of the sets.
    #[must_use]
    pub const fn symmetric_difference(self, other: Bitboard) -> Bitboard {
        let (a, b) = (self.0, other.0);
        Bitboard([a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]])
    }

    /// The squares of the board not in the set.
    #[must_use]
    pub const fn complement(self) -> Bitboard {
        Bitboard::ALL.minus(self)
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Whether the set has at least one square.
    #[must_use]
    pub const fn any(self) -> bool {
        !self.is_empty()
    }

    /// Whether the two sets share a square.
    #[must_use]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.intersection(other).any()
    }

    /// Number of squares in the set.
    #[must_use]
    #[inline]
    pub const fn count(self) -> u32 {
        self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()
    }

    /// Whether the set has at most one square: [`Bitboard::count`] without counting
    /// (a population count of four words is dozens of instructions where the
    /// processor's `popcnt` is not used).
    #[must_use]
    pub const fn has_at_most_one(self) -> bool {
        let [a, b, c, d] = self.0;
        let words = (a != 0) as u32 + (b != 0) as u32 + (c != 0) as u32 + (d != 0) as u32;
        words <= 1
            && (a & a.wrapping_sub(1))
                | (b & b.wrapping_sub(1))
                | (c & c.wrapping_sub(1))
                | (d & d.wrapping_sub(1))
                == 0
    }

    /// The lowest square (rank 1 first, then file A first), if any.
    #[must_use]
    pub const fn first(self) -> Option<Square> {
        let mut w = 0;
        while w < 4 {
            if self.0[w] != 0 {
                return Square::from_index(w * 64 + self.0[w].trailing_zeros() as usize);
            }
            w += 1;
        }
        None
    }

    /// The squares in increasing order.
    pub fn squares(self) -> Squares {
        Squares { set: self, word: 0 }
    }

    #[inline(always)]
    const fn shl(self, n: u32) -> Bitboard {
        let a = self.0;
        Bitboard([
            a[0] << n,
            a[1] << n | a[0] >> (64 - n),
            a[2] << n | a[1] >> (64 - n),
            a[3] << n | a[2] >> (64 - n),
        ])
    }

    #[inline(always)]
    const fn shr(self, n: u32) -> Bitboard {
        let a = self.0;
        Bitboard([
            a[0] >> n | a[1] << (64 - n),
            a[1] >> n | a[2] << (64 - n),
            a[2] >> n | a[3] << (64 - n),
            a[3] >> n,
        ])
    }

    /// The bits moved by `offset` frame indexes, guard band and all: only for
    /// intersecting at once with a set of squares.
    #[inline(always)]
    const fn shift_raw(self, offset: i32) -> Bitboard {
        if offset >= 0 {
            self.shl(offset as u32)
        } else {
            self.shr((-offset) as u32)
        }
    }

    #[inline(always)]
    const fn shift_by(self, offset: i32) -> Bitboard {
        self.shift_raw(offset).intersection(Bitboard::ALL)
    }

    /// Every square moved one step in `dir`; squares that would leave the board drop out.
    ///
    /// ```
    /// use camelot::{Bitboard, Direction};
    ///
    /// // Rank 4 has files A..L; rank 3 only B..K, so A4 and L4 have no square below.
    /// let rank4: Bitboard = ["A4", "B4", "L4"].iter().map(|s| s.parse().unwrap()).collect();
    /// let below: Bitboard = ["B3"].iter().map(|s| s.parse().unwrap()).collect();
    /// assert_eq!(rank4.shift(Direction::South), below);
    /// ```
    #[must_use]
    #[inline(always)]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        self.shift_by(dir.offset())
    }

    /// Every square moved two steps in `dir` (a leap's landing square). Only the landing
    /// square must exist; callers that need the middle square intersect separately.
    #[must_use]
    #[inline(always)]
    pub const fn shift2(self, dir: Direction) -> Bitboard {
        self.shift_by(2 * dir.offset())
    }

    /// `self.shift(dir) & mask`, in fewer steps: every set holds only squares of the
    /// board, so `mask` drops what the shift moved off it.
    ///
    /// ```
    /// use camelot::{Bitboard, Direction, Square};
    ///
    /// let f1 = Bitboard::from_square(Square::F1);
    /// assert_eq!(f1.shift_and(Direction::East, Bitboard::ALL), f1.shift(Direction::East));
    /// assert!(f1.shift_and(Direction::East, Bitboard::BLACK_CASTLE).is_empty());
    /// ```
    #[must_use]
    #[inline(always)]
    pub const fn shift_and(self, dir: Direction, mask: Bitboard) -> Bitboard {
        self.shift_raw(dir.offset()).intersection(mask)
    }

    /// `self.shift2(dir) & mask`, as [`Bitboard::shift_and`] does it.
    #[must_use]
    #[inline(always)]
    pub const fn shift2_and(self, dir: Direction, mask: Bitboard) -> Bitboard {
        self.shift_raw(2 * dir.offset()).intersection(mask)
    }

    /// The squares next to some square of the set (in any of the eight directions).
    #[must_use]
    pub const fn neighbours(self) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let mut i = 0;
        while i < 8 {
            out = out.union(self.shift_raw(Direction::ALL[i].offset()));
            i += 1;
        }
        out.intersection(Bitboard::ALL)
    }

    /// The squares next to some square of the set that are also in `mask`: the shifts
    /// unrolled, for the searches' hot paths.
    #[must_use]
    #[inline(always)]
    pub fn neighbours_in(self, mask: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        crate::each_direction!(dir => { out |= self.shift_raw(dir.offset()); });
        out & mask
    }
}

/// Runs `body` once for each of the eight directions, in [`Direction::ALL`]'s order,
/// with `dir` bound to the direction: eight copies, so that a shift by `dir` is a few
/// fixed word shifts, where a loop over the directions shifts by a variable amount.
///
/// ```
/// use camelot::{Bitboard, Square, each_direction};
///
/// let g1 = Bitboard::from_square(Square::G1);
/// let mut around = Bitboard::EMPTY;
/// each_direction!(dir => { around |= g1.shift(dir); });
/// assert_eq!(around, g1.neighbours());
/// ```
#[macro_export]
macro_rules! each_direction {
    ($dir:ident => $body:block) => {{
        {
            let $dir = $crate::Direction::North;
            $body
        }
        {
            let $dir = $crate::Direction::NorthEast;
            $body
        }
        {
            let $dir = $crate::Direction::East;
            $body
        }
        {
            let $dir = $crate::Direction::SouthEast;
            $body
        }
        {
            let $dir = $crate::Direction::South;
            $body
        }
        {
            let $dir = $crate::Direction::SouthWest;
            $body
        }
        {
            let $dir = $crate::Direction::West;
            $body
        }
        {
            let $dir = $crate::Direction::NorthWest;
            $body
        }
    }};
}

/// Iterator over the squares of a [`Bitboard`], in increasing order.
#[derive(Clone, Debug)]
pub struct Squares {
    set: Bitboard,
    /// The words below this one are empty.
    word: usize,
}

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let words = &mut self.set.0;
        while self.word < 4 {
            let word = &mut words[self.word];
            if *word != 0 {
                let bit = word.trailing_zeros() as usize;
                *word &= *word - 1;
                return Some(Square::from_index_unchecked(self.word * 64 + bit));
            }
            self.word += 1;
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.set.count() as usize;
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
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        self.union(rhs)
    }
}

impl BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, rhs: Bitboard) {
        *self = self.union(rhs);
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        self.intersection(rhs)
    }
}

impl BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, rhs: Bitboard) {
        *self = self.intersection(rhs);
    }
}

impl BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        self.symmetric_difference(rhs)
    }
}

impl BitXorAssign for Bitboard {
    fn bitxor_assign(&mut self, rhs: Bitboard) {
        *self = self.symmetric_difference(rhs);
    }
}

impl Sub for Bitboard {
    type Output = Bitboard;
    fn sub(self, rhs: Bitboard) -> Bitboard {
        self.minus(rhs)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement within the board's 160 squares.
    fn not(self) -> Bitboard {
        self.complement()
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.squares()).finish()
    }
}

impl fmt::Display for Bitboard {
    /// Draws the set on the board: `x` for a member, `.` for another square.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::position::draw_board(f, |sq| if self.contains(sq) { 'x' } else { '.' })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn all_has_160_squares_and_no_guard_bits() {
        assert_eq!(Bitboard::ALL.count(), 160);
        let collected: Bitboard = Square::ALL.into_iter().collect();
        assert_eq!(collected, Bitboard::ALL);
        for w in Bitboard::ALL.words() {
            for rank_bits in 0..4 {
                assert_eq!((w >> (rank_bits * 16 + 12)) & 0xF, 0);
            }
        }
    }

    #[test]
    fn shifts_never_wrap_between_ranks() {
        for square in Square::ALL {
            let one = Bitboard::from_square(square);
            for dir in Direction::ALL {
                let expected: Bitboard = square.step(dir).into_iter().collect();
                assert_eq!(one.shift(dir), expected, "{square} {dir:?}");
                let two: Bitboard = square
                    .step(dir)
                    .and_then(|m| m.step(dir))
                    .into_iter()
                    .collect();
                // The landing square two steps away, when it exists, always has an
                // existing middle square on this board.
                assert_eq!(one.shift2(dir), two, "{square} {dir:?} x2");
            }
        }
    }

    #[test]
    fn set_operations() {
        let a: Bitboard = [sq("A4"), sq("F16")].into_iter().collect();
        let b: Bitboard = [sq("F16"), sq("L13")].into_iter().collect();
        assert_eq!((a | b).count(), 3);
        assert_eq!(a & b, Bitboard::from_square(sq("F16")));
        assert_eq!(a - b, Bitboard::from_square(sq("A4")));
        assert_eq!((a ^ b).count(), 2);
        assert_eq!((!a).count(), 158);
        assert_eq!(a.first(), Some(sq("A4")));
        assert_eq!(a.squares().collect::<Vec<_>>(), vec![sq("A4"), sq("F16")]);
        assert!(Bitboard::EMPTY.first().is_none());
        assert_eq!(Bitboard::from_square(Square::F1).neighbours().count(), 4);
        for set in [
            Bitboard::EMPTY,
            a,
            b,
            a & b,
            Bitboard::ALL,
            Bitboard::WHITE_CASTLE,
        ] {
            assert_eq!(set.has_at_most_one(), set.count() <= 1, "{set:?}");
        }
        for square in Square::ALL {
            assert!(Bitboard::from_square(square).has_at_most_one());
            let two = Bitboard::from_square(square) | Bitboard::from_square(Square::G16);
            assert_eq!(two.has_at_most_one(), square == Square::G16);
        }
    }

    #[test]
    fn display_draws_the_board() {
        let text = Bitboard::WHITE_CASTLE.to_string();
        assert!(
            text.contains("   1            x x              1"),
            "{text}"
        );
    }
}
