//! `GET /ws/lobby`: the home page's one source. On connecting, a snapshot (the newest
//! games being played, how many there are, the open challenges); then the lobby's
//! coalesced changes, each serialised once and shared by every lobby socket; and, to a
//! poster's sockets only, the game their challenge became. A player's socket (a user's
//! or a guest's) also carries their own games, as a list on connecting and then each
//! game as it changes (`my_games`, `my_game`: live/people.rs). `?feed=lobby` leaves out
//! the player's games, `?feed=me` the lobby.

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::game_socket::{Held, SOCKET_IDLE, send_text, sized};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::live::people::{self, JoinError, Personal, Subscription};
use crate::live::{self, Ident, LobbyFrame};
use crate::security::{ClientIp, check_same_origin};
use crate::state::AppState;
use crate::store::now_ms;

/// The query of `GET /ws/lobby`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyQuery {
    /// `lobby`, `me`, or both when absent.
    feed: Option<String>,
}

/// `GET /ws/lobby`: the open challenges and the games being played, as they change; and
/// a player's own games.
pub async fn lobby_socket(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    query: Result<Query<LobbyQuery>, QueryRejection>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let Query(query) =
        query.map_err(|rejection| ApiError::new(ErrorCode::BadRequest, rejection.body_text()))?;
    let (lobby_on, me_on) = match query.feed.as_deref() {
        None | Some("") => (true, true),
        Some("lobby") => (true, false),
        Some("me") => (false, true),
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                format!("feed `{other}`: expected lobby or me"),
            ));
        }
    };
    let ident = Ident::from(&viewer);
    let slot = state.connections.socket(ip)?;
    let personal = if me_on {
        match state.live.people().join(&ident) {
            Ok(subscription) => Some(subscription),
            Err(JoinError::Anonymous) => None,
            Err(JoinError::Full) => {
                return Err(ApiError::new(
                    ErrorCode::RateLimited,
                    format!(
                        "you have {} sockets open on your games already: close some",
                        people::SOCKETS_PER_PERSON
                    ),
                ));
            }
        }
    } else {
        None
    };
    let watch = state.revocations.watch(&state, &viewer);
    Ok(sized(upgrade).on_upgrade(move |socket| {
        serve_lobby(
            state,
            ident,
            socket,
            Held { slot, watch },
            lobby_on,
            personal,
        )
    }))
}

/// The next lobby frame, for a socket that takes the lobby (else never).
async fn next_frame(
    updates: Option<&mut broadcast::Receiver<LobbyFrame>>,
) -> Result<LobbyFrame, RecvError> {
    match updates {
        Some(updates) => updates.recv().await,
        None => std::future::pending().await,
    }
}

/// The next message of the player's own channel (else never).
async fn next_personal(personal: Option<&mut Subscription>) -> Option<Personal> {
    match personal {
        Some(personal) => personal.receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// Sends the player's whole list of games; false when the socket is gone.
async fn send_my_games(state: &AppState, ident: &Ident, socket: &mut WebSocket) -> bool {
    match people::my_games_text(state, ident).await {
        Ok(text) => send_text(socket, &text).await,
        Err(error) => {
            // The list comes again on the next change the socket falls behind on, or
            // when the client reconnects; the lobby goes on.
            tracing::error!(%error, "reading a player's games");
            true
        }
    }
}

async fn serve_lobby(
    state: AppState,
    ident: Ident,
    mut socket: WebSocket,
    held: Held,
    lobby_on: bool,
    mut personal: Option<Subscription>,
) {
    let Held {
        slot: _slot,
        mut watch,
    } = held;
    state.metrics.sockets.inc();
    let lobby = state.live.lobby();
    let mut updates = lobby_on.then(|| lobby.subscribe());
    let mut version = 0;
    let mut open = true;
    if lobby_on {
        lobby.enter(&ident);
        let (v, snapshot) = lobby.snapshot(now_ms());
        version = v;
        open = send_text(&mut socket, &snapshot).await;
    }
    if open && personal.is_some() {
        open = send_my_games(&state, &ident, &mut socket).await;
    }
    while open {
        tokio::select! {
            () = state.shutdown.cancelled() => break,
            // Signed out everywhere, or the password changed: the socket closes.
            () = watch.ended() => break,
            incoming = tokio::time::timeout(SOCKET_IDLE, socket.recv()) => {
                match incoming {
                    Ok(Some(Ok(Message::Text(text)))) if text.contains("\"ping\"") => {
                        open = send_text(&mut socket, r#"{"t":"pong"}"#).await;
                    }
                    Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) | Err(_) => break,
                    Ok(Some(Ok(_))) => {}
                }
            }
            message = next_personal(personal.as_mut()) => match message {
                Some(Personal::Text(text)) => {
                    if personal.as_ref().is_some_and(Subscription::take_behind) {
                        // Messages were dropped while this socket did not read: what
                        // is queued is stale too; the whole list instead.
                        if let Some(personal) = personal.as_mut() {
                            while personal.receiver.try_recv().is_ok() {}
                        }
                        open = send_my_games(&state, &ident, &mut socket).await;
                    } else {
                        open = send_text(&mut socket, &text).await;
                    }
                }
                None => break,
            },
            update = next_frame(updates.as_mut()) => match update {
                Ok(frame) => match &frame.to {
                    Some(to) => {
                        if to.is_same_person(&ident) {
                            open = send_text(&mut socket, &frame.text).await;
                        }
                    }
                    // Already in the snapshot.
                    None if frame.v <= version => {}
                    None if frame.v == version + 1 => {
                        version = frame.v;
                        open = send_text(&mut socket, &frame.text).await;
                    }
                    // A change missed: the whole lobby again.
                    None => {
                        let (v, text) = lobby.snapshot(now_ms());
                        version = v;
                        open = send_text(&mut socket, &text).await;
                    }
                },
                Err(RecvError::Lagged(_)) => {
                    let (v, text) = lobby.snapshot(now_ms());
                    version = v;
                    open = send_text(&mut socket, &text).await;
                }
                Err(RecvError::Closed) => break,
            },
        }
    }
    drop(personal);
    if lobby_on && lobby.leave(&ident) {
        live::poster_left(&state, ident);
    }
    state.metrics.sockets.dec();
}
