//! [`Move`]: a move as the rules identify it (S1).

use std::fmt;

use crate::bitboard::Bitboard;
use crate::square::Square;

/// A move, identified as in S1 by where the piece starts, where it ends and which squares
/// it captures on. Several leap paths may give the same move; they are one move. The
/// path is recovered for notation by [`Position::format_move`](crate::Position::format_move).
///
/// A castle move (S8) is a plain step between the two squares of the opponent's castle.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece starts on.
    pub from: Square,
    /// The square the piece ends on (equal to `from` for a circular jump, S2).
    pub to: Square,
    /// The squares of the pieces it captures (empty for a plain move or canter).
    pub captured: Bitboard,
}

impl Move {
    /// A move that captures nothing.
    #[must_use]
    pub const fn quiet(from: Square, to: Square) -> Move {
        Move {
            from,
            to,
            captured: Bitboard::EMPTY,
        }
    }

    /// Whether the move captures.
    #[must_use]
    pub const fn is_capture(&self) -> bool {
        self.captured.any()
    }

    /// How many pieces the move captures.
    #[must_use]
    pub const fn capture_count(&self) -> u32 {
        self.captured.count()
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}>{}", self.from, self.to)?;
        if self.captured.any() {
            f.write_str(" capturing")?;
            for sq in self.captured {
                write!(f, " {sq}")?;
            }
        }
        Ok(())
    }
}
