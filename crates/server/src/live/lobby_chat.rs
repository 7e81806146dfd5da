//! The lobby chat: one room on the home page, read by every lobby socket and written by
//! signed-in accounts. A message is checked as a game's chat message is (length, one
//! line, no control or bidi-override characters, the profanity filter, the author's rate
//! limit shared with game chat, and the account's ban or mute, read at every message so
//! that `kingstable admin` acts on open sockets at once), stored, then published once:
//! serialised once and shared by every lobby socket through a bounded broadcast queue.
//! The last [`HISTORY`] messages are kept here for sockets that open later, serialised
//! once per change.
//!
//! A line goes through the hub's [`Outlet`] ([`super::hub`]): on the bus (`--redis`) it
//! is published once on `kt:lobby_chat`, and every other process keeps it and sends it
//! to its lobby sockets as it does its own, in the order it was said. When the
//! connection to Redis comes back, the process reads its last lines back from the
//! database and sends them to its lobby sockets (whose clients skip those they have).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::chat::{self, Author, ChatRefusal};
use super::feed::to_text;
use super::hub::{Hub, Origin, Outlet};
use super::lock;
use super::messages::{Refusal, SocketError};
use crate::bus::HubChannel;
use crate::state::AppState;
use crate::store::{ChatRecord, StoreError};

/// How many messages the lobby keeps for the sockets that open later.
pub const HISTORY: usize = 50;
/// How many messages a lobby socket may fall behind before it is sent the history again.
const QUEUE: usize = 64;

/// A message of the lobby chat as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    outlet: Outlet<LobbyChat>,
}

/// A change of the lobby chat, as the processes share it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyChatChange {
    /// A line was said (and stored).
    Line(LobbyLine),
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
            outlet: Outlet::default(),
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
    /// socket here, serialised once.
    fn keep(&self, line: LobbyLine) {
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

    /// Sends the last messages to every lobby socket here (after the connection to the
    /// other processes came back: the lines said elsewhere meanwhile are among them).
    fn send_history(&self) {
        let text = self.history();
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

impl Hub for LobbyChat {
    const CHANNEL: HubChannel = HubChannel::LobbyChat;
    type Change = LobbyChatChange;
    type Applied = ();

    fn outlet(&self) -> &Outlet<LobbyChat> {
        &self.outlet
    }

    fn apply(&self, change: LobbyChatChange, _origin: Origin<'_>) {
        match change {
            LobbyChatChange::Line(line) => self.keep(line),
        }
    }

    fn joined(&self, state: &AppState, again: bool) {
        if !again {
            // At start the history is read once the games are resumed.
            return;
        }
        let state = state.clone();
        tokio::spawn(async move {
            let chat = state.live.lobby_chat();
            match chat.restore(&state).await {
                Ok(()) => chat.send_history(),
                Err(error) => tracing::warn!(%error, "reading the lobby chat back"),
            }
        });
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
    let chat = state.live.lobby_chat();
    chat.outlet
        .publish(chat, LobbyChatChange::Line(LobbyLine::of(&record)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::hub::carried;

    fn said(id: &str, at: i64) -> LobbyChatChange {
        LobbyChatChange::Line(LobbyLine {
            id: id.to_owned(),
            from: "ann".to_owned(),
            text: format!("line {id}"),
            at,
        })
    }

    fn ids(history: &str) -> Vec<String> {
        let value: serde_json::Value = serde_json::from_str(history).unwrap();
        assert_eq!(value["t"], "lobby_chat_history");
        value["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn a_line_said_on_another_process_is_sent_here_once_and_kept_in_order() {
        let chat = LobbyChat::default();
        let mut socket = chat.subscribe();
        for (id, at) in [("c1", 1), ("c2", 2)] {
            assert!(carried(&chat, &said(id, at), "one", "two").is_some());
        }
        for id in ["c1", "c2"] {
            let sent: serde_json::Value =
                serde_json::from_str(&socket.try_recv().unwrap()).unwrap();
            assert_eq!(sent["t"], "lobby_chat");
            assert_eq!(sent["id"], id);
            assert_eq!(sent["text"], format!("line {id}"));
        }
        assert!(socket.try_recv().is_err(), "once each");
        assert_eq!(ids(&chat.history()), ["c1", "c2"]);
    }

    #[test]
    fn a_line_this_process_published_is_not_kept_twice() {
        let chat = LobbyChat::default();
        let mut socket = chat.subscribe();
        let line = said("c1", 1);
        assert!(chat.outlet.token().is_none(), "off the bus");
        chat.outlet.publish(&chat, said("c1", 1));
        assert!(socket.try_recv().is_ok());
        assert!(carried(&chat, &line, "two", "two").is_none());
        assert!(socket.try_recv().is_err());
        assert_eq!(chat.len(), 1);
    }

    #[test]
    fn the_history_keeps_the_last_lines_and_can_be_sent_again() {
        let chat = LobbyChat::default();
        for n in 0..HISTORY + 3 {
            chat.outlet
                .publish(&chat, said(&format!("c{n}"), i64::try_from(n).unwrap()));
        }
        let mut socket = chat.subscribe();
        chat.send_history();
        let history = socket.try_recv().unwrap();
        let kept = ids(&history);
        assert_eq!(kept.len(), HISTORY);
        assert_eq!(kept.first().map(String::as_str), Some("c3"));
        assert_eq!(kept.last().cloned(), Some(format!("c{}", HISTORY + 2)));
    }
}
