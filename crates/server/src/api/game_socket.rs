//! `GET /ws/game/{id}`: a game's socket, for its players and spectators.
//!
//! Client messages go to the game's owner as commands; what changed comes back on the
//! game's [`Feed`]: each change published once, serialised once, and the same text
//! written to every socket (the side to move gets the copy with its legal moves). A
//! socket never asks the owner what changed. A client that says `hello` with the last
//! revision it saw gets the changes since from the feed's recent history, or the whole
//! state when too far behind; a socket that falls behind the feed's queue is sent the
//! whole state once it reads again, and one that does not read at all is closed after
//! [`SEND_TIMEOUT`]. Nothing a socket does can make the owner wait.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::http::HeaderMap;
use axum::response::Response;
use game::Player;
use serde::Serialize;
use session::Timestamp;
use tokio::sync::broadcast::error::RecvError;

use super::ApiPath;
use crate::auth::{SessionWatch, Viewer};
use crate::conn::SocketSlot;
use crate::error::{ApiError, ErrorCode};
use crate::live::chat::{self, Author, ChatRoom};
use crate::live::{
    self, CatchUp, ClientMessage, Feed, Handle, Ident, MessageKind, Published, Refusal,
    ServerMessage, SocketError,
};
use crate::security::{ClientIp, check_direct, check_same_origin};
use crate::state::AppState;

/// Largest message a socket accepts, in bytes.
pub const SOCKET_MESSAGE_LIMIT: usize = 4096;
/// A socket that says nothing for this long (the client pings every 25 s) is closed.
pub(super) const SOCKET_IDLE: Duration = Duration::from_secs(90);
/// A message that cannot be written within this long (the client does not read, and
/// the connection's buffers are full) closes the socket.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// The read buffer of a socket: client messages are small.
const READ_BUFFER: usize = 4 * 1024;
/// The most a socket buffers for writing before it refuses to: a few whole states.
const MAX_WRITE_BUFFER: usize = 1024 * 1024;

/// A socket upgrade with small buffers: an idle socket holds a few KiB, not 256 (axum's
/// defaults are 128 KiB each way). Messages are written at once (no write buffering).
pub(super) fn sized(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .max_message_size(SOCKET_MESSAGE_LIMIT)
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
    // This process's own game, or (with a bus) a relay to the process that owns it.
    let mut handle = live::reach(&state, &id).await?;
    if handle.is_none() {
        match state.store.game(&id).await? {
            None => return Err(ApiError::not_found("no such game")),
            // A live game another server process owns, or is about to take over (its
            // owner died): the client connects again, and reaches its owner.
            Some(record) if record.status.is_live() => {
                if state.store.owned_elsewhere(&id).await? {
                    return Err(ApiError::new(
                        ErrorCode::DatabaseUnavailable,
                        "this game is passing to another server process: connect again \
                         in a moment",
                    ));
                }
                // This process has just claimed it (from a process gone) and its owner is
                // starting: a moment.
                handle = owner_started(&state, &id).await;
            }
            Some(_) => {}
        }
    }
    let ident = Ident::from(&viewer);
    let author = Author::of(&viewer);
    let slot = state.connections.socket(ip)?;
    let watch = state.revocations.watch(&state, &viewer);
    Ok(sized(upgrade).on_upgrade(move |socket| {
        serve_game(
            state,
            id,
            (ident, author),
            handle,
            socket,
            Held { slot, watch },
        )
    }))
}

/// The owner of live game `id`, waited for a moment (a game this process has claimed
/// an instant ago; `None` after that, as for a game that cannot be resumed).
async fn owner_started(state: &AppState, id: &str) -> Option<live::Handle> {
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Some(handle) = state.live.handle(id) {
            return Some(handle);
        }
    }
    None
}

/// Writes `text`; false when the socket is gone or does not take it within
/// [`SEND_TIMEOUT`].
pub(super) async fn send_text(socket: &mut WebSocket, text: &str) -> bool {
    matches!(
        tokio::time::timeout(SEND_TIMEOUT, socket.send(Message::Text(text.into()))).await,
        Ok(Ok(()))
    )
}

/// Sends `message` as JSON text (serialised for this socket alone: answers and errors);
/// false when the socket is gone.
pub(super) async fn send<T: Serialize>(socket: &mut WebSocket, message: &T) -> bool {
    match serde_json::to_string(message) {
        Ok(text) => send_text(socket, &text).await,
        Err(error) => {
            tracing::error!(%error, "a socket message cannot be written");
            false
        }
    }
}

/// One game socket's view of the game: who it is, and how far its client has been told.
struct Viewing {
    ident: Ident,
    /// Their side, as the latest state seats them.
    you: Option<Player>,
    /// The revision the client has been sent (`None` until it says hello).
    rev: Option<u64>,
    /// The watcher counts published after this version count this socket (it is left
    /// out of the count its client is sent).
    counted_after: u64,
    /// Whether the chat history has been sent (at the first `hello`).
    chat_sent: bool,
    /// Whether the game was over at the last change seen (both rooms read then).
    over: bool,
}

impl Viewing {
    /// The version after which the watcher counts include this socket: a player's
    /// never do (the count is of the people watching).
    fn counted(&self) -> u64 {
        if self.you.is_some() {
            u64::MAX
        } else {
            self.counted_after
        }
    }

    /// What to send a client at `seen` to bring it up to date: the changes since, or
    /// the whole state; then the clocks now (those of a change are as it was made).
    fn catch_up(&mut self, feed: &Feed, seen: u64) -> Vec<Arc<str>> {
        let mut texts = Vec::new();
        let clocks = match feed.catch_up(seen) {
            CatchUp::Frames(frames) => {
                self.rev = Some(frames.last().map_or(seen, |f| f.to));
                texts.extend(frames.iter().map(|f| Arc::clone(f.text_for(self.you))));
                feed.snapshot().clocks_at(Timestamp::now())
            }
            CatchUp::State(snapshot) => {
                self.you = self.ident.side_among(&snapshot.seats);
                self.rev = Some(snapshot.rev());
                texts.push(snapshot.state_text(self.you));
                texts.push(Arc::clone(feed.watchers().text_for(self.counted())));
                snapshot.clocks_at(Timestamp::now())
            }
        };
        if clocks.is_some_and(|c| c.running.is_some()) {
            texts.push(live::feed::to_text(&ServerMessage::Clocks { clocks }));
        }
        texts
    }

    /// The chat history of the rooms this viewer reads now and did not before (all it
    /// reads, the first time), once the client has said hello; the game's end opens
    /// both rooms to everyone.
    fn chat_news(&mut self, feed: &Feed) -> Vec<Arc<str>> {
        let was_over = self.over;
        self.over = chat::is_over(feed);
        let first = !self.chat_sent;
        self.chat_sent = true;
        let mut texts = Vec::new();
        for room in ChatRoom::BOTH {
            let before = !first && room.readable_by(self.you, was_over);
            if !before && room.readable_by(self.you, self.over) {
                texts.extend(feed.chat_history(room));
            }
        }
        texts
    }

    /// What to send for one publication.
    fn published(&mut self, feed: &Feed, item: Published) -> Vec<Arc<str>> {
        match item {
            Published::Watchers(count) => vec![Arc::clone(count.text_for(self.counted()))],
            Published::Rematch(text) | Published::Absent(text) => vec![text],
            // The socket loop closes the socket.
            Published::Moved => Vec::new(),
            Published::Chat(room, text) => {
                if self.chat_sent && room.readable_by(self.you, self.over) {
                    vec![text]
                } else {
                    Vec::new()
                }
            }
            Published::Change { frame, .. } => match self.rev {
                // Not said hello yet: it will get the state then.
                None => Vec::new(),
                Some(rev) if frame.to <= rev => Vec::new(),
                Some(rev) if frame.from == rev => {
                    self.rev = Some(frame.to);
                    vec![Arc::clone(frame.text_for(self.you))]
                }
                // A gap: what was missed, from the history or as the whole state.
                Some(rev) => self.catch_up(feed, rev),
            },
            Published::Reset { .. } => match self.rev {
                None => Vec::new(),
                Some(_) => self.catch_up(feed, 0),
            },
            // Never told: the feed only keeps it.
            Published::Refresh { .. } => Vec::new(),
        }
    }
}

/// What a socket holds while it is open: its place in its address's count of sockets,
/// and the watch on the sign-in it was opened under.
pub(super) struct Held {
    pub(super) slot: SocketSlot,
    pub(super) watch: SessionWatch,
}

/// One game socket.
async fn serve_game(
    state: AppState,
    id: String,
    (ident, author): (Ident, Author),
    mut handle: Option<Handle>,
    mut socket: WebSocket,
    held: Held,
) {
    let Held {
        slot: _slot,
        mut watch,
    } = held;
    state.metrics.sockets.inc();
    let limiter = state.limiters.socket_limiter();
    let feed = handle.as_ref().map(|h| Arc::clone(h.feed()));
    let mut updates = feed.as_ref().map(|f| f.subscribe());
    let counted_after = match &handle {
        Some(handle) => handle.watch_counted(&ident).await,
        None => u64::MAX,
    };
    let mut viewing = Viewing {
        counted_after,
        you: feed
            .as_ref()
            .and_then(|f| ident.side_among(&f.snapshot().seats)),
        ident,
        rev: None,
        chat_sent: false,
        over: false,
    };
    'serve: loop {
        let texts: Vec<Arc<str>> = tokio::select! {
            () = state.shutdown.cancelled() => break,
            // Signed out everywhere, or the password changed: the socket closes.
            () = watch.ended() => break,
            incoming = tokio::time::timeout(SOCKET_IDLE, socket.recv()) => {
                let Ok(Some(Ok(message))) = incoming else { break };
                let text = match message {
                    Message::Text(text) => text,
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
                // An action under a sign-in that has ended since is not taken.
                if !watch.still_valid().await { break }
                let handling = std::time::Instant::now();
                let parsed = ClientMessage::parse(&text);
                let kind = MessageKind::of(parsed.as_ref().ok());
                let reply = match parsed {
                    Err(error) => Some(Refusal::new(SocketError::BadMessage, format!("not a message of this socket: {error}")).into()),
                    Ok(ClientMessage::Ping) => Some(ServerMessage::Pong),
                    Ok(ClientMessage::Hello { rev: seen }) => match &feed {
                        Some(feed) if handle.is_some() => {
                            let mut texts = viewing.catch_up(feed, seen);
                            texts.extend(feed.rematch());
                            texts.extend(viewing.chat_news(feed));
                            for text in &texts {
                                if !send_text(&mut socket, text).await { break 'serve }
                            }
                            None
                        }
                        _ => {
                            let reply = stored_state(&state, &id, &viewing.ident).await;
                            if let Some(reply) = &reply
                                && !send(&mut socket, reply).await
                            {
                                break 'serve;
                            }
                            for line in stored_chat(&state, &id, &mut viewing).await {
                                if !send_text(&mut socket, &line).await { break 'serve }
                            }
                            None
                        }
                    },
                    Ok(ClientMessage::Chat { room, text }) => match &feed {
                        Some(feed) if handle.is_some() => {
                            chat::post(&state, &id, feed, &author, room, &text).await.err().map(ServerMessage::from)
                        }
                        _ => Some(Refusal::new(SocketError::ChatRefused, "this game's chat is closed").into()),
                    },
                    Ok(ClientMessage::Act(act)) => match &handle {
                        Some(handle) => match handle.act(viewing.ident.clone(), act).await {
                            Ok(Some(new_id)) => Some(ServerMessage::Rematch { id: new_id }),
                            // The change comes back on the feed, like everyone's.
                            Ok(None) => None,
                            Err(refusal) => Some(refusal.into()),
                        },
                        None => Some(Refusal::new(SocketError::GameOver, "the game is over").into()),
                    },
                };
                let texts = match reply {
                    Some(reply) => vec![live::feed::to_text(&reply)],
                    None => Vec::new(),
                };
                state.metrics.game_message(kind, handling.elapsed());
                texts
            }
            item = recv(&mut updates) => match (item, &feed) {
                (Ok(Published::Moved), _) => {
                    // Another server process owns the game now: the client connects
                    // again (1012: the service is restarting).
                    let _ = socket
                        .send(Message::Close(Some(CloseFrame {
                            code: close_code::RESTART,
                            reason: "the game moved to another server process".into(),
                        })))
                        .await;
                    break 'serve;
                }
                (Ok(item), Some(feed)) => {
                    let changed = matches!(item, Published::Change { .. } | Published::Reset { .. });
                    let mut texts = viewing.published(feed, item);
                    if changed && viewing.chat_sent && !viewing.over {
                        texts.extend(viewing.chat_news(feed));
                    }
                    texts
                }
                (Err(RecvError::Lagged(_)), Some(feed)) => match viewing.rev {
                    Some(rev) => {
                        // Chat missed too: the history again (the client keeps each
                        // message once, by id).
                        viewing.chat_sent = false;
                        let mut texts = viewing.catch_up(feed, rev);
                        texts.extend(viewing.chat_news(feed));
                        texts
                    }
                    None => Vec::new(),
                },
                _ => {
                    // The owner has gone (the game is long over): what is stored now
                    // answers this socket.
                    updates = None;
                    handle = None;
                    Vec::new()
                }
            },
        };
        for text in &texts {
            if !send_text(&mut socket, text).await {
                break 'serve;
            }
        }
    }
    if let Some(handle) = &handle {
        handle.watch(-1, &viewing.ident).await;
    }
    state.metrics.sockets.dec();
}

async fn recv(
    updates: &mut Option<tokio::sync::broadcast::Receiver<Published>>,
) -> Result<Published, RecvError> {
    match updates {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// The chat of a game with no owner (over some time ago), once per socket.
async fn stored_chat(state: &AppState, id: &str, viewing: &mut Viewing) -> Vec<Arc<str>> {
    if viewing.chat_sent {
        return Vec::new();
    }
    viewing.chat_sent = true;
    match chat::stored_lines(state, id).await {
        Ok(lines) => lines.iter().map(chat::ChatLine::text).collect(),
        Err(error) => {
            tracing::error!(%error, "reading a game's chat");
            Vec::new()
        }
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
