//! Challenges over HTTP: post (to the lobby, or to one player with `to`), list the
//! lobby's, accept, decline (a direct one), withdraw. The rules (the caps, lapsing, who
//! may accept) live in `live::challenges`.

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
use crate::security::ClientIp;
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
    /// A direct challenge to the account of this name (not shown in the lobby).
    #[serde(default)]
    to: Option<String>,
}

fn challenge_error(error: ChallengeError) -> ApiError {
    match error {
        ChallengeError::NotFound => ApiError::not_found(error.to_string()),
        ChallengeError::Own => {
            ApiError::new(ErrorCode::Conflict, error.to_string()).because("own_challenge")
        }
        ChallengeError::Gone => {
            ApiError::new(ErrorCode::Conflict, error.to_string()).because("challenge_gone")
        }
        ChallengeError::TooMany => {
            ApiError::new(ErrorCode::Conflict, error.to_string()).because("too_many_challenges")
        }
        ChallengeError::RatedGuest => {
            ApiError::new(ErrorCode::NotSignedIn, error.to_string()).because("rated_needs_account")
        }
        ChallengeError::NotForYou => ApiError::new(ErrorCode::Forbidden, error.to_string()),
        ChallengeError::TooManyForThem(_) => {
            ApiError::new(ErrorCode::Conflict, error.to_string()).because("too_many_for_them")
        }
        ChallengeError::Setup(error) => setup_error(&error),
        ChallengeError::Store(error) => error.into(),
    }
}

/// `POST /api/challenges`: an open challenge in the lobby, or (`to`) a direct challenge
/// to one player, made by an account.
pub async fn create(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<ChallengeBody>,
) -> Result<Response, ApiError> {
    if body.to.is_some() && !matches!(viewer, Viewer::User { .. }) {
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to challenge a player",
        ));
    }
    let (control, seat, ident, cookie) = new_seat(&state, &viewer, ip, &body.time_control).await?;
    let to_user_id = match (&body.to, &viewer) {
        (Some(name), Viewer::User { user, .. }) => {
            let Some(to) = state.store.user_by_name(name.trim()).await? else {
                return Err(ApiError::not_found(format!("no player is called {name:?}")));
            };
            if to.id == user.id {
                return Err(ApiError::new(
                    ErrorCode::BadRequest,
                    "you cannot challenge yourself",
                ));
            }
            Some(to.id)
        }
        _ => None,
    };
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
        to_user_id,
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
    state.limiters.challenge.check(&ip).await?;
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

/// `POST /api/challenges/{id}/decline`: the player a direct challenge is made to
/// declines it.
pub async fn decline(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let Some(user) = Ident::from(&viewer).user else {
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to answer a challenge",
        ));
    };
    live::decline_challenge(&state, &id, &user)
        .await
        .map_err(challenge_error)?;
    Ok(StatusCode::NO_CONTENT.into_response())
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
