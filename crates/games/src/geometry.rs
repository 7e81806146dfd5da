//! The board as a front end draws it, whatever the game: squares by file and rank, what
//! stands on each, which squares are special.

use game::Player;
use serde::{Deserialize, Serialize};

/// A square as a board draws it, whatever the game: 0-based file (`a`/`A` = 0) and rank
/// (rank 1 = 0). The name of a square depends on the game's notation, so the type does
/// not know it: it serialises as `{"file":3,"rank":0}`, and
/// [`AnyGame::square_name`](crate::AnyGame::square_name) names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Square {
    /// 0 = the first file.
    pub file: u8,
    /// 0 = rank 1.
    pub rank: u8,
}

impl Square {
    /// The square on `file` and `rank` (both 0-based).
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Square {
        Square { file, rank }
    }
}

impl From<tafl::Square> for Square {
    fn from(sq: tafl::Square) -> Square {
        Square::new(sq.file(), sq.rank())
    }
}

impl From<camelot::Square> for Square {
    fn from(sq: camelot::Square) -> Square {
        Square::new(sq.file(), sq.rank())
    }
}

/// The kinds of piece of all three games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PieceKind {
    /// Tafl: an attacker.
    Attacker,
    /// Tafl: a defender other than the king.
    Defender,
    /// Tafl: the king.
    King,
    /// Camelot: a knight.
    Knight,
    /// Camelot: a man.
    Man,
}

impl PieceKind {
    /// The letter a text board shows for the piece of `owner`: `X`, `O`, `K` in tafl;
    /// `N`, `M` for White and `n`, `m` for Black in Camelot (as in its position strings).
    #[must_use]
    pub const fn letter(self, owner: Player) -> char {
        match (self, owner) {
            (PieceKind::Attacker, _) => 'X',
            (PieceKind::Defender, _) => 'O',
            (PieceKind::King, _) => 'K',
            (PieceKind::Knight, Player::First) => 'N',
            (PieceKind::Man, Player::First) => 'M',
            (PieceKind::Knight, Player::Second) => 'n',
            (PieceKind::Man, Player::Second) => 'm',
        }
    }

    /// The lowercase name: `attacker`, `defender`, `king`, `knight`, `man`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            PieceKind::Attacker => "attacker",
            PieceKind::Defender => "defender",
            PieceKind::King => "king",
            PieceKind::Knight => "knight",
            PieceKind::Man => "man",
        }
    }
}

/// A square the rules treat specially, drawn so the player sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// An ordinary square.
    Plain,
    /// Tafl: the throne in the middle.
    Throne,
    /// Tafl: a corner, where the king escapes.
    Corner,
    /// Camelot: a square of this player's castle.
    Castle(Player),
}

/// What a board draws on one square of its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Cell {
    /// Whether the square is part of the board (Camelot's frame has cut corners).
    pub exists: bool,
    /// The piece on it: its owner and kind.
    pub piece: Option<(Player, PieceKind)>,
    /// Whether the square is special.
    pub mark: Mark,
}

impl Cell {
    /// A square of the frame that is not on the board.
    pub const MISSING: Cell = Cell {
        exists: false,
        piece: None,
        mark: Mark::Plain,
    };
}

pub(crate) fn to_tafl(sq: Square) -> Option<tafl::Square> {
    (sq.file < tafl::SIZE && sq.rank < tafl::SIZE).then(|| tafl::Square::new(sq.file, sq.rank))
}

pub(crate) fn to_camelot(sq: Square) -> Option<camelot::Square> {
    camelot::Square::new(sq.file, sq.rank)
}

pub(crate) fn tafl_cell(position: &tafl::Position, sq: Square) -> Cell {
    let Some(square) = to_tafl(sq) else {
        return Cell::MISSING;
    };
    let piece = position.piece_at(square).map(|piece| match piece {
        tafl::Piece::Attacker => (Player::First, PieceKind::Attacker),
        tafl::Piece::Defender => (Player::Second, PieceKind::Defender),
        tafl::Piece::King => (Player::Second, PieceKind::King),
    });
    let mark = if square == tafl::Square::THRONE {
        Mark::Throne
    } else if square.is_corner() {
        Mark::Corner
    } else {
        Mark::Plain
    };
    Cell {
        exists: true,
        piece,
        mark,
    }
}

pub(crate) fn camelot_cell(position: &camelot::Position, sq: Square) -> Cell {
    let Some(square) = to_camelot(sq) else {
        return Cell::MISSING;
    };
    let piece = position.piece_at(square).map(|(player, piece)| {
        let kind = match piece {
            camelot::Piece::Knight => PieceKind::Knight,
            camelot::Piece::Man => PieceKind::Man,
        };
        (player, kind)
    });
    let mark = Player::BOTH
        .into_iter()
        .find(|&p| camelot::castle(p).contains(square))
        .map_or(Mark::Plain, Mark::Castle);
    Cell {
        exists: true,
        piece,
        mark,
    }
}
