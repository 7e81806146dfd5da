//! Live games over HTTP: create (against the AI or a friend), join by link, read,
//! rematch, and the paged list of games being played. The lobby's challenges, the game
//! socket and the lobby socket have their own modules.

use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use game::{GameKind, Player};
use serde::{Deserialize, Serialize};
use session::TimeControl;

use super::{ApiJson, ApiPath, json_with};
use crate::auth::{GUEST_COOKIE, GUEST_COOKIE_SECS, Viewer, new_token, set_cookie, token_hash};
use crate::error::{ApiError, ErrorCode};
use crate::live::{self, Act, Ident, LiveGame, Refusal, SocketError};
use crate::security::ClientIp;
use crate::state::AppState;
use crate::store::{Seat, now_ms};

/// The correspondence presets, in days per move.
pub const CORRESPONDENCE_DAYS: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// What making a game or a challenge starts with: the creation limit of the address,
/// the time control read, and the asker's seat (a guest made for a first-time visitor,
/// with the cookie to set).
pub(super) async fn new_seat(
    state: &AppState,
    viewer: &Viewer,
    ip: std::net::IpAddr,
    time_control_text: &str,
) -> Result<(TimeControl, Seat, Ident, Option<(HeaderName, HeaderValue)>), ApiError> {
    state.limiters.challenge.check(&ip).await?;
    let control = time_control(time_control_text)?;
    let (seat, ident, cookie) = player_seat(state, viewer, ip).await?;
    Ok((control, seat, ident, cookie))
}

/// The viewer as a player: their seat, their identity, and the cookie of a guest made
/// for them now if they had none.
pub(super) async fn player_seat(
    state: &AppState,
    viewer: &Viewer,
    ip: std::net::IpAddr,
) -> Result<(Seat, Ident, Option<(HeaderName, HeaderValue)>), ApiError> {
    match viewer {
        Viewer::User { user, .. } => Ok((Seat::User(user.id.clone()), Ident::from(viewer), None)),
        Viewer::Guest(guest) => Ok((Seat::Guest(guest.id.clone()), Ident::from(viewer), None)),
        Viewer::Anonymous => {
            state.limiters.guest.check(&ip).await?;
            let token = new_token();
            let guest = state
                .store
                .create_guest(&token_hash(&token), now_ms())
                .await?;
            let cookie = set_cookie(state, GUEST_COOKIE, &token, GUEST_COOKIE_SECS);
            let ident = Ident {
                user: None,
                guest: Some(guest.id.clone()),
            };
            Ok((Seat::Guest(guest.id), ident, Some(cookie)))
        }
    }
}

/// `body` with the guest cookie made for the request, if one was.
pub(super) fn with_cookie(cookie: Option<(HeaderName, HeaderValue)>, body: Response) -> Response {
    match cookie {
        Some(cookie) => ([cookie], body).into_response(),
        None => body,
    }
}

pub(super) fn refusal_error(refusal: Refusal) -> ApiError {
    let code = match refusal.code {
        SocketError::NotAPlayer => ErrorCode::Forbidden,
        SocketError::NotFound => ErrorCode::NotFound,
        SocketError::Internal => ErrorCode::Internal,
        SocketError::RateLimited => ErrorCode::RateLimited,
        _ => ErrorCode::Conflict,
    };
    ApiError::new(code, refusal.message)
}

pub(super) fn setup_error(error: &live::SetupError) -> ApiError {
    tracing::error!(%error, "setting up a game");
    ApiError::internal(error)
}

/// Who plays the new game.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Opponent {
    /// The AI at a level.
    Ai(u8),
    /// Whoever opens the game's link and joins.
    Friend,
}

/// A side, or the choice left to chance.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum SideChoice {
    First,
    Second,
    Random,
}

impl SideChoice {
    pub(super) fn pick(self) -> Player {
        match self {
            SideChoice::First => Player::First,
            SideChoice::Second => Player::Second,
            SideChoice::Random => {
                if rand::random::<bool>() {
                    Player::First
                } else {
                    Player::Second
                }
            }
        }
    }
}

/// The body of `POST /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGameBody {
    kind: GameKind,
    opponent: Opponent,
    #[serde(default = "random_side")]
    side: SideChoice,
    #[serde(default = "untimed")]
    time_control: String,
    #[serde(default)]
    rated: bool,
}

pub(super) const fn random_side() -> SideChoice {
    SideChoice::Random
}

pub(super) fn untimed() -> String {
    "untimed".to_owned()
}

/// A time control players may choose: Fischer, the correspondence presets, or untimed.
pub(super) fn time_control(text: &str) -> Result<TimeControl, ApiError> {
    let control: TimeControl = text.parse().map_err(|e: session::ParseTimeControlError| {
        ApiError::new(ErrorCode::BadRequest, e.to_string())
    })?;
    match control {
        TimeControl::Correspondence { days } if !CORRESPONDENCE_DAYS.contains(&days) => {
            Err(ApiError::new(
                ErrorCode::BadRequest,
                format!("correspondence games take 1, 2, 3, 5, 7 or 14 days per move, not {days}"),
            ))
        }
        TimeControl::Fischer { base, increment }
            if base > Duration::from_secs(180 * 60) || increment > Duration::from_secs(180) =>
        {
            Err(ApiError::new(
                ErrorCode::BadRequest,
                "at most 180 minutes each and 180 seconds added per move",
            ))
        }
        control => Ok(control),
    }
}

/// The answer to `POST /api/games`.
#[derive(Debug, Serialize)]
struct Created {
    id: String,
    url: String,
}

/// `POST /api/games`: a game against the AI (started at once) or against a friend (who
/// joins by the link).
pub async fn create(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<NewGameBody>,
) -> Result<Response, ApiError> {
    let (control, seat, ident, cookie) = new_seat(&state, &viewer, ip, &body.time_control).await?;
    let (opponent, rated) = match body.opponent {
        Opponent::Ai(level) if (1..=6).contains(&level) => (Seat::Ai(level), false),
        Opponent::Ai(level) => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                format!("the AI's levels are 1 to 6, not {level}"),
            ));
        }
        Opponent::Friend => (Seat::Open, body.rated),
    };
    if rated && !matches!(seat, Seat::User(_)) {
        return Err(
            ApiError::new(ErrorCode::NotSignedIn, "sign in to play rated games")
                .because("rated_needs_account"),
        );
    }
    let ai_slot = match opponent {
        Seat::Ai(_) => Some(
            live::ai::reserve_game(&state, &live::Asker::new(&ident, Some(ip)))
                .await
                .map_err(|quota| ApiError::new(ErrorCode::RateLimited, quota.to_string()))?,
        ),
        _ => None,
    };
    let (first, second) = match body.side.pick() {
        Player::First => (seat, opponent),
        Player::Second => (opponent, seat),
    };
    let record = live::create_game(&state, body.kind, first, second, control, rated)
        .await
        .map_err(|e| setup_error(&e))?;
    if let Some(slot) = ai_slot {
        slot.bind(&record.id);
    }
    let created = Created {
        url: format!("/game/{}", record.id),
        id: record.id,
    };
    let body = json_with(StatusCode::CREATED, &created);
    Ok(with_cookie(cookie, body))
}

/// Games a page of the live list shows unless asked for fewer or more.
const LIVE_PAGE: usize = 24;
/// The most a page of the live list shows.
const LIVE_PAGE_MAX: usize = 100;

/// The query of `GET /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    status: Option<String>,
    page: Option<usize>,
    limit: Option<usize>,
}

/// A page of the games being played.
#[derive(Debug, Serialize)]
struct LivePage {
    games: Vec<LiveGame>,
    page: usize,
    pages: usize,
    total: usize,
}

/// `GET /api/games?status=live&page=1&limit=24`: the games being played now, newest
/// first, a page at a time.
pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    match query.status.as_deref() {
        Some("live") | None => {}
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                format!(
                    "status {other:?}: only `live` is listed here (finished games: /api/archive)"
                ),
            ));
        }
    }
    let limit = query.limit.unwrap_or(LIVE_PAGE);
    if !(1..=LIVE_PAGE_MAX).contains(&limit) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit is 1 to {LIVE_PAGE_MAX}, not {limit}"),
        ));
    }
    let page = query.page.unwrap_or(1);
    if page == 0 {
        return Err(ApiError::new(ErrorCode::BadRequest, "pages count from 1"));
    }
    let offset = (page - 1).saturating_mul(limit);
    let (games, total) = state.live.lobby().live_page(offset, limit);
    let pages = total.div_ceil(limit).max(1);
    Ok(json_with(
        StatusCode::OK,
        &LivePage {
            games,
            page,
            pages,
            total,
        },
    ))
}

/// `GET /api/games/{id}`: the game as the viewer sees it.
pub async fn get(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let ident = Ident::from(&viewer);
    if let Some(handle) = live::reach(&state, &id).await? {
        return Ok(json_with(StatusCode::OK, &handle.view_now(&ident)));
    }
    match live::stored_view(&state, &id, &ident).await? {
        Some(view) => Ok(json_with(StatusCode::OK, &view)),
        None => Err(ApiError::not_found("no such game")),
    }
}

/// `POST /api/games/{id}/join`: take the open seat of a game made for a friend.
pub async fn join(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    state.limiters.challenge.check(&ip).await?;
    let handle = live::reach(&state, &id).await?.ok_or_else(|| {
        ApiError::new(ErrorCode::Conflict, "this game can no longer be joined")
            .because("not_joinable")
    })?;
    // A rated game rates two accounts: a guest (or a visitor about to become one) may
    // watch it but not sit down.
    if !matches!(viewer, Viewer::User { .. })
        && state.store.game(&id).await?.is_some_and(|game| game.rated)
    {
        return Err(
            ApiError::new(ErrorCode::NotSignedIn, "sign in to play rated games")
                .because("rated_needs_account"),
        );
    }
    let (seat, ident, cookie) = player_seat(&state, &viewer, ip).await?;
    let side = handle.join(ident, seat).await.map_err(refusal_error)?;
    let body = json_with(StatusCode::OK, &serde_json::json!({ "side": side }));
    Ok(with_cookie(cookie, body))
}

/// `POST /api/games/{id}/rematch`: ask for a rematch (sides swapped); the new game's id
/// once both players asked (at once against the AI), else `{}`.
pub async fn rematch(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    // A rematch against the AI is counted once, by the game's owner, against the address
    // that made the game (as over the socket); any other rematch here.
    if state.ai.address_of(&id).is_none() {
        state.limiters.challenge.check(&ip).await?;
    }
    let handle = live::reach(&state, &id).await?.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Conflict,
            "this game is too old for a rematch: start a new one",
        )
        .because("too_old_for_rematch")
    })?;
    let answer = handle
        .act(Ident::from(&viewer), Act::Rematch)
        .await
        .map_err(refusal_error)?;
    Ok(json_with(
        StatusCode::OK,
        &match answer {
            Some(id) => serde_json::json!({ "id": id }),
            None => serde_json::json!({}),
        },
    ))
}
