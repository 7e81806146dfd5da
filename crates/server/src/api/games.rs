//! Live games over HTTP and WebSockets: create (against the AI or a friend), join by
//! link, read, rematch, the list of games being played, the lobby's challenges, and the
//! game and lobby sockets.

use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use game::{GameKind, Player};
use serde::{Deserialize, Serialize};
use session::TimeControl;
use tokio::sync::broadcast::error::RecvError;

use super::{ApiJson, ApiPath, json_with};
use crate::auth::{
    GUEST_COOKIE, GUEST_COOKIE_SECS, SessionWatch, Viewer, new_token, set_cookie, token_hash,
};
use crate::error::{ApiError, ErrorCode};
use crate::live::{
    self, ClientMessage, Ident, LobbyMessage, Refusal, ServerMessage, SocketError, Update,
};
use crate::security::{ClientIp, check, check_direct, check_same_origin};
use crate::state::AppState;
use crate::store::{ChallengeSide, NewChallenge, Seat, now_ms};

/// Largest message a socket accepts, in bytes.
pub const SOCKET_MESSAGE_LIMIT: usize = 4096;
/// A socket that says nothing for this long (the client pings every 25 s) is closed.
const SOCKET_IDLE: Duration = Duration::from_secs(90);
/// The correspondence presets, in days per move.
pub const CORRESPONDENCE_DAYS: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// Who the viewer is, for the live layer.
pub(super) fn ident_of(viewer: &Viewer) -> Ident {
    match viewer {
        Viewer::User { user, guest, .. } => Ident {
            user: Some(user.id.clone()),
            guest: guest.as_ref().map(|g| g.id.clone()),
        },
        Viewer::Guest(guest) => Ident {
            user: None,
            guest: Some(guest.id.clone()),
        },
        Viewer::Anonymous => Ident::default(),
    }
}

/// The viewer as a player: their seat, their identity, and the cookie of a guest made
/// for them now if they had none.
async fn player_seat(
    state: &AppState,
    viewer: &Viewer,
    ip: std::net::IpAddr,
) -> Result<(Seat, Ident, Option<(HeaderName, HeaderValue)>), ApiError> {
    match viewer {
        Viewer::User { user, .. } => Ok((Seat::User(user.id.clone()), ident_of(viewer), None)),
        Viewer::Guest(guest) => Ok((Seat::Guest(guest.id.clone()), ident_of(viewer), None)),
        Viewer::Anonymous => {
            check(&state.limiters.guest, &ip)?;
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
fn with_cookie(cookie: Option<(HeaderName, HeaderValue)>, body: Response) -> Response {
    match cookie {
        Some(cookie) => ([cookie], body).into_response(),
        None => body,
    }
}

fn refusal_error(refusal: Refusal) -> ApiError {
    let code = match refusal.code {
        SocketError::NotAPlayer => ErrorCode::Forbidden,
        SocketError::NotFound => ErrorCode::NotFound,
        SocketError::Internal => ErrorCode::Internal,
        SocketError::RateLimited => ErrorCode::RateLimited,
        _ => ErrorCode::Conflict,
    };
    ApiError::new(code, refusal.message)
}

fn setup_error(error: &live::SetupError) -> ApiError {
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
enum SideChoice {
    First,
    Second,
    Random,
}

impl SideChoice {
    fn pick(self) -> Player {
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

const fn random_side() -> SideChoice {
    SideChoice::Random
}

fn untimed() -> String {
    "untimed".to_owned()
}

/// A time control players may choose: Fischer, the correspondence presets, or untimed.
fn time_control(text: &str) -> Result<TimeControl, ApiError> {
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
    check(&state.limiters.challenge, &ip)?;
    let control = time_control(&body.time_control)?;
    let (seat, ident, cookie) = player_seat(&state, &viewer, ip).await?;
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
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to play rated games",
        ));
    }
    let ai_slot = match opponent {
        Seat::Ai(_) => Some(
            state
                .ai
                .reserve_game(&live::Asker::new(&ident, Some(ip)))
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

/// The query of `GET /api/games`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    status: Option<String>,
}

/// `GET /api/games?status=live`: the games being played now.
pub async fn list(
    State(state): State<AppState>,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    match query.status.as_deref() {
        Some("live") | None => Ok(json_with(StatusCode::OK, &state.live.live_games())),
        Some(other) => Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("status {other:?}: only `live` is listed here (finished games: /api/archive)"),
        )),
    }
}

/// `GET /api/games/{id}`: the game as the viewer sees it.
pub async fn get(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let ident = ident_of(&viewer);
    if let Some(handle) = state.live.handle(&id)
        && let Some(view) = handle.view(ident.clone()).await
    {
        return Ok(json_with(StatusCode::OK, &view));
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
    check(&state.limiters.challenge, &ip)?;
    let handle = state
        .live
        .handle(&id)
        .ok_or_else(|| ApiError::new(ErrorCode::Conflict, "this game can no longer be joined"))?;
    // A rated game rates two accounts: a guest (or a visitor about to become one) may
    // watch it but not sit down.
    if !matches!(viewer, Viewer::User { .. })
        && state.store.game(&id).await?.is_some_and(|game| game.rated)
    {
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to play rated games",
        ));
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
    check(&state.limiters.challenge, &ip)?;
    let handle = state.live.handle(&id).ok_or_else(|| {
        ApiError::new(
            ErrorCode::Conflict,
            "this game is too old for a rematch: start a new one",
        )
    })?;
    let answer = handle
        .act(ident_of(&viewer), ClientMessage::Rematch)
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

/// A challenge as the lobby shows it.
fn challenge_json(challenge: &crate::store::Challenge) -> serde_json::Value {
    serde_json::json!({
        "id": challenge.id,
        "kind": challenge.kind,
        "time_control": challenge.time_control,
        "side": challenge.side.as_str(),
        "rated": challenge.rated,
        "by": challenge.creator.player().map(|p| match p {
            crate::store::PlayerRef::User { name } | crate::store::PlayerRef::Guest { name } => name,
            crate::store::PlayerRef::Ai { level } => format!("AI level {level}"),
        }),
        "created_at": challenge.created_at,
    })
}

async fn open_challenges(state: &AppState) -> Result<Vec<serde_json::Value>, ApiError> {
    Ok(state
        .store
        .open_challenges(100)
        .await?
        .iter()
        .map(challenge_json)
        .collect())
}

async fn announce_challenges(state: &AppState) {
    let lobby = state.live.lobby();
    if lobby.receiver_count() > 0
        && let Ok(challenges) = open_challenges(state).await
    {
        let _ = lobby.send(LobbyMessage::Challenges { challenges });
    }
}

/// `POST /api/challenges`: an open challenge in the lobby.
pub async fn create_challenge(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<ChallengeBody>,
) -> Result<Response, ApiError> {
    check(&state.limiters.challenge, &ip)?;
    let control = time_control(&body.time_control)?;
    let (seat, _, cookie) = player_seat(&state, &viewer, ip).await?;
    if body.rated && !matches!(seat, Seat::User(_)) {
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to play rated games",
        ));
    }
    let side = match body.side {
        SideChoice::First => ChallengeSide::First,
        SideChoice::Second => ChallengeSide::Second,
        SideChoice::Random => ChallengeSide::Random,
    };
    let challenge = state
        .store
        .create_challenge(
            &NewChallenge {
                kind: body.kind,
                time_control: control.to_string(),
                side,
                rated: body.rated,
                creator: seat,
            },
            now_ms(),
        )
        .await?;
    announce_challenges(&state).await;
    let body = json_with(
        StatusCode::CREATED,
        &serde_json::json!({ "id": challenge.id }),
    );
    Ok(with_cookie(cookie, body))
}

/// `GET /api/challenges`: the open challenges, newest first.
pub async fn challenges(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(json_with(StatusCode::OK, &open_challenges(&state).await?))
}

/// `POST /api/challenges/{id}/accept`: accept a challenge; the game starts at once.
pub async fn accept_challenge(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    check(&state.limiters.challenge, &ip)?;
    let challenge = state
        .store
        .challenge(&id)
        .await?
        .ok_or_else(|| ApiError::not_found("no such challenge"))?;
    let (seat, ident, cookie) = player_seat(&state, &viewer, ip).await?;
    let creator_ident = Ident {
        user: challenge.creator.user_id.clone(),
        guest: challenge.creator.guest_id.clone(),
    };
    if (ident.user.is_some() && ident.user == creator_ident.user)
        || (ident.guest.is_some() && ident.guest == creator_ident.guest)
    {
        return Err(ApiError::new(
            ErrorCode::Conflict,
            "you cannot accept your own challenge",
        ));
    }
    if challenge.rated && !matches!(seat, Seat::User(_)) {
        return Err(ApiError::new(
            ErrorCode::NotSignedIn,
            "sign in to play rated games",
        ));
    }
    let creator = match (&challenge.creator.user_id, &challenge.creator.guest_id) {
        (Some(user), _) => Seat::User(user.clone()),
        (None, Some(guest)) => Seat::Guest(guest.clone()),
        (None, None) => {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "the challenge has no creator",
            ));
        }
    };
    let creator_side = match challenge.side {
        ChallengeSide::First => Player::First,
        ChallengeSide::Second => Player::Second,
        ChallengeSide::Random => SideChoice::Random.pick(),
    };
    let (first, second) = match creator_side {
        Player::First => (creator, seat),
        Player::Second => (seat, creator),
    };
    let start = games::AnyGame::start(challenge.kind);
    let new = crate::store::NewGame {
        kind: challenge.kind,
        first,
        second,
        time_control: challenge.time_control.clone(),
        rated: challenge.rated,
        start_position: start.start_position_string(),
        session_state: None,
    };
    let record = state
        .store
        .accept_challenge(&id, &new, now_ms())
        .await
        .map_err(|e| match e {
            crate::store::StoreError::Conflict(_) => {
                ApiError::new(ErrorCode::Conflict, "the challenge was taken or withdrawn")
            }
            other => other.into(),
        })?;
    let game_id = record.id.clone();
    live::start_stored(&state, record)
        .await
        .map_err(|e| setup_error(&e))?;
    announce_challenges(&state).await;
    let body = json_with(StatusCode::OK, &serde_json::json!({ "game_id": game_id }));
    Ok(with_cookie(cookie, body))
}

/// `DELETE /api/challenges/{id}`: withdraw one's own challenge.
pub async fn cancel_challenge(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let seat = match &viewer {
        Viewer::User { user, .. } => Seat::User(user.id.clone()),
        Viewer::Guest(guest) => Seat::Guest(guest.id.clone()),
        Viewer::Anonymous => return Err(ApiError::new(ErrorCode::Forbidden, "not your challenge")),
    };
    state.store.cancel_challenge(&id, &seat).await?;
    announce_challenges(&state).await;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /ws/game/{id}`: the game's socket, for players and spectators.
pub async fn game_socket(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    ApiPath(id): ApiPath<String>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let handle = state.live.handle(&id);
    if handle.is_none() && state.store.game(&id).await?.is_none() {
        return Err(ApiError::not_found("no such game"));
    }
    let ident = ident_of(&viewer);
    let slot = state.connections.socket(ip)?;
    let watch = state.revocations.watch(&state, &viewer);
    Ok(upgrade
        .max_message_size(SOCKET_MESSAGE_LIMIT)
        .on_upgrade(move |socket| serve_game(state, id, ident, watch, socket, slot)))
}

/// Sends `message` as JSON text; false when the socket is gone.
pub(super) async fn send<T: Serialize>(socket: &mut WebSocket, message: &T) -> bool {
    let text = match serde_json::to_string(message) {
        Ok(text) => text,
        Err(error) => {
            tracing::error!(%error, "a socket message cannot be written");
            return false;
        }
    };
    socket.send(Message::Text(text.into())).await.is_ok()
}

/// One game socket: client messages go to the game's owner; the owner's updates come
/// back as events for this client (with its own legal moves).
async fn serve_game(
    state: AppState,
    id: String,
    ident: Ident,
    mut watch: SessionWatch,
    mut socket: WebSocket,
    _slot: crate::conn::SocketSlot,
) {
    state.metrics.sockets.inc();
    let limiter = state.limiters.socket_limiter();
    let handle = state.live.handle(&id);
    let mut updates = handle.as_ref().map(live::Handle::subscribe);
    if let Some(handle) = &handle {
        handle
            .send(live::Command::Watch {
                change: 1,
                ident: ident.clone(),
            })
            .await;
    }
    let mut rev: u64 = 0;
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => break,
            // Signed out everywhere, or the password changed: the socket closes.
            () = watch.ended() => break,
            incoming = tokio::time::timeout(SOCKET_IDLE, socket.recv()) => {
                let Ok(Some(Ok(message))) = incoming else { break };
                let text = match message {
                    Message::Text(text) => text.to_string(),
                    Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => continue,
                    Message::Binary(_) => {
                        let refusal = Refusal::new(SocketError::BadMessage, "messages are JSON text");
                        if !send(&mut socket, &ServerMessage::from(refusal)).await { break }
                        continue;
                    }
                };
                if check_direct(&limiter).is_err() {
                    let refusal = Refusal::new(SocketError::RateLimited, "too many messages: slow down");
                    if !send(&mut socket, &ServerMessage::from(refusal)).await { break }
                    continue;
                }
                if !watch.still_valid().await { break }
                let reply = match serde_json::from_str::<ClientMessage>(&text) {
                    Err(error) => Some(Refusal::new(SocketError::BadMessage, format!("not a message of this socket: {error}")).into()),
                    Ok(ClientMessage::Ping) => Some(ServerMessage::Pong),
                    Ok(ClientMessage::Hello { rev: seen }) => {
                        let answer = match &handle {
                            // 0: the client has nothing yet.
                            Some(handle) => handle.catch_up(ident.clone(), (seen > 0).then_some(seen)).await,
                            None => None,
                        };
                        match answer {
                            Some(message) => Some(message),
                            None => stored_state(&state, &id, &ident).await,
                        }
                    }
                    Ok(message) => match &handle {
                        Some(handle) => match handle.act(ident.clone(), message).await {
                            Ok(Some(new_id)) => Some(ServerMessage::Rematch { id: new_id }),
                            Ok(None) => None,
                            Err(refusal) => Some(refusal.into()),
                        },
                        None => Some(Refusal::new(SocketError::GameOver, "the game is over").into()),
                    },
                };
                if let Some(reply) = reply {
                    rev = sent_rev(&reply, rev);
                    if !send(&mut socket, &reply).await { break }
                }
            }
            update = recv_update(&mut updates) => {
                let message = match update {
                    Ok(Update::Watchers(count)) => Some(ServerMessage::Watchers { count }),
                    Ok(Update::Rematch(new_id)) => Some(ServerMessage::Rematch { id: new_id }),
                    Ok(Update::Absent(absent)) => Some(ServerMessage::Absent { absent }),
                    Ok(Update::Changed { .. }) => match &handle {
                        Some(handle) => handle.catch_up(ident.clone(), Some(rev)).await,
                        None => None,
                    },
                    // Reload, or fallen behind: the whole state.
                    Ok(Update::Reload) | Err(RecvError::Lagged(_)) => match &handle {
                        Some(handle) => handle.catch_up(ident.clone(), None).await,
                        None => None,
                    },
                    Err(RecvError::Closed) => {
                        updates = None;
                        None
                    }
                };
                if let Some(message) = message {
                    rev = sent_rev(&message, rev);
                    if !send(&mut socket, &message).await { break }
                }
            }
        }
    }
    if let Some(handle) = &handle {
        handle
            .send(live::Command::Watch {
                change: -1,
                ident: ident.clone(),
            })
            .await;
    }
    state.metrics.sockets.dec();
}

/// The revision the client has after `message`.
fn sent_rev(message: &ServerMessage, rev: u64) -> u64 {
    match message {
        ServerMessage::State { game } => game.rev,
        ServerMessage::Events { events, .. } => events.last().map_or(rev, |e| e.revision),
        _ => rev,
    }
}

async fn recv_update(
    updates: &mut Option<tokio::sync::broadcast::Receiver<Update>>,
) -> Result<Update, RecvError> {
    match updates {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

async fn stored_state(state: &AppState, id: &str, ident: &Ident) -> Option<ServerMessage> {
    match live::stored_view(state, id, ident).await {
        Ok(Some(view)) => Some(ServerMessage::State {
            game: Box::new(view),
        }),
        Ok(None) => Some(Refusal::new(SocketError::NotFound, "no such game").into()),
        Err(error) => {
            tracing::error!(%error, "reading a game");
            Some(Refusal::new(SocketError::Internal, "the game cannot be read now").into())
        }
    }
}

/// `GET /ws/lobby`: the open challenges and the games being played, as they change.
pub async fn lobby_socket(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let slot = state.connections.socket(ip)?;
    let watch = state.revocations.watch(&state, &viewer);
    Ok(upgrade
        .max_message_size(SOCKET_MESSAGE_LIMIT)
        .on_upgrade(move |socket| serve_lobby(state, watch, socket, slot)))
}

async fn serve_lobby(
    state: AppState,
    mut watch: SessionWatch,
    mut socket: WebSocket,
    _slot: crate::conn::SocketSlot,
) {
    state.metrics.sockets.inc();
    let mut updates = state.live.lobby().subscribe();
    let mut first = Vec::new();
    if let Ok(challenges) = open_challenges(&state).await {
        first.push(LobbyMessage::Challenges { challenges });
    }
    first.push(LobbyMessage::LiveGames {
        games: state.live.live_games(),
    });
    let mut open = true;
    for message in &first {
        open = open && send(&mut socket, message).await;
    }
    while open {
        tokio::select! {
            () = state.shutdown.cancelled() => break,
            () = watch.ended() => break,
            incoming = tokio::time::timeout(SOCKET_IDLE, socket.recv()) => {
                match incoming {
                    Ok(Some(Ok(Message::Text(text)))) if text.contains("\"ping\"") => {
                        open = socket.send(Message::Text(r#"{"t":"pong"}"#.into())).await.is_ok();
                    }
                    Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) | Err(_) => break,
                    Ok(Some(Ok(_))) => {}
                }
            }
            update = updates.recv() => match update {
                Ok(message) => open = send(&mut socket, &message).await,
                Err(RecvError::Lagged(_)) => {
                    let message = LobbyMessage::LiveGames { games: state.live.live_games() };
                    open = send(&mut socket, &message).await;
                }
                Err(RecvError::Closed) => break,
            },
        }
    }
    state.metrics.sockets.dec();
}
