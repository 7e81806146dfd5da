//! The lobby's challenges over HTTP: post, list, accept, withdraw. The rules (the cap
//! per poster, lapsing, who may accept) live in `live::challenges`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use game::GameKind;
use serde::Deserialize;

use super::games::{
    SideChoice, new_seat, player_seat, random_side, setup_error, untimed, with_cookie,
};
use super::{ApiJson, ApiPath, json_with};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::live::{self, Ident, challenges::ChallengeError};
use crate::security::{ClientIp, check};
use crate::state::AppState;
use crate::store::{ChallengeSide, NewChallenge};

/// The body of `POST /api/challenges`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeBody {
    kind: GameKind,
    #[serde(default = "untimed")]
    time_control: String,
    #[serde(default = "random_side")]
    side: SideChoice,
    #[serde(default)]
    rated: bool,
}

fn challenge_error(error: ChallengeError) -> ApiError {
    match error {
        ChallengeError::NotFound => ApiError::not_found(error.to_string()),
        ChallengeError::Own | ChallengeError::Gone | ChallengeError::TooMany => {
            ApiError::new(ErrorCode::Conflict, error.to_string())
        }
        ChallengeError::RatedGuest => ApiError::new(ErrorCode::NotSignedIn, error.to_string()),
        ChallengeError::Setup(error) => setup_error(&error),
        ChallengeError::Store(error) => error.into(),
    }
}

/// `POST /api/challenges`: an open challenge in the lobby.
pub async fn create(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<ChallengeBody>,
) -> Result<Response, ApiError> {
    let (control, seat, ident, cookie) = new_seat(&state, &viewer, ip, &body.time_control).await?;
    let side = match body.side {
        SideChoice::First => ChallengeSide::First,
        SideChoice::Second => ChallengeSide::Second,
        SideChoice::Random => ChallengeSide::Random,
    };
    let challenge = NewChallenge {
        kind: body.kind,
        time_control: control.to_string(),
        side,
        rated: body.rated,
        creator: seat,
    };
    let posted = live::post_challenge(&state, ident, challenge)
        .await
        .map_err(challenge_error)?;
    let body = json_with(
        StatusCode::CREATED,
        &serde_json::json!({ "id": posted.id, "expires_at": posted.expires_at }),
    );
    Ok(with_cookie(cookie, body))
}

/// `GET /api/challenges`: the open challenges, newest first.
pub async fn list(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(json_with(
        StatusCode::OK,
        &live::open_challenges(&state).await?,
    ))
}

/// `POST /api/challenges/{id}/accept`: accept a challenge; the game starts at once.
pub async fn accept(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    check(&state.limiters.challenge, &ip)?;
    if state.store.challenge(&id).await?.is_none() {
        return Err(ApiError::not_found("no such challenge"));
    }
    let (seat, acceptor, cookie) = player_seat(&state, &viewer, ip).await?;
    let game_id = live::accept_challenge(&state, &id, &acceptor, seat)
        .await
        .map_err(challenge_error)?;
    let body = json_with(StatusCode::OK, &serde_json::json!({ "game_id": game_id }));
    Ok(with_cookie(cookie, body))
}

/// `DELETE /api/challenges/{id}`: withdraw one's own challenge.
pub async fn cancel(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let seat = Ident::from(&viewer)
        .seat()
        .ok_or_else(|| ApiError::new(ErrorCode::Forbidden, "not your challenge"))?;
    live::cancel_challenge(&state, &id, &seat).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
