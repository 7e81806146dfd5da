//! Kingstable's Camelot position string, a FEN for the 160-square board.
//!
//! ```text
//! 2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2 w 0 0 0
//! ```
//!
//! Five fields separated by spaces:
//!
//! 1. The board, ranks 16 down to 1 separated by `/`. Each rank lists only the squares
//!    that exist on it, from its first file to its last (rank 16: F16 G16; rank 15:
//!    C15..J15; rank 14: B14..K14; ranks 13..4: A..L; then 10, 8 and 2 squares again):
//!    `N`/`M` a White knight/man, `n`/`m` a Black knight/man, a number for that many
//!    empty squares.
//! 2. The side to move, `w` or `b`.
//! 3. Castle moves White has used, 0..2 (S8).
//! 4. Castle moves Black has used, 0..2.
//! 5. Plies since the last capture or move onto an opponent's castle square (D3's
//!    counter; the game is drawn when it reaches 100).
//!
//! On input, fields 3–5 may be left off together (castle moves and counter 0) or field 5
//! alone (counter 0); letters are case-sensitive (they tell the colours apart), the side
//! letter is not.
//!
//! The counter is part of the string so that a position handed to another program (an
//! engine, a server restarting a game) keeps its fifty-move obligation; it is not part of
//! the position for repetition (D2), nor of the hash.

use std::fmt::Write as _;
use std::str::FromStr;

use game::Player;

use crate::bitboard::Bitboard;
use crate::position::{Piece, Position};
use crate::setup::{PositionError, Setup};
use crate::square::{RANKS, Square, rank_span};

/// The position string of the start position.
pub const START_FEN: &str =
    "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2 w 0 0 0";

/// Why a position string cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The string is empty.
    #[error("empty position string")]
    Empty,
    /// Wrong number of space-separated fields.
    #[error(
        "position string has {found} fields, expected 2 (board, side), 4 (… castle moves used by White and Black) or 5 (… plies since capture or castle entry)"
    )]
    FieldCount {
        /// How many were found.
        found: usize,
    },
    /// Wrong number of ranks.
    #[error("the board has {found} ranks, expected 16 (rank 16 first, separated by '/')")]
    RankCount {
        /// How many were found.
        found: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    #[error("rank {rank}: unexpected {found:?} (expected N, M, n, m or a number of empty squares)")]
    BadChar {
        /// The 1-based rank.
        rank: u8,
        /// The character.
        found: char,
    },
    /// A rank that describes too many or too few squares.
    #[error("rank {rank} describes {found} squares, but it has {expected} ({first}..{last})")]
    RankLength {
        /// The 1-based rank.
        rank: u8,
        /// Squares described.
        found: usize,
        /// Squares the rank has.
        expected: usize,
        /// Its first square.
        first: Square,
        /// Its last square.
        last: Square,
    },
    /// A run of empty squares written as `0` or with a leading zero.
    #[error("rank {rank}: empty-square count {found:?} must be a number from 1 to 12")]
    BadCount {
        /// The 1-based rank.
        rank: u8,
        /// The text.
        found: String,
    },
    /// The side to move is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', found {0:?}")]
    Side(String),
    /// A castle-move count that is not a number.
    #[error("castle moves used by {side} must be 0, 1 or 2, found {found:?}")]
    CastleMoves {
        /// `White` or `Black`.
        side: &'static str,
        /// The text.
        found: String,
    },
    /// The counter is not a number.
    #[error("plies since capture or castle entry must be a number, found {0:?}")]
    Clock(String),
    /// The string reads but the position breaks the rules.
    #[error(transparent)]
    Position(#[from] PositionError),
}

fn rank_squares(rank: u8) -> impl Iterator<Item = Square> {
    let (lo, hi) = rank_span(rank);
    (lo..=hi).filter_map(move |file| Square::new(file, rank))
}

fn parse_rank(text: &str, rank: u8, setup: &mut Setup) -> Result<(), FenError> {
    let rank_no = rank + 1;
    let squares: Vec<Square> = rank_squares(rank).collect();
    let mut at = 0usize;
    let mut chars = text.char_indices().peekable();
    let place = |at: usize, player: Player, piece: Piece, setup: &mut Setup| {
        if let Some(&sq) = squares.get(at) {
            match player {
                Player::First => setup.white = setup.white.with(sq),
                Player::Second => setup.black = setup.black.with(sq),
            }
            if piece == Piece::Knight {
                setup.knights = setup.knights.with(sq);
            }
        }
    };
    while let Some((start, c)) = chars.next() {
        match c {
            'N' => place(at, Player::First, Piece::Knight, setup),
            'M' => place(at, Player::First, Piece::Man, setup),
            'n' => place(at, Player::Second, Piece::Knight, setup),
            'm' => place(at, Player::Second, Piece::Man, setup),
            '0'..='9' => {
                let mut end = start + 1;
                while let Some(&(i, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = i + 1;
                    chars.next();
                }
                let digits = &text[start..end];
                let bad = || FenError::BadCount {
                    rank: rank_no,
                    found: digits.to_owned(),
                };
                let n: usize = digits.parse().map_err(|_| bad())?;
                if n == 0 || n > 12 || digits.starts_with('0') {
                    return Err(bad());
                }
                at += n;
                continue;
            }
            other => {
                return Err(FenError::BadChar {
                    rank: rank_no,
                    found: other,
                });
            }
        }
        at += 1;
    }
    if at != squares.len() {
        return Err(FenError::RankLength {
            rank: rank_no,
            found: at,
            expected: squares.len(),
            first: squares[0],
            last: squares[squares.len() - 1],
        });
    }
    Ok(())
}

impl FromStr for Setup {
    type Err = FenError;

    /// Reads a position string without checking the position against the rules.
    fn from_str(s: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.is_empty() {
            return Err(FenError::Empty);
        }
        if ![2, 4, 5].contains(&fields.len()) {
            return Err(FenError::FieldCount {
                found: fields.len(),
            });
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != RANKS as usize {
            return Err(FenError::RankCount { found: ranks.len() });
        }
        let mut setup = Setup {
            white: Bitboard::EMPTY,
            black: Bitboard::EMPTY,
            knights: Bitboard::EMPTY,
            side_to_move: Player::First,
            castle_moves: [0, 0],
            clock: 0,
        };
        for (i, text) in ranks.iter().enumerate() {
            parse_rank(text, RANKS - 1 - i as u8, &mut setup)?;
        }
        setup.side_to_move = match fields[1].to_ascii_lowercase().as_str() {
            "w" => Player::First,
            "b" => Player::Second,
            _ => return Err(FenError::Side(fields[1].to_owned())),
        };
        if fields.len() >= 4 {
            for (i, side) in ["White", "Black"].into_iter().enumerate() {
                let text = fields[2 + i];
                setup.castle_moves[i] =
                    text.parse::<u8>().ok().filter(|&n| n <= 2).ok_or_else(|| {
                        FenError::CastleMoves {
                            side,
                            found: text.to_owned(),
                        }
                    })?;
            }
        }
        if fields.len() == 5 {
            setup.clock = fields[4]
                .parse()
                .map_err(|_| FenError::Clock(fields[4].to_owned()))?;
        }
        Ok(setup)
    }
}

impl FromStr for Position {
    type Err = FenError;

    /// Reads and checks a position string.
    fn from_str(s: &str) -> Result<Position, FenError> {
        Ok(Position::from_setup(s.parse::<Setup>()?)?)
    }
}

impl Setup {
    /// The position string (all five fields).
    #[must_use]
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(96);
        for rank in (0..RANKS).rev() {
            let mut empty = 0;
            for sq in rank_squares(rank) {
                match self.piece_at(sq) {
                    Some((player, piece)) => {
                        if empty > 0 {
                            write!(out, "{empty}").expect("writing to a String");
                            empty = 0;
                        }
                        out.push(piece.letter(player));
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(out, "{empty}").expect("writing to a String");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let side = match self.side_to_move {
            Player::First => 'w',
            Player::Second => 'b',
        };
        write!(
            out,
            " {side} {} {} {}",
            self.castle_moves[0], self.castle_moves[1], self.clock
        )
        .expect("writing to a String");
        out
    }
}

impl Position {
    /// The position string (see the [module documentation](crate::fen)).
    #[must_use]
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// Reads and checks a position string; same as `str::parse`.
    pub fn from_fen(text: &str) -> Result<Position, FenError> {
        text.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_error_is_said_once() {
        // The reason is the whole message, and not also a source: printing the error
        // with its sources (as `anyhow` does) says it once.
        for (fen, reason) in [
            (
                "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMNN3/2NMMMMMMN2/12/12/10/8/2 w",
                "White has 5 knights, but a side starts with 4 and never gains pieces",
            ),
            (
                "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3MMMMMM3/2MMMMMMMM2/12/12/10/8/2 w",
                "White has 14 men, but a side starts with 10 and never gains pieces",
            ),
        ] {
            let err = fen.parse::<Position>().unwrap_err();
            assert_eq!(err.to_string(), reason);
            assert!(std::error::Error::source(&err).is_none());
        }
    }

    #[test]
    fn start_round_trips() {
        let pos: Position = START_FEN.parse().unwrap();
        assert_eq!(pos, Position::start());
        assert_eq!(Position::start().fen(), START_FEN);
    }

    #[test]
    fn short_forms_default_the_counters() {
        let board = START_FEN.split(' ').next().unwrap();
        let pos: Position = format!("{board} B").parse().unwrap();
        assert_eq!(pos.side_to_move(), Player::Second);
        assert_eq!(pos.castle_moves(Player::First), 0);
        let pos: Position = format!("{board} w 1 2").parse().unwrap();
        assert_eq!(pos.castle_moves(Player::Second), 2);
        assert_eq!(pos.clock(), 0);
    }

    #[test]
    fn errors_name_the_rank_and_the_problem() {
        let err = "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/11/8/2 w"
            .parse::<Setup>()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "rank 3 describes 11 squares, but it has 10 (B3..K3)"
        );
        let err = "2/8/10/12/12/2nmmmmmmn2/3nmxmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2 w"
            .parse::<Setup>()
            .unwrap_err();
        assert_eq!(
            err,
            FenError::BadChar {
                rank: 10,
                found: 'x'
            }
        );
        let err = "2/8/10 w".parse::<Setup>().unwrap_err();
        assert_eq!(err, FenError::RankCount { found: 3 });
        let board = START_FEN.split(' ').next().unwrap();
        assert!(matches!(
            format!("{board} x").parse::<Setup>(),
            Err(FenError::Side(_))
        ));
        assert!(matches!(
            format!("{board} w 3 0").parse::<Setup>(),
            Err(FenError::CastleMoves { side: "White", .. })
        ));
        assert!(matches!(
            format!("{board} w 0 0 x").parse::<Setup>(),
            Err(FenError::Clock(_))
        ));
        assert!(matches!(
            format!("{board} w 0").parse::<Setup>(),
            Err(FenError::FieldCount { found: 3 })
        ));
        assert!(matches!(
            "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/02 w"
                .parse::<Setup>(),
            Err(FenError::BadCount { rank: 1, .. })
        ));
    }
}
