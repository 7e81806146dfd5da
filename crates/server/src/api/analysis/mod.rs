//! Analysis: any position as the board draws it (`POST /api/position`), and the engine
//! thinking about it on `/ws/analysis`, streaming depth, evaluation and best line, or
//! reviewing a game move by move.
//!
//! - this module: the position endpoint and the reading of a line of moves;
//! - [`socket`](mod@socket): the socket and its messages;
//! - [`run`]: the engine's runs (analyses and reviews) on the AI pool;
//! - [`review`]: how a reviewed move is classified;
//! - [`guard`]: analysis kept out of games being played.

mod guard;
mod review;
mod run;
mod socket;

pub use socket::socket;

use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;
use game::{Game, GameKind};
use games::{AnyGame, BoardView, MoveInfo};
use serde::{Deserialize, Serialize};

use super::{ApiJson, json_with};
use crate::error::{ApiError, ErrorCode};
use crate::live::PlayedView;

/// The longest one analysis may run.
pub const MAX_ANALYSIS: Duration = Duration::from_secs(60);
/// Most lines one analysis reports (multi-PV): each costs search time, within the same
/// run and time limit.
const MAX_LINES: usize = 5;
/// Most moves a line to analyse may have.
const MAX_LINE: usize = 1000;
/// Most plies a review looks at.
const MAX_REVIEW_PLIES: usize = 400;

/// The body of `POST /api/position`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionBody {
    kind: GameKind,
    /// A position string; empty for the start position.
    #[serde(default)]
    position: String,
    /// Moves played from it.
    #[serde(default)]
    moves: Vec<String>,
}

/// What the board of the analysis page draws.
#[derive(Debug, Serialize)]
struct PositionView {
    board: BoardView,
    legal_moves: Vec<MoveInfo>,
    /// The position string after the moves.
    position: String,
    moves: Vec<PlayedView>,
    /// The result, if the line ends the game.
    result: Option<game::Outcome>,
}

/// The game `position` (empty: the start) of `kind`, or what is wrong with it.
fn start_of(kind: GameKind, position: &str) -> Result<AnyGame, String> {
    if position.trim().is_empty() {
        Ok(AnyGame::start(kind))
    } else {
        AnyGame::from_position(kind, position).map_err(|e| format!("position: {e}"))
    }
}

/// The game `position` (empty: the start) of `kind` after `moves`, or a sentence saying
/// what is wrong.
fn line(
    kind: GameKind,
    position: &str,
    moves: &[String],
) -> Result<(AnyGame, Vec<PlayedView>), String> {
    if moves.len() > MAX_LINE {
        return Err(format!("at most {MAX_LINE} moves"));
    }
    let mut game = start_of(kind, position)?;
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let player = game.to_move();
        let info = game
            .try_play(text)
            .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        played.push(PlayedView {
            ply: i + 1,
            player,
            info,
        });
    }
    Ok((game, played))
}

/// `POST /api/position`: the board, legal moves and position string of a position and
/// a line of moves from it.
pub async fn position(ApiJson(body): ApiJson<PositionBody>) -> Result<Response, ApiError> {
    let (game, moves) = line(body.kind, &body.position, &body.moves)
        .map_err(|why| ApiError::new(ErrorCode::BadRequest, why))?;
    let view = PositionView {
        board: BoardView::of(&game),
        legal_moves: game.legal_moves_info(),
        position: game.position_string(),
        moves,
        result: game.outcome(),
    };
    Ok(json_with(StatusCode::OK, &view))
}
