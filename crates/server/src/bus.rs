//! The message bus between server processes that share one database: Redis publish and
//! subscribe (`--redis`). Without it a process works alone, as before.
//!
//! Channels (every name comes from [`Channel`]):
//! - `kt:proc:{token}`: requests to the process whose lease token is `token` (commands
//!   for the games it owns) and the replies to requests it made. A process subscribes to
//!   its own channel for as long as it runs, so Redis's count of a channel's subscribers
//!   says whether that process is alive.
//! - `kt:game:{id}`: what the owner of game `id` publishes (each change, serialised
//!   once), for the processes that hold sockets to the game ([`crate::live::remote`]).
//!   The owner publishes there only while some process listens.
//! - the hubs' channels ([`HubChannel`]), which every process listens to for as long as
//!   it is on the bus: each change to one of the live hubs of [`crate::live::hub`] is
//!   published there by the process where it is made, and applied by every other:
//!   - `kt:lobby`: the lobby's changes (games, challenges, who has a lobby socket open);
//!   - `kt:lobby_chat`: the lines said in the lobby chat;
//!   - `kt:people`: each player's own channel: their games as they change (`my_game`)
//!     and their direct challenges changed (`my_challenges`).
//!
//! When the connection to Redis is lost, the process goes on with its own games: the
//! relays to games owned elsewhere end (their sockets connect again, and are answered
//! 503 until the bus is back), and the bus reconnects with a growing delay (up to
//! [`RECONNECT_MAX`]), subscribing again to its own channel; each hub listens again and
//! catches up what it missed (the lobby asks the others for their games, the lobby chat
//! reads its last lines back, the players' sockets are sent their whole lists).
//! Publishing goes through a connection manager that reconnects by itself.
//!
//! Everything published goes out through one queue, in order, in pipelines: a
//! game's changes reach every other process in the order they were made. The queue is
//! bounded: when Redis cannot keep up the messages that do not fit are dropped and
//! counted, and a listener that sees a gap in a game's revisions fetches its whole
//! state again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, PubSubSink, PubSubStream};
use tokio::sync::{mpsc, oneshot};

/// How many messages may wait to be published.
const OUTBOX: usize = 16_384;
/// Most messages sent in one pipeline.
const PIPELINE: usize = 256;
/// How long a request to another process waits for its reply.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest wait between two attempts to reconnect to Redis.
pub const RECONNECT_MAX: Duration = Duration::from_secs(5);
/// How many messages a channel's listener may fall behind before they are dropped (it
/// then sees a gap and catches up).
const ROUTE_QUEUE: usize = 1024;

/// A channel of the bus: the one place its names on Redis come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel<'a> {
    /// `kt:proc:{token}`: requests to process `token`, and the replies to its own.
    Proc(&'a str),
    /// `kt:game:{id}`: what the owner of game `id` publishes.
    Game(&'a str),
    /// A hub's channel, which every process listens to.
    Hub(HubChannel),
}

impl Channel<'_> {
    /// Its name on Redis.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Channel::Proc(token) => format!("kt:proc:{token}"),
            Channel::Game(id) => format!("kt:game:{id}"),
            Channel::Hub(hub) => hub.name().to_owned(),
        }
    }
}

/// The channels every process listens to while it is on the bus, one for each live hub
/// ([`crate::live::hub`]): a hub's changes are published on its channel by the process
/// where they are made and applied by every other. Each has a listener by construction
/// (`live::hub::share_all` matches on every one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HubChannel {
    /// `kt:lobby`: the lobby's changes.
    Lobby,
    /// `kt:lobby_chat`: the lines said in the lobby chat.
    LobbyChat,
    /// `kt:people`: the players' own channels (`my_game`, `my_challenges`).
    People,
}

impl HubChannel {
    /// Every hub channel.
    pub const ALL: [HubChannel; 3] = [HubChannel::Lobby, HubChannel::LobbyChat, HubChannel::People];

    /// Its name on Redis.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            HubChannel::Lobby => "kt:lobby",
            HubChannel::LobbyChat => "kt:lobby_chat",
            HubChannel::People => "kt:people",
        }
    }
}

/// The channel of requests to process `token` ([`Channel::Proc`]).
#[must_use]
pub fn proc_channel(token: &str) -> String {
    Channel::Proc(token).name()
}

/// The channel on which the owner of game `id` publishes ([`Channel::Game`]).
#[must_use]
pub fn game_channel(id: &str) -> String {
    Channel::Game(id).name()
}

/// Why the bus cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// Redis refused or failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The process the request was for is not listening: it has stopped or died.
    #[error("the server process that owns this game is gone")]
    NobodyListening,
    /// No reply came in time.
    #[error("no reply from the server process that owns this game")]
    Timeout,
    /// The bus's connection is closed.
    #[error("the connection to redis is closed")]
    Closed,
}

/// A message on a process's own channel.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcMessage {
    /// A request from process `from`, to be answered on its channel with `id`.
    Request {
        /// The asker's token.
        from: String,
        /// The asker's number for it.
        id: u64,
        /// What is asked (JSON, read by [`crate::live::remote`]).
        body: Box<serde_json::value::RawValue>,
    },
    /// The answer to this process's request `id`.
    Reply {
        /// The request.
        id: u64,
        /// The answer (JSON).
        body: Box<serde_json::value::RawValue>,
    },
}

/// A process's connection to the bus.
pub struct Bus {
    token: String,
    client: redis::Client,
    publisher: ConnectionManager,
    sink: tokio::sync::Mutex<PubSubSink>,
    outbox: mpsc::Sender<(String, Arc<[u8]>)>,
    routes: Mutex<HashMap<String, mpsc::Sender<Arc<[u8]>>>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Box<serde_json::value::RawValue>>>>,
    next_request: AtomicU64,
    dropped: AtomicU64,
    closed: AtomicBool,
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The requests that reach this process, for the live layer to answer.
pub type Requests = mpsc::Receiver<(String, u64, Box<serde_json::value::RawValue>)>;

impl Bus {
    /// Connects to Redis at `url` as the process whose lease token is `token`, and
    /// subscribes to its own channel. Returns the bus and the requests made of this
    /// process (answer each with [`Bus::reply`]).
    ///
    /// # Errors
    /// When Redis cannot be reached.
    pub async fn connect(url: &str, token: &str) -> Result<(Arc<Bus>, Requests), BusError> {
        let client = redis::Client::open(url)?;
        let publisher = client.get_connection_manager().await?;
        let pubsub = client.get_async_pubsub().await?;
        let (mut sink, stream) = pubsub.split();
        sink.subscribe(proc_channel(token)).await?;
        let (outbox, queued) = mpsc::channel(OUTBOX);
        let (asked, requests) = mpsc::channel(OUTBOX);
        let bus = Arc::new(Bus {
            token: token.to_owned(),
            client,
            publisher: publisher.clone(),
            sink: tokio::sync::Mutex::new(sink),
            outbox,
            routes: Mutex::default(),
            pending: Mutex::default(),
            next_request: AtomicU64::new(1),
            dropped: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        });
        tokio::spawn(publish_queued(publisher, queued));
        tokio::spawn(read(Arc::clone(&bus), stream, asked));
        Ok((bus, requests))
    }

    /// A connection to Redis for commands (multiplexed; reconnects by itself).
    #[must_use]
    pub fn connection(&self) -> ConnectionManager {
        self.publisher.clone()
    }

    /// Subscribes again after the connection was lost; `None` until Redis answers.
    async fn resubscribe(&self) -> Option<PubSubStream> {
        let pubsub = self.client.get_async_pubsub().await.ok()?;
        let (mut sink, stream) = pubsub.split();
        sink.subscribe(proc_channel(&self.token)).await.ok()?;
        *self.sink.lock().await = sink;
        Some(stream)
    }

    fn on_own(
        &self,
        payload: &[u8],
        asked: &mpsc::Sender<(String, u64, Box<serde_json::value::RawValue>)>,
    ) {
        match serde_json::from_slice::<ProcMessage>(payload) {
            Ok(ProcMessage::Request { from, id, body }) => {
                if asked.try_send((from, id, body)).is_err() {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(ProcMessage::Reply { id, body }) => {
                if let Some(waiting) = lock(&self.pending).remove(&id) {
                    let _ = waiting.send(body);
                }
            }
            Err(error) => tracing::warn!(%error, "an unreadable message on the bus"),
        }
    }

    /// This process's lease token.
    #[must_use]
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether the connection to Redis has closed.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Messages dropped because a queue was full (published or received).
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Queues `payload` for `channel`, after everything queued before it; dropped (and
    /// counted) when the queue is full.
    pub fn publish(&self, channel: String, payload: Arc<[u8]>) {
        if self.outbox.try_send((channel, payload)).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Listens to `channel`: its messages come on the receiver returned, until
    /// [`Bus::unsubscribe`].
    ///
    /// # Errors
    /// When Redis fails.
    pub async fn subscribe(&self, channel: &str) -> Result<mpsc::Receiver<Arc<[u8]>>, BusError> {
        if self.is_closed() {
            return Err(BusError::Closed);
        }
        let (route, receiver) = mpsc::channel(ROUTE_QUEUE);
        lock(&self.routes).insert(channel.to_owned(), route);
        if let Err(error) = self.sink.lock().await.subscribe(channel).await {
            lock(&self.routes).remove(channel);
            return Err(error.into());
        }
        Ok(receiver)
    }

    /// Stops listening to `channel`.
    pub async fn unsubscribe(&self, channel: &str) {
        lock(&self.routes).remove(channel);
        if let Err(error) = self.sink.lock().await.unsubscribe(channel).await {
            tracing::warn!(%error, channel, "unsubscribing from the bus");
        }
    }

    /// Whether process `token` is listening on the bus (it runs).
    ///
    /// # Errors
    /// When Redis fails.
    pub async fn is_alive(&self, token: &str) -> Result<bool, BusError> {
        let mut connection = self.publisher.clone();
        let counts: Vec<(String, u64)> = redis::cmd("PUBSUB")
            .arg("NUMSUB")
            .arg(proc_channel(token))
            .query_async(&mut connection)
            .await?;
        Ok(counts.first().is_some_and(|(_, n)| *n > 0))
    }

    /// Sends `body` to process `to` and waits for its answer.
    ///
    /// # Errors
    /// [`BusError::NobodyListening`] when that process is gone; a timeout; Redis.
    pub async fn request<T: serde::Serialize>(
        &self,
        to: &str,
        body: &T,
    ) -> Result<Box<serde_json::value::RawValue>, BusError> {
        if self.is_closed() {
            return Err(BusError::Closed);
        }
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let body = serde_json::value::to_raw_value(body).map_err(|_| BusError::Closed)?;
        let message = serde_json::to_vec(&ProcMessage::Request {
            from: self.token.clone(),
            id,
            body,
        })
        .map_err(|_| BusError::Closed)?;
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        let mut connection = self.publisher.clone();
        let heard: Result<u64, _> = connection.publish(proc_channel(to), message).await;
        match heard {
            Ok(0) => {
                lock(&self.pending).remove(&id);
                return Err(BusError::NobodyListening);
            }
            Ok(_) => {}
            Err(error) => {
                lock(&self.pending).remove(&id);
                return Err(error.into());
            }
        }
        match tokio::time::timeout(REQUEST_TIMEOUT, answered).await {
            Ok(Ok(body)) => Ok(body),
            Ok(Err(_)) => Err(BusError::Closed),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(BusError::Timeout)
            }
        }
    }

    /// Answers request `id` of process `to`.
    pub fn reply<T: serde::Serialize>(&self, to: &str, id: u64, body: &T) {
        let Ok(body) = serde_json::value::to_raw_value(body) else {
            return;
        };
        if let Ok(message) = serde_json::to_vec(&ProcMessage::Reply { id, body }) {
            self.publish(proc_channel(to), Arc::from(message));
        }
    }
}

/// Reads what comes on the subscriptions and passes it on; when the connection is lost,
/// ends every listener (they subscribe again once it is back) and reconnects.
async fn read(
    bus: Arc<Bus>,
    mut stream: PubSubStream,
    asked: mpsc::Sender<(String, u64, Box<serde_json::value::RawValue>)>,
) {
    let own = proc_channel(&bus.token);
    loop {
        while let Some(message) = stream.next().await {
            let channel = message.get_channel_name().to_owned();
            let payload = message.get_payload_bytes();
            if channel == own {
                bus.on_own(payload, &asked);
            } else {
                let route = lock(&bus.routes).get(&channel).cloned();
                if let Some(route) = route
                    && route.try_send(Arc::from(payload)).is_err()
                {
                    bus.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        tracing::error!("the connection to redis was lost: games owned elsewhere are unreachable");
        bus.closed.store(true, Ordering::Relaxed);
        lock(&bus.routes).clear();
        lock(&bus.pending).clear();
        let mut wait = Duration::from_millis(250);
        stream = loop {
            tokio::time::sleep(wait).await;
            if let Some(stream) = bus.resubscribe().await {
                break stream;
            }
            wait = (wait * 2).min(RECONNECT_MAX);
        };
        bus.closed.store(false, Ordering::Relaxed);
        tracing::info!("reconnected to redis");
    }
}

/// Sends the queued messages in order, as many as are waiting in each pipeline.
async fn publish_queued(
    mut connection: ConnectionManager,
    mut queued: mpsc::Receiver<(String, Arc<[u8]>)>,
) {
    let mut batch = Vec::with_capacity(PIPELINE);
    while queued.recv_many(&mut batch, PIPELINE).await > 0 {
        let mut pipe = redis::pipe();
        for (channel, payload) in batch.drain(..) {
            pipe.cmd("PUBLISH").arg(channel).arg(&payload[..]).ignore();
        }
        if let Err(error) = pipe.query_async::<()>(&mut connection).await {
            tracing::warn!(%error, "publishing on the bus");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Channel, HubChannel};

    #[test]
    fn every_channel_has_a_name_of_its_own() {
        let mut names: Vec<String> = HubChannel::ALL
            .iter()
            .map(|hub| Channel::Hub(*hub).name())
            .collect();
        names.push(Channel::Proc("lobby").name());
        names.push(Channel::Game("lobby").name());
        let mut distinct = names.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        assert!(names.iter().all(|name| name.starts_with("kt:")));
        // A hub's channel is never a process's or a game's, whatever its token or id.
        for hub in HubChannel::ALL {
            assert!(!hub.name().starts_with("kt:proc:") && !hub.name().starts_with("kt:game:"));
        }
        assert_eq!(Channel::Game("g1").name(), "kt:game:g1");
        assert_eq!(Channel::Proc("t").name(), "kt:proc:t");
    }
}
