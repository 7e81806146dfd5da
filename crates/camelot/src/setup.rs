//! [`Setup`]: a position as read, not yet checked against the rules.

use game::Player;

use crate::bitboard::Bitboard;
use crate::position::Piece;
use crate::square::Square;

/// A not necessarily legal position: what a position string says, before
/// [`Position::from_setup`](crate::Position::from_setup) checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// White's pieces.
    pub white: Bitboard,
    /// Black's pieces.
    pub black: Bitboard,
    /// Squares holding knights (of either side); the other pieces are men.
    pub knights: Bitboard,
    /// The player to move.
    pub side_to_move: Player,
    /// Castle moves used so far by White and by Black (S8).
    pub castle_moves: [u8; 2],
    /// Plies played since the last capture or move onto an opponent's castle square (D3).
    pub clock: u32,
}

impl Setup {
    /// The start position (section 1 of the rules).
    #[must_use]
    pub fn start() -> Setup {
        let squares = |names: &[&str]| -> Bitboard {
            names
                .iter()
                .map(|n| n.parse::<Square>().expect("start squares are valid"))
                .collect()
        };
        let white_knights = squares(&["C6", "D7", "I7", "J6"]);
        let white_men = squares(&["D6", "E6", "E7", "F6", "F7", "G6", "G7", "H6", "H7", "I6"]);
        let black_knights = squares(&["C11", "D10", "I10", "J11"]);
        let black_men = squares(&[
            "D11", "E10", "E11", "F10", "F11", "G10", "G11", "H10", "H11", "I11",
        ]);
        Setup {
            white: white_knights | white_men,
            black: black_knights | black_men,
            knights: white_knights | black_knights,
            side_to_move: Player::First,
            castle_moves: [0, 0],
            clock: 0,
        }
    }

    /// The pieces of `player`.
    #[must_use]
    pub fn pieces(&self, player: Player) -> Bitboard {
        match player {
            Player::First => self.white,
            Player::Second => self.black,
        }
    }

    /// What stands on `sq`, if anything (White first if both claim it).
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<(Player, Piece)> {
        let kind = if self.knights.contains(sq) {
            Piece::Knight
        } else {
            Piece::Man
        };
        if self.white.contains(sq) {
            Some((Player::First, kind))
        } else if self.black.contains(sq) {
            Some((Player::Second, kind))
        } else {
            None
        }
    }
}

/// Why a [`Setup`] is not a position the rules allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// One square holds pieces of both sides.
    #[error("{square} holds both a White and a Black piece")]
    Overlap {
        /// The square.
        square: Square,
    },
    /// A square is marked as a knight but holds no piece.
    #[error("{square} is marked as a knight but holds no piece")]
    StrayKnight {
        /// The square.
        square: Square,
    },
    /// A side has more pieces of a kind than it starts with (pieces are never gained).
    #[error("{} has {count} {}, but a side starts with {max} and never gains pieces", side_name(*player), piece.plural(), max = piece.start_count())]
    TooMany {
        /// The side.
        player: Player,
        /// The kind of piece.
        piece: Piece,
        /// How many it has.
        count: u32,
    },
    /// More than two castle moves used (S8).
    #[error("{} has used {count} castle moves, but at most 2 are allowed (S8)", side_name(*player))]
    CastleMoves {
        /// The side.
        player: Player,
        /// The count given.
        count: u8,
    },
    /// Both squares of a side's own castle are taken by its own pieces, which no game
    /// reaches (a piece that ends in its own castle must leave it next turn, S10).
    #[error("{} has pieces on both squares of its own castle, which no game reaches (S10)", side_name(*player))]
    OwnCastleFull {
        /// The side.
        player: Player,
    },
}

/// `White` or `Black`.
pub(crate) fn side_name(player: Player) -> &'static str {
    match player {
        Player::First => "White",
        Player::Second => "Black",
    }
}
