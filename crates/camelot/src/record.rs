//! Camelot game scores: PGN-style tags and numbered WCF moves, read with
//! [`game::record::parse_records`] and written with [`game::record::write_record`].
//!
//! ```text
//! [White "Dan Troyka"]
//! [Black "Michael Nolan"]
//! [Result "1/2-1/2"]
//!
//! 1. D6-F8 H11-F9
//! 2. C6-E8-G8 J11-H11
//! ```
//!
//! A game that does not begin at the start position carries its position string in a
//! `[FEN "…"]` tag (see [`crate::fen`]).
//!
//! ```
//! use camelot::record::{replay, write_score};
//! use game::record::parse_records;
//!
//! let records = parse_records("[Event \"demo\"]\n1. D6-F8 H11-F9\n2. C6-E8-G8\n").unwrap();
//! let game = replay(&records[0]).unwrap();
//! let text = write_score(&game, &[("Event".into(), "demo".into())]);
//! assert!(text.contains("1. D6-F8 H11-F9\n2. C6-E8-G8"));
//! ```

use game::record::{Record, TagKey, TagStyle, termination_text, write_record};
use game::{Game, Outcome, Player};

use crate::fen::FenError;
use crate::game_state::Camelot;
use crate::notation::MoveError;
use crate::position::Position;

/// The tag that holds a non-standard start position.
pub const FEN_TAG: &str = "FEN";

/// The file extension of the scores Kingstable writes.
pub const EXTENSION: &str = "txt";

/// How WCF scores spell Kingstable's tags: PGN style, `White`/`Black` for the players
/// (`[White "Alice"]`).
#[must_use]
pub const fn tag_name(key: TagKey) -> &'static str {
    match key {
        TagKey::Event => "Event",
        TagKey::Date => "Date",
        TagKey::FirstPlayer => "White",
        TagKey::SecondPlayer => "Black",
        TagKey::TimeControl => "TimeControl",
        TagKey::Termination => "Termination",
        TagKey::Result => "Result",
    }
}

/// Why a record's start position cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    /// The `FEN` tag is not a valid position string.
    #[error("bad {FEN_TAG} tag: {0}")]
    Fen(#[from] FenError),
    /// The record says Black moves first, but White is to move in its start position.
    #[error("the score starts with a Black move (1...) but White is to move")]
    WrongSide,
}

/// The game at the start of a record: its `FEN` tag's position, or the start position,
/// checked against a first move marked as Black's (`1...`).
pub fn start_of(record: &Record) -> Result<Camelot, StartError> {
    let game = match record.tag(FEN_TAG) {
        Some(text) => Camelot::from_position_string(text)?,
        None => Camelot::start(),
    };
    if record.second_player_starts && game.position().side_to_move() == Player::First {
        return Err(StartError::WrongSide);
    }
    Ok(game)
}

/// Why a record does not replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The `FEN` tag is not a valid position string.
    #[error("line {line}: bad {FEN_TAG} tag: {error}")]
    Fen {
        /// The line where the game starts.
        line: usize,
        /// What is wrong.
        error: FenError,
    },
    /// The record says Black moves first, but White is to move in its start position.
    #[error("line {line}: the score starts with a Black move (1...) but White is to move")]
    WrongSide {
        /// The line where the game starts.
        line: usize,
    },
    /// A move is malformed or illegal.
    #[error("line {line}, ply {ply} ({number}): {error}")]
    Move {
        /// The 1-based line of the move.
        line: usize,
        /// The 1-based ply.
        ply: usize,
        /// The move number as written (`6.` or `6...`).
        number: String,
        /// Why it was rejected.
        error: MoveError,
    },
}

/// Plays a record's moves from its start position (the `FEN` tag, or the start) and
/// returns the game, or the first move that does not replay.
pub fn replay(record: &Record) -> Result<Camelot, ReplayError> {
    let line = record.line;
    let mut game = start_of(record).map_err(|err| match err {
        StartError::Fen(error) => ReplayError::Fen { line, error },
        StartError::WrongSide => ReplayError::WrongSide { line },
    })?;
    let first_is_black = game.position().side_to_move() == Player::Second;
    for (i, text) in record.moves.iter().enumerate() {
        let ply = i + 1;
        let half = i + usize::from(first_is_black);
        let number = format!(
            "{}{}",
            half / 2 + 1,
            if half % 2 == 0 { "." } else { "..." }
        );
        let mv = game.parse_move(text).map_err(|error| ReplayError::Move {
            line: record.move_lines.get(i).copied().unwrap_or(record.line),
            ply,
            number,
            error,
        })?;
        game.play(mv);
    }
    Ok(game)
}

/// The result token of a finished game (`1-0`, `0-1`, `1/2-1/2`), `None` if it goes on.
#[must_use]
pub fn result_token(game: &Camelot) -> Option<&'static str> {
    game.outcome().map(outcome_token)
}

/// The result token of an outcome: `1-0`, `0-1` or `1/2-1/2`.
#[must_use]
pub const fn outcome_token(outcome: Outcome) -> &'static str {
    match outcome.winner {
        Some(Player::First) => "1-0",
        Some(Player::Second) => "0-1",
        None => "1/2-1/2",
    }
}

/// Writes the game as a score ending as `outcome` says (which may be an ending outside
/// the rules: time, resignation, agreement, adjudication), or as the rules ended it:
/// `tags`, then a `Termination` tag for an ending outside the rules and a `Result` tag
/// (unless the tags name them), the moves, and the result token.
#[must_use]
pub fn write_game(game: &Camelot, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
    let outcome = outcome.or(game.outcome());
    let result = outcome.map(outcome_token);
    let has = |key: &str| tags.iter().any(|(k, _)| k.eq_ignore_ascii_case(key));
    let mut tags = tags.to_vec();
    let termination = tag_name(TagKey::Termination);
    if let Some(text) = outcome.and_then(|o| termination_text(o.reason))
        && !has(termination)
    {
        tags.push((termination.into(), text.into()));
    }
    if let Some(result) = result
        && !has(tag_name(TagKey::Result))
    {
        tags.push((tag_name(TagKey::Result).into(), result.into()));
    }
    write_score_with_result(game, &tags, result)
}

/// Writes the game as a score: `tags` (plus a `FEN` tag if it did not begin at the start
/// position), the moves in canonical WCF notation, and the result if the rules ended the
/// game. Use [`write_score_with_result`] for a result the rules do not decide (a draw by
/// agreement, D4; a resignation; time).
#[must_use]
pub fn write_score(game: &Camelot, tags: &[(String, String)]) -> String {
    write_score_with_result(game, tags, result_token(game))
}

/// Like [`write_score`], with the trailer given: a result token (`1-0`, `0-1`,
/// `1/2-1/2`, `*`) or an ending (`---`, `timeout`), or nothing.
#[must_use]
pub fn write_score_with_result(
    game: &Camelot,
    tags: &[(String, String)],
    result: Option<&str>,
) -> String {
    let mut all_tags = tags.to_vec();
    let start = game.start_position();
    if *start != Position::start() && !tags.iter().any(|(k, _)| k.eq_ignore_ascii_case(FEN_TAG)) {
        all_tags.push((FEN_TAG.to_owned(), start.fen()));
    }
    let black_first = start.side_to_move() == Player::Second;
    write_record(
        &all_tags,
        TagStyle::Quoted,
        &game.move_texts(),
        black_first,
        result,
    )
}
