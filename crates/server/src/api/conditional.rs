//! `GET` and `PUT /api/games/{id}/conditional`: a player's conditional moves in a
//! correspondence game (see [`crate::live::conditional`]), private to them.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::games::refusal_error;
use super::{ApiJson, ApiPath, json_with};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::live::conditional::Lines;
use crate::live::{Handle, Ident, Refusal, SocketError};
use crate::state::AppState;

/// The lines a player enters.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinesBody {
    /// Each line: the opponent's reply, the answer, the next reply, its answer…
    lines: Lines,
}

async fn handle_of(state: &AppState, id: &str) -> Result<Handle, ApiError> {
    if let Some(handle) = crate::live::reach(state, id).await? {
        return Ok(handle);
    }
    Err(if state.store.game(id).await?.is_some() {
        ApiError::new(ErrorCode::Conflict, "the game is not going on")
    } else {
        ApiError::new(ErrorCode::NotFound, "no such game")
    })
}

fn error(refusal: Refusal) -> ApiError {
    if refusal.code == SocketError::BadMessage {
        ApiError::new(ErrorCode::BadRequest, refusal.message)
    } else {
        refusal_error(refusal)
    }
}

/// `GET /api/games/{id}/conditional`: `{"lines": [...]}`, the caller's lines (empty
/// when none).
pub async fn get(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let handle = handle_of(&state, &id).await?;
    let lines = handle
        .conditional(Ident::from(&viewer), None)
        .await
        .map_err(error)?;
    Ok(json_with(
        StatusCode::OK,
        &serde_json::json!({ "lines": lines }),
    ))
}

/// `PUT /api/games/{id}/conditional` with `{"lines": [[reply, answer, …], …]}`: replaces
/// the caller's lines (`[]` drops them); answers with the lines kept, each move written
/// as the game writes it.
pub async fn put(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson<LinesBody>,
) -> Result<Response, ApiError> {
    let handle = handle_of(&state, &id).await?;
    let lines = handle
        .conditional(Ident::from(&viewer), Some(body.lines))
        .await
        .map_err(error)?;
    Ok(json_with(
        StatusCode::OK,
        &serde_json::json!({ "lines": lines }),
    ))
}
