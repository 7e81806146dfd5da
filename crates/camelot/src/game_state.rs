//! [`Camelot`]: a game in progress — the position, the moves played and what the rules
//! need from the past (repetition, D2) — implementing [`game::Game`].

use game::{EndReason, Game, GameKind, Outcome, Player};

use crate::fen::FenError;
use crate::moves::Move;
use crate::notation::{Illegal, MoveError};
use crate::position::Position;

/// A Camelot game: the current [`Position`] and every position before it, so that moves
/// can be taken back and repetitions (D2) counted. Moves are played by copying the
/// position onto an undo stack (copy-make).
///
/// ```
/// use camelot::Camelot;
/// use game::{Game, Player};
///
/// let mut game = Camelot::start();
/// assert!(game.parse_move("F6xD8xD10xF12").is_err()); // nothing to jump yet
/// let mv = game.parse_move("D6-F8").unwrap();
/// game.play(mv);
/// assert_eq!(game.to_move(), Player::Second);
/// assert_eq!(game.undo(), Some(mv));
/// assert_eq!(game.position_string(), camelot::START_FEN);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Camelot {
    position: Position,
    history: Vec<(Position, Move)>,
}

impl Default for Camelot {
    fn default() -> Camelot {
        Camelot::start()
    }
}

impl Camelot {
    /// A new game from the start position.
    #[must_use]
    pub fn start() -> Camelot {
        Camelot::new(Position::start())
    }

    /// A new game from `position`.
    #[must_use]
    pub fn new(position: Position) -> Camelot {
        Camelot {
            position,
            history: Vec::new(),
        }
    }

    /// A new game from a position string (see [`crate::fen`]).
    pub fn from_position_string(text: &str) -> Result<Camelot, FenError> {
        Ok(Camelot::new(text.parse()?))
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    #[must_use]
    pub fn start_position(&self) -> &Position {
        self.history.first().map_or(&self.position, |(pos, _)| pos)
    }

    /// The moves played, in order.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.history.iter().map(|(_, mv)| *mv)
    }

    /// The moves played in WCF notation, each written in the position it was played in.
    #[must_use]
    pub fn move_texts(&self) -> Vec<String> {
        self.history
            .iter()
            .map(|(pos, mv)| pos.format_move(*mv))
            .collect()
    }

    /// How many times the current position has occurred in this game, now included
    /// (D2). Only positions since the last capture or castle entry can match, as those
    /// moves cannot be undone on the board.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let window = (self.position.clock() as usize).min(self.history.len());
        let len = self.history.len();
        1 + (2..=window)
            .step_by(2)
            .filter(|back| self.history[len - back].0.same_position(&self.position))
            .count()
    }

    fn over_without_generation(&self) -> bool {
        self.position.static_outcome().is_some() || self.repetitions() >= 3
    }

    /// Plays a move given in WCF notation (any valid path); returns it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, MoveError> {
        let mv = self.parse_move(text)?;
        self.play(mv);
        Ok(mv)
    }
}

impl Game for Camelot {
    type Move = Move;
    type MoveError = MoveError;

    fn kind(&self) -> GameKind {
        GameKind::Camelot
    }

    fn to_move(&self) -> Player {
        self.position.side_to_move()
    }

    fn ply(&self) -> usize {
        self.history.len()
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if !self.over_without_generation() {
            self.position.legal_moves_into(out);
        }
    }

    fn is_legal(&self, mv: Move) -> bool {
        !self.over_without_generation() && self.position.is_legal(mv)
    }

    fn play(&mut self, mv: Move) {
        debug_assert!(
            self.position
                .pieces(self.position.side_to_move())
                .contains(mv.from),
            "no piece of the side to move on {}",
            mv.from
        );
        let before = self.position;
        self.position.play_unchecked(mv);
        self.history.push((before, mv));
    }

    fn undo(&mut self) -> Option<Move> {
        let (before, mv) = self.history.pop()?;
        self.position = before;
        Some(mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        let pos = &self.position;
        crate::outcome::board_outcome(pos)
            .or_else(|| crate::outcome::no_move_outcome(pos))
            .or_else(|| (self.repetitions() >= 3).then(|| Outcome::draw(EndReason::Repetition)))
            .or_else(|| {
                (pos.clock() >= crate::outcome::FIFTY_MOVE_PLIES)
                    .then(|| Outcome::draw(EndReason::FiftyMoves))
            })
    }

    fn hash(&self) -> u64 {
        self.position.hash()
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        if let Some(outcome) = self.outcome() {
            return Err(MoveError::Illegal {
                text: text.trim().to_owned(),
                reason: Illegal::GameOver(describe(outcome)),
            });
        }
        self.position.parse_move(text)
    }

    fn format_move(&self, mv: Move) -> String {
        self.position.format_move(mv)
    }

    fn position_string(&self) -> String {
        self.position.fen()
    }

    fn captures(&self, mv: Move) -> u32 {
        mv.capture_count()
    }

    /// Every way to win (W1 two pieces in the castle, W2 elimination and W3 a blocked
    /// opponent, which wins only with two pieces) needs two pieces: a side with one or
    /// none cannot win.
    fn can_win(&self, player: Player) -> bool {
        self.position.pieces(player).count() >= 2
    }
}

/// `White won (castle)`, `draw (repetition)`…
pub(crate) fn describe(outcome: Outcome) -> String {
    match outcome.winner {
        Some(player) => format!(
            "{} won ({})",
            crate::setup::side_name(player),
            outcome.reason
        ),
        None => format!("draw ({})", outcome.reason),
    }
}

impl game::MoveBound for Camelot {
    /// None: a Camelot jump sequence can branch at every landing square, so the number
    /// of capturing moves has no small bound. Camelot counts are checked as they grow.
    fn move_bound(&self, _: game::Player) -> Option<u64> {
        None
    }
}
