//! Squares of the 11x11 board, `a1` (bottom-left) to `k11` (top-right).

use std::fmt;
use std::str::FromStr;

/// The board's side length.
pub const SIZE: u8 = 11;

/// One of the 121 squares, numbered `rank * 11 + file` from `a1` = 0 to `k11` = 120.
///
/// ```
/// use tafl::Square;
/// let sq: Square = "f6".parse().unwrap();
/// assert_eq!(sq, Square::THRONE);
/// assert_eq!((sq.file(), sq.rank()), (5, 5));
/// assert_eq!(Square::new(10, 10).to_string(), "k11");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The throne, `f6`.
    pub const THRONE: Square = Square(60);
    /// The four corners: `a1`, `k1`, `a11`, `k11`.
    pub const CORNERS: [Square; 4] = [Square(0), Square(10), Square(110), Square(120)];

    /// The square on `file` (0 = `a`) and `rank` (0 = rank 1). Panics if either is 11 or
    /// more.
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Square {
        assert!(file < SIZE && rank < SIZE, "square off the board");
        Square(rank * SIZE + file)
    }

    /// The square with this index (0..121), if there is one.
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < SIZE * SIZE {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with this index; the caller guarantees `index < 121`.
    #[must_use]
    pub(crate) const fn from_index_unchecked(index: u8) -> Square {
        Square(index)
    }

    /// The index, 0..121.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 (`a`) to 10 (`k`).
    #[must_use]
    pub const fn file(self) -> u8 {
        self.0 % SIZE
    }

    /// The rank, 0 (rank 1) to 10 (rank 11).
    #[must_use]
    pub const fn rank(self) -> u8 {
        self.0 / SIZE
    }

    /// Whether the square is on the board edge.
    #[must_use]
    pub const fn is_edge(self) -> bool {
        let (f, r) = (self.file(), self.rank());
        f == 0 || r == 0 || f == SIZE - 1 || r == SIZE - 1
    }

    /// Whether the square is a corner.
    #[must_use]
    pub const fn is_corner(self) -> bool {
        let (f, r) = (self.file(), self.rank());
        (f == 0 || f == SIZE - 1) && (r == 0 || r == SIZE - 1)
    }

    /// Whether only the king may stop here (throne or corner).
    #[must_use]
    pub const fn is_restricted(self) -> bool {
        self.0 == Square::THRONE.0 || self.is_corner()
    }

    /// The neighbour one step in `dir`, if it is on the board.
    #[must_use]
    pub const fn step(self, dir: Direction) -> Option<Square> {
        let (f, r) = (self.file() as i8, self.rank() as i8);
        let (df, dr) = dir.delta();
        let (nf, nr) = (f + df, r + dr);
        if nf < 0 || nr < 0 || nf >= SIZE as i8 || nr >= SIZE as i8 {
            None
        } else {
            Some(Square::new(nf as u8, nr as u8))
        }
    }
}

/// The four orthogonal directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards rank 11.
    North,
    /// Towards rank 1.
    South,
    /// Towards file `k`.
    East,
    /// Towards file `a`.
    West,
}

impl Direction {
    /// All four directions.
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::South,
        Direction::East,
        Direction::West,
    ];

    /// (file step, rank step).
    #[must_use]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::South => (0, -1),
            Direction::East => (1, 0),
            Direction::West => (-1, 0),
        }
    }

    /// The opposite direction.
    #[must_use]
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::South => Direction::North,
            Direction::East => Direction::West,
            Direction::West => Direction::East,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() + 1)
    }
}

/// A square name that is not `a1`..`k11`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a square: expected a file a-k and a rank 1-11, like f6")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseSquareError(s.to_owned());
        let mut chars = s.chars();
        let file = chars.next().ok_or_else(err)?.to_ascii_lowercase();
        if !('a'..='k').contains(&file) {
            return Err(err());
        }
        let rank_text = chars.as_str();
        if rank_text.is_empty() || rank_text.len() > 2 || rank_text.starts_with('0') {
            return Err(err());
        }
        let rank: u8 = rank_text.parse().map_err(|_| err())?;
        if !(1..=SIZE).contains(&rank) {
            return Err(err());
        }
        Ok(Square::new(file as u8 - b'a', rank - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_through_names() {
        for i in 0..121 {
            let sq = Square::from_index(i).unwrap();
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!("K11".parse::<Square>(), Ok(Square::new(10, 10)));
    }

    #[test]
    fn bad_square_names_are_rejected() {
        for bad in ["", "a", "l1", "a0", "a12", "a01", "1a", "a1x", "ä1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn tafl_1_restricted_squares() {
        let restricted: Vec<String> = (0..121)
            .map(|i| Square::from_index(i).unwrap())
            .filter(|s| s.is_restricted())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(restricted, ["a1", "k1", "f6", "a11", "k11"]);
    }
}
