//! The lobby chat: one room on the home page, read by every lobby socket and written by
//! signed-in accounts. A message is checked as a game's chat message is (length, one
//! line, no control or bidi-override characters, the profanity filter, the author's rate
//! limit shared with game chat, and the account's ban or mute, read at every message so
//! that `kingstable admin` acts on open sockets at once), stored, then published once:
//! serialised once and shared by every lobby socket through a bounded broadcast queue.
//! The last [`HISTORY`] messages are kept here for sockets that open later, serialised
//! once per change.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::broadcast;

use super::chat::{self, Author, ChatRefusal};
use super::feed::to_text;
use super::lock;
use super::messages::{Refusal, SocketError};
use crate::state::AppState;
use crate::store::{ChatRecord, StoreError};

/// How many messages the lobby keeps for the sockets that open later.
pub const HISTORY: usize = 50;
/// How many messages a lobby socket may fall behind before it is sent the history again.
const QUEUE: usize = 64;

/// A message of the lobby chat as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LobbyLine {
    /// The message's id (to report it).
    pub id: String,
    /// The author's name.
    pub from: String,
    /// What was said.
    pub text: String,
    /// When (ms since the Unix epoch).
    pub at: i64,
}

impl LobbyLine {
    fn of(record: &ChatRecord) -> LobbyLine {
        LobbyLine {
            id: record.id.clone(),
            from: record.author.clone(),
            text: record.body.clone(),
            at: record.created_at,
        }
    }
}

/// What the lobby chat sends on a lobby socket.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum LobbyChatMessage<'a> {
    /// One new message.
    LobbyChat(&'a LobbyLine),
    /// The last messages, oldest first: on connecting, and to a socket that fell behind.
    LobbyChatHistory {
        /// The messages.
        messages: Vec<&'a LobbyLine>,
    },
}

/// The lobby chat of this server.
#[derive(Debug)]
pub struct LobbyChat {
    inner: Mutex<Kept>,
    sender: broadcast::Sender<Arc<str>>,
}

#[derive(Debug, Default)]
struct Kept {
    lines: VecDeque<LobbyLine>,
    /// The history message of `lines`, once serialised.
    history: Option<Arc<str>>,
}

impl Default for LobbyChat {
    fn default() -> LobbyChat {
        LobbyChat {
            inner: Mutex::default(),
            sender: broadcast::channel(QUEUE).0,
        }
    }
}

impl LobbyChat {
    /// Subscribes a socket to new messages; send it [`LobbyChat::history`] first.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.sender.subscribe()
    }

    /// The last messages, serialised once per change.
    #[must_use]
    pub fn history(&self) -> Arc<str> {
        let mut kept = lock(&self.inner);
        if let Some(text) = &kept.history {
            return Arc::clone(text);
        }
        let text = to_text(&LobbyChatMessage::LobbyChatHistory {
            messages: kept.lines.iter().collect(),
        });
        kept.history = Some(Arc::clone(&text));
        text
    }

    /// How many messages are kept now.
    #[must_use]
    pub fn len(&self) -> usize {
        lock(&self.inner).lines.len()
    }

    /// Whether no message is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps `line` (dropping the oldest past [`HISTORY`]) and sends it to every lobby
    /// socket, serialised once.
    fn publish(&self, line: LobbyLine) {
        let text = to_text(&LobbyChatMessage::LobbyChat(&line));
        let mut kept = lock(&self.inner);
        kept.lines.push_back(line);
        while kept.lines.len() > HISTORY {
            kept.lines.pop_front();
        }
        kept.history = None;
        // Sent under the lock, so that the order of the queue is the order of the
        // history; nobody listening is fine.
        let _ = self.sender.send(text);
    }

    /// Reads the last messages back from the database (a server starting).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn restore(&self, state: &AppState) -> Result<(), StoreError> {
        let records = state.store.lobby_chat(HISTORY).await?;
        let mut kept = lock(&self.inner);
        kept.lines = records.iter().map(LobbyLine::of).collect();
        kept.history = None;
        Ok(())
    }
}

/// Says `text` in the lobby chat: checks it, stores it and publishes it to every lobby
/// socket.
///
/// # Errors
/// `chat_refused` with the reason, or `internal` when it cannot be stored; nothing is
/// stored or sent then.
pub async fn post(state: &AppState, author: &Author, text: &str) -> Result<(), Refusal> {
    let (Some(user), Some(name)) = (author.user_id(), author.name()) else {
        return Err(ChatRefusal::SignIn.refusal("sign in to chat in the lobby"));
    };
    let text = text.trim();
    let now = chat::admit(state, user, Some(user), text).await?;
    let internal = |error: StoreError| {
        tracing::error!(%error, "storing a lobby chat message");
        Refusal::new(SocketError::Internal, "the message cannot be stored now")
    };
    let record = state
        .store
        .add_lobby_chat(user, name, text, now)
        .await
        .map_err(internal)?;
    state.live.lobby_chat().publish(LobbyLine::of(&record));
    Ok(())
}
