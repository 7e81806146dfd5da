//! `GET /api/ratings`: the rating list of one game, a page at a time, and how many
//! players are online now.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use game::GameKind;
use serde::{Deserialize, Serialize};

use super::json_with;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::store::Standing;

/// Players on one page of the rating list.
pub const PAGE_SIZE: i64 = 50;
/// The last page served: the list reaches the top `PAGE_SIZE * MAX_PAGE` players.
pub const MAX_PAGE: i64 = 200;

/// The query of `GET /api/ratings`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingsQuery {
    game: Option<String>,
    page: Option<String>,
}

/// One player of the list, with whether they are online now.
#[derive(Serialize)]
pub struct StandingView {
    #[serde(flatten)]
    standing: Standing,
    online: bool,
}

/// `GET /api/ratings`.
#[derive(Serialize)]
pub struct RatingsView {
    game: GameKind,
    players: Vec<StandingView>,
    page: i64,
    pages: i64,
    total: i64,
    online: usize,
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// `GET /api/ratings?game=copenhagen&page=1`: the established players of one game by
/// rating, [`PAGE_SIZE`] to a page.
pub async fn list(
    State(state): State<AppState>,
    query: Result<Query<RatingsQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|rejection| bad_request(rejection.body_text()))?;
    let game = query.game.as_deref().unwrap_or("").trim();
    if game.is_empty() {
        return Err(bad_request(
            "say which game: game=fetlar, copenhagen or camelot",
        ));
    }
    let kind: GameKind = game.parse().map_err(|_| {
        bad_request(format!(
            "unknown game `{game}`: expected fetlar, copenhagen or camelot"
        ))
    })?;
    let page = match query.page.as_deref().map(str::trim) {
        None | Some("") => 1,
        Some(text) => text
            .parse::<i64>()
            .ok()
            .filter(|p| (1..=MAX_PAGE).contains(p))
            .ok_or_else(|| bad_request(format!("page is 1 to {MAX_PAGE}, not `{text}`")))?,
    };
    let (list, total) = state
        .store
        .rating_list(kind, (page - 1) * PAGE_SIZE, PAGE_SIZE)
        .await?;
    let people = state.live.people();
    let players = list
        .into_iter()
        .map(|standing| StandingView {
            online: people.is_online(&standing.user_id),
            standing,
        })
        .collect();
    Ok(json_with(
        StatusCode::OK,
        &RatingsView {
            game: kind,
            players,
            page,
            pages: ((total + PAGE_SIZE - 1) / PAGE_SIZE).clamp(1, MAX_PAGE),
            total,
            online: people.online_count(),
        },
    ))
}
