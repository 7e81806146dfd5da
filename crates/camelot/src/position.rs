//! [`Position`]: a checked Camelot position — board, side to move, castle moves used —
//! and playing moves on it.

use std::fmt;

use game::Player;

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::setup::{PositionError, Setup, side_name};
use crate::square::{RANKS, Square, rank_span};
use crate::zobrist;

/// The two kinds of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    /// A knight: may combine canters and jumps in a knight's charge (R4).
    Knight = 0,
    /// A man.
    Man = 1,
}

impl Piece {
    /// `knight` or `man`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Piece::Knight => "knight",
            Piece::Man => "man",
        }
    }

    /// `knights` or `men`.
    #[must_use]
    pub const fn plural(self) -> &'static str {
        match self {
            Piece::Knight => "knights",
            Piece::Man => "men",
        }
    }

    /// How many of this kind each side starts with.
    #[must_use]
    pub const fn start_count(self) -> u32 {
        match self {
            Piece::Knight => 4,
            Piece::Man => 10,
        }
    }

    /// The position-string letter: `N`/`M` for White, `n`/`m` for Black.
    #[must_use]
    pub const fn letter(self, player: Player) -> char {
        match (self, player) {
            (Piece::Knight, Player::First) => 'N',
            (Piece::Man, Player::First) => 'M',
            (Piece::Knight, Player::Second) => 'n',
            (Piece::Man, Player::Second) => 'm',
        }
    }
}

/// The castle `player` defends: White's F1+G1, Black's F16+G16.
#[must_use]
pub const fn castle(player: Player) -> Bitboard {
    match player {
        Player::First => Bitboard::WHITE_CASTLE,
        Player::Second => Bitboard::BLACK_CASTLE,
    }
}

/// A legal Camelot position: where the pieces stand, who is to move, how many castle
/// moves each side has used (S8) and the plies since the last capture or castle entry
/// (D3). The duty to leave one's own castle (S10) follows from the board: a side to move
/// with a piece in its own castle must move that piece out.
///
/// Built only from a checked [`Setup`] (or the start), so the board is always consistent.
///
/// ```
/// use camelot::Position;
///
/// let pos = Position::start();
/// assert_eq!(pos.legal_moves().len(), 100);
/// assert_eq!(pos.to_string().lines().nth(6).unwrap().trim_end(),
///            "  11  . . n m m m m m m n . .   11");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pieces: [Bitboard; 2],
    knights: Bitboard,
    side: Player,
    castle_moves: [u8; 2],
    clock: u32,
    hash: u64,
}

impl Position {
    /// The start position, White to move.
    #[must_use]
    pub fn start() -> Position {
        Position::from_setup(Setup::start()).expect("the start position is legal")
    }

    /// Checks a [`Setup`] and makes it a position.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        if let Some(square) = (setup.white & setup.black).first() {
            return Err(PositionError::Overlap { square });
        }
        if let Some(square) = (setup.knights - setup.white - setup.black).first() {
            return Err(PositionError::StrayKnight { square });
        }
        for player in Player::BOTH {
            let own = setup.pieces(player);
            for (piece, set) in [
                (Piece::Knight, own & setup.knights),
                (Piece::Man, own - setup.knights),
            ] {
                if set.count() > piece.start_count() {
                    return Err(PositionError::TooMany {
                        player,
                        piece,
                        count: set.count(),
                    });
                }
            }
            let count = setup.castle_moves[player.index()];
            if count > 2 {
                return Err(PositionError::CastleMoves { player, count });
            }
            if (own & castle(player)).count() == 2 {
                return Err(PositionError::OwnCastleFull { player });
            }
        }
        let mut pos = Position {
            pieces: [setup.white, setup.black],
            knights: setup.knights,
            side: setup.side_to_move,
            castle_moves: setup.castle_moves,
            clock: setup.clock,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The position as an unchecked [`Setup`].
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            white: self.pieces[0],
            black: self.pieces[1],
            knights: self.knights,
            side_to_move: self.side,
            castle_moves: self.castle_moves,
            clock: self.clock,
        }
    }

    /// The player to move.
    #[must_use]
    pub const fn side_to_move(&self) -> Player {
        self.side
    }

    /// The pieces of `player`.
    #[must_use]
    pub const fn pieces(&self, player: Player) -> Bitboard {
        self.pieces[player.index()]
    }

    /// Every piece on the board.
    #[must_use]
    pub const fn occupied(&self) -> Bitboard {
        self.pieces[0].union(self.pieces[1])
    }

    /// The knights of both sides.
    #[must_use]
    pub const fn knights(&self) -> Bitboard {
        self.knights
    }

    /// The men of both sides.
    #[must_use]
    pub const fn men(&self) -> Bitboard {
        self.occupied().minus(self.knights)
    }

    /// What stands on `sq`.
    #[must_use]
    pub const fn piece_at(&self, sq: Square) -> Option<(Player, Piece)> {
        let kind = if self.knights.contains(sq) {
            Piece::Knight
        } else {
            Piece::Man
        };
        if self.pieces[0].contains(sq) {
            Some((Player::First, kind))
        } else if self.pieces[1].contains(sq) {
            Some((Player::Second, kind))
        } else {
            None
        }
    }

    /// Castle moves `player` has used (at most 2, S8).
    #[must_use]
    pub const fn castle_moves(&self, player: Player) -> u8 {
        self.castle_moves[player.index()]
    }

    /// Plies since the last capture or move onto an opponent's castle square (D3).
    #[must_use]
    pub const fn clock(&self) -> u32 {
        self.clock
    }

    /// The Zobrist hash: pieces, side to move and castle moves used (not the clock).
    #[must_use]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash computed from scratch; always equal to [`Position::hash`].
    #[must_use]
    pub fn compute_hash(&self) -> u64 {
        let mut hash = 0;
        for player in Player::BOTH {
            for sq in self.pieces(player) {
                let kind = if self.knights.contains(sq) {
                    Piece::Knight
                } else {
                    Piece::Man
                };
                hash ^= zobrist::piece(player, kind, sq);
            }
            hash ^= zobrist::castle_moves(player, self.castle_moves(player));
        }
        if self.side == Player::Second {
            hash ^= zobrist::black_to_move();
        }
        hash
    }

    /// The same position for repetition (D2): pieces, side to move, castle moves used.
    #[must_use]
    pub fn same_position(&self, other: &Position) -> bool {
        self.hash == other.hash
            && self.pieces == other.pieces
            && self.knights == other.knights
            && self.side == other.side
            && self.castle_moves == other.castle_moves
    }

    /// The side to move's piece in its own castle, which it must move out (S10).
    #[must_use]
    pub fn must_leave_castle(&self) -> Option<Square> {
        (self.pieces(self.side) & castle(self.side)).first()
    }

    /// Plays `mv`, which must be legal here (check with [`Position::is_legal`]); an
    /// illegal move leaves an unspecified but consistent-looking position.
    pub fn play_unchecked(&mut self, mv: Move) {
        let me = self.side;
        let them = me.other();
        let from = Bitboard::from_square(mv.from);
        let to = Bitboard::from_square(mv.to);
        debug_assert!(
            self.pieces(me).contains(mv.from),
            "no piece to move: {mv:?}"
        );
        let kind = if self.knights.contains(mv.from) {
            Piece::Knight
        } else {
            Piece::Man
        };
        let moved = from ^ to;
        self.pieces[me.index()] ^= moved;
        if kind == Piece::Knight {
            self.knights ^= moved;
        }
        self.hash ^= zobrist::piece(me, kind, mv.from) ^ zobrist::piece(me, kind, mv.to);

        if mv.captured.any() {
            for sq in mv.captured & self.pieces(them) {
                let kind = if self.knights.contains(sq) {
                    Piece::Knight
                } else {
                    Piece::Man
                };
                self.hash ^= zobrist::piece(them, kind, sq);
            }
            self.pieces[them.index()] = self.pieces(them) - mv.captured;
            self.knights = self.knights - mv.captured;
        }

        let enemy_castle = castle(them);
        if enemy_castle.contains(mv.from) && enemy_castle.contains(mv.to) {
            let used = &mut self.castle_moves[me.index()];
            self.hash ^= zobrist::castle_moves(me, *used);
            *used += 1;
            self.hash ^= zobrist::castle_moves(me, *used);
        }
        if mv.captured.any() || enemy_castle.contains(mv.to) {
            self.clock = 0;
        } else {
            self.clock = self.clock.saturating_add(1);
        }
        self.side = them;
        self.hash ^= zobrist::black_to_move();
    }

    /// The position after `mv`, or why `mv` is not legal here.
    pub fn play(&self, mv: Move) -> Result<Position, crate::MoveError> {
        if !self.is_legal(mv) {
            return Err(crate::notation::explain_illegal(self, mv));
        }
        let mut next = *self;
        next.play_unchecked(mv);
        Ok(next)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

/// Draws the board in the style of the rules' diagram, one character per square.
pub(crate) fn draw_board(f: &mut fmt::Formatter<'_>, cell: impl Fn(Square) -> char) -> fmt::Result {
    const FILES_LINE: &str = "      A B C D E F G H I J K L";
    writeln!(f, "{FILES_LINE}")?;
    for rank in (0..RANKS).rev() {
        let (lo, hi) = rank_span(rank);
        write!(f, "{:>4}  ", rank + 1)?;
        for file in 0..12 {
            match Square::new(file, rank) {
                Some(sq) if (lo..=hi).contains(&file) => write!(f, "{} ", cell(sq))?,
                _ => f.write_str("  ")?,
            }
        }
        writeln!(f, "{:>4}", rank + 1)?;
    }
    write!(f, "{FILES_LINE}")
}

impl fmt::Display for Position {
    /// The board as in the rules' diagram (`N`/`M` White knight/man, `n`/`m` Black,
    /// `.` empty), then who is to move and the counters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        draw_board(f, |sq| match self.piece_at(sq) {
            Some((player, piece)) => piece.letter(player),
            None => '.',
        })?;
        writeln!(f)?;
        write!(
            f,
            "{} to move; castle moves used: White {}, Black {}; {} plies without capture or castle entry",
            side_name(self.side),
            self.castle_moves[0],
            self.castle_moves[1],
            self.clock
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_matches_the_rules_diagram() {
        let text = format!("\n{}", Position::start());
        let expected = r"
      A B C D E F G H I J K L
  16            . .             16
  15      . . . . . . . .       15
  14    . . . . . . . . . .     14
  13  . . . . . . . . . . . .   13
  12  . . . . . . . . . . . .   12
  11  . . n m m m m m m n . .   11
  10  . . . n m m m m n . . .   10
   9  . . . . . . . . . . . .    9
   8  . . . . . . . . . . . .    8
   7  . . . N M M M M N . . .    7
   6  . . N M M M M M M N . .    6
   5  . . . . . . . . . . . .    5
   4  . . . . . . . . . . . .    4
   3    . . . . . . . . . .      3
   2      . . . . . . . .        2
   1            . .              1
      A B C D E F G H I J K L
White to move; castle moves used: White 0, Black 0; 0 plies without capture or castle entry";
        assert_eq!(text, expected);
    }

    #[test]
    fn start_has_four_knights_and_ten_men_each() {
        let pos = Position::start();
        for player in Player::BOTH {
            assert_eq!((pos.pieces(player) & pos.knights()).count(), 4);
            assert_eq!((pos.pieces(player) & pos.men()).count(), 10);
        }
        assert_eq!(pos.hash(), pos.compute_hash());
        assert_eq!(pos.must_leave_castle(), None);
    }

    #[test]
    fn setups_that_break_the_rules_are_refused() {
        let mut setup = Setup::start();
        setup.castle_moves = [3, 0];
        assert!(matches!(
            Position::from_setup(setup),
            Err(PositionError::CastleMoves { .. })
        ));
        let mut setup = Setup::start();
        let d6: Square = "D6".parse().unwrap();
        let e6: Square = "E6".parse().unwrap();
        setup.white = setup.white.without(d6).without(e6) | Bitboard::WHITE_CASTLE;
        let err = Position::from_setup(setup).unwrap_err();
        assert_eq!(
            err,
            PositionError::OwnCastleFull {
                player: Player::First
            }
        );
        assert!(err.to_string().contains("own castle"), "{err}");
        let mut setup = Setup::start();
        setup.knights = setup.knights.with("A4".parse().unwrap());
        assert!(matches!(
            Position::from_setup(setup),
            Err(PositionError::StrayKnight { .. })
        ));
        let mut setup = Setup::start();
        setup.knights = setup.knights.with("D6".parse().unwrap());
        let err = Position::from_setup(setup).unwrap_err();
        assert_eq!(
            err.to_string(),
            "White has 5 knights, but a side starts with 4 and never gains pieces"
        );
        let mut setup = Setup::start();
        for square in ["D4", "E4", "F4", "G4"] {
            setup.white = setup.white.with(square.parse().unwrap());
        }
        let err = Position::from_setup(setup).unwrap_err();
        assert_eq!(
            err.to_string(),
            "White has 14 men, but a side starts with 10 and never gains pieces"
        );
    }
}
