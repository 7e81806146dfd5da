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
//! bus, or it lost the game) tells its sockets [`Published::Moved`]: they close, their
//! clients connect again and reach the game's new owner. AI searches run on the owner's
//! pool: the owner is where the game's moves are made and checked, so an AI move needs
//! no trip over the bus, and each process's pool and quotas bound what its own games
//! ask of it.

use std::sync::Arc;
use std::time::Duration;

use game::Player;
use serde::{Deserialize, Serialize};
use session::Clocks;
use tokio::sync::{mpsc, oneshot};

use super::chat::ChatRoom;
use super::feed::{Feed, Frame, Seats, Snapshot, Tap};
use super::messages::{ClientMessage, GameView, LegalMoves, Refusal, SocketError};
use super::{Command, Handle, Ident, QUEUE, conditional};
use crate::bus::{self, Bus, BusError};
use crate::state::AppState;
use crate::store::{Seat, StoreError};
use serde_json::value::RawValue;

/// How often a relay checks that its owner still runs and that someone still listens.
const CHECK_EVERY: Duration = Duration::from_millis(2500);

/// A snapshot as the owner publishes it: after a change, its moves only from where they
/// differ from the snapshot before (whose moves the relay has), so that a change costs
/// the same at any length of game.
#[derive(Serialize)]
pub(crate) struct SnapshotRef<'a> {
    view: std::borrow::Cow<'a, GameView>,
    /// The index of the first move in `view` (0: all of them).
    #[serde(skip_serializing_if = "is_zero")]
    moves_from: usize,
    /// How many moves the game has (with `moves_from`).
    moves_len: usize,
    legal: &'a LegalMoves,
    seats: &'a Seats,
    clocks: &'a Option<Clocks>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> SnapshotRef<'a> {
    /// The whole snapshot.
    pub(crate) fn of(snapshot: &'a Snapshot) -> SnapshotRef<'a> {
        SnapshotRef {
            view: std::borrow::Cow::Borrowed(&snapshot.view),
            moves_from: 0,
            moves_len: snapshot.view.moves.len(),
            legal: &snapshot.legal,
            seats: &snapshot.seats,
            clocks: &snapshot.clocks,
        }
    }

    /// `snapshot`, the one after `before`, with only the moves `before` does not share.
    pub(crate) fn after(before: &Snapshot, snapshot: &'a Snapshot) -> SnapshotRef<'a> {
        let from = before.view.moves.shared_with(&snapshot.view.moves);
        let mut whole = SnapshotRef::of(snapshot);
        if from > 0 {
            let mut view = snapshot.view.clone();
            view.moves = snapshot.view.moves.since(from);
            whole.view = std::borrow::Cow::Owned(view);
            whole.moves_from = from;
        }
        whole
    }
}

/// A snapshot as a relay reads it.
#[derive(Deserialize)]
struct SnapshotIn {
    view: GameView,
    #[serde(default)]
    moves_from: usize,
    moves_len: usize,
    legal: LegalMoves,
    seats: Seats,
    clocks: Option<Clocks>,
}

impl SnapshotIn {
    /// The snapshot, whose first moves (when it says only the later ones) are those of
    /// `before`; `None` when `before` does not have them.
    fn into_snapshot_after(mut self, before: &Snapshot) -> Option<Snapshot> {
        if self.moves_from > 0 {
            self.view.moves = before
                .view
                .moves
                .joined(self.moves_from, &self.view.moves)?;
        }
        (self.view.moves.len() == self.moves_len).then(|| self.into_whole())
    }

    /// The snapshot, which has all its moves.
    fn into_whole(self) -> Snapshot {
        Snapshot::new(self.view, self.legal, self.seats, self.clocks)
    }

    /// The snapshot, if it has all its moves.
    fn into_snapshot(self) -> Option<Snapshot> {
        (self.moves_from == 0 && self.view.moves.len() == self.moves_len).then(|| self.into_whole())
    }
}

/// What the owner of a game publishes on its channel: each of [`super::Published`],
/// with the state after a change. `J`: a message as the sockets get it, embedded as the
/// JSON it is (not as a string: nothing to escape, nothing to unescape).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Envelope<S, T, J> {
    Change {
        from: u64,
        to: u64,
        public: J,
        mover: Option<(Player, J)>,
        snapshot: S,
    },
    Reset {
        snapshot: S,
    },
    Refresh {
        snapshot: S,
    },
    Watchers {
        version: u64,
        count: usize,
    },
    Absent {
        text: J,
    },
    Rematch {
        id: T,
    },
    Chat {
        room: ChatRoom,
        text: J,
    },
    Moved,
}

/// An envelope as the owner writes it (borrowing what it publishes).
pub(crate) type EnvelopeOut<'a> = Envelope<SnapshotRef<'a>, &'a str, &'a RawValue>;
type EnvelopeIn = Envelope<SnapshotIn, String, Box<RawValue>>;

/// A message text the owner wrote (always JSON) as raw JSON to embed.
///
/// # Errors
/// When it is not JSON (a bug: then the change is not published, and relays catch up).
pub(crate) fn raw(text: &str) -> Result<&RawValue, serde_json::Error> {
    serde_json::from_str(text)
}

/// A raw message read from the bus, as the text the sockets send.
fn text_of(raw: &RawValue) -> Arc<str> {
    Arc::from(raw.get())
}

/// Publishes `envelope` for the processes listening to the game.
pub(crate) fn publish(tap: &Tap, envelope: &EnvelopeOut<'_>) {
    match serde_json::to_vec(envelope) {
        Ok(bytes) => tap.bus.publish(tap.channel.clone(), Arc::from(bytes)),
        Err(error) => tracing::error!(%error, "a game's change cannot be written for the bus"),
    }
}

/// A request to the owner of a game.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ask {
    /// Start publishing the game for the asker; answer with where it starts.
    Attach { game: String },
    /// Stop publishing it for the asker.
    Detach { game: String },
    /// A socket opened (+1) or closed (-1); answered with the watcher count's version.
    Watch {
        game: String,
        change: isize,
        ident: Ident,
    },
    /// A player's action.
    Act {
        game: String,
        ident: Ident,
        message: ClientMessage,
    },
    /// Take the open seat.
    Join {
        game: String,
        ident: Ident,
        seat: Seat,
    },
    /// Publish chat said on the asker's socket (checked and stored there).
    Chat {
        game: String,
        room: ChatRoom,
        text: String,
    },
    /// Read or replace conditional moves.
    Conditional {
        game: String,
        ident: Ident,
        lines: Option<conditional::Lines>,
    },
}

/// A refusal on the bus.
#[derive(Serialize, Deserialize)]
struct RefusalWire {
    code: SocketError,
    message: String,
    reason: Option<String>,
}

impl From<Refusal> for RefusalWire {
    fn from(refusal: Refusal) -> RefusalWire {
        RefusalWire {
            code: refusal.code,
            message: refusal.message,
            reason: refusal.reason.map(str::to_owned),
        }
    }
}

impl From<RefusalWire> for Refusal {
    fn from(wire: RefusalWire) -> Refusal {
        let reason = wire.reason.and_then(|word| {
            Refusal::REASONS
                .iter()
                .copied()
                .chain(super::chat::ChatRefusal::ALL.iter().map(|r| r.word()))
                .find(|known| *known == word)
        });
        Refusal {
            code: wire.code,
            message: wire.message,
            reason,
        }
    }
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
    Counted {
        version: u64,
    },
    Acted {
        result: Result<Option<String>, RefusalWire>,
    },
    Joined {
        result: Result<Player, RefusalWire>,
    },
    Lines {
        result: Result<conditional::Lines, RefusalWire>,
    },
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
    let game = match &ask {
        Ask::Attach { game }
        | Ask::Detach { game }
        | Ask::Watch { game, .. }
        | Ask::Act { game, .. }
        | Ask::Join { game, .. }
        | Ask::Chat { game, .. }
        | Ask::Conditional { game, .. } => game.clone(),
    };
    let Some(handle) = state.live.handle(&game) else {
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
        Ask::Watch { change, ident, .. } => {
            let version = if change > 0 {
                handle.watch_counted(&ident).await
            } else {
                handle.watch(change, &ident).await;
                0
            };
            bus.reply(from, id, &Answer::<()>::Counted { version });
        }
        Ask::Act { ident, message, .. } => {
            let result = handle.act(ident, message).await.map_err(RefusalWire::from);
            bus.reply(from, id, &Answer::<()>::Acted { result });
        }
        Ask::Join { ident, seat, .. } => {
            let result = handle.join(ident, seat).await.map_err(RefusalWire::from);
            bus.reply(from, id, &Answer::<()>::Joined { result });
        }
        Ask::Chat { room, text, .. } => {
            handle.feed().chat_here(room, Arc::from(text));
            bus.reply(from, id, &Answer::<()>::Done);
        }
        Ask::Conditional { ident, lines, .. } => {
            let result = handle
                .conditional(ident, lines)
                .await
                .map_err(RefusalWire::from);
            bus.reply(from, id, &Answer::<()>::Lines { result });
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
    feed.set_watchers_at(version, watchers);
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

    /// Applies one envelope; false when the relay must end (the owner is gone).
    async fn apply(&self, payload: &[u8]) -> bool {
        let envelope = match serde_json::from_slice::<EnvelopeIn>(payload) {
            Ok(envelope) => envelope,
            Err(error) => {
                tracing::warn!(game = %self.id, %error, "an unreadable change on the bus");
                return self.catch_up().await;
            }
        };
        match envelope {
            Envelope::Change {
                from,
                to,
                public,
                mover,
                snapshot,
            } => {
                let rev = self.feed.snapshot().rev();
                if to <= rev {
                    return true;
                }
                if from != rev {
                    // Something was missed: the whole state again.
                    return self.catch_up().await;
                }
                let Some(snapshot) = snapshot.into_snapshot_after(&self.feed.snapshot()) else {
                    return self.catch_up().await;
                };
                let frame = Frame {
                    from,
                    to,
                    public: text_of(&public),
                    mover: mover.map(|(side, text)| (side, text_of(&text))),
                };
                self.feed.change(frame, snapshot);
            }
            Envelope::Reset { snapshot } => match snapshot.into_snapshot() {
                Some(snapshot) => self.feed.reset(snapshot),
                None => return self.catch_up().await,
            },
            Envelope::Refresh { snapshot } => match snapshot.into_snapshot() {
                Some(snapshot) => self.feed.refresh(snapshot),
                None => return self.catch_up().await,
            },
            Envelope::Watchers { version, count } => self.feed.set_watchers_at(version, count),
            Envelope::Absent { text } => self.feed.set_absent(text_of(&text)),
            Envelope::Rematch { id } => self.feed.set_rematch(&id),
            Envelope::Chat { room, text } => self.feed.chat_here(room, text_of(&text)),
            Envelope::Moved => return false,
        }
        true
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
                self.feed
                    .set_watchers_at(attached.watchers_version, attached.watchers);
                true
            }
            Err(error) => {
                tracing::info!(game = %self.id, %error, "the owner of a game cannot be reached");
                false
            }
        }
    }
}

/// Sends the sockets' commands to the owner one at a time, in order, and hands back the
/// answers. When the owner cannot be reached, the relay ends (through `gone`).
async fn forward(relay: Relay, mut commands: mpsc::Receiver<Command>, gone: mpsc::Sender<()>) {
    while let Some(command) = commands.recv().await {
        let unreachable = |error: &AttachError| {
            tracing::info!(game = %relay.id, %error, "a command to another process failed");
            Refusal::new(
                SocketError::Internal,
                "the server process that owns this game cannot be reached: connecting again",
            )
        };
        let game = relay.id.clone();
        let ok = match command {
            Command::Act {
                ident,
                message,
                reply,
            } => {
                let answer = ask(
                    &relay,
                    &Ask::Act {
                        game,
                        ident,
                        message,
                    },
                )
                .await;
                finish(answer, reply, unreachable, |a| match a {
                    Answer::Acted { result } => Some(result.map_err(Refusal::from)),
                    _ => None,
                })
            }
            Command::Join { ident, seat, reply } => {
                let answer = ask(&relay, &Ask::Join { game, ident, seat }).await;
                finish(answer, reply, unreachable, |a| match a {
                    Answer::Joined { result } => Some(result.map_err(Refusal::from)),
                    _ => None,
                })
            }
            Command::Conditional {
                ident,
                lines,
                reply,
            } => {
                let answer = ask(&relay, &Ask::Conditional { game, ident, lines }).await;
                finish(answer, reply, unreachable, |a| match a {
                    Answer::Lines { result } => Some(result.map_err(Refusal::from)),
                    _ => None,
                })
            }
            Command::Watch {
                change,
                ident,
                counted,
            } => match ask(
                &relay,
                &Ask::Watch {
                    game,
                    change,
                    ident,
                },
            )
            .await
            {
                Ok(Answer::Counted { version }) => {
                    if let Some(counted) = counted {
                        let _ = counted.send(version);
                    }
                    true
                }
                _ => false,
            },
            Command::Chat { room, text } => matches!(
                ask(
                    &relay,
                    &Ask::Chat {
                        game,
                        room,
                        text: text.to_string()
                    }
                )
                .await,
                Ok(Answer::Done)
            ),
            // The owner's own business: never sent to a relay.
            Command::Expire { .. } | Command::LeaseLost | Command::AiMove { .. } => true,
        };
        if !ok {
            let _ = gone.try_send(());
        }
    }
}

async fn ask(relay: &Relay, ask: &Ask) -> Result<Answer<serde::de::IgnoredAny>, AttachError> {
    let body = relay.bus.request(&relay.owner, ask).await?;
    Ok(serde_json::from_str(body.get())?)
}

/// Hands an answer back; false when the owner could not be reached or has let the game
/// go (the relay then ends and its sockets connect again).
fn finish<T>(
    answer: Result<Answer<serde::de::IgnoredAny>, AttachError>,
    reply: oneshot::Sender<Result<T, Refusal>>,
    unreachable: impl Fn(&AttachError) -> Refusal,
    pick: impl FnOnce(Answer<serde::de::IgnoredAny>) -> Option<Result<T, Refusal>>,
) -> bool {
    match answer {
        Ok(answer) => match pick(answer) {
            Some(result) => {
                let _ = reply.send(result);
                true
            }
            None => {
                let _ = reply.send(Err(unreachable(&AttachError::Gone)));
                false
            }
        },
        Err(error) => {
            let _ = reply.send(Err(unreachable(&error)));
            false
        }
    }
}
