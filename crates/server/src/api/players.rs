//! Player pages.

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::ApiPath;
use super::views::GameSummary;
use crate::error::ApiError;
use crate::ratings::Rating;
use crate::state::AppState;
use crate::store::{OpponentRecord, RatingHistoryPoint, RatingRecord};

/// `GET /api/players/{name}`.
#[derive(Serialize)]
pub struct ProfileView {
    name: String,
    created_at: i64,
    ratings: Vec<RatedView>,
    /// Whether they have a socket open now.
    online: bool,
    rating_history: Vec<RatingHistoryPoint>,
    /// Where every rating starts: the rating before a player's first rated game, the
    /// first point of a history that goes back to it.
    initial_rating: f64,
    opponents: Vec<OpponentRecord>,
    recent_games: Vec<GameSummary>,
}

/// A rating with the player's place in that game's rating list (`None` while
/// provisional).
#[derive(Serialize)]
pub struct RatedView {
    #[serde(flatten)]
    record: RatingRecord,
    rank: Option<i64>,
}

/// `GET /api/players/{name}`: ratings per game, rating history, record against each
/// opponent, recent games.
pub async fn profile(
    State(state): State<AppState>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<ProfileView>, ApiError> {
    let profile = state
        .store
        .profile(&name)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no player named {name}")))?;
    let mut ratings = Vec::with_capacity(profile.ratings.len());
    for record in profile.ratings {
        let rank = if record.provisional {
            None
        } else {
            state.store.rank_of(&profile.user.id, record.kind).await?
        };
        ratings.push(RatedView { record, rank });
    }
    Ok(Json(ProfileView {
        online: state.live.people().is_online(&profile.user.id),
        name: profile.user.username,
        created_at: profile.user.created_at,
        ratings,
        rating_history: profile.history,
        initial_rating: Rating::default().rating,
        opponents: profile.opponents,
        recent_games: profile.recent_games.iter().map(GameSummary::from).collect(),
    }))
}
