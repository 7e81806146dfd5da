//! The lobby: the games being played and the open challenges, as every visitor of the
//! home page sees them. Game owners and the challenge endpoints record changes here;
//! the changes go out coalesced (at most one message every [`FLUSH_EVERY`]), each
//! serialised once and shared by every lobby socket. A socket that connects, or falls
//! behind, gets one snapshot (serialised once per version).
//!
//! The lobby shows the [`WINDOW`] newest games being played (with their boards) and
//! how many there are in all; `GET /api/games?status=live` pages through all of them.
//!
//! Several processes share one lobby through its [`Outlet`] ([`super::hub`]): each
//! change made here is published on `kt:lobby` and applied by the others; the games a
//! process owns go out coalesced, with its sockets' messages. A process that joins the
//! bus (at start, and when Redis comes back) asks the others for their games and who is
//! present on them.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::broadcast;

use super::feed::to_text;
use super::hub::Outlet;
use super::messages::{ChallengeView, LiveGame, LiveGameChange, LobbyMessage};
use super::{Ident, lock};

mod shared;
pub(crate) use shared::watch_processes;
pub use shared::{Applied, LobbyChange};

/// How many live games the lobby socket shows and keeps up to date.
pub const WINDOW: usize = 24;
/// The lobby sends at most one change message this often.
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// How many open challenges the lobby lists.
pub const CHALLENGES_SHOWN: usize = 100;
/// How many messages a lobby socket may fall behind before it is sent a snapshot.
const QUEUE: usize = 32;

/// A lobby message, serialised, with the socket it is for (`None`: every socket).
#[derive(Clone, Debug)]
pub struct LobbyFrame {
    /// The lobby's version after it (0 for a message outside the sequence).
    pub v: u64,
    /// The JSON text.
    pub text: Arc<str>,
    /// Only the sockets of this person get it.
    pub to: Option<Arc<Ident>>,
}

/// The lobby of this server.
#[derive(Debug)]
pub struct Lobby {
    inner: Mutex<State>,
    sender: broadcast::Sender<LobbyFrame>,
    /// Every change made here goes through it, to the other processes too.
    outlet: Outlet<Lobby>,
    /// Itself, for the task that sends the next change.
    this: Weak<Lobby>,
}

#[derive(Debug, Default)]
struct State {
    version: u64,
    games: HashMap<String, LiveGame>,
    /// The games being played, oldest first by (made at, id).
    order: BTreeSet<(i64, String)>,
    /// The games the sockets were last told of (the window), newest first.
    shown: Vec<String>,
    /// Those games as the sockets were last told of them: the next message sends only
    /// what differs from these, and a snapshot shows these (so that the next change
    /// applies to it exactly).
    sent: HashMap<String, LiveGame>,
    /// Games changed since the last message.
    dirty: HashSet<String>,
    /// Games changed here since the other processes were last told.
    to_share: HashSet<String>,
    /// The live count the sockets were last told.
    shown_live: usize,
    /// Open challenges, newest first, with their posters.
    challenges: Vec<(ChallengeView, Ident)>,
    challenges_added: Vec<String>,
    challenges_removed: Vec<String>,
    /// A message is scheduled.
    scheduled: bool,
    last_flush: Option<tokio::time::Instant>,
    /// The snapshot of `version`, once serialised.
    snapshot: Option<Arc<str>>,
    /// Lobby sockets open, per person (user or guest id), on every process.
    present: HashMap<String, usize>,
    /// Those open on this process.
    here: HashMap<String, (Ident, usize)>,
    /// Those open on each other process (by its token), as it said.
    elsewhere: HashMap<String, HashMap<String, (Ident, usize)>>,
}

/// Counts one more socket of `who` in `people`.
fn count_in(people: &mut HashMap<String, (Ident, usize)>, who: &Ident) {
    if let Some(key) = who.key() {
        people
            .entry(key.to_owned())
            .or_insert_with(|| (who.clone(), 0))
            .1 += 1;
    }
}

/// Counts one socket fewer of `who` in `people`.
fn uncount_in(people: &mut HashMap<String, (Ident, usize)>, who: &Ident) {
    if let Some(key) = who.key()
        && let Some(entry) = people.get_mut(key)
    {
        entry.1 = entry.1.saturating_sub(1);
        if entry.1 == 0 {
            people.remove(key);
        }
    }
}

impl State {
    /// `count` sockets of `key` fewer; true when they were the last.
    fn absent(&mut self, key: &str, count: usize) -> bool {
        let Some(present) = self.present.get_mut(key) else {
            return false;
        };
        *present = present.saturating_sub(count);
        if *present == 0 {
            self.present.remove(key);
            true
        } else {
            false
        }
    }
}

impl Lobby {
    /// An empty lobby.
    #[must_use]
    pub fn new() -> Arc<Lobby> {
        Arc::new_cyclic(|this| Lobby {
            inner: Mutex::new(State::default()),
            sender: broadcast::channel(QUEUE).0,
            outlet: Outlet::default(),
            this: this.clone(),
        })
    }

    /// Subscribes a socket; then read [`Lobby::snapshot`] and skip frames up to its
    /// version.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<LobbyFrame> {
        self.sender.subscribe()
    }

    /// The whole lobby now, serialised once per version: (version, text).
    #[must_use]
    pub fn snapshot(&self, now_ms: i64) -> (u64, Arc<str>) {
        let mut state = lock(&self.inner);
        let expired = state.challenges.iter().any(|(c, _)| c.expires_at <= now_ms);
        if expired {
            state.expire(now_ms);
            state.snapshot = None;
        }
        if let Some(text) = &state.snapshot {
            return (state.version, Arc::clone(text));
        }
        let text = to_text(&LobbyMessage::Snapshot {
            v: state.version,
            // The games the sockets were last told of, as they were told: the next
            // change message adds to, removes from and changes exactly these.
            games: state
                .shown
                .iter()
                .filter_map(|id| state.sent.get(id).cloned())
                .collect(),
            live: state.games.len(),
            challenges: state.challenges.iter().map(|(c, _)| c.clone()).collect(),
        });
        state.snapshot = Some(Arc::clone(&text));
        let version = state.version;
        drop(state);
        if expired {
            self.schedule();
        }
        (version, text)
    }

    /// A page of the games being played, newest first, and how many there are.
    #[must_use]
    pub fn live_page(&self, offset: usize, limit: usize) -> (Vec<LiveGame>, usize) {
        let state = lock(&self.inner);
        let games = state
            .order
            .iter()
            .rev()
            .skip(offset)
            .take(limit)
            .filter_map(|(_, id)| state.games.get(id).cloned())
            .collect();
        (games, state.games.len())
    }

    /// A game being played has started or changed.
    fn apply_game_changed(&self, game: LiveGame) {
        {
            let mut state = lock(&self.inner);
            let id = game.id.clone();
            state.order.insert((game.created_at, id.clone()));
            state.games.insert(id.clone(), game);
            state.dirty.insert(id);
        }
        self.schedule();
    }

    /// A game is no longer being played.
    fn apply_game_removed(&self, id: &str) {
        {
            let mut state = lock(&self.inner);
            let Some(game) = state.games.remove(id) else {
                return;
            };
            state.order.remove(&(game.created_at, game.id));
            state.dirty.remove(id);
        }
        self.schedule();
    }

    /// The open challenges, newest first (what a store read at start finds).
    pub fn set_challenges(&self, challenges: Vec<(ChallengeView, Ident)>) {
        {
            let mut state = lock(&self.inner);
            state.challenges = challenges;
            state.challenges.truncate(CHALLENGES_SHOWN);
            state.snapshot = None;
            state.version += 1;
        }
        self.schedule();
    }

    /// A challenge was posted by `by`.
    fn apply_challenge_added(&self, challenge: ChallengeView, by: Ident) {
        {
            let mut state = lock(&self.inner);
            state.challenges_added.push(challenge.id.clone());
            state.challenges.insert(0, (challenge, by));
            if state.challenges.len() > CHALLENGES_SHOWN
                && let Some((last, _)) = state.challenges.pop()
            {
                state.challenges_removed.push(last.id);
            }
        }
        self.schedule();
    }

    /// A challenge is gone (accepted, withdrawn, lapsed).
    fn apply_challenge_removed(&self, id: &str) {
        {
            let mut state = lock(&self.inner);
            let before = state.challenges.len();
            state.challenges.retain(|(c, _)| c.id != id);
            if state.challenges.len() == before {
                return;
            }
            state.challenges_removed.push(id.to_owned());
        }
        self.schedule();
    }

    /// The poster of challenge `challenge` is told that it became game `game`, at once.
    fn apply_tell_accepted(&self, poster: Ident, challenge: &str, game: &str) {
        let text = to_text(&LobbyMessage::ChallengeAccepted {
            challenge: challenge.to_owned(),
            game: game.to_owned(),
        });
        let _ = self.sender.send(LobbyFrame {
            v: 0,
            text,
            to: Some(Arc::new(poster)),
        });
    }

    /// A lobby socket of `who` opened.
    fn apply_enter(&self, who: &Ident) {
        if let Some(key) = who.key() {
            *lock(&self.inner).present.entry(key.to_owned()).or_default() += 1;
        }
    }

    /// A lobby socket of `who` closed; true when it was their last.
    fn apply_leave(&self, who: &Ident) -> bool {
        let Some(key) = who.key() else { return false };
        lock(&self.inner).absent(key, 1)
    }

    /// Process `from` says who is present on it (all of them): replaces what it said
    /// before. Returns those no longer present anywhere.
    fn apply_present(&self, from: &str, people: Vec<(Ident, usize)>) -> Vec<Ident> {
        let mut state = lock(&self.inner);
        let before = state.elsewhere.remove(from).unwrap_or_default();
        let now: HashMap<String, (Ident, usize)> = people
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .filter_map(|(who, count)| Some((who.key()?.to_owned(), (who, count))))
            .collect();
        for (key, (_, count)) in &now {
            *state.present.entry(key.clone()).or_default() += count;
        }
        let gone = before
            .into_iter()
            .filter_map(|(key, (who, count))| state.absent(&key, count).then_some(who))
            .collect();
        if !now.is_empty() {
            state.elsewhere.insert(from.to_owned(), now);
        }
        gone
    }

    /// The other processes that have lobby sockets open, as they said.
    #[must_use]
    pub fn present_elsewhere(&self) -> Vec<String> {
        lock(&self.inner).elsewhere.keys().cloned().collect()
    }

    /// Process `token` has gone (without saying): its lobby sockets no longer count.
    /// Returns those no longer present anywhere.
    pub fn forget_process(&self, token: &str) -> Vec<Ident> {
        self.apply_present(token, Vec::new())
    }

    /// Whether `who` has a lobby socket open.
    #[must_use]
    pub fn is_present(&self, who: &Ident) -> bool {
        who.key()
            .is_some_and(|key| lock(&self.inner).present.contains_key(key))
    }

    /// A game being played has started or changed (told to the other processes with
    /// the next message: [`Lobby::flush`]).
    pub fn game_changed(&self, game: LiveGame) {
        if self.outlet.on_bus() {
            lock(&self.inner).to_share.insert(game.id.clone());
        }
        self.apply_game_changed(game);
    }

    /// A game is no longer being played.
    pub fn game_removed(&self, id: &str) {
        lock(&self.inner).to_share.remove(id);
        self.outlet
            .publish(self, LobbyChange::GameRemoved(id.to_owned()));
    }

    /// A challenge was posted by `by`.
    pub fn challenge_added(&self, challenge: ChallengeView, by: Ident) {
        self.outlet
            .publish(self, LobbyChange::ChallengeAdded(challenge, by));
    }

    /// A challenge is gone (accepted, withdrawn, lapsed).
    pub fn challenge_removed(&self, id: &str) {
        self.outlet
            .publish(self, LobbyChange::ChallengeRemoved(id.to_owned()));
    }

    /// The poster of challenge `challenge` is told that it became game `game`, at once
    /// (on whichever process their lobby socket is).
    pub fn tell_accepted(&self, poster: Ident, challenge: &str, game: &str) {
        let change = LobbyChange::Accepted {
            poster,
            challenge: challenge.to_owned(),
            game: game.to_owned(),
        };
        self.outlet.publish(self, change);
    }

    /// A lobby socket of `who` opened.
    pub fn enter(&self, who: &Ident) {
        self.outlet.publish(self, LobbyChange::Enter(who.clone()));
    }

    /// A lobby socket of `who` closed; true when it was their last (on any process).
    pub fn leave(&self, who: &Ident) -> bool {
        !self
            .outlet
            .publish(self, LobbyChange::Leave(who.clone()))
            .gone
            .is_empty()
    }

    /// Tells the other processes who is present here.
    fn share_presence(&self) {
        let people: Vec<(Ident, usize)> = lock(&self.inner).here.values().cloned().collect();
        self.outlet.tell_others(&LobbyChange::Present(people));
    }

    /// Asks the other processes for the games they own and who is present on them, and
    /// tells them who is present here (at start, and when the bus is back).
    pub fn say_hello(&self) {
        self.outlet.tell_others(&LobbyChange::Hello);
        self.share_presence();
    }

    /// Answers another process's hello: the games among `mine` (those this process
    /// owns), and who is present here.
    fn greet(&self, mine: &[String]) {
        let games: Vec<LiveGame> = {
            let state = lock(&self.inner);
            mine.iter()
                .filter_map(|id| state.games.get(id).cloned())
                .collect()
        };
        if !games.is_empty() {
            self.outlet.tell_others(&LobbyChange::Games(games));
        }
        self.share_presence();
    }

    /// Makes sure a change message goes out within [`FLUSH_EVERY`].
    fn schedule(&self) {
        let wait = {
            let mut state = lock(&self.inner);
            if state.scheduled {
                return;
            }
            state.scheduled = true;
            state.last_flush.map_or(Duration::ZERO, |at| {
                (at + FLUSH_EVERY).saturating_duration_since(tokio::time::Instant::now())
            })
        };
        let this = self.this.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            if let Some(lobby) = this.upgrade() {
                lobby.flush();
            }
        });
    }

    /// Sends what changed since the last message, as one message (and tells the other
    /// processes of the games changed here).
    fn flush(&self) {
        let shared: Vec<LiveGame> = {
            let mut state = lock(&self.inner);
            let ids = std::mem::take(&mut state.to_share);
            ids.iter()
                .filter_map(|id| state.games.get(id).cloned())
                .collect()
        };
        if !shared.is_empty() {
            self.outlet.tell_others(&LobbyChange::Games(shared));
        }
        let mut state = lock(&self.inner);
        state.scheduled = false;
        state.last_flush = Some(tokio::time::Instant::now());
        let window: Vec<String> = state.window().cloned().collect();
        let old: HashSet<&String> = state.shown.iter().collect();
        let new: HashSet<&String> = window.iter().collect();
        let games_added: Vec<LiveGame> = window
            .iter()
            .filter(|id| !old.contains(id))
            .filter_map(|id| state.games.get(id).cloned())
            .collect();
        let games_changed: Vec<LiveGameChange> = window
            .iter()
            .filter(|id| old.contains(id) && state.dirty.contains(*id))
            .filter_map(|id| {
                let now = state.games.get(id)?;
                LiveGameChange::between(state.sent.get(id)?, now)
            })
            .collect();
        let games_removed: Vec<String> = state
            .shown
            .iter()
            .filter(|id| !new.contains(id))
            .cloned()
            .collect();
        // The games whose last-sent form changes: those new to the list, and those
        // changed since (the others are sent as they were).
        let resent: Vec<String> = window
            .iter()
            .filter(|id| !old.contains(id) || state.dirty.contains(*id))
            .cloned()
            .collect();
        let live = state.games.len();
        let added = std::mem::take(&mut state.challenges_added);
        let challenges_added: Vec<_> = state
            .challenges
            .iter()
            .filter(|(c, _)| added.contains(&c.id))
            .map(|(c, _)| c.clone())
            .collect();
        let challenges_removed: Vec<String> = std::mem::take(&mut state.challenges_removed)
            .into_iter()
            .filter(|id| !added.contains(id))
            .collect();
        state.dirty.clear();
        for id in resent {
            if let Some(game) = state.games.get(&id).cloned() {
                state.sent.insert(id, game);
            }
        }
        state.sent.retain(|id, _| window.contains(id));
        state.shown = window;
        let nothing = games_added.is_empty()
            && games_changed.is_empty()
            && games_removed.is_empty()
            && challenges_added.is_empty()
            && challenges_removed.is_empty()
            && live == state.shown_live;
        if nothing {
            return;
        }
        state.shown_live = live;
        state.version += 1;
        state.snapshot = None;
        let v = state.version;
        let text = to_text(&LobbyMessage::Changes {
            v,
            games_added,
            games_changed,
            games_removed,
            live,
            challenges_added,
            challenges_removed,
        });
        drop(state);
        let _ = self.sender.send(LobbyFrame { v, text, to: None });
    }
}

impl State {
    /// The ids of the newest [`WINDOW`] games, newest first.
    fn window(&self) -> impl Iterator<Item = &String> {
        self.order.iter().rev().take(WINDOW).map(|(_, id)| id)
    }

    /// Drops the challenges lapsed at `now_ms` (the store marks them in its sweep).
    fn expire(&mut self, now_ms: i64) {
        let mut gone = Vec::new();
        self.challenges.retain(|(c, _)| {
            let keep = c.expires_at > now_ms;
            if !keep {
                gone.push(c.id.clone());
            }
            keep
        });
        self.challenges_removed.extend(gone);
    }
}
