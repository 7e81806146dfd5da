//! The runtime game type over Kingstable's three games (in the spirit of shakmaty's
//! `VariantPosition`): [`AnyGame`] is a Fetlar, Copenhagen or Camelot game chosen at run
//! time, built from a [`GameKind`] and a position string, that lists its legal moves with
//! what a board needs to draw and choose them ([`MoveInfo`]), plays moves given as text
//! with a checked, typed error, and draws its board ([`Cell`]). It implements
//! [`game::Game`], so generic code also runs on it; hot paths (perft, search) run on the
//! game inside through [`with_game!`].
//!
//! ```
//! use games::{AnyGame, Game, GameKind, Square};
//!
//! let mut game = AnyGame::start(GameKind::Copenhagen);
//! for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
//!     game.try_play(text).unwrap();
//! }
//! let capture = game.try_play("g3-e3").unwrap();
//! assert_eq!(capture.text, "g3-e3xe2");
//! assert_eq!(capture.captures, [Square::new(4, 1)]);
//! assert_eq!(game.square_name(capture.captures[0]), "e2");
//!
//! // A bad move changes nothing and says why.
//! let before = game.position_string();
//! assert!(game.try_play("a1-a2").is_err());
//! assert_eq!(game.position_string(), before);
//! ```

mod board;
mod error;
pub mod record;
mod view;

use game::GameKind as Kind;
use serde::{Deserialize, Serialize};

pub use board::{Board, Cell, Mark, PieceKind, Square};
pub use error::{MoveError, PositionError, RulesError};
pub use game::{EndReason, Game, GameKind, Outcome, Player};
pub use view::BoardView;

use camelot::Camelot;
use tafl::{Rules, Tafl, Variant};

/// A game of any kind: the runtime type over Fetlar, Copenhagen and Camelot. Implements
/// [`game::Game`] with [`AnyMove`] as its move.
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Fetlar or Copenhagen (the rules inside say which).
    Tafl(Tafl),
    /// Camelot.
    Camelot(Camelot),
}

/// A move of an [`AnyGame`]: the move of the game inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyMove {
    /// A tafl move.
    Tafl(tafl::Move),
    /// A Camelot move.
    Camelot(camelot::Move),
}

impl From<tafl::Move> for AnyMove {
    fn from(mv: tafl::Move) -> AnyMove {
        AnyMove::Tafl(mv)
    }
}

impl From<camelot::Move> for AnyMove {
    fn from(mv: camelot::Move) -> AnyMove {
        AnyMove::Camelot(mv)
    }
}

impl From<Tafl> for AnyGame {
    fn from(game: Tafl) -> AnyGame {
        AnyGame::Tafl(game)
    }
}

impl From<Camelot> for AnyGame {
    fn from(game: Camelot) -> AnyGame {
        AnyGame::Camelot(game)
    }
}

/// Runs `$body` with `$g` bound to the game inside an [`AnyGame`] (a `Tafl` or a
/// `Camelot`; by value, reference or mutable reference as `$any` is given), so generic
/// code (`fn f<G: Game>`, with whatever further bounds the two games meet) runs on the
/// concrete game at full speed.
///
/// ```
/// use games::{AnyGame, GameKind, with_game};
///
/// let mut game = AnyGame::start(GameKind::Camelot);
/// let leaves = with_game!(&mut game, g => game::perft(g, 2));
/// assert_eq!(leaves, 10_026);
/// ```
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::AnyGame::Tafl($g) => $body,
            $crate::AnyGame::Camelot($g) => $body,
        }
    };
}

/// A legal move as a board needs it to draw and choose it; sent to browsers as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MoveInfo {
    /// The move in the game's notation with captures (`g3-e3xe2`, `D7-F5-H7-H9xF11xD11`):
    /// what [`Game::parse_move`] reads back.
    pub text: String,
    /// Where the piece starts.
    pub from: Square,
    /// Where it ends.
    pub to: Square,
    /// Every square the moving piece stands on, `from` first and `to` last (tafl:
    /// `[from, to]`; Camelot: each step of a canter or jump sequence).
    pub path: Vec<Square>,
    /// The squares of the pieces this move captures (before it is played).
    pub captures: Vec<Square>,
}

impl MoveInfo {
    /// The move in the compact wire form the server sends a player's legal moves in:
    /// `[text, from, to, captures]`, with `path` as a fifth element only where it is
    /// more than `[from, to]` (Camelot's canters and jumps), and every square as its
    /// cell index `rank * files + file` (as in [`BoardView::cells`]). For example
    /// `["d1-d3",3,25,[]]` on an 11 x 11 board.
    #[must_use]
    pub fn wire(&self, files: u8) -> WireMove {
        let index = |sq: &Square| u16::from(sq.rank) * u16::from(files) + u16::from(sq.file);
        let plain = self.path.len() == 2 && self.path[0] == self.from && self.path[1] == self.to;
        WireMove {
            text: self.text.clone(),
            from: index(&self.from),
            to: index(&self.to),
            captures: self.captures.iter().map(index).collect(),
            path: (!plain).then(|| self.path.iter().map(index).collect()),
        }
    }

    /// The move a [`WireMove`] on a board of `files` files stands for; `None` when an
    /// index is past what a board can have.
    #[must_use]
    pub fn from_wire(wire: &WireMove, files: u8) -> Option<MoveInfo> {
        let square = |index: u16| -> Option<Square> {
            let files = u16::from(files.max(1));
            Some(Square::new(
                u8::try_from(index % files).ok()?,
                u8::try_from(index / files).ok()?,
            ))
        };
        let (from, to) = (square(wire.from)?, square(wire.to)?);
        let path = match &wire.path {
            Some(path) => path.iter().map(|&i| square(i)).collect::<Option<_>>()?,
            None => vec![from, to],
        };
        Some(MoveInfo {
            text: wire.text.clone(),
            from,
            to,
            path,
            captures: wire
                .captures
                .iter()
                .map(|&i| square(i))
                .collect::<Option<_>>()?,
        })
    }
}

/// A move in the compact wire form ([`MoveInfo::wire`]), serialised as a JSON array of
/// four or five elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireMove {
    /// The move in notation with captures.
    pub text: String,
    /// The index of the square it starts on.
    pub from: u16,
    /// The index of the square it ends on.
    pub to: u16,
    /// The indices of the squares of the pieces it captures.
    pub captures: Vec<u16>,
    /// Every square the piece stands on, where that is more than `[from, to]`.
    pub path: Option<Vec<u16>>,
}

impl Serialize for WireMove {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple as _;
        let mut tuple = serializer.serialize_tuple(4 + usize::from(self.path.is_some()))?;
        tuple.serialize_element(&self.text)?;
        tuple.serialize_element(&self.from)?;
        tuple.serialize_element(&self.to)?;
        tuple.serialize_element(&self.captures)?;
        if let Some(path) = &self.path {
            tuple.serialize_element(path)?;
        }
        tuple.end()
    }
}

impl<'de> Deserialize<'de> for WireMove {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = WireMove;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("[text, from, to, captures] or [text, from, to, captures, path]")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<WireMove, A::Error> {
                use serde::de::Error as _;
                let missing = |n: usize| A::Error::invalid_length(n, &self);
                let text = seq.next_element()?.ok_or_else(|| missing(0))?;
                let from = seq.next_element()?.ok_or_else(|| missing(1))?;
                let to = seq.next_element()?.ok_or_else(|| missing(2))?;
                let captures = seq.next_element()?.ok_or_else(|| missing(3))?;
                let path = seq.next_element()?;
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(6, &self));
                }
                Ok(WireMove {
                    text,
                    from,
                    to,
                    captures,
                    path,
                })
            }
        }
        deserializer.deserialize_seq(Visitor)
    }
}

/// Why a list of move texts does not play ([`AnyGame::play_texts`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ({text}): {error}")]
pub struct PlayTextsError {
    /// The 1-based number of the move in the list.
    pub number: usize,
    /// The move as given.
    pub text: String,
    /// Why it does not play.
    pub error: MoveError,
}

/// Options beyond the game's standard rules (the default is the rules as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Variations {
    /// True only to replay historical tafl records: a third repetition does not end the
    /// game (TAFL.md 10e). Camelot's repetition draw (D2) always applies.
    pub repetition_off: bool,
    /// Another tafl repetition rule than the variant's own (TAFL.md 10), as an OpenTafl
    /// rules string's `tfr:` may name; `None` for the variant's rule. Ignored for Camelot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<tafl::Repetition>,
}

fn tafl_rules(kind: Kind, variations: Variations) -> Option<Rules> {
    let variant = match kind {
        Kind::Fetlar => Variant::Fetlar,
        Kind::Copenhagen => Variant::Copenhagen,
        Kind::Camelot => return None,
    };
    let rules = Rules::new(variant);
    Some(match (variations.repetition_off, variations.repetition) {
        (true, _) => rules.with_repetition(false),
        (false, Some(rule)) => rules.with_repetition_rule(rule),
        (false, None) => rules,
    })
}

/// The tafl position `board` describes with `side` to move; a board without a side
/// (`side` `None`) is checked and then refused for the missing side.
fn tafl_position(
    kind: Kind,
    board: &str,
    side: Option<Player>,
) -> Result<tafl::Position, PositionError> {
    match side {
        Some(side) => Ok(tafl::Position::from_opentafl(board, side)?),
        None => {
            tafl::Position::from_opentafl(board, tafl::ATTACKERS)?;
            Err(PositionError::MissingSide { kind })
        }
    }
}

/// The Camelot letter of a side in a position string.
fn camelot_side(side: Player) -> &'static str {
    match side {
        Player::First => "w",
        Player::Second => "b",
    }
}

/// The Camelot game whose board alone is `board`, with `side` to move, no castle moves
/// used and the counter at 0; without a side, the board is checked (for either side to
/// move) and then refused for the missing side.
fn camelot_board(board: &str, side: Option<Player>) -> Result<Camelot, PositionError> {
    if let Some(side) = side {
        let text = format!("{board} {} 0 0 0", camelot_side(side));
        return Ok(Camelot::from_position_string(&text)?);
    }
    let first = camelot_board(board, Some(Player::First));
    match first {
        Ok(_) => Err(PositionError::MissingSide {
            kind: Kind::Camelot,
        }),
        Err(err) => match camelot_board(board, Some(Player::Second)) {
            Ok(_) => Err(PositionError::MissingSide {
                kind: Kind::Camelot,
            }),
            Err(_) => Err(err),
        },
    }
}

impl AnyGame {
    /// A game of `kind` from its start position, under the standard rules.
    #[must_use]
    pub fn start(kind: GameKind) -> AnyGame {
        AnyGame::start_with(kind, Variations::default())
    }

    /// A game of `kind` from its start position, with `variations`.
    #[must_use]
    pub fn start_with(kind: GameKind, variations: Variations) -> AnyGame {
        match tafl_rules(kind, variations) {
            Some(rules) => AnyGame::Tafl(Tafl::new(rules)),
            None => AnyGame::Camelot(Camelot::start()),
        }
    }

    /// A game of `kind` from its position string (tafl: the OpenTafl board and the side
    /// to move, `… attackers`; Camelot: Kingstable's FEN), under the standard rules.
    pub fn from_position(kind: GameKind, position: &str) -> Result<AnyGame, PositionError> {
        AnyGame::from_position_with(kind, position, Variations::default())
    }

    /// Like [`AnyGame::from_position`], with `variations`.
    pub fn from_position_with(
        kind: GameKind,
        position: &str,
        variations: Variations,
    ) -> Result<AnyGame, PositionError> {
        AnyGame::from_position_and_side(kind, position, None, variations)
    }

    /// A game from a position string whose side to move may also be given apart (a
    /// command line's `--side`): a board alone takes `side`; a full position string
    /// keeps its own side, and a different `side` is refused as a conflict. What is wrong
    /// with a malformed board is reported before a missing side.
    pub fn from_position_and_side(
        kind: GameKind,
        position: &str,
        side: Option<Player>,
        variations: Variations,
    ) -> Result<AnyGame, PositionError> {
        let text = position.trim();
        let board_only = !text.contains(char::is_whitespace);
        let game = match tafl_rules(kind, variations) {
            Some(rules) => {
                let position = if board_only {
                    tafl_position(kind, text, side)?
                } else {
                    tafl::Position::from_string_with_side(text)?
                };
                AnyGame::Tafl(Tafl::from_position(rules, position))
            }
            None if board_only => AnyGame::Camelot(camelot_board(text, side)?),
            None => AnyGame::Camelot(Camelot::from_position_string(text)?),
        };
        if let Some(given) = side
            && game.start_side() != given
        {
            return Err(PositionError::SideConflict {
                kind,
                written: game.start_side(),
                given,
            });
        }
        Ok(game)
    }

    /// The side to move in the start position.
    fn start_side(&self) -> Player {
        match self {
            AnyGame::Tafl(g) => g.start_position().side_to_move(),
            AnyGame::Camelot(g) => g.start_position().side_to_move(),
        }
    }

    /// Which game this is.
    #[must_use]
    pub fn kind(&self) -> GameKind {
        Game::kind(self)
    }

    /// The variations the game is played with.
    #[must_use]
    pub fn variations(&self) -> Variations {
        match self {
            AnyGame::Tafl(g) => {
                let rule = g.rules().repetition;
                Variations {
                    repetition_off: rule == tafl::Repetition::Ignored,
                    repetition: (rule != tafl::Repetition::Ignored
                        && rule != tafl::Repetition::of_variant(g.rules().variant))
                    .then_some(rule),
                }
            }
            AnyGame::Camelot(_) => Variations::default(),
        }
    }

    /// The same game (its start position and moves) under another tafl repetition rule.
    ///
    /// # Errors
    /// [`RulesError::NotTafl`] for Camelot, whose third repetition is always a draw;
    /// [`RulesError::Replay`] if a played move no longer replays (the old rule let the
    /// game go on where the new one ended it).
    pub fn with_repetition_rule(&self, rule: tafl::Repetition) -> Result<AnyGame, RulesError> {
        let AnyGame::Tafl(game) = self else {
            return Err(RulesError::NotTafl);
        };
        let mut copy = Tafl::from_position(
            game.rules().with_repetition_rule(rule),
            *game.start_position(),
        );
        for text in game.move_texts() {
            let mv = copy
                .parse_move(&text)
                .map_err(|err| RulesError::Replay(err.to_string()))?;
            if copy.outcome().is_some() {
                return Err(RulesError::Replay(format!(
                    "{text} after the end of the game"
                )));
            }
            copy.play(mv);
        }
        Ok(AnyGame::Tafl(copy))
    }

    /// The tafl game inside, if this is one.
    #[must_use]
    pub fn as_tafl(&self) -> Option<&Tafl> {
        match self {
            AnyGame::Tafl(g) => Some(g),
            AnyGame::Camelot(_) => None,
        }
    }

    /// The Camelot game inside, if this is one.
    #[must_use]
    pub fn as_camelot(&self) -> Option<&Camelot> {
        match self {
            AnyGame::Camelot(g) => Some(g),
            AnyGame::Tafl(_) => None,
        }
    }

    /// The position this game started from, as a position string.
    #[must_use]
    pub fn start_position_string(&self) -> String {
        with_game!(self, g => g.start_position_string())
    }

    /// Every legal move with its geometry (empty when the game is over).
    #[must_use]
    pub fn legal_moves_info(&self) -> Vec<MoveInfo> {
        Board::legal_moves_info(self)
    }

    /// The geometry of a legal move here (before it is played). Panics if `mv` is a
    /// move of the other game family.
    #[must_use]
    pub fn move_info(&self, mv: AnyMove) -> MoveInfo {
        match (self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.move_info(mv),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.move_info(mv),
            _ => self.wrong_family(mv),
        }
    }

    /// Reads a move given as text and plays it, returning its geometry; on error nothing
    /// changes.
    pub fn try_play(&mut self, text: &str) -> Result<MoveInfo, MoveError> {
        let mv = self.parse_move(text)?;
        let info = self.move_info(mv);
        self.play(mv);
        Ok(info)
    }

    /// Plays move texts one after the other (a `--moves` option, an opening, a protocol's
    /// `moves` list), returning each one's geometry. If one does not play, nothing
    /// changes and the error says which.
    pub fn play_texts<S: AsRef<str>>(
        &mut self,
        texts: &[S],
    ) -> Result<Vec<MoveInfo>, PlayTextsError> {
        let mut copy = self.clone();
        let mut played = Vec::with_capacity(texts.len());
        for (i, text) in texts.iter().enumerate() {
            let text = text.as_ref();
            let info = copy.try_play(text).map_err(|error| PlayTextsError {
                number: i + 1,
                text: text.to_owned(),
                error,
            })?;
            played.push(info);
        }
        *self = copy;
        Ok(played)
    }

    /// OpenTafl's rules string for this tafl game's rules and start position, and its
    /// current board (OpenTafl's position string, without the side); `None` for Camelot,
    /// which OpenTafl does not play.
    #[must_use]
    pub fn opentafl(&self) -> Option<(String, String)> {
        let game = self.as_tafl()?;
        Some((
            tafl::otg::rules_string_for(game.rules(), game.start_position()),
            game.position().to_opentafl(),
        ))
    }

    /// The moves played since the start, in notation with captures.
    #[must_use]
    pub fn move_texts(&self) -> Vec<String> {
        with_game!(self, g => g.move_texts())
    }

    /// The moves played since the start.
    #[must_use]
    pub fn moves(&self) -> Vec<AnyMove> {
        match self {
            AnyGame::Tafl(g) => g.moves().map(AnyMove::Tafl).collect(),
            AnyGame::Camelot(g) => g.moves().map(AnyMove::Camelot).collect(),
        }
    }

    /// Files of the board's frame (tafl 11, Camelot 12).
    #[must_use]
    pub fn files(&self) -> u8 {
        with_game!(self, g => g.files())
    }

    /// Ranks of the board's frame (tafl 11, Camelot 16).
    #[must_use]
    pub fn ranks(&self) -> u8 {
        with_game!(self, g => g.ranks())
    }

    /// Whether `sq` is a square of the board (Camelot's frame has cut corners).
    #[must_use]
    pub fn exists(&self, sq: Square) -> bool {
        with_game!(self, g => g.exists(sq))
    }

    /// What stands on `sq` and how it is marked.
    #[must_use]
    pub fn cell(&self, sq: Square) -> Cell {
        with_game!(self, g => g.cell(sq))
    }

    /// The square's name in the game's notation (`d1`, `F16`).
    #[must_use]
    pub fn square_name(&self, sq: Square) -> String {
        with_game!(self, g => g.square_name(sq))
    }

    /// Reads a square name (any case); `None` if it names no square of the board.
    #[must_use]
    pub fn parse_square(&self, text: &str) -> Option<Square> {
        with_game!(self, g => g.parse_square(text))
    }

    fn game_over(&self, text: &str) -> Option<MoveError> {
        self.outcome().map(|outcome| MoveError::GameOver {
            text: text.trim().to_owned(),
            kind: self.kind(),
            outcome,
        })
    }

    fn wrong_family(&self, mv: AnyMove) -> ! {
        panic!("{mv:?} is not a move of {}", self.kind())
    }
}

impl Game for AnyGame {
    type Move = AnyMove;
    type MoveError = MoveError;

    fn kind(&self) -> GameKind {
        with_game!(self, g => g.kind())
    }

    fn to_move(&self) -> Player {
        with_game!(self, g => g.to_move())
    }

    fn ply(&self) -> usize {
        with_game!(self, g => g.ply())
    }

    fn legal_moves(&self, out: &mut Vec<AnyMove>) {
        with_game!(self, g => {
            let mut moves = Vec::new();
            g.legal_moves(&mut moves);
            out.extend(moves.into_iter().map(AnyMove::from));
        });
    }

    fn count_legal_moves(&self) -> usize {
        with_game!(self, g => g.count_legal_moves())
    }

    fn is_legal(&self, mv: AnyMove) -> bool {
        match (self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.is_legal(mv),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.is_legal(mv),
            _ => false,
        }
    }

    fn play(&mut self, mv: AnyMove) {
        match (&mut *self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.play(mv),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.play(mv),
            _ => self.wrong_family(mv),
        }
    }

    fn undo(&mut self) -> Option<AnyMove> {
        with_game!(self, g => g.undo().map(AnyMove::from))
    }

    fn outcome(&self) -> Option<Outcome> {
        with_game!(self, g => g.outcome())
    }

    fn hash(&self) -> u64 {
        with_game!(self, g => g.hash())
    }

    fn parse_move(&self, text: &str) -> Result<AnyMove, MoveError> {
        if let Some(err) = self.game_over(text) {
            return Err(err);
        }
        Ok(with_game!(self, g => AnyMove::from(g.parse_move(text)?)))
    }

    fn parse_recorded_move(&self, text: &str) -> Result<AnyMove, MoveError> {
        if let Some(err) = self.game_over(text) {
            return Err(err);
        }
        Ok(with_game!(self, g => AnyMove::from(g.parse_recorded_move(text)?)))
    }

    fn format_move(&self, mv: AnyMove) -> String {
        match (self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.format_move(mv),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.format_move(mv),
            _ => self.wrong_family(mv),
        }
    }

    fn position_string(&self) -> String {
        with_game!(self, g => g.position_string())
    }

    fn captures(&self, mv: AnyMove) -> u32 {
        match (self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.captures(mv),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.captures(mv),
            _ => self.wrong_family(mv),
        }
    }

    fn can_win(&self, player: Player) -> bool {
        with_game!(self, g => g.can_win(player))
    }
}

impl Board for AnyGame {
    fn files(&self) -> u8 {
        AnyGame::files(self)
    }

    fn ranks(&self) -> u8 {
        AnyGame::ranks(self)
    }

    fn exists(&self, sq: Square) -> bool {
        AnyGame::exists(self, sq)
    }

    fn cell(&self, sq: Square) -> Cell {
        AnyGame::cell(self, sq)
    }

    fn square_name(&self, sq: Square) -> String {
        AnyGame::square_name(self, sq)
    }

    fn parse_square(&self, text: &str) -> Option<Square> {
        AnyGame::parse_square(self, text)
    }

    fn move_info(&self, mv: AnyMove) -> MoveInfo {
        AnyGame::move_info(self, mv)
    }

    fn write_move_wire(&self, mv: AnyMove, out: &mut String) {
        match (self, mv) {
            (AnyGame::Tafl(g), AnyMove::Tafl(mv)) => g.write_move_wire(mv, out),
            (AnyGame::Camelot(g), AnyMove::Camelot(mv)) => g.write_move_wire(mv, out),
            _ => self.wrong_family(mv),
        }
    }

    fn legal_moves_wire(&self) -> String {
        match self {
            AnyGame::Tafl(g) => g.legal_moves_wire(),
            AnyGame::Camelot(g) => g.legal_moves_wire(),
        }
    }

    fn move_texts(&self) -> Vec<String> {
        AnyGame::move_texts(self)
    }

    fn start_position_string(&self) -> String {
        AnyGame::start_position_string(self)
    }

    fn to_any(&self) -> AnyGame {
        self.clone()
    }

    fn from_any(any: AnyGame) -> Option<AnyGame> {
        Some(any)
    }

    fn move_from_any(mv: AnyMove) -> Option<AnyMove> {
        Some(mv)
    }
}
