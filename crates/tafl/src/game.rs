//! A tafl game in progress: position, repetition history and undo stack, implementing
//! [`game::Game`].

use game::{EndReason, Game, GameKind, Outcome, Player};

use crate::bitboard::Bitboard;
use crate::notation::{self, MoveText, ParseMoveError};
use crate::position::{IllegalReason, Move, Position};
use crate::rules::Rules;

/// What playing a move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayResult {
    /// The pieces captured (custodial and shieldwall).
    pub captured: Bitboard,
    /// How the game ended, if this move ended it.
    pub outcome: Option<Outcome>,
}

#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    position: Position,
    outcome: Option<Outcome>,
    irreversible: usize,
    captured: Bitboard,
}

/// A tafl game: the rules, the current position, and the history the rules need.
///
/// ```
/// use game::{EndReason, Game, Player};
/// use tafl::{Rules, Tafl};
///
/// let mut game = Tafl::new(Rules::COPENHAGEN);
/// for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
///     let mv = game.parse_move(text).unwrap();
///     game.play(mv);
/// }
/// let capture = game.parse_move("g3-e3").unwrap();
/// assert_eq!(game.format_move(capture), "g3-e3xe2");
/// let result = game.play_move(capture).unwrap();
/// assert_eq!(result.captured.count(), 1);
/// assert_eq!(game.outcome(), None);
/// assert_eq!(game.to_move(), Player::Second);
/// ```
#[derive(Clone, Debug)]
pub struct Tafl {
    rules: Rules,
    position: Position,
    outcome: Option<Outcome>,
    /// The hash of every position since the start; `hashes[i]` is after `i` plies.
    hashes: Vec<u64>,
    /// Index in `hashes` of the first position after the last capture (TAFL.md 10d):
    /// earlier positions can never occur again.
    irreversible: usize,
    undo: Vec<Undo>,
}

/// Why a move text was not accepted in a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move.
    #[error(transparent)]
    Syntax(#[from] ParseMoveError),
    /// The move is not legal here.
    #[error("{text} is illegal: {reason}")]
    Illegal {
        /// The move as given.
        text: String,
        /// Why.
        reason: IllegalReason,
    },
    /// The game is already over.
    #[error("{text}: the game is already over")]
    GameOver {
        /// The move as given.
        text: String,
    },
    /// The captures the text lists are not the ones the move makes.
    #[error("{text}: the move captures {actual}, not {claimed}")]
    CaptureMismatch {
        /// The move as given.
        text: String,
        /// What the text claimed.
        claimed: String,
        /// What the rules capture.
        actual: String,
    },
    /// The text says the move captures the king (`xKi7`), and it does not.
    #[error("{text}: the move does not capture the king on {claimed}")]
    KingNotCaptured {
        /// The move as given.
        text: String,
        /// The king's square the text names.
        claimed: String,
    },
}

impl Tafl {
    /// A new game from the start position.
    #[must_use]
    pub fn new(rules: Rules) -> Tafl {
        Tafl::from_position(rules, Position::start())
    }

    /// A game starting from `position`. If the side to move there has no move, the game
    /// is over at once (TAFL.md 9); the other end-of-game tests need a move and do not
    /// apply to a position set up by hand.
    #[must_use]
    pub fn from_position(rules: Rules, position: Position) -> Tafl {
        let outcome = (!position.has_legal_move())
            .then(|| Outcome::loss(position.side_to_move(), EndReason::NoLegalMoves));
        Tafl {
            rules,
            position,
            outcome,
            hashes: vec![position.hash()],
            irreversible: 0,
            undo: Vec::new(),
        }
    }

    /// The rules this game is played under.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The current position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far, first move first.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Move> + '_ {
        self.undo.iter().map(|u| u.mv)
    }

    /// The position the game started from.
    #[must_use]
    pub fn start_position(&self) -> &Position {
        self.undo.first().map_or(&self.position, |u| &u.position)
    }

    /// The moves played so far in notation, with their captures (`g3-e3xe2`).
    #[must_use]
    pub fn move_texts(&self) -> Vec<String> {
        self.undo
            .iter()
            .map(|u| notation::format_move(u.mv, u.captured))
            .collect()
    }

    /// The pieces the last move captured (empty at the start).
    #[must_use]
    pub fn last_captures(&self) -> Bitboard {
        self.undo.last().map_or(Bitboard::EMPTY, |u| u.captured)
    }

    /// Plays `mv` if it is legal, returning its captures and the outcome.
    pub fn play_move(&mut self, mv: Move) -> Result<PlayResult, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver {
                text: mv.to_string(),
            });
        }
        self.position
            .check_move(mv)
            .map_err(|reason| MoveError::Illegal {
                text: mv.to_string(),
                reason,
            })?;
        let captured = self.apply(mv);
        Ok(PlayResult {
            captured,
            outcome: self.outcome,
        })
    }

    fn apply(&mut self, mv: Move) -> Bitboard {
        let before = self.position;
        let captured = self.position.play_unchecked(mv, self.rules);
        self.undo.push(Undo {
            mv,
            position: before,
            outcome: self.outcome,
            irreversible: self.irreversible,
            captured,
        });
        self.hashes.push(self.position.hash());
        if captured.any() {
            self.irreversible = self.hashes.len() - 1;
        }
        self.outcome = self
            .position
            .outcome_after(mv, self.rules)
            .or_else(|| self.repetition())
            .or_else(|| {
                (!self.position.has_legal_move())
                    .then(|| Outcome::loss(self.position.side_to_move(), EndReason::NoLegalMoves))
            });
        captured
    }

    /// TAFL.md 10: the third occurrence of the current position, judged by the rules'
    /// repetition rule.
    fn repetition(&self) -> Option<Outcome> {
        if !self.rules.repetition_ends_game() {
            return None;
        }
        let last = self.hashes.len() - 1;
        let current = self.hashes[last];
        // Same side to move: every second earlier position.
        let earlier = (self.irreversible..last)
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&i| self.hashes[i] == current)
            .count();
        if earlier < 2 {
            return None;
        }
        let mover = self.position.side_to_move().other();
        self.rules.repetition.outcome(mover)
    }

    /// Reads `text` and checks it against the current position. With `strict`, the
    /// captures listed must be exactly the captures made (none listed = none made);
    /// otherwise they are checked only when listed.
    pub fn parse_move_text(&self, text: &str, strict: bool) -> Result<Move, MoveError> {
        let parsed: MoveText = text.parse()?;
        let mv = parsed.mv;
        if self.outcome.is_some() {
            return Err(MoveError::GameOver {
                text: text.to_owned(),
            });
        }
        self.position
            .check_move(mv)
            .map_err(|reason| MoveError::Illegal {
                text: text.to_owned(),
                reason,
            })?;
        let claimed = match parsed.captures {
            Some(set) => Some(set),
            None if strict => Some(Bitboard::EMPTY),
            None => None,
        };
        if let Some(king) = parsed.king {
            let mut after = self.position;
            after.play_unchecked(mv, self.rules);
            let captured = after
                .outcome_after(mv, self.rules)
                .is_some_and(|o| o.reason == EndReason::KingCaptured);
            if !captured || self.position.king() != king {
                return Err(MoveError::KingNotCaptured {
                    text: text.to_owned(),
                    claimed: king.to_string(),
                });
            }
        }
        if let Some(claimed) = claimed {
            let actual = self.position.captures_of(mv, self.rules);
            if actual != claimed {
                return Err(MoveError::CaptureMismatch {
                    text: text.to_owned(),
                    claimed: notation::format_squares(claimed),
                    actual: notation::format_squares(actual),
                });
            }
        }
        Ok(mv)
    }
}

impl Game for Tafl {
    type Move = Move;
    type MoveError = MoveError;

    fn kind(&self) -> GameKind {
        self.rules.variant.kind()
    }

    fn to_move(&self) -> Player {
        self.position.side_to_move()
    }

    fn ply(&self) -> usize {
        self.undo.len()
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.outcome.is_none() {
            self.position.legal_moves_into(out);
        }
    }

    fn count_legal_moves(&self) -> usize {
        if self.outcome.is_some() {
            0
        } else {
            self.position.count_moves() as usize
        }
    }

    fn is_legal(&self, mv: Move) -> bool {
        self.outcome.is_none() && self.position.is_legal(mv)
    }

    fn play(&mut self, mv: Move) {
        debug_assert!(
            self.is_legal(mv),
            "illegal move {mv} in {:?}",
            self.position
        );
        self.apply(mv);
    }

    fn undo(&mut self) -> Option<Move> {
        let undo = self.undo.pop()?;
        self.position = undo.position;
        self.outcome = undo.outcome;
        self.irreversible = undo.irreversible;
        self.hashes.pop();
        Some(undo.mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn hash(&self) -> u64 {
        self.position.hash()
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.parse_move_text(text, false)
    }

    fn parse_recorded_move(&self, text: &str) -> Result<Move, MoveError> {
        self.parse_move_text(text, true)
    }

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(mv, self.position.captures_of(mv, self.rules))
    }

    fn position_string(&self) -> String {
        self.position.to_string_with_side()
    }

    fn captures(&self, mv: Move) -> u32 {
        self.position.captures_of(mv, self.rules).count()
    }

    /// The defenders can win while their king stands (he may yet escape); the attackers
    /// while they have a piece: even a lone attacker wins if the defenders shut
    /// themselves in (TAFL.md 9a), so only an attacker side with no piece cannot.
    fn can_win(&self, player: Player) -> bool {
        player != crate::position::ATTACKERS || !self.position.attackers().is_empty()
    }
}

impl game::MoveBound for Tafl {
    /// A tafl piece moves along its rank or its file: at most 10 squares each way on the
    /// 11x11 board, so 20 moves. Pieces are never gained, so 20 moves per piece of the
    /// side (the king counts for the defenders) bounds every later position too.
    fn move_bound(&self, player: Player) -> Option<u64> {
        let position = self.position();
        let pieces = if player == Player::First {
            position.attackers().count()
        } else {
            position.defenders().count() + 1
        };
        Some(20 * u64::from(pieces))
    }
}
