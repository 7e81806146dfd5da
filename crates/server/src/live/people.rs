//! Each player's own channel: the games they play, as they change, sent only to their
//! sockets. A game's owner publishes one [`MyGame`] per change (serialised once, with no
//! reader in it); the hub routes it to the sockets of that game's players — looked up by
//! their user and guest ids, so a change costs O(players of the game and their sockets),
//! never O(all sockets). Each socket has a small bounded queue: a socket that does not
//! read has its queue fill, is marked behind, and is sent the whole list again when it
//! reads; the owner never waits for it.
//!
//! Every change goes through the hub's [`Outlet`] ([`super::hub`]): on the bus
//! (`--redis`) it is published once on `kt:people` and every other process sends it to
//! the sockets it holds of those players, as it does its own; a socket on any process
//! hears of a move or a direct challenge at once. When the connection to Redis comes
//! back, every socket here is sent its whole list again (it may have missed changes).
//!
//! The hub also knows who is online now: the people (users and guests) with at least one
//! socket registered on this process, counted in memory. Registrations are bounded per person
//! ([`SOCKETS_PER_PERSON`]) and, through the connection caps, in all.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use game::{GameKind, Outcome, Player};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use session::Timestamp;
use tokio::sync::mpsc;

use super::feed::{Snapshot, to_text};
use super::hub::{Hub, Origin, Outlet};
use super::messages::{ClocksView, GameStatusView, GameView, LobbyMessage, PlayerInfo};
use super::{Ident, lock};
use crate::bus::HubChannel;
use crate::state::AppState;
use crate::store::{SeatRecord, StoreError};

/// How many sockets one person (a user or a guest) may have on their own channel.
pub const SOCKETS_PER_PERSON: usize = 16;
/// How many messages a socket's queue holds before it is marked behind.
pub const QUEUE: usize = 16;
/// The most games one player's list shows (the longest-waiting on their move first).
pub const MY_GAMES_MAX: i64 = 200;

/// One game of a player's list, as the game's owner publishes it after each change. The
/// same text goes to both players: the receiver's side is added around it (`you`).
#[derive(Clone, Debug, Serialize)]
pub struct MyGame {
    /// The game.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// `waiting` (a seat open), `ongoing`, `finished` or `aborted`: the last message
    /// about a game says it is over.
    pub status: GameStatusView,
    /// Both players, first first.
    pub players: Vec<PlayerInfo>,
    /// The time control (`5+3`, `3d`, `untimed`).
    pub time_control: String,
    /// Whether it is rated.
    pub rated: bool,
    /// Whose move it is (`None` unless the game is being played).
    pub to_move: Option<Player>,
    /// The clocks when the message was made (`None` untimed, or before a seat is taken).
    pub clocks: Option<ClocksView>,
    /// Who offers a draw.
    pub draw_offer: Option<Player>,
    /// Who asks to take a move back.
    pub takeback_request: Option<Player>,
    /// The result once finished.
    pub result: Option<Outcome>,
    /// Moves played.
    pub plies: usize,
}

impl MyGame {
    /// The game as `snapshot` shows it, with the clocks at `now`.
    #[must_use]
    pub fn of(snapshot: &Snapshot, now: Timestamp) -> MyGame {
        MyGame::of_view(
            &snapshot.view,
            snapshot.clocks_at(now).or(snapshot.view.clocks),
        )
    }

    /// The game as `view` shows it, with these clocks.
    fn of_view(view: &GameView, clocks: Option<ClocksView>) -> MyGame {
        let ongoing = view.status == GameStatusView::Ongoing;
        MyGame {
            id: view.id.clone(),
            kind: view.kind,
            status: view.status,
            players: view.players.clone(),
            time_control: view.time_control.clone(),
            rated: view.rated,
            to_move: ongoing.then_some(view.board.to_move),
            clocks,
            draw_offer: view.draw_offer,
            takeback_request: view.takeback_request,
            result: view.result,
            plies: view.moves.len(),
        }
    }

    /// Whether it waits for `side` to move.
    #[must_use]
    pub fn waits_for(&self, side: Player) -> bool {
        self.to_move == Some(side)
    }

    /// The time `side` has left (`u64::MAX` untimed): for ordering the list.
    fn time_left(&self, side: Player) -> u64 {
        self.clocks.as_ref().map_or(u64::MAX, |c| match side {
            Player::First => c.first_ms,
            Player::Second => c.second_ms,
        })
    }
}

/// A player's game with their side in it, as listed.
#[derive(Clone, Debug, Serialize)]
pub struct Mine {
    /// The receiver's side.
    pub you: Player,
    /// The game.
    #[serde(flatten)]
    pub game: MyGame,
}

/// Orders a player's games: those waiting for their move first (least time left first),
/// then the others (ongoing before waiting for a second player), newest activity first
/// as the store gave them.
pub fn order(games: &mut [Mine]) {
    games.sort_by_key(|m| {
        let yours = m.game.waits_for(m.you);
        let waiting = m.game.status == GameStatusView::Waiting;
        (
            !yours,
            waiting,
            if yours { m.game.time_left(m.you) } else { 0 },
        )
    });
}

/// What the hub sends one socket.
#[derive(Debug)]
pub enum Personal {
    /// A `my_game` message.
    Text(Arc<str>),
    /// The account's direct challenges changed: the socket reads and sends them.
    Challenges,
}

struct Slot {
    id: u64,
    sender: mpsc::Sender<Personal>,
    behind: Arc<AtomicBool>,
}

/// The per-person channel of this server.
#[derive(Default)]
pub struct People {
    /// Sockets by user id and by guest id (a socket of a signed-in player who was a guest
    /// is under both).
    by_key: Mutex<HashMap<String, Vec<Slot>>>,
    /// Sockets per person (their user id, else guest id): who is online.
    online: Mutex<HashMap<String, usize>>,
    next_id: AtomicU64,
    outlet: Outlet<People>,
}

/// A change of the players' own channels, as the processes share it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeopleChange {
    /// A game changed.
    Game {
        /// The people (user and guest ids) in the first seat, and in the second.
        players: [Vec<String>; 2],
        /// The game, as its owner published it: serialised once.
        game: Box<RawValue>,
    },
    /// The direct challenges of these accounts changed.
    Challenges(Vec<String>),
}

impl std::fmt::Debug for People {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("People")
            .field("online", &self.online_count())
            .finish_non_exhaustive()
    }
}

/// A socket's place on its person's channel; dropping it takes the socket off.
pub struct Subscription {
    people: Arc<People>,
    id: u64,
    keys: Vec<String>,
    person: String,
    /// Messages for this socket.
    pub receiver: mpsc::Receiver<Personal>,
    behind: Arc<AtomicBool>,
}

impl Subscription {
    /// Whether messages were dropped because the queue was full (and clears it): the
    /// socket sends the whole list again.
    pub fn take_behind(&self) -> bool {
        self.behind.swap(false, Ordering::AcqRel)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.people.leave(self.id, &self.keys, &self.person);
    }
}

/// Why a socket cannot join its person's channel.
#[derive(Debug, PartialEq, Eq)]
pub enum JoinError {
    /// Nobody: anonymous visitors have no games.
    Anonymous,
    /// The person has [`SOCKETS_PER_PERSON`] already.
    Full,
}

impl People {
    /// An empty hub.
    #[must_use]
    pub fn new() -> Arc<People> {
        Arc::new(People::default())
    }

    /// Registers a socket of `ident`.
    ///
    /// # Errors
    /// `Anonymous` for nobody; `Full` when they have [`SOCKETS_PER_PERSON`] sockets.
    pub fn join(self: &Arc<Self>, ident: &Ident) -> Result<Subscription, JoinError> {
        let person = ident.key().ok_or(JoinError::Anonymous)?.to_owned();
        let keys: Vec<String> = ident
            .user
            .iter()
            .chain(ident.guest.iter())
            .cloned()
            .collect();
        let (sender, receiver) = mpsc::channel(QUEUE);
        let behind = Arc::new(AtomicBool::new(false));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut online = lock(&self.online);
            let count = online.entry(person.clone()).or_default();
            if *count >= SOCKETS_PER_PERSON {
                return Err(JoinError::Full);
            }
            *count += 1;
            let mut by_key = lock(&self.by_key);
            for key in &keys {
                by_key.entry(key.clone()).or_default().push(Slot {
                    id,
                    sender: sender.clone(),
                    behind: Arc::clone(&behind),
                });
            }
        }
        Ok(Subscription {
            people: Arc::clone(self),
            id,
            keys,
            person,
            receiver,
            behind,
        })
    }

    fn leave(&self, id: u64, keys: &[String], person: &str) {
        let mut online = lock(&self.online);
        if let Some(count) = online.get_mut(person) {
            *count -= 1;
            if *count == 0 {
                online.remove(person);
            }
        }
        let mut by_key = lock(&self.by_key);
        for key in keys {
            if let Some(slots) = by_key.get_mut(key) {
                slots.retain(|s| s.id != id);
                if slots.is_empty() {
                    by_key.remove(key);
                }
            }
        }
    }

    /// How many people (users and guests) have a socket open now.
    #[must_use]
    pub fn online_count(&self) -> usize {
        lock(&self.online).len()
    }

    /// Whether the user or guest with this id has a socket open now.
    #[must_use]
    pub fn is_online(&self, id: &str) -> bool {
        lock(&self.online).contains_key(id)
    }

    /// Whether a socket here is one of the people in `seats`.
    fn listens(&self, seats: &[SeatRecord; 2]) -> bool {
        let by_key = lock(&self.by_key);
        seats
            .iter()
            .flat_map(seat_keys)
            .any(|key| by_key.contains_key(key))
    }

    /// Sends the game `make` builds to the sockets of the players in `seats`, on every
    /// process: built and serialised once (only when one of them listens here, or the
    /// process is on the bus), and to each player the same text with their side put in.
    pub fn publish(&self, seats: &[SeatRecord; 2], make: impl FnOnce() -> MyGame) {
        if seats.iter().all(|seat| seat_keys(seat).next().is_none()) {
            // Nobody to tell: the AI against itself.
            return;
        }
        if !self.outlet.on_bus() && !self.listens(seats) {
            return;
        }
        let game = match serde_json::value::to_raw_value(&make()) {
            Ok(game) => game,
            Err(error) => {
                // Plain data: this does not happen.
                tracing::error!(%error, "a player's game cannot be written");
                return;
            }
        };
        let players = [0, 1].map(|i| seat_keys(&seats[i]).map(str::to_owned).collect());
        self.outlet
            .publish(self, PeopleChange::Game { players, game });
    }

    /// The game's owner calls this after each change it published: its players'
    /// sockets, on every process, get the game as it is now.
    pub fn game_changed(&self, snapshot: &Snapshot) {
        self.publish(&snapshot.seats, || MyGame::of(snapshot, Timestamp::now()));
    }

    /// Tells the sockets of the accounts `user_ids`, on every process, that their direct
    /// challenges changed (each socket reads the list and sends it once).
    pub fn challenges_changed(&self, user_ids: &[&str]) {
        if user_ids.is_empty() {
            return;
        }
        let users = user_ids.iter().map(|&user| user.to_owned()).collect();
        self.outlet.publish(self, PeopleChange::Challenges(users));
    }

    /// Sends `game` (serialised) to the sockets here of `players` (first seat's people,
    /// second's): the hub's lock is held only to find them.
    fn deliver_game(&self, players: &[Vec<String>; 2], game: &RawValue) {
        let mut targets: Vec<(Player, u64, mpsc::Sender<Personal>, Arc<AtomicBool>)> = Vec::new();
        {
            let by_key = lock(&self.by_key);
            for (keys, side) in players.iter().zip(Player::BOTH) {
                for key in keys {
                    for slot in by_key.get(key).into_iter().flatten() {
                        // A socket under both its user and guest id gets one copy.
                        if !targets.iter().any(|(_, id, _, _)| *id == slot.id) {
                            targets.push((
                                side,
                                slot.id,
                                slot.sender.clone(),
                                Arc::clone(&slot.behind),
                            ));
                        }
                    }
                }
            }
        }
        let mut texts: [Option<Arc<str>>; 2] = [None, None];
        for (side, _, sender, behind) in targets {
            let text = texts[side.index()].get_or_insert_with(|| with_side(game.get(), side));
            if sender.try_send(Personal::Text(Arc::clone(text))).is_err() {
                // Full (a socket that does not read) or closing: it is sent the whole
                // list when it reads again.
                behind.store(true, Ordering::Release);
            }
        }
    }

    /// Tells the sockets here of the accounts `users` that their challenges changed.
    fn deliver_challenges(&self, users: &[String]) {
        let by_key = lock(&self.by_key);
        let mut told: Vec<u64> = Vec::new();
        for user in users {
            for slot in by_key.get(user).into_iter().flatten() {
                if told.contains(&slot.id) {
                    continue;
                }
                told.push(slot.id);
                if slot.sender.try_send(Personal::Challenges).is_err() {
                    // Full or closing: it is sent everything when it reads again.
                    slot.behind.store(true, Ordering::Release);
                }
            }
        }
    }

    /// Marks every socket here behind and wakes it: each is sent its whole list (after
    /// the connection to the other processes was lost, when changes may have been
    /// missed).
    fn all_behind(&self) {
        let by_key = lock(&self.by_key);
        let mut told = std::collections::HashSet::new();
        for slot in by_key.values().flatten() {
            if !told.insert(slot.id) {
                continue;
            }
            slot.behind.store(true, Ordering::Release);
            // A full queue wakes it anyway.
            let _ = slot.sender.try_send(Personal::Challenges);
        }
    }
}

impl Hub for People {
    const CHANNEL: HubChannel = HubChannel::People;
    type Change = PeopleChange;
    type Applied = ();

    fn outlet(&self) -> &Outlet<People> {
        &self.outlet
    }

    fn apply(&self, change: PeopleChange, _origin: Origin<'_>) {
        match change {
            PeopleChange::Game { players, game } => self.deliver_game(&players, &game),
            PeopleChange::Challenges(users) => self.deliver_challenges(&users),
        }
    }

    fn joined(&self, _state: &AppState, again: bool) {
        if again {
            self.all_behind();
        }
    }
}

fn seat_keys(seat: &SeatRecord) -> impl Iterator<Item = &str> {
    seat.user_id
        .iter()
        .chain(seat.guest_id.iter())
        .map(String::as_str)
}

/// `{"t":"my_game","game":{…,"you":"first"}}` around a serialised [`MyGame`]: the
/// [`LobbyMessage::MyGame`] of that game and side, without writing the game again.
fn with_side(body: &str, side: Player) -> Arc<str> {
    let inner = body.strip_suffix('}').unwrap_or(body);
    let you = match side {
        Player::First => "first",
        Player::Second => "second",
    };
    format!(r#"{{"t":"my_game","game":{inner},"you":"{you}"}}}}"#).into()
}

/// The games `ident` plays that are not over, from the store's list and each game's
/// latest published state (as stored, for a game another process owns), ordered by
/// [`order`].
///
/// # Errors
/// On a database failure.
pub async fn my_games(state: &AppState, ident: &Ident) -> Result<Vec<Mine>, StoreError> {
    if ident.is_anonymous() {
        return Ok(Vec::new());
    }
    let ids = state
        .store
        .unfinished_games_of(ident.user.as_deref(), ident.guest.as_deref(), MY_GAMES_MAX)
        .await?;
    let now = Timestamp::now();
    let mut games = Vec::new();
    for id in &ids {
        let mine =
            match state.live.handle(id) {
                Some(handle) => {
                    let snapshot = handle.feed().snapshot();
                    ident.side_among(&snapshot.seats).map(|you| Mine {
                        you,
                        game: MyGame::of(&snapshot, now),
                    })
                }
                // Owned by another process that shares the database: as stored (each
                // change after it comes on the players' channel).
                None if state.bus().is_some() => super::stored_view(state, id, ident)
                    .await?
                    .and_then(|view| {
                        Some(Mine {
                            you: view.you?,
                            game: MyGame::of_view(&view, view.clocks),
                        })
                    }),
                // Alone, a game not held here is over or passing to a new owner.
                None => None,
            };
        if let Some(mine) = mine
            && matches!(
                mine.game.status,
                GameStatusView::Waiting | GameStatusView::Ongoing
            )
        {
            games.push(mine);
        }
    }
    order(&mut games);
    Ok(games)
}

/// The `my_games` message for `ident`, now.
///
/// # Errors
/// On a database failure.
pub async fn my_games_text(state: &AppState, ident: &Ident) -> Result<Arc<str>, StoreError> {
    let games = my_games(state, ident).await?;
    Ok(to_text(&LobbyMessage::MyGames { games }))
}

#[cfg(test)]
mod tests;
