//! What a game's owner publishes and its sockets read: each change once, as a versioned
//! message serialised once and shared by every socket of the game; a bounded history
//! of recent changes and the latest full state, kept beside the game's handle so that a
//! socket catches up without asking the owner anything.
//!
//! The socket layer and the owner talk only through these messages (and the commands
//! of [`super::Command`]): this is the seam along which a game's sockets can later live
//! in another process than its owner.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use game::Player;
use session::{Clocks, Timestamp};
use tokio::sync::broadcast;

use super::chat::{self, ChatRoom};
use super::lock;
use super::messages::{ClocksView, GameView, LegalMoves, ServerMessage};
use crate::store::SeatRecord;

/// How many published items a socket may fall behind before it is sent the whole state
/// instead (its queue: items are shared `Arc`s, so this bounds entries, not bytes).
pub const QUEUE: usize = 64;
/// How many recent changes the feed keeps for sockets that reconnect (a dropped
/// connection usually misses one or two). Each holds its serialised `events` message
/// (about a kilobyte), so this bounds a game's memory.
pub const HISTORY: usize = 16;

/// Who sits in each seat: enough to tell a socket's side without the owner.
pub type Seats = [SeatRecord; 2];

/// One change of the game, serialised once.
#[derive(Debug)]
pub struct Frame {
    /// The revision before it.
    pub from: u64,
    /// The revision after it.
    pub to: u64,
    /// The `events` message as spectators and the player not to move get it.
    pub public: Arc<str>,
    /// The same with the legal moves, for the sockets of the side to move.
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

/// What the owner publishes to the game's sockets.
#[derive(Clone, Debug)]
pub enum Published {
    /// A change: the session moved on.
    Change(Arc<Frame>),
    /// Something the events do not carry (a seat taken, a waiting game called off):
    /// every socket sends the whole state.
    Reset,
    /// The number of watchers (at most a few a second).
    Watchers(Arc<WatcherCount>),
    /// The agreed rematch.
    Rematch(Arc<str>),
    /// Who has left the game (every socket of theirs closed), and when the opponent may
    /// claim: on every arrival and departure.
    Absent(Arc<str>),
    /// A chat message said in a room: written by the sockets that may read that room.
    Chat(ChatRoom, Arc<str>),
    /// Another server process owns the game now: the sockets close (their clients
    /// connect again).
    Moved,
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
    fn new(version: u64, count: usize) -> WatcherCount {
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

/// Publishes a change for the processes listening to the game.
fn publish_change(tap: &Tap, frame: &Frame, before: &Snapshot, snapshot: &Snapshot) {
    let texts = super::remote::raw(&frame.public).and_then(|public| {
        let mover = match &frame.mover {
            Some((side, text)) => Some((*side, super::remote::raw(text)?)),
            None => None,
        };
        Ok((public, mover))
    });
    match texts {
        Ok((public, mover)) => super::remote::publish(
            tap,
            &super::remote::EnvelopeOut::Change {
                from: frame.from,
                to: frame.to,
                public,
                mover,
                snapshot: super::remote::SnapshotRef::after(before, snapshot),
            },
        ),
        Err(error) => tracing::error!(%error, "a change that is not JSON is not published"),
    }
}

impl Kept {
    fn tap(&self, envelope: &super::remote::EnvelopeOut<'_>) {
        if let Some(tap) = &self.tap {
            super::remote::publish(tap, envelope);
        }
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

    /// Publishes a change and the state after it.
    pub fn change(&self, frame: Frame, snapshot: Snapshot) {
        let frame = Arc::new(frame);
        {
            let mut kept = lock(&self.inner);
            if kept.history.len() == HISTORY {
                kept.history.pop_front();
            }
            // Only the latest legal moves matter to a client catching up: the copy with
            // the mover's legal moves is kept for the newest change only.
            if let Some(last) = kept.history.back_mut()
                && last.mover.is_some()
            {
                *last = Arc::new(Frame {
                    from: last.from,
                    to: last.to,
                    public: Arc::clone(&last.public),
                    mover: None,
                });
            }
            kept.history.push_back(Arc::clone(&frame));
            let before = std::mem::replace(&mut kept.snapshot, Arc::new(snapshot));
            if let Some(tap) = &kept.tap {
                publish_change(tap, &frame, &before, &kept.snapshot);
            }
        }
        let _ = self.sender.send(Published::Change(frame));
    }

    /// Publishes a new state that the events do not describe.
    pub fn reset(&self, snapshot: Snapshot) {
        {
            let mut kept = lock(&self.inner);
            kept.history.clear();
            kept.snapshot = Arc::new(snapshot);
            kept.tap(&super::remote::EnvelopeOut::Reset {
                snapshot: super::remote::SnapshotRef::of(&kept.snapshot),
            });
        }
        let _ = self.sender.send(Published::Reset);
    }

    /// Replaces the state without telling the sockets (what they were told still holds:
    /// a rating shown after the end, say).
    pub fn refresh(&self, snapshot: Snapshot) {
        let mut kept = lock(&self.inner);
        kept.snapshot = Arc::new(snapshot);
        kept.tap(&super::remote::EnvelopeOut::Refresh {
            snapshot: super::remote::SnapshotRef::of(&kept.snapshot),
        });
    }

    /// Publishes the number of watchers (sockets open on the game).
    pub fn set_watchers(&self, count: usize) {
        let published = {
            let mut kept = lock(&self.inner);
            kept.watchers = Arc::new(WatcherCount::new(kept.watchers.version + 1, count));
            kept.tap(&super::remote::EnvelopeOut::Watchers {
                version: kept.watchers.version,
                count,
            });
            Arc::clone(&kept.watchers)
        };
        let _ = self.sender.send(Published::Watchers(published));
    }

    /// Publishes who is gone from the game now (an `absent` message).
    pub fn set_absent(&self, text: Arc<str>) {
        if let Ok(text) = super::remote::raw(&text) {
            lock(&self.inner).tap(&super::remote::EnvelopeOut::Absent { text });
        }
        let _ = self.sender.send(Published::Absent(text));
    }

    /// Tells the sockets that another server process owns the game now.
    pub fn moved(&self) {
        lock(&self.inner).tap(&super::remote::EnvelopeOut::Moved);
        let _ = self.sender.send(Published::Moved);
    }

    /// Publishes the agreed rematch.
    pub fn set_rematch(&self, id: &str) {
        let text = to_text(&ServerMessage::Rematch { id: id.to_owned() });
        {
            let mut kept = lock(&self.inner);
            kept.rematch = Some(Arc::clone(&text));
            kept.tap(&super::remote::EnvelopeOut::Rematch { id });
        }
        let _ = self.sender.send(Published::Rematch(text));
    }
}

impl Feed {
    /// Publishes a chat message said in `room` (checked and stored), keeping the last
    /// [`chat::HISTORY`] of the room.
    pub fn chat(&self, room: ChatRoom, text: Arc<str>) {
        if let Some(upstream) = self.upstream.get() {
            if upstream
                .try_send(super::Command::Chat { room, text })
                .is_err()
            {
                tracing::warn!("a chat message could not be passed to its game's owner");
            }
            return;
        }
        self.chat_here(room, text);
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

    /// The processes listening from elsewhere.
    #[must_use]
    pub fn remote_listeners(&self) -> usize {
        lock(&self.inner)
            .tap
            .as_ref()
            .map_or(0, |tap| tap.listeners.len())
    }

    /// Makes this the mirror of a game owned elsewhere: chat said here goes to
    /// `upstream`, the relay to its owner.
    pub(crate) fn set_upstream(&self, upstream: tokio::sync::mpsc::Sender<super::Command>) {
        let _ = self.upstream.set(upstream);
    }

    /// Publishes chat said in `room` here, whether this feed is a mirror or not.
    pub(crate) fn chat_here(&self, room: ChatRoom, text: Arc<str>) {
        {
            let mut kept = lock(&self.inner);
            let history = &mut kept.chat[room.index()];
            if history.len() == chat::HISTORY {
                history.pop_front();
            }
            history.push_back(Arc::clone(&text));
            if let Ok(text) = super::remote::raw(&text) {
                kept.tap(&super::remote::EnvelopeOut::Chat { room, text });
            }
        }
        let _ = self.sender.send(Published::Chat(room, text));
    }

    /// Sets the watcher count to one published elsewhere, with its version there.
    pub fn set_watchers_at(&self, version: u64, count: usize) {
        let published = {
            let mut kept = lock(&self.inner);
            kept.watchers = Arc::new(WatcherCount::new(version, count));
            Arc::clone(&kept.watchers)
        };
        let _ = self.sender.send(Published::Watchers(published));
    }
}
