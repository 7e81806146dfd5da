//! The board as a front end draws it, whatever the game: squares by file and rank, what
//! stands on each, which squares are special, and the squares a move touches. The
//! [`Board`] trait gives every game inside [`AnyGame`] (and `AnyGame` itself) this
//! geometry, so code that stays generic over the game for speed (the terminal game, the
//! match runner) draws and names squares the same way.

use camelot::Camelot;
use game::{Game, Player};
use serde::{Deserialize, Serialize};
use tafl::Tafl;

use crate::{AnyGame, AnyMove, MoveInfo};

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

    /// The character [`BoardView::pieces`](crate::BoardView::pieces) gives the piece of
    /// `owner`: the kind's initial (`a`, `d`, `k`, `n`, `m`), upper case for the first
    /// player's.
    #[must_use]
    pub const fn initial(self, owner: Player) -> char {
        let initial = match self {
            PieceKind::Attacker => 'a',
            PieceKind::Defender => 'd',
            PieceKind::King => 'k',
            PieceKind::Knight => 'n',
            PieceKind::Man => 'm',
        };
        match owner {
            Player::First => initial.to_ascii_uppercase(),
            Player::Second => initial,
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

/// A game a board can show and a front end can drive: its geometry, its moves as
/// [`MoveInfo`], and the way to and from [`AnyGame`]. Implemented by the games an
/// `AnyGame` holds ([`Tafl`], [`Camelot`]) and by `AnyGame`.
pub trait Board: Game {
    /// Files of the board's frame (tafl 11, Camelot 12).
    fn files(&self) -> u8;

    /// Ranks of the board's frame (tafl 11, Camelot 16).
    fn ranks(&self) -> u8;

    /// Whether `sq` is a square of the board (Camelot's frame has cut corners).
    fn exists(&self, sq: Square) -> bool;

    /// What stands on `sq` and how it is marked.
    fn cell(&self, sq: Square) -> Cell;

    /// The square's name in the game's notation (`d1`, `F16`).
    fn square_name(&self, sq: Square) -> String;

    /// Reads a square name (any case); `None` if it names no square of the board.
    fn parse_square(&self, text: &str) -> Option<Square>;

    /// The geometry of a legal move here (before it is played).
    fn move_info(&self, mv: Self::Move) -> MoveInfo;

    /// Every legal move with its geometry (empty when the game is over).
    fn legal_moves_info(&self) -> Vec<MoveInfo> {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.into_iter().map(|mv| self.move_info(mv)).collect()
    }

    /// Appends a legal move here to `out` in the compact wire form
    /// ([`MoveInfo::wire`]): what serialising that gives.
    fn write_move_wire(&self, mv: Self::Move, out: &mut String) {
        let info = self.move_info(mv);
        push_move_wire(
            out,
            self.files(),
            |out| out.push_str(&info.text),
            info.from,
            info.to,
            info.path.iter().copied(),
            info.captures.iter().copied(),
        );
    }

    /// Every legal move in the compact wire form, as a JSON array (`[]` when the game is
    /// over): the text that [`Board::legal_moves_info`], each move in the form of
    /// [`MoveInfo::wire`], serialises to, written straight from the rules' move list. The
    /// server sends it to the player to move after every move, so nothing is built per
    /// move on the way.
    fn legal_moves_wire(&self) -> String {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        wire_list(moves.into_iter(), |mv, out| self.write_move_wire(mv, out))
    }

    /// The moves played since the start, in notation with captures.
    fn move_texts(&self) -> Vec<String>;

    /// The position this game started from, as a position string.
    fn start_position_string(&self) -> String;

    /// A copy of this game as an [`AnyGame`].
    fn to_any(&self) -> AnyGame;

    /// The game of this type inside `any`, or `None` if it holds another.
    fn from_any(any: AnyGame) -> Option<Self>;

    /// The move of this game inside `mv`, or `None` if it is another game's.
    fn move_from_any(mv: AnyMove) -> Option<Self::Move>;
}

/// The JSON array of `moves`, each written by `write` in the wire form.
fn wire_list<M>(
    moves: impl ExactSizeIterator<Item = M>,
    mut write: impl FnMut(M, &mut String),
) -> String {
    let mut out = String::with_capacity(2 + moves.len() * 32);
    out.push('[');
    for (i, mv) in moves.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(mv, &mut out);
    }
    out.push(']');
    out
}

/// Appends one move in the compact wire form ([`MoveInfo::wire`]); `text` writes the
/// move's notation, which never needs escaping (letters, digits, `-`, `x`).
fn push_move_wire(
    out: &mut String,
    files: u8,
    text: impl FnOnce(&mut String),
    from: Square,
    to: Square,
    path: impl IntoIterator<Item = Square>,
    captures: impl IntoIterator<Item = Square>,
) {
    out.push_str("[\"");
    text(out);
    out.push_str("\",");
    push_index(out, files, from);
    out.push(',');
    push_index(out, files, to);
    out.push(',');
    push_indices(out, files, captures);
    // The path only where it is more than its two ends.
    let mut path = path.into_iter();
    let ends = (path.next(), path.next());
    match (ends, path.next()) {
        ((Some(a), Some(b)), None) if a == from && b == to => {}
        ((a, b), c) => {
            out.push(',');
            push_indices(out, files, a.into_iter().chain(b).chain(c).chain(path));
        }
    }
    out.push(']');
}

fn push_indices(out: &mut String, files: u8, squares: impl IntoIterator<Item = Square>) {
    out.push('[');
    for (i, sq) in squares.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_index(out, files, sq);
    }
    out.push(']');
}

/// Appends a square as its cell index (`rank * files + file`).
fn push_index(out: &mut String, files: u8, sq: Square) {
    /// The numbers up to 255 (every index of a 12 x 16 frame), written once.
    static NUMBERS: std::sync::LazyLock<Vec<String>> =
        std::sync::LazyLock::new(|| (0..=u8::MAX).map(|i| i.to_string()).collect());
    let index = usize::from(sq.rank) * usize::from(files) + usize::from(sq.file);
    match NUMBERS.get(index) {
        Some(text) => out.push_str(text),
        None => {
            use std::fmt::Write as _;
            let _ = write!(out, "{index}");
        }
    }
}

/// Appends a Camelot move in the wire form, given its path (`None`: a move with no
/// path here, written `from-to`).
fn push_camelot_wire(
    game: &Camelot,
    mv: camelot::Move,
    path: Option<camelot::notation::Path>,
    out: &mut String,
) {
    use std::fmt::Write as _;
    let (from, to) = (Square::from(mv.from), Square::from(mv.to));
    let captures = mv.captured.squares().map(Square::from);
    match path {
        Some(path) => {
            let squares = std::iter::once(path.from)
                .chain(path.steps.iter().map(|step| step.to))
                .map(Square::from);
            push_move_wire(
                out,
                game.files(),
                // Writing to a String cannot fail.
                |out| {
                    let _ = write!(out, "{path}");
                },
                from,
                to,
                squares,
                captures,
            );
        }
        None => push_move_wire(
            out,
            game.files(),
            |out| out.push_str(&game.position().format_move(mv)),
            from,
            to,
            [from, to],
            captures,
        ),
    }
}

fn square_name(first_file: u8, sq: Square) -> String {
    let file = first_file.saturating_add(sq.file);
    format!("{}{}", file as char, u16::from(sq.rank) + 1)
}

pub(crate) fn to_tafl(sq: Square) -> Option<tafl::Square> {
    (sq.file < tafl::SIZE && sq.rank < tafl::SIZE).then(|| tafl::Square::new(sq.file, sq.rank))
}

pub(crate) fn to_camelot(sq: Square) -> Option<camelot::Square> {
    camelot::Square::new(sq.file, sq.rank)
}

impl Board for Tafl {
    fn files(&self) -> u8 {
        tafl::SIZE
    }

    fn ranks(&self) -> u8 {
        tafl::SIZE
    }

    fn exists(&self, sq: Square) -> bool {
        to_tafl(sq).is_some()
    }

    fn cell(&self, sq: Square) -> Cell {
        let Some(square) = to_tafl(sq) else {
            return Cell::MISSING;
        };
        let piece = self.position().piece_at(square).map(|piece| match piece {
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

    fn square_name(&self, sq: Square) -> String {
        square_name(b'a', sq)
    }

    fn parse_square(&self, text: &str) -> Option<Square> {
        text.trim().parse::<tafl::Square>().ok().map(Square::from)
    }

    fn move_info(&self, mv: tafl::Move) -> MoveInfo {
        let captured = self.position().captures_of(mv, self.rules());
        let (from, to) = (Square::from(mv.from), Square::from(mv.to));
        MoveInfo {
            text: tafl::notation::format_move(mv, captured),
            from,
            to,
            path: vec![from, to],
            captures: captured.squares().map(Square::from).collect(),
        }
    }

    fn write_move_wire(&self, mv: tafl::Move, out: &mut String) {
        let captured = self.position().captures_of(mv, self.rules());
        let (from, to) = (Square::from(mv.from), Square::from(mv.to));
        push_move_wire(
            out,
            self.files(),
            |out| tafl::notation::push_move(out, mv, captured),
            from,
            to,
            [from, to],
            captured.squares().map(Square::from),
        );
    }

    fn move_texts(&self) -> Vec<String> {
        Tafl::move_texts(self)
    }

    fn start_position_string(&self) -> String {
        self.start_position().to_string_with_side()
    }

    fn to_any(&self) -> AnyGame {
        AnyGame::Tafl(self.clone())
    }

    fn from_any(any: AnyGame) -> Option<Tafl> {
        match any {
            AnyGame::Tafl(game) => Some(game),
            AnyGame::Camelot(_) => None,
        }
    }

    fn move_from_any(mv: AnyMove) -> Option<tafl::Move> {
        match mv {
            AnyMove::Tafl(mv) => Some(mv),
            AnyMove::Camelot(_) => None,
        }
    }
}

impl Board for Camelot {
    fn files(&self) -> u8 {
        camelot::square::FILES
    }

    fn ranks(&self) -> u8 {
        camelot::square::RANKS
    }

    fn exists(&self, sq: Square) -> bool {
        to_camelot(sq).is_some()
    }

    fn cell(&self, sq: Square) -> Cell {
        let Some(square) = to_camelot(sq) else {
            return Cell::MISSING;
        };
        let piece = self.position().piece_at(square).map(|(player, piece)| {
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

    fn square_name(&self, sq: Square) -> String {
        square_name(b'A', sq)
    }

    fn parse_square(&self, text: &str) -> Option<Square> {
        text.trim()
            .parse::<camelot::Square>()
            .ok()
            .map(Square::from)
    }

    fn move_info(&self, mv: camelot::Move) -> MoveInfo {
        let position = self.position();
        let (from, to) = (Square::from(mv.from), Square::from(mv.to));
        let (text, path) = match position.move_path(mv) {
            Some(path) => {
                let squares = std::iter::once(path.from)
                    .chain(path.steps.iter().map(|step| step.to))
                    .map(Square::from)
                    .collect();
                (path.to_string(), squares)
            }
            None => (position.format_move(mv), vec![from, to]),
        };
        MoveInfo {
            text,
            from,
            to,
            path,
            captures: mv.captured.squares().map(Square::from).collect(),
        }
    }

    fn write_move_wire(&self, mv: camelot::Move, out: &mut String) {
        push_camelot_wire(self, mv, self.position().move_path(mv), out);
    }

    fn legal_moves_wire(&self) -> String {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        // The paths of all the moves with one look at the position.
        let paths = self.position().legal_move_paths(&moves);
        wire_list(moves.into_iter().zip(paths), |(mv, path), out| {
            push_camelot_wire(self, mv, path, out);
        })
    }

    fn move_texts(&self) -> Vec<String> {
        Camelot::move_texts(self)
    }

    fn start_position_string(&self) -> String {
        self.start_position().fen()
    }

    fn to_any(&self) -> AnyGame {
        AnyGame::Camelot(self.clone())
    }

    fn from_any(any: AnyGame) -> Option<Camelot> {
        match any {
            AnyGame::Camelot(game) => Some(game),
            AnyGame::Tafl(_) => None,
        }
    }

    fn move_from_any(mv: AnyMove) -> Option<camelot::Move> {
        match mv {
            AnyMove::Camelot(mv) => Some(mv),
            AnyMove::Tafl(_) => None,
        }
    }
}
