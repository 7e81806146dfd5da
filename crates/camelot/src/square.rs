//! Squares of the Camelot board and the eight directions between them.
//!
//! The board has 12 files `A`..`L` and 16 ranks `1`..`16`, but only 160 of those 192
//! squares exist: the ranks near each end are shorter and end in a two-square castle.
//!
//! ```text
//!       A B C D E F G H I J K L
//!   16            . .             16   Black's castle F16 G16
//!   15      . . . . . . . .       15
//!   14    . . . . . . . . . .     14
//!   13  . . . . . . . . . . . .   13
//!   ..        (ranks 4..13 have all twelve files)
//!    4  . . . . . . . . . . . .    4
//!    3    . . . . . . . . . .      3
//!    2      . . . . . . . .        2
//!    1            . .              1   White's castle F1 G1
//!       A B C D E F G H I J K L
//! ```
//!
//! Internally a square is an index into a 16x16 frame, `rank * 16 + file` (both
//! 0-based), so that the four unused files 12..15 of every rank act as a guard band for
//! shifts (see [`Bitboard`](crate::Bitboard)).

use std::fmt;
use std::str::FromStr;

/// Number of files (`A`..`L`).
pub const FILES: u8 = 12;
/// Number of ranks (`1`..`16`).
pub const RANKS: u8 = 16;
/// Width of one rank in the internal frame (12 files plus a 4-file guard band).
pub(crate) const FRAME_WIDTH: u8 = 16;

/// For each rank (0-based), the first and last file (0-based, inclusive) that exist.
const RANK_SPAN: [(u8, u8); 16] = [
    (5, 6),
    (2, 9),
    (1, 10),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (1, 10),
    (2, 9),
    (5, 6),
];

/// The first and last file (0-based, inclusive) that exist on a 0-based rank.
///
/// ```
/// assert_eq!(camelot::square::rank_span(0), (5, 6)); // rank 1: F1 G1
/// assert_eq!(camelot::square::rank_span(13), (1, 10)); // rank 14: B14..K14
/// ```
#[must_use]
pub const fn rank_span(rank: u8) -> (u8, u8) {
    RANK_SPAN[rank as usize]
}

/// Whether the square at 0-based `file` and `rank` exists on the board.
#[must_use]
pub const fn exists(file: u8, rank: u8) -> bool {
    if file >= FILES || rank >= RANKS {
        return false;
    }
    let (lo, hi) = RANK_SPAN[rank as usize];
    file >= lo && file <= hi
}

/// One of the 160 squares.
///
/// ```
/// use camelot::Square;
///
/// let sq: Square = "f16".parse().unwrap();
/// assert_eq!(sq, Square::F16);
/// assert_eq!(sq.to_string(), "F16");
/// assert_eq!((sq.file(), sq.rank()), (5, 15));
/// assert!("A1".parse::<Square>().is_err()); // rank 1 has only F1 and G1
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// White's castle square F1.
    pub const F1: Square = Square(5);
    /// White's castle square G1.
    pub const G1: Square = Square(6);
    /// Black's castle square F16.
    pub const F16: Square = Square(15 * 16 + 5);
    /// Black's castle square G16.
    pub const G16: Square = Square(15 * 16 + 6);

    /// Every square, rank 1 first, files left to right within a rank.
    pub const ALL: [Square; 160] = {
        let mut all = [Square(0); 160];
        let mut n = 0;
        let mut index = 0;
        while index < 256 {
            if exists((index % 16) as u8, (index / 16) as u8) {
                all[n] = Square(index as u8);
                n += 1;
            }
            index += 1;
        }
        assert!(n == 160);
        all
    };

    /// The square at 0-based `file` (0 = `A`) and `rank` (0 = rank 1), if it exists.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if exists(file, rank) {
            Some(Square(rank * FRAME_WIDTH + file))
        } else {
            None
        }
    }

    /// The square with frame index `index` (`rank * 16 + file`), if it exists.
    #[must_use]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 256 && exists((index % 16) as u8, (index / 16) as u8) {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with frame index `index`, which must exist (a member of a set).
    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 256 && exists((index % 16) as u8, (index / 16) as u8));
        Square(index as u8)
    }

    /// The frame index `rank * 16 + file` (0..256; only 160 values occur).
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The 0-based file (0 = `A`, 11 = `L`).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 % FRAME_WIDTH
    }

    /// The 0-based rank (0 = rank 1, 15 = rank 16).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 / FRAME_WIDTH
    }

    /// The neighbouring square in direction `dir`, if it exists.
    #[must_use]
    pub const fn step(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.delta();
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        if file < 0 || rank < 0 {
            return None;
        }
        Square::new(file as u8, rank as u8)
    }

    /// The direction and distance (1 or 2) from `self` to `other` when they lie on one
    /// line at most two squares apart; `None` otherwise (including `self == other`).
    #[must_use]
    pub const fn line_to(self, other: Square) -> Option<(Direction, u8)> {
        let df = other.file() as i8 - self.file() as i8;
        let dr = other.rank() as i8 - self.rank() as i8;
        let dist = if df.abs() > dr.abs() {
            df.abs()
        } else {
            dr.abs()
        };
        if dist == 0 || dist > 2 {
            return None;
        }
        if (df != 0 && df.abs() != dist) || (dr != 0 && dr.abs() != dist) {
            return None;
        }
        let unit = (df / dist, dr / dist);
        let mut i = 0;
        while i < 8 {
            let dir = Direction::ALL[i];
            let (uf, ur) = dir.delta();
            if uf == unit.0 && ur == unit.1 {
                return Some((dir, dist as u8));
            }
            i += 1;
        }
        None
    }

    /// The file letter, `'A'`..`'L'`.
    #[must_use]
    pub const fn file_char(self) -> char {
        (b'A' + self.file()) as char
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text is not a square name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareError {
    /// Nothing was given.
    #[error("empty square name")]
    Empty,
    /// The first character is not a file letter `A`..`L`.
    #[error("{text:?} is not a square: the file must be a letter A to L")]
    File {
        /// The text given.
        text: String,
    },
    /// What follows the file is not a rank number 1..16.
    #[error("{text:?} is not a square: the rank must be a number 1 to 16")]
    Rank {
        /// The text given.
        text: String,
    },
    /// File and rank are fine but that square is cut off the board.
    #[error("{text} is not on the board: rank {rank} has only {first}..{last}")]
    OffBoard {
        /// The square name, upper-cased.
        text: String,
        /// The 1-based rank.
        rank: u8,
        /// The first square of that rank.
        first: Square,
        /// The last square of that rank.
        last: Square,
    },
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Reads `F16`, `f16`, `A4`… (case-insensitive, surrounding spaces ignored).
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let text = s.trim();
        let mut chars = text.chars();
        let first = chars.next().ok_or(ParseSquareError::Empty)?;
        let upper = first.to_ascii_uppercase();
        if !('A'..='L').contains(&upper) {
            return Err(ParseSquareError::File {
                text: text.to_owned(),
            });
        }
        let file = upper as u8 - b'A';
        let digits = chars.as_str();
        let rank_error = || ParseSquareError::Rank {
            text: text.to_owned(),
        };
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(rank_error());
        }
        let rank: u8 = digits.parse().map_err(|_| rank_error())?;
        if !(1..=16).contains(&rank) || digits.starts_with('0') {
            return Err(rank_error());
        }
        Square::new(file, rank - 1).ok_or_else(|| {
            let (lo, hi) = rank_span(rank - 1);
            ParseSquareError::OffBoard {
                text: format!("{upper}{rank}"),
                rank,
                first: Square(((rank - 1) * FRAME_WIDTH) + lo),
                last: Square(((rank - 1) * FRAME_WIDTH) + hi),
            }
        })
    }
}

/// One of the eight directions a piece moves or leaps in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Towards rank 16.
    North,
    /// Towards rank 16 and file L.
    NorthEast,
    /// Towards file L.
    East,
    /// Towards rank 1 and file L.
    SouthEast,
    /// Towards rank 1.
    South,
    /// Towards rank 1 and file A.
    SouthWest,
    /// Towards file A.
    West,
    /// Towards rank 16 and file A.
    NorthWest,
}

impl Direction {
    /// All eight, clockwise from north. Canonical notation paths try them in this order.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// The direction pointing the other way.
    #[must_use]
    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 4) % 8]
    }

    /// (file change, rank change) of one step.
    #[must_use]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::NorthEast => (1, 1),
            Direction::East => (1, 0),
            Direction::SouthEast => (1, -1),
            Direction::South => (0, -1),
            Direction::SouthWest => (-1, -1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (-1, 1),
        }
    }

    /// The change of frame index of one step (`rank * 16 + file`).
    #[must_use]
    pub const fn offset(self) -> i32 {
        let (df, dr) = self.delta();
        dr as i32 * FRAME_WIDTH as i32 + df as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_160_squares_with_the_castles_at_the_ends() {
        assert_eq!(Square::ALL.len(), 160);
        assert_eq!(Square::ALL[0], Square::F1);
        assert_eq!(Square::ALL[1], Square::G1);
        assert_eq!(Square::ALL[159], Square::G16);
        let per_rank: Vec<usize> = (0..16)
            .map(|r| Square::ALL.iter().filter(|s| s.rank() == r).count())
            .collect();
        assert_eq!(
            per_rank,
            [2, 8, 10, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 10, 8, 2]
        );
    }

    #[test]
    fn names_round_trip_case_insensitively() {
        for sq in Square::ALL {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
            assert_eq!(name.to_lowercase().parse::<Square>(), Ok(sq));
        }
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        assert!(matches!(
            "M4".parse::<Square>(),
            Err(ParseSquareError::File { .. })
        ));
        assert!(matches!(
            "A17".parse::<Square>(),
            Err(ParseSquareError::Rank { .. })
        ));
        assert!(matches!(
            "A04".parse::<Square>(),
            Err(ParseSquareError::Rank { .. })
        ));
        assert!(matches!(
            "A".parse::<Square>(),
            Err(ParseSquareError::Rank { .. })
        ));
        let err = "a15".parse::<Square>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "A15 is not on the board: rank 15 has only C15..J15"
        );
        assert_eq!("".parse::<Square>(), Err(ParseSquareError::Empty));
    }

    #[test]
    fn steps_stop_at_the_edge_and_lines_are_found() {
        assert_eq!(Square::F1.step(Direction::East), Some(Square::G1));
        assert_eq!(Square::G1.step(Direction::East), None);
        assert_eq!(Square::F1.step(Direction::SouthWest), None);
        let a4: Square = "A4".parse().unwrap();
        assert_eq!(a4.step(Direction::West), None);
        assert_eq!(a4.step(Direction::SouthWest), None); // A3 does not exist
        let c6: Square = "C6".parse().unwrap();
        let e8: Square = "E8".parse().unwrap();
        assert_eq!(c6.line_to(e8), Some((Direction::NorthEast, 2)));
        assert_eq!(e8.line_to(c6), Some((Direction::SouthWest, 2)));
        assert_eq!(c6.line_to("D8".parse().unwrap()), None);
        assert_eq!(c6.line_to(c6), None);
    }
}
