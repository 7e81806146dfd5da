//! `GET /api/me/games`: the games the asker (a signed-in user or a guest) plays that are
//! not over, those waiting for their move first. The lobby socket sends the same list
//! and keeps it up to date (`my_games`, `my_game`). `GET /api/me/challenges`: an
//! account's direct challenges, to them and by them (`my_challenges` on the socket).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

use super::json_with;
use crate::auth::Viewer;
use crate::error::ApiError;
use crate::live::Ident;
use crate::live::people::{Mine, my_games};
use crate::state::AppState;

/// `GET /api/me/games`.
#[derive(Serialize)]
struct MyGamesView {
    games: Vec<Mine>,
    your_turn: usize,
}

/// `GET /api/me/games`: an anonymous visitor plays nothing (an empty list).
pub async fn games(State(state): State<AppState>, viewer: Viewer) -> Result<Response, ApiError> {
    let ident = Ident::from(&viewer);
    let games = my_games(&state, &ident).await?;
    let your_turn = games.iter().filter(|m| m.game.waits_for(m.you)).count();
    Ok(json_with(StatusCode::OK, &MyGamesView { games, your_turn }))
}

/// `GET /api/me/challenges`: the direct challenges made to the asker (`incoming`) and by
/// them (`outgoing`), newest first; empty for a guest or a visitor (only accounts make
/// and receive direct challenges).
pub async fn challenges(
    State(state): State<AppState>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let list = match &Ident::from(&viewer).user {
        Some(user) => crate::live::challenges::my_challenges(&state, user).await?,
        None => crate::live::challenges::MyChallenges {
            incoming: Vec::new(),
            outgoing: Vec::new(),
        },
    };
    Ok(json_with(StatusCode::OK, &list))
}
