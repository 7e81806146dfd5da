//! `GET /ws/lobby`: the home page's one source. On connecting, a snapshot (the newest
//! games being played, how many there are, the open challenges); then the lobby's
//! coalesced changes, each serialised once and shared by every lobby socket; and, to a
//! poster's sockets only, the game their challenge became. A player's socket (a user's
//! or a guest's) also carries their own games, as a list on connecting and then each
//! game as it changes (`my_games`, `my_game`: live/people.rs). A socket that takes the
//! lobby also carries the lobby chat (`lobby_chat_history` on connecting when there is
//! any, then each
//! `lobby_chat` message; a signed-in account says `{"t":"chat","text":…}`: see
//! live/lobby_chat.rs). `?feed=lobby` leaves out the player's games, `?feed=me` the
//! lobby and its chat.

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use std::sync::Arc;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::game_socket::{Held, SOCKET_IDLE, send_text, sized};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::live::chat::Author;
use crate::live::people::{self, JoinError, Personal, Subscription};
use crate::live::{self, Ident, LobbyFrame, Refusal, ServerMessage, SocketError, lobby_chat};
use crate::security::{ClientIp, check_direct, check_same_origin};
use crate::state::AppState;
use crate::store::now_ms;

/// The query of `GET /ws/lobby`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyQuery {
    /// `lobby`, `me`, or both when absent.
    feed: Option<String>,
}

/// What a lobby socket takes from its client.
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
enum LobbyClientMessage {
    /// Answered with `pong`.
    Ping,
    /// A message for the lobby chat.
    Chat {
        /// What to say.
        text: String,
    },
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
    let author = Author::of(&viewer);
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
            (ident, author),
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

/// The next message of the lobby chat, for a socket that takes the lobby (else never).
async fn next_chat(
    chat: Option<&mut broadcast::Receiver<Arc<str>>>,
) -> Result<Arc<str>, RecvError> {
    match chat {
        Some(chat) => chat.recv().await,
        None => std::future::pending().await,
    }
}

/// The answer to one message from the client (`None`: nothing to answer).
async fn answer(
    state: &AppState,
    author: &Author,
    lobby_on: bool,
    text: &str,
) -> Option<ServerMessage> {
    match serde_json::from_str::<LobbyClientMessage>(text) {
        Err(error) => Some(
            Refusal::new(
                SocketError::BadMessage,
                format!("not a message of this socket: {error}"),
            )
            .into(),
        ),
        Ok(LobbyClientMessage::Ping) => Some(ServerMessage::Pong),
        Ok(LobbyClientMessage::Chat { .. }) if !lobby_on => Some(
            Refusal::new(
                SocketError::ChatRefused,
                "this socket does not take the lobby (feed=me): no lobby chat here",
            )
            .into(),
        ),
        Ok(LobbyClientMessage::Chat { text }) => lobby_chat::post(state, author, &text)
            .await
            .err()
            .map(ServerMessage::from),
    }
}

/// The next message of the player's own channel (else never).
async fn next_personal(personal: Option<&mut Subscription>) -> Option<Personal> {
    match personal {
        Some(personal) => personal.receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// Sends the player's whole list of games, and an account's direct challenges; false
/// when the socket is gone.
async fn send_my_games(state: &AppState, ident: &Ident, socket: &mut WebSocket) -> bool {
    let open = match people::my_games_text(state, ident).await {
        Ok(text) => send_text(socket, &text).await,
        Err(error) => {
            // The list comes again on the next change the socket falls behind on, or
            // when the client reconnects; the lobby goes on.
            tracing::error!(%error, "reading a player's games");
            true
        }
    };
    open && send_my_challenges(state, ident, socket).await
}

/// Sends an account's direct challenges (nothing for a guest, who has none); false when
/// the socket is gone.
async fn send_my_challenges(state: &AppState, ident: &Ident, socket: &mut WebSocket) -> bool {
    let Some(user) = &ident.user else {
        return true;
    };
    match live::challenges::my_challenges_text(state, user).await {
        Ok(text) => send_text(socket, &text).await,
        Err(error) => {
            tracing::error!(%error, "reading a player's challenges");
            true
        }
    }
}

async fn serve_lobby(
    state: AppState,
    (ident, author): (Ident, Author),
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
    let chat = state.live.lobby_chat();
    let mut chat_updates = lobby_on.then(|| chat.subscribe());
    let limiter = state.limiters.socket_limiter();
    let mut version = 0;
    let mut open = true;
    if lobby_on {
        lobby.enter(&ident);
        let (v, snapshot) = lobby.snapshot(now_ms());
        version = v;
        open = send_text(&mut socket, &snapshot).await;
        // The chat's last messages (none: nothing is sent).
        if open && !chat.is_empty() {
            open = send_text(&mut socket, &chat.history()).await;
        }
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
                let text = match incoming {
                    Ok(Some(Ok(Message::Text(text)))) => text,
                    Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) | Err(_) => break,
                    Ok(Some(Ok(_))) => continue,
                };
                let reply = if check_direct(&limiter).is_err() {
                    Some(Refusal::new(SocketError::RateLimited, "too many messages: slow down").into())
                } else if !watch.still_valid().await {
                    // A message under a sign-in that has ended since is not taken.
                    break;
                } else {
                    answer(&state, &author, lobby_on, &text).await
                };
                if let Some(reply) = reply {
                    open = send_text(&mut socket, &live::feed::to_text(&reply)).await;
                }
            }
            line = next_chat(chat_updates.as_mut()) => match line {
                Ok(text) => open = send_text(&mut socket, &text).await,
                // Fell behind: the last messages again (the client skips those it has).
                Err(RecvError::Lagged(_)) => open = send_text(&mut socket, &chat.history()).await,
                Err(RecvError::Closed) => break,
            },
            message = next_personal(personal.as_mut()) => match message {
                Some(message) => {
                    if personal.as_ref().is_some_and(Subscription::take_behind) {
                        // Messages were dropped while this socket did not read: what
                        // is queued is stale too; the whole list instead.
                        if let Some(personal) = personal.as_mut() {
                            while personal.receiver.try_recv().is_ok() {}
                        }
                        open = send_my_games(&state, &ident, &mut socket).await;
                    } else {
                        open = match message {
                            Personal::Text(text) => send_text(&mut socket, &text).await,
                            Personal::Challenges => send_my_challenges(&state, &ident, &mut socket).await,
                        };
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
