//! Games owned by another server process, reached over the bus ([`crate::bus`]).
//!
//! A socket to a game that another process owns gets a [`Handle`] like any other: its
//! commands go to a relay task here, which sends each one to the owner as a request on
//! the bus and hands back the answer; its feed is a mirror of the owner's, fed by what
//! the owner publishes on the game's channel (each change once, serialised once, with
//! the state after it) for as long as some process listens. So a player and a spectator
//! on different processes see the same game, live, and the socket code does not know
//! the difference.
//!
//! The owner answers requests in the order each relay sends them (one at a time per
//! game and process). A relay whose owner is gone (its process no longer listens on the
//! bus, or it lost the game) tells its sockets [`Published::Moved`](super::feed::Published::Moved): they close, their
//! clients connect again and reach the game's new owner. AI searches run on the owner's
//! pool: the owner is where the game's moves are made and checked, so an AI move needs
//! no trip over the bus, and each process's pool and quotas bound what its own games
//! ask of it.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::chat::ChatRoom;
use super::feed::{Feed, Missed, Publication, Published, SnapshotIn, SnapshotRef, WatcherCount};
use super::game::setup::QUEUE;
use super::messages::{Refusal, SocketError};
use super::{Command, Handle, Reply, Request};
use crate::bus::{self, Bus, BusError};
use crate::state::AppState;
use crate::store::StoreError;

/// How often a relay checks that its owner still runs and that someone still listens.
const CHECK_EVERY: Duration = Duration::from_millis(2500);

/// A request to the owner of a game.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ask {
    /// Start publishing the game for the asker; answer with where it starts.
    Attach { game: String },
    /// Stop publishing it for the asker.
    Detach { game: String },
    /// A request for the game's owner, as a socket here would make it.
    Game { game: String, request: Request },
}

/// Where a game stands for a process that attaches to it.
#[derive(Serialize, Deserialize)]
struct AttachedWire<S> {
    snapshot: S,
    watchers_version: u64,
    watchers: usize,
    rematch: Option<String>,
    chat: [Vec<String>; 2],
}

/// The owner's answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer<S> {
    /// The game has no owner here (any more).
    Gone,
    Attached(Box<AttachedWire<S>>),
    Done,
    /// The owner's reply to a [`Ask::Game`].
    Reply(Reply),
}

/// Answers the requests other processes make of this one, each in its own task.
pub(crate) fn spawn_answering(state: &AppState, bus: Arc<Bus>, mut requests: bus::Requests) {
    let state = state.clone();
    tokio::spawn(async move {
        while let Some((from, id, body)) = requests.recv().await {
            let state = state.clone();
            let bus = Arc::clone(&bus);
            tokio::spawn(async move {
                match serde_json::from_str::<Ask>(body.get()) {
                    Ok(ask) => answer(&state, &bus, &from, id, ask).await,
                    Err(error) => tracing::warn!(%error, %from, "an unreadable request on the bus"),
                }
            });
        }
    });
}

async fn answer(state: &AppState, bus: &Arc<Bus>, from: &str, id: u64, ask: Ask) {
    let (Ask::Attach { game } | Ask::Detach { game } | Ask::Game { game, .. }) = &ask;
    let Some(handle) = state.live.handle(game) else {
        bus.reply(from, id, &Answer::<()>::Gone);
        return;
    };
    match ask {
        Ask::Attach { game } => {
            let attached = handle
                .feed()
                .attach_remote(bus, &bus::game_channel(&game), from);
            let wire = AttachedWire {
                snapshot: SnapshotRef::of(&attached.snapshot),
                watchers_version: attached.watchers.version,
                watchers: attached.watchers.count,
                rematch: attached.rematch.map(|text| rematch_id(&text)),
                chat: attached
                    .chat
                    .map(|room| room.iter().map(|t| t.to_string()).collect()),
            };
            bus.reply(from, id, &Answer::Attached(Box::new(wire)));
        }
        Ask::Detach { .. } => {
            handle.feed().detach_remote(from);
            bus.reply(from, id, &Answer::<()>::Done);
        }
        Ask::Game { request, .. } => {
            let reply = handle.ask(request).await;
            bus.reply(from, id, &Answer::<()>::Reply(reply));
        }
    }
}

/// The new game's id from a `rematch` message.
fn rematch_id(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str().map(str::to_owned)))
        .unwrap_or_default()
}

/// The live game `id`: this process's own, else (with a bus) a relay to the process that
/// owns it. `None`: no live owner can be reached now (not live, or passing between
/// processes).
///
/// # Errors
/// On a database failure.
pub async fn reach(state: &AppState, id: &str) -> Result<Option<Handle>, StoreError> {
    if let Some(handle) = state.live.handle(id) {
        return Ok(Some(handle));
    }
    let Some(bus) = state.bus() else {
        return Ok(None);
    };
    if bus.is_closed() {
        return Ok(None);
    }
    if let Some(handle) = state.live.remote(id) {
        return Ok(Some(handle));
    }
    let _one_at_a_time = state.live.attaching.lock().await;
    if let Some(handle) = state.live.remote(id) {
        return Ok(Some(handle));
    }
    let Some(owner) = state.store.live_game_owner(id).await? else {
        return Ok(None);
    };
    if owner == bus.token() {
        return Ok(None);
    }
    match attach(state, bus, id, owner).await {
        Ok(handle) => Ok(Some(handle)),
        Err(error) => {
            tracing::info!(game = %id, %error, "a game owned elsewhere cannot be reached");
            Ok(None)
        }
    }
}

/// Why a relay cannot start.
#[derive(Debug, thiserror::Error)]
enum AttachError {
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("the owner does not hold the game")]
    Gone,
    #[error("the owner sent part of the game's state")]
    Partial,
    #[error("an unreadable answer: {0}")]
    Unreadable(#[from] serde_json::Error),
}

async fn ask_attach(
    bus: &Bus,
    owner: &str,
    id: &str,
) -> Result<AttachedWire<SnapshotIn>, AttachError> {
    let body = bus
        .request(
            owner,
            &Ask::Attach {
                game: id.to_owned(),
            },
        )
        .await?;
    match serde_json::from_str::<Answer<SnapshotIn>>(body.get())? {
        Answer::Attached(attached) => Ok(*attached),
        _ => Err(AttachError::Gone),
    }
}

async fn attach(
    state: &AppState,
    bus: &Arc<Bus>,
    id: &str,
    owner: String,
) -> Result<Handle, AttachError> {
    let channel = bus::game_channel(id);
    // Listening first: what is published after the owner's answer is heard.
    let inbox = bus.subscribe(&channel).await?;
    let attached = match ask_attach(bus, &owner, id).await {
        Ok(attached) => attached,
        Err(error) => {
            bus.unsubscribe(&channel).await;
            return Err(error);
        }
    };
    let Some(snapshot) = attached.snapshot.into_snapshot() else {
        bus.unsubscribe(&channel).await;
        return Err(AttachError::Partial);
    };
    let feed = Arc::new(Feed::new(snapshot));
    let (commands, receiver) = mpsc::channel(QUEUE);
    feed.set_upstream(commands.clone());
    start_from(
        &feed,
        attached.watchers_version,
        attached.watchers,
        attached.rematch,
        attached.chat,
    );
    let handle = Handle {
        commands,
        feed: Arc::clone(&feed),
    };
    state.live.insert_remote(id, handle.clone());
    let relay = Relay {
        state: state.clone(),
        bus: Arc::clone(bus),
        id: id.to_owned(),
        owner,
        feed,
    };
    let (asks, asked) = mpsc::channel(QUEUE);
    state
        .tasks
        .spawn(forward(relay.clone_parts(), receiver, asks));
    state
        .tasks
        .spawn(relay.run(inbox, asked, handle.commands.clone()));
    Ok(handle)
}

fn start_from(
    feed: &Feed,
    version: u64,
    watchers: usize,
    rematch: Option<String>,
    chat: [Vec<String>; 2],
) {
    let _ = feed.publish(Publication::Watchers(Arc::new(WatcherCount::new(
        version, watchers,
    ))));
    if let Some(id) = rematch {
        feed.set_rematch(&id);
    }
    for (room, texts) in ChatRoom::BOTH.into_iter().zip(chat) {
        feed.load_chat(room, texts.into_iter().map(Arc::from).collect());
    }
}

/// A relay's parts.
struct Relay {
    state: AppState,
    bus: Arc<Bus>,
    id: String,
    owner: String,
    feed: Arc<Feed>,
}

impl Relay {
    fn clone_parts(&self) -> Relay {
        Relay {
            state: self.state.clone(),
            bus: Arc::clone(&self.bus),
            id: self.id.clone(),
            owner: self.owner.clone(),
            feed: Arc::clone(&self.feed),
        }
    }

    /// Applies what the owner publishes, until the owner is gone or nobody listens here.
    async fn run(
        self,
        mut inbox: mpsc::Receiver<Arc<[u8]>>,
        mut gone: mpsc::Receiver<()>,
        commands: mpsc::Sender<Command>,
    ) {
        let channel = bus::game_channel(&self.id);
        let mut every = tokio::time::interval(CHECK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        every.tick().await;
        let mut idle = 0;
        loop {
            tokio::select! {
                () = self.state.shutdown.cancelled() => break,
                _ = gone.recv() => break,
                payload = inbox.recv() => {
                    let Some(payload) = payload else { break };
                    if !self.apply(&payload).await {
                        break;
                    }
                }
                _ = every.tick() => {
                    if self.feed.listeners() == 0 {
                        idle += 1;
                        if idle >= 2 {
                            self.state.live.remove_remote(&self.id, &commands);
                            // A socket that got the handle an instant ago listens now.
                            if self.feed.listeners() == 0 {
                                break;
                            }
                        }
                    } else {
                        idle = 0;
                    }
                    if !matches!(self.bus.is_alive(&self.owner).await, Ok(true)) {
                        break;
                    }
                }
            }
        }
        self.state.live.remove_remote(&self.id, &commands);
        self.feed.moved();
        self.bus.unsubscribe(&channel).await;
        let _ = self
            .bus
            .request(
                &self.owner,
                &Ask::Detach {
                    game: self.id.clone(),
                },
            )
            .await;
    }

    /// Publishes here what the owner published; false when the relay must end (the
    /// owner is gone).
    async fn apply(&self, payload: &[u8]) -> bool {
        let published = match serde_json::from_slice::<Published<SnapshotIn>>(payload) {
            Ok(published) => published,
            Err(error) => {
                tracing::warn!(game = %self.id, %error, "an unreadable change on the bus");
                return self.catch_up().await;
            }
        };
        // The owner let the game go: the relay ends, and tells its sockets then.
        if matches!(published, Published::Moved) {
            return false;
        }
        match self.feed.publish(published) {
            Ok(()) => true,
            // Something was missed: the whole state again.
            Err(Missed) => self.catch_up().await,
        }
    }

    /// Asks the owner for the whole state again and tells the sockets to send it.
    async fn catch_up(&self) -> bool {
        match ask_attach(&self.bus, &self.owner, &self.id).await {
            Ok(attached) => {
                let Some(snapshot) = attached.snapshot.into_snapshot() else {
                    tracing::warn!(game = %self.id, "the owner of a game sent part of its state");
                    return false;
                };
                self.feed.reset(snapshot);
                let _ = self
                    .feed
                    .publish(Publication::Watchers(Arc::new(WatcherCount::new(
                        attached.watchers_version,
                        attached.watchers,
                    ))));
                true
            }
            Err(error) => {
                tracing::info!(game = %self.id, %error, "the owner of a game cannot be reached");
                false
            }
        }
    }
}

/// Sends the sockets' requests to the owner one at a time, in order, and hands back the
/// answers. When the owner cannot be reached, the relay ends (through `gone`).
async fn forward(relay: Relay, mut commands: mpsc::Receiver<Command>, gone: mpsc::Sender<()>) {
    while let Some(command) = commands.recv().await {
        // The owner's own business (timers, the AI, leases) is never sent to a relay.
        let Command::Ask { request, reply } = command else {
            continue;
        };
        let refused = request.refused(Refusal::new(
            SocketError::Internal,
            "the server process that owns this game cannot be reached: connecting again",
        ));
        let ask = Ask::Game {
            game: relay.id.clone(),
            request,
        };
        let (answer, reached) = match relay.bus.request(&relay.owner, &ask).await {
            Ok(body) => match serde_json::from_str::<Answer<serde::de::IgnoredAny>>(body.get()) {
                Ok(Answer::Reply(answer)) => (answer, true),
                Ok(_) => {
                    tracing::info!(game = %relay.id, "the owner has let the game go");
                    (refused, false)
                }
                Err(error) => {
                    tracing::info!(game = %relay.id, %error, "an unreadable answer from another process");
                    (refused, false)
                }
            },
            Err(error) => {
                tracing::info!(game = %relay.id, %error, "a request to another process failed");
                (refused, false)
            }
        };
        if let Some(reply) = reply {
            let _ = reply.send(answer);
        }
        if !reached {
            let _ = gone.try_send(());
        }
    }
}
