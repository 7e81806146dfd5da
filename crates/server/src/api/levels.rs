//! `GET /api/levels`: the AI's six levels, each with its estimated rating in every game
//! (the engine's table, `engine::Level::rating`, measured by `kingstable levels`), for
//! the pages where a player chooses a level.

use axum::Json;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use engine::Level;
use game::GameKind;
use serde::Serialize;

/// One level.
#[derive(Serialize)]
struct LevelView {
    level: u8,
    name: &'static str,
    /// The estimated rating in each game.
    ratings: Ratings,
}

#[derive(Serialize)]
struct Ratings {
    fetlar: u32,
    copenhagen: u32,
    camelot: u32,
}

/// The answer.
#[derive(Serialize)]
struct LevelsView {
    /// The player the scale is fixed by, and its rating.
    anchor: &'static str,
    anchor_rating: u32,
    levels: Vec<LevelView>,
}

/// `GET /api/levels`.
pub async fn list() -> Response {
    let levels = Level::ALL
        .into_iter()
        .map(|level| LevelView {
            level: level.number(),
            name: level.name(),
            ratings: Ratings {
                fetlar: level.rating(GameKind::Fetlar),
                copenhagen: level.rating(GameKind::Copenhagen),
                camelot: level.rating(GameKind::Camelot),
            },
        })
        .collect();
    let mut response = Json(LevelsView {
        anchor: "greedy",
        anchor_rating: Level::ANCHOR_RATING,
        levels,
    })
    .into_response();
    // The table changes only with the program.
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}
