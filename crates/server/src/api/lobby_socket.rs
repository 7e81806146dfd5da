//! `GET /ws/lobby`: the home page's one source. On connecting, a snapshot (the newest
//! games being played, how many there are, the open challenges); then the lobby's
//! coalesced changes, each serialised once and shared by every lobby socket; and, to a
//! poster's sockets only, the game their challenge became.

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use tokio::sync::broadcast::error::RecvError;

use super::game_socket::{Held, SOCKET_IDLE, send_text, sized};
use crate::auth::Viewer;
use crate::error::ApiError;
use crate::live::{self, Ident};
use crate::security::{ClientIp, check_same_origin};
use crate::state::AppState;
use crate::store::now_ms;

/// `GET /ws/lobby`: the open challenges and the games being played, as they change.
pub async fn lobby_socket(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let ident = Ident::from(&viewer);
    let slot = state.connections.socket(ip)?;
    let watch = state.revocations.watch(&state, &viewer);
    Ok(sized(upgrade)
        .on_upgrade(move |socket| serve_lobby(state, ident, socket, Held { slot, watch })))
}

async fn serve_lobby(state: AppState, ident: Ident, mut socket: WebSocket, held: Held) {
    let Held {
        slot: _slot,
        mut watch,
    } = held;
    state.metrics.sockets.inc();
    let lobby = state.live.lobby();
    let mut updates = lobby.subscribe();
    lobby.enter(&ident);
    let (mut version, snapshot) = lobby.snapshot(now_ms());
    let mut open = send_text(&mut socket, &snapshot).await;
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
            update = updates.recv() => match update {
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
    if lobby.leave(&ident) {
        live::poster_left(&state, ident);
    }
    state.metrics.sockets.dec();
}
