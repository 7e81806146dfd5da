//! What a game's owner publishes and its sockets read: each change once, as a versioned
//! message serialised once and shared by every socket of the game; a bounded history
//! of recent changes and the latest full state, kept beside the game's handle so that a
//! socket catches up without asking the owner anything.
//!
//! The socket layer and the owner talk only through these messages (and the owner's
//! commands): the seam along which a game's sockets live in another process than its
//! owner, where the feed is a mirror of the owner's, fed over the bus
//! ([`super::remote`]).

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use game::Player;
use serde::{Deserialize, Serialize};
use session::{Clocks, Timestamp};
use tokio::sync::broadcast;

use super::chat::{self, ChatRoom};
use super::lock;
use super::messages::{ClocksView, GameView, LegalMoves, ServerMessage};

mod published;

pub(crate) use published::embedded;
pub use published::{Missed, Publication, Published, Resolved, StateAfter};
pub(crate) use published::{SnapshotIn, SnapshotRef};

/// How many published items a socket may fall behind before it is sent the whole state
/// instead (its queue: items are shared `Arc`s, so this bounds entries, not bytes).
pub const QUEUE: usize = 64;
/// How many recent changes the feed keeps for sockets that reconnect (a dropped
/// connection usually misses one or two). Each holds its serialised `events` message
/// (about a kilobyte), so this bounds a game's memory.
pub const HISTORY: usize = 16;

pub use crate::seat::Seats;

/// One change of the game, serialised once (and on the bus with its texts embedded as
/// the JSON they are).
#[derive(Debug, Serialize, Deserialize)]
pub struct Frame {
    /// The revision before it.
    pub from: u64,
    /// The revision after it.
    pub to: u64,
    /// The `events` message as spectators and the player not to move get it.
    #[serde(with = "embedded")]
    pub public: Arc<str>,
    /// The same with the legal moves, for the sockets of the side to move.
    #[serde(with = "embedded::mover")]
    pub mover: Option<(Player, Arc<str>)>,
}

impl Frame {
    /// The text for a viewer on `you`'s side (a spectator: `None`).
    #[must_use]
    pub fn text_for(&self, you: Option<Player>) -> &Arc<str> {
        match &self.mover {
            Some((side, text)) if you == Some(*side) => text,
            _ => &self.public,
        }
    }
}

/// The whole game at one revision, for a socket that connects or has missed too much:
/// built once per change, serialised lazily (at most once per kind of viewer).
#[derive(Debug)]
pub struct Snapshot {
    /// The game as a spectator sees it (no side, no legal moves).
    pub view: GameView,
    /// The legal moves of the side to move.
    pub legal: LegalMoves,
    /// The seats, to tell a socket's side.
    pub seats: Seats,
    /// The clocks as data, to say the time left at any moment.
    pub clocks: Option<Clocks>,
    /// The `state` message for a spectator, the first player and the second player.
    texts: [OnceLock<Arc<str>>; 3],
}

impl Snapshot {
    /// A snapshot of `view` (a spectator's) with the mover's legal moves.
    #[must_use]
    pub fn new(
        view: GameView,
        legal: LegalMoves,
        seats: Seats,
        clocks: Option<Clocks>,
    ) -> Snapshot {
        Snapshot {
            view,
            legal,
            seats,
            clocks,
            texts: Default::default(),
        }
    }

    /// The session revision it shows.
    #[must_use]
    pub fn rev(&self) -> u64 {
        self.view.rev
    }

    /// The game as the player `you` (or a spectator) sees it, with the clocks at `now`.
    #[must_use]
    pub fn view_for(&self, you: Option<Player>, now: Timestamp) -> GameView {
        let mut view = self.personal(you);
        view.clocks = self.clocks_at(now).or(view.clocks);
        view
    }

    fn personal(&self, you: Option<Player>) -> GameView {
        let mut view = self.view.clone();
        view.you = you;
        view.chat = super::chat::rooms_for(self.seats.each_ref(), you);
        if you.is_some() && you == Some(view.board.to_move) && !self.legal.is_empty() {
            view.legal_moves = self.legal.infos();
        }
        view
    }

    /// The clocks at `now` (`None` untimed).
    #[must_use]
    pub fn clocks_at(&self, now: Timestamp) -> Option<ClocksView> {
        let clocks = self.clocks.as_ref()?;
        ClocksView::from_clocks(clocks, now)
    }

    /// The `state` message for `you`, serialised on first use.
    pub fn state_text(&self, you: Option<Player>) -> Arc<str> {
        let slot = match you {
            None => 0,
            Some(Player::First) => 1,
            Some(Player::Second) => 2,
        };
        Arc::clone(self.texts[slot].get_or_init(|| {
            let message = ServerMessage::State {
                game: Box::new(self.personal(you)),
            };
            to_text(&message)
        }))
    }
}

/// A watcher count as published: the `watchers` message for a socket already counted
/// in it (the others: the count less that socket) and for one not yet counted (the whole
/// count), each serialised once. A socket learns from [`super::Handle::watch_counted`]
/// after which `version` the counts include it.
#[derive(Debug)]
pub struct WatcherCount {
    /// Raised by one at every count published.
    pub version: u64,
    /// The number of sockets open on the game.
    pub count: usize,
    /// The `watchers` message with the count less one.
    others: Arc<str>,
    /// The `watchers` message with the whole count.
    all: Arc<str>,
}

impl WatcherCount {
    /// The count `count` published as the `version`th.
    #[must_use]
    pub fn new(version: u64, count: usize) -> WatcherCount {
        WatcherCount {
            version,
            count,
            others: to_text(&ServerMessage::Watchers {
                count: count.saturating_sub(1),
            }),
            all: to_text(&ServerMessage::Watchers { count }),
        }
    }

    /// The message for a socket counted in the counts published after `counted_after`:
    /// the number of sockets on the game other than its own.
    #[must_use]
    pub fn text_for(&self, counted_after: u64) -> &Arc<str> {
        if self.version > counted_after {
            &self.others
        } else {
            &self.all
        }
    }
}

/// A game's publications: the channel, the recent history and the latest state.
#[derive(Debug)]
pub struct Feed {
    sender: broadcast::Sender<Published>,
    inner: Mutex<Kept>,
    /// For a game owned by another process: where chat said here goes (to its owner,
    /// which publishes it for everyone, this process included).
    upstream: OnceLock<tokio::sync::mpsc::Sender<super::Command>>,
}

#[derive(Debug)]
struct Kept {
    history: VecDeque<Arc<Frame>>,
    snapshot: Arc<Snapshot>,
    watchers: Arc<WatcherCount>,
    rematch: Option<Arc<str>>,
    /// The last messages of each room (players, spectators), oldest first.
    chat: [VecDeque<Arc<str>>; 2],
    /// The other server processes that hold sockets to this game: everything published
    /// is also published for them on the bus ([`super::remote`]).
    tap: Option<Tap>,
}

/// Where a game's publications go on the bus, and who listens there.
#[derive(Debug)]
pub struct Tap {
    /// The bus.
    pub bus: Arc<crate::bus::Bus>,
    /// The game's channel.
    pub channel: String,
    /// The processes listening (their tokens).
    pub listeners: HashSet<String>,
}

impl Kept {
    /// Keeps what the feed keeps of `told`, and `snapshot` as the state; returns the
    /// state before.
    fn keep(&mut self, told: &Published, snapshot: Option<Arc<Snapshot>>) -> Arc<Snapshot> {
        let before = match snapshot {
            Some(snapshot) => std::mem::replace(&mut self.snapshot, snapshot),
            None => Arc::clone(&self.snapshot),
        };
        match told {
            Published::Change { frame, .. } => {
                if self.history.len() == HISTORY {
                    self.history.pop_front();
                }
                // Only the latest legal moves matter to a client catching up: the copy
                // with the mover's legal moves is kept for the newest change only.
                if let Some(last) = self.history.back_mut()
                    && last.mover.is_some()
                {
                    *last = Arc::new(Frame {
                        from: last.from,
                        to: last.to,
                        public: Arc::clone(&last.public),
                        mover: None,
                    });
                }
                self.history.push_back(Arc::clone(frame));
            }
            Published::Reset { .. } => self.history.clear(),
            Published::Watchers(count) => self.watchers = Arc::clone(count),
            Published::Rematch(text) => self.rematch = Some(Arc::clone(text)),
            Published::Chat(room, text) => {
                let history = &mut self.chat[room.index()];
                if history.len() == chat::HISTORY {
                    history.pop_front();
                }
                history.push_back(Arc::clone(text));
            }
            Published::Refresh { .. } | Published::Absent(_) | Published::Moved => {}
        }
        before
    }
}

/// What a process that attaches to a game from elsewhere starts from.
#[derive(Debug)]
pub struct Attached {
    /// The latest state.
    pub snapshot: Arc<Snapshot>,
    /// The latest watcher count.
    pub watchers: Arc<WatcherCount>,
    /// The agreed rematch's message.
    pub rematch: Option<Arc<str>>,
    /// The chat rooms' last messages.
    pub chat: [Vec<Arc<str>>; 2],
}

/// What a socket at a revision has missed.
#[derive(Debug)]
pub enum CatchUp {
    /// These changes, oldest first.
    Frames(Vec<Arc<Frame>>),
    /// Too far behind (or unknown): the whole state.
    State(Arc<Snapshot>),
}

impl Feed {
    /// A feed whose state is `snapshot`.
    #[must_use]
    pub fn new(snapshot: Snapshot) -> Feed {
        Feed {
            sender: broadcast::channel(QUEUE).0,
            inner: Mutex::new(Kept {
                history: VecDeque::with_capacity(HISTORY),
                snapshot: Arc::new(snapshot),
                watchers: Arc::new(WatcherCount::new(0, 0)),
                rematch: None,
                chat: Default::default(),
                tap: None,
            }),
            upstream: OnceLock::new(),
        }
    }

    /// Subscribes to what is published from now on.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Published> {
        self.sender.subscribe()
    }

    /// How many sockets listen.
    #[must_use]
    pub fn listeners(&self) -> usize {
        self.sender.receiver_count()
    }

    /// The latest state.
    #[must_use]
    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&lock(&self.inner).snapshot)
    }

    /// The latest watcher count.
    #[must_use]
    pub fn watchers(&self) -> Arc<WatcherCount> {
        Arc::clone(&lock(&self.inner).watchers)
    }

    /// The rematch message, once one is agreed.
    #[must_use]
    pub fn rematch(&self) -> Option<Arc<str>> {
        lock(&self.inner).rematch.clone()
    }

    /// What a client that has seen revision `rev` missed: the changes since, if the
    /// history still has them all, else the whole state.
    #[must_use]
    pub fn catch_up(&self, rev: u64) -> CatchUp {
        let kept = lock(&self.inner);
        let latest = kept.snapshot.rev();
        if rev == 0 || rev > latest {
            return CatchUp::State(Arc::clone(&kept.snapshot));
        }
        let frames: Vec<Arc<Frame>> = kept
            .history
            .iter()
            .filter(|f| f.to > rev)
            .cloned()
            .collect();
        let joined = frames.first().map_or(rev == latest, |f| f.from == rev)
            && frames.windows(2).all(|w| w[0].to == w[1].from);
        if joined {
            CatchUp::Frames(frames)
        } else {
            CatchUp::State(Arc::clone(&kept.snapshot))
        }
    }

    /// Publishes `published`: keeps what the feed keeps of it (the history, the state,
    /// the watchers, the rematch, the chat), writes it once for the processes that
    /// relay the game, and hands it to the sockets here. A change already had is
    /// ignored.
    ///
    /// # Errors
    /// [`Missed`] when a relayed publication does not follow the state here: nothing
    /// was published (the owner's own always follow).
    pub fn publish<S: StateAfter>(&self, published: Published<S>) -> Result<(), Missed> {
        let (told, state) = published.split();
        {
            let mut kept = lock(&self.inner);
            let snapshot = match state {
                None => None,
                Some(state) => match state.resolve(&kept.snapshot, told.frame()) {
                    Resolved::Apply(snapshot) => Some(snapshot),
                    Resolved::Stale => return Ok(()),
                    Resolved::Missed => return Err(Missed),
                },
            };
            let before = kept.keep(&told, snapshot);
            if let Some(tap) = &kept.tap {
                published::publish(tap, &told, &before, &kept.snapshot);
            }
        }
        if told.is_told() {
            let _ = self.sender.send(told);
        }
        Ok(())
    }

    /// The owner's publications, each through [`Feed::publish`] (the owner's are never
    /// [`Missed`]).
    fn publish_own(&self, publication: Publication) {
        let _ = self.publish(publication);
    }

    /// Publishes a change and the state after it ([`Published::Change`]).
    pub fn change(&self, frame: Frame, snapshot: Snapshot) {
        self.publish_own(Published::Change {
            frame: Arc::new(frame),
            snapshot: Arc::new(snapshot),
        });
    }

    /// Publishes a new state that the events do not describe ([`Published::Reset`]).
    pub fn reset(&self, snapshot: Snapshot) {
        self.publish_own(Published::Reset {
            snapshot: Arc::new(snapshot),
        });
    }

    /// Replaces the state without telling the sockets ([`Published::Refresh`]: what they
    /// were told still holds: a rating shown after the end, say).
    pub fn refresh(&self, snapshot: Snapshot) {
        self.publish_own(Published::Refresh {
            snapshot: Arc::new(snapshot),
        });
    }

    /// Publishes the number of watchers, sockets open on the game
    /// ([`Published::Watchers`]; the game's owner alone calls this, one call at a time).
    pub fn set_watchers(&self, count: usize) {
        let version = self.watchers().version + 1;
        self.publish_own(Published::Watchers(Arc::new(WatcherCount::new(
            version, count,
        ))));
    }

    /// Publishes who is gone from the game now (an `absent` message:
    /// [`Published::Absent`]).
    pub fn set_absent(&self, text: Arc<str>) {
        self.publish_own(Published::Absent(text));
    }

    /// Tells the sockets that another server process owns the game now
    /// ([`Published::Moved`]).
    pub fn moved(&self) {
        self.publish_own(Published::Moved);
    }

    /// Publishes the agreed rematch ([`Published::Rematch`]).
    pub fn set_rematch(&self, id: &str) {
        let text = to_text(&ServerMessage::Rematch { id: id.to_owned() });
        self.publish_own(Published::Rematch(text));
    }
}

impl Feed {
    /// Publishes a chat message said in `room` (checked and stored), keeping the last
    /// [`chat::HISTORY`] of the room.
    pub fn chat(&self, room: ChatRoom, text: Arc<str>) {
        if let Some(upstream) = self.upstream.get() {
            if upstream
                .try_send(super::Command::chat(room, &text))
                .is_err()
            {
                tracing::warn!("a chat message could not be passed to its game's owner");
            }
            return;
        }
        self.chat_here(room, text);
    }

    /// Publishes chat said in `room` here, whether this feed is a mirror or not
    /// ([`Published::Chat`]).
    pub(crate) fn chat_here(&self, room: ChatRoom, text: Arc<str>) {
        self.publish_own(Published::Chat(room, text));
    }

    /// The last messages of `room`, oldest first.
    #[must_use]
    pub fn chat_history(&self, room: ChatRoom) -> Vec<Arc<str>> {
        lock(&self.inner).chat[room.index()]
            .iter()
            .cloned()
            .collect()
    }

    /// Sets the history of `room` (read back from the store when the game resumes),
    /// oldest first; the messages published since come after.
    pub fn load_chat(&self, room: ChatRoom, texts: Vec<Arc<str>>) {
        let mut kept = lock(&self.inner);
        let history = &mut kept.chat[room.index()];
        let since: Vec<Arc<str>> = history.drain(..).collect();
        history.extend(texts);
        history.extend(since);
        while history.len() > chat::HISTORY {
            history.pop_front();
        }
    }
}

/// A message as JSON text, shared.
pub fn to_text<T: serde::Serialize>(message: &T) -> Arc<str> {
    match serde_json::to_string(message) {
        Ok(text) => text.into(),
        Err(error) => {
            // The messages are plain data: this does not happen.
            tracing::error!(%error, "a socket message cannot be written");
            Arc::from("{}")
        }
    }
}

impl Feed {
    /// Process `token` listens to this game on `bus` from now on (again: a listener that
    /// missed something attaches once more). Returns where it starts from: what is
    /// published after this call reaches it.
    pub fn attach_remote(
        &self,
        bus: &Arc<crate::bus::Bus>,
        channel: &str,
        token: &str,
    ) -> Attached {
        let mut kept = lock(&self.inner);
        kept.tap
            .get_or_insert_with(|| Tap {
                bus: Arc::clone(bus),
                channel: channel.to_owned(),
                listeners: HashSet::new(),
            })
            .listeners
            .insert(token.to_owned());
        Attached {
            snapshot: Arc::clone(&kept.snapshot),
            watchers: Arc::clone(&kept.watchers),
            rematch: kept.rematch.clone(),
            chat: [
                kept.chat[0].iter().cloned().collect(),
                kept.chat[1].iter().cloned().collect(),
            ],
        }
    }

    /// Process `token` no longer listens; with no listener left, nothing is published on
    /// the bus.
    pub fn detach_remote(&self, token: &str) {
        let mut kept = lock(&self.inner);
        if let Some(tap) = &mut kept.tap {
            tap.listeners.remove(token);
            if tap.listeners.is_empty() {
                kept.tap = None;
            }
        }
    }

    /// Makes this the mirror of a game owned elsewhere: chat said here goes to
    /// `upstream`, the relay to its owner.
    pub(crate) fn set_upstream(&self, upstream: tokio::sync::mpsc::Sender<super::Command>) {
        let _ = self.upstream.set(upstream);
    }
}
