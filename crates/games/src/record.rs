//! The one replay path: a record's text in (an OpenTafl `.otg` record, a WCF score with
//! tags, or a move list), each game out as its start, its moves checked by the rules, and
//! how it ended — by the rules, or outside them as the record says (`timeout` or `---`
//! after the last move, or a result with a `Reason`/termination tag: time, resignation,
//! agreement, adjudication). And the way back: a game written as its own kind of record,
//! or as a move list.
//!
//! The text layer is [`game::record`]; each game's record code (`tafl::otg`,
//! `camelot::record`) knows its start-position tags, its tag style and its file
//! extension.
//!
//! ```
//! use games::record::{ReplayOptions, read, write};
//! use games::{EndReason, Game, GameKind, Player};
//!
//! let games = read(GameKind::Fetlar, "d1-d3 e5-e2 timeout\nd1-d3 d3-d1\n", ReplayOptions::default());
//! let first = games[0].replay.as_ref().unwrap();
//! assert_eq!(first.game.ply(), 2);
//! assert_eq!(first.outcome.unwrap().reason, EndReason::Timeout);
//! assert_eq!(first.outcome.unwrap().winner, Some(Player::Second));
//! let second = games[1].replay.as_ref().unwrap();
//! let fault = second.fault.as_ref().unwrap();
//! assert_eq!((fault.ply, fault.text.as_str()), (2, "d3-d1"));
//!
//! // Written as an OpenTafl record, the ending outside the rules is kept.
//! let text = write(&first.game, &[], first.outcome);
//! assert!(text.contains("[termination:time forfeit]"));
//! let again = read(GameKind::Fetlar, &text, ReplayOptions::default());
//! assert_eq!(again[0].replay.as_ref().unwrap().outcome, first.outcome);
//! ```

use std::fmt;

use game::record::{ReadGame, Record, RecordEnding, RecordError, outside_rules};
use game::{EndReason, Game, GameKind, Outcome};

pub use game::record::TagKey;

use crate::{AnyGame, MoveError, Variations};

/// How records are replayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Variations of the rules (repetition off for historical tafl records).
    pub variations: Variations,
    /// Accept tafl moves that leave their captures out (a move list typed by hand). By
    /// default the captures a record lists must be exactly the ones made, none listed
    /// claiming none.
    pub lenient_captures: bool,
}

/// Why a record's start position cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The tafl record's rules tag is refused or names another variant.
    #[error(transparent)]
    Tafl(#[from] tafl::otg::RecordRulesError),
    /// The Camelot score's `FEN` tag or first move does not fit.
    #[error(transparent)]
    Camelot(#[from] camelot::record::StartError),
}

/// What is wrong in a recorded game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The text of the game cannot be read (a token after its end, an unclosed
    /// comment…).
    #[error("{}", .0.message)]
    Text(RecordError),
    /// Its start position cannot be set up.
    #[error(transparent)]
    Start(#[from] StartError),
    /// A move is malformed, illegal, or lists the wrong captures.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// A move comes after the rules ended the game.
    #[error("a move after the end of the game ({}, {})", kind.status_name(Some(*outcome)), outcome.reason)]
    MoveAfterEnd {
        /// The game.
        kind: GameKind,
        /// How the rules ended it.
        outcome: Outcome,
    },
    /// `timeout` or `---` comes after the rules ended the game.
    #[error("the game was already over ({}, {})", kind.status_name(Some(*outcome)), outcome.reason)]
    EndingAfterEnd {
        /// The game.
        kind: GameKind,
        /// How the rules ended it.
        outcome: Outcome,
    },
}

/// The first thing wrong in a recorded game, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The 1-based ply of the move (or ending) at fault; 0 for the start position.
    pub ply: usize,
    /// The 1-based line of the file it is on.
    pub line: usize,
    /// The move or token as written (empty for the start position).
    pub text: String,
    /// What is wrong.
    pub error: ReplayError,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ply == 0 {
            write!(f, "line {}: {}", self.line, self.error)
        } else {
            write!(
                f,
                "line {}, ply {} ({}): {}",
                self.line, self.ply, self.text, self.error
            )
        }
    }
}

impl std::error::Error for Fault {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// A recorded game replayed by the rules.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The game at its start position.
    pub start: AnyGame,
    /// The game after every move that replayed (all of them unless there is a fault).
    pub game: AnyGame,
    /// How the game ended: by the rules, or outside them as the record states.
    pub outcome: Option<Outcome>,
    /// The first thing wrong, if anything is; nothing after it was replayed.
    pub fault: Option<Fault>,
}

/// One game of a file, replayed.
#[derive(Clone, Debug)]
pub struct GameRead {
    /// The 1-based number of the game in its file.
    pub index: usize,
    /// The 1-based line where it starts.
    pub line: usize,
    /// The tags and moves as written.
    pub record: Record,
    /// The game replayed, or why its start cannot be set up.
    pub replay: Result<Replay, Fault>,
}

/// Why [`load`] refuses a record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The text holds no game.
    #[error("the file holds no game")]
    Empty,
    /// The game does not replay.
    #[error(transparent)]
    Fault(#[from] Fault),
}

/// The game at the start of a record of `kind`: the position its tags set up (a tafl
/// `rules` tag, a Camelot `FEN` tag) or the start position.
pub fn start_of(
    kind: GameKind,
    record: &Record,
    variations: Variations,
) -> Result<AnyGame, StartError> {
    Ok(match AnyGame::start_with(kind, variations) {
        AnyGame::Tafl(game) => {
            let rules = game.rules();
            if variations.repetition_off || variations.repetition.is_some() {
                // The caller's rule stands over the record's.
                let position = tafl::otg::start_of(record, rules)?;
                AnyGame::Tafl(tafl::Tafl::from_position(rules, position))
            } else {
                // The record's own repetition rule (OpenTafl's `tfr:`), if it names one.
                let (rules, position) = tafl::otg::setup_of(record, rules)?;
                AnyGame::Tafl(tafl::Tafl::from_position(rules, position))
            }
        }
        AnyGame::Camelot(_) => AnyGame::Camelot(camelot::record::start_of(record)?),
    })
}

/// Replays one record under `kind`'s rules, move by move, to its ending. `Err` only when
/// its start position cannot be set up; a bad move is the replay's [`Replay::fault`].
pub fn replay(kind: GameKind, record: &Record, options: ReplayOptions) -> Result<Replay, Fault> {
    let start = start_of(kind, record, options.variations).map_err(|err| Fault {
        ply: 0,
        line: record.line,
        text: String::new(),
        error: err.into(),
    })?;
    let mut game = start.clone();
    let mut fault = None;
    let line_of = |i: usize| record.move_lines.get(i).copied().unwrap_or(record.line);
    for (i, text) in record.moves.iter().enumerate() {
        let at = |error: ReplayError| Fault {
            ply: i + 1,
            line: line_of(i),
            text: text.clone(),
            error,
        };
        if let Some(outcome) = game.outcome() {
            fault = Some(at(ReplayError::MoveAfterEnd { kind, outcome }));
            break;
        }
        let parsed = if options.lenient_captures {
            game.parse_move(text)
        } else {
            game.parse_recorded_move(text)
        };
        match parsed {
            Ok(mv) => game.play(mv),
            Err(err) => {
                fault = Some(at(err.into()));
                break;
            }
        }
    }
    let mut outcome = game.outcome();
    if fault.is_none() {
        let last_line = record
            .moves
            .len()
            .checked_sub(1)
            .map_or(record.line, line_of);
        match (outcome, record.ending) {
            (Some(done), Some(ending)) => {
                fault = Some(Fault {
                    ply: game.ply() + 1,
                    line: last_line,
                    text: ending_token(ending).to_owned(),
                    error: ReplayError::EndingAfterEnd {
                        kind,
                        outcome: done,
                    },
                });
            }
            (None, Some(ending)) => {
                let reason = match ending {
                    RecordEnding::Timeout => EndReason::Timeout,
                    RecordEnding::Resignation => EndReason::Resignation,
                };
                outcome = Some(Outcome::loss(game.to_move(), reason));
            }
            (None, None) => outcome = stated_outcome(record),
            (Some(_), None) => {}
        }
    }
    Ok(Replay {
        start,
        game,
        outcome,
        fault,
    })
}

/// The ending a record states when its moves do not end the game: its result, for the
/// reason its `Reason` tag (Kingstable's match records) or termination tag (Kingstable's
/// records, `time forfeit`…) names if that is an ending outside the rules; otherwise a
/// stated win was a resignation and a stated draw was agreed.
fn stated_outcome(record: &Record) -> Option<Outcome> {
    let winner = record.stated_result()?;
    let reason = record
        .tag("Reason")
        .and_then(|name| name.parse::<EndReason>().ok())
        .filter(|&reason| outside_rules(reason))
        .or_else(|| {
            record
                .tag("termination")
                .and_then(game::record::termination_reason)
        });
    Some(match winner {
        Some(player) => Outcome::win(player, reason.unwrap_or(EndReason::Resignation)),
        None => Outcome::draw(reason.unwrap_or(EndReason::Agreement)),
    })
}

fn ending_token(ending: RecordEnding) -> &'static str {
    match ending {
        RecordEnding::Timeout => "timeout",
        RecordEnding::Resignation => "---",
    }
}

/// Reads every game in `text` and replays each under `kind`'s rules. A game whose text
/// cannot be read, or that does not replay, carries its fault; the games after it are
/// read all the same.
#[must_use]
pub fn read(kind: GameKind, text: &str, options: ReplayOptions) -> Vec<GameRead> {
    game::record::read_games(text)
        .into_iter()
        .enumerate()
        .map(|(i, ReadGame { record, error })| {
            let mut replay = replay(kind, &record, options);
            if let (Ok(replayed), Some(error)) = (&mut replay, error)
                && replayed.fault.is_none()
            {
                replayed.fault = Some(Fault {
                    ply: replayed.game.ply() + 1,
                    line: error.line,
                    text: error.token.clone().unwrap_or_default(),
                    error: ReplayError::Text(error),
                });
            }
            GameRead {
                index: i + 1,
                line: record.line,
                record,
                replay,
            }
        })
        .collect()
}

/// The first game of a record, which must read and replay without a fault (the
/// terminal game's `load`).
pub fn load(kind: GameKind, text: &str, options: ReplayOptions) -> Result<Replay, LoadError> {
    let first = read(kind, text, options)
        .into_iter()
        .next()
        .ok_or(LoadError::Empty)?;
    let replay = first.replay?;
    match replay.fault {
        Some(fault) => Err(fault.into()),
        None => Ok(replay),
    }
}

/// The file extension of `kind`'s records: `otg` (OpenTafl) for tafl, `txt` (a WCF score)
/// for Camelot.
#[must_use]
pub const fn extension(kind: GameKind) -> &'static str {
    if kind.is_tafl() {
        tafl::otg::EXTENSION
    } else {
        camelot::record::EXTENSION
    }
}

/// How `kind`'s records spell a tag (`attackers` in OpenTafl records, `White` in WCF
/// scores).
#[must_use]
pub const fn tag_name(kind: GameKind, key: TagKey) -> &'static str {
    if kind.is_tafl() {
        tafl::otg::tag_name(key)
    } else {
        camelot::record::tag_name(key)
    }
}

/// Writes the game as its own kind of record (an OpenTafl record for tafl, a WCF score
/// for Camelot) with `tags`, ending as `outcome` says (an ending outside the rules is
/// named in a termination tag) or as the rules ended it.
#[must_use]
pub fn write(game: &AnyGame, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
    match game {
        AnyGame::Tafl(g) => tafl::otg::write_game(g, tags, outcome),
        AnyGame::Camelot(g) => camelot::record::write_game(g, tags, outcome),
    }
}

/// Writes the game as a move-list line: the moves with their captures, then `timeout`
/// or `---` when `outcome` is a loss on time or by resignation of the side to move (a
/// move list cannot say the other side lost that way).
#[must_use]
pub fn write_moves(game: &AnyGame, outcome: Option<Outcome>) -> String {
    let ending = outcome
        .filter(|o| o.winner == Some(game.to_move().other()))
        .and_then(|o| match o.reason {
            EndReason::Timeout => Some(RecordEnding::Timeout),
            EndReason::Resignation => Some(RecordEnding::Resignation),
            _ => None,
        });
    game::record::write_move_list(&game.move_texts(), ending)
}
