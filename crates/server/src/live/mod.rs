//! Live games: one owner task per game in memory, holding its [`Session`]. Every action
//! reaches the owner as a command; the owner checks it through the session, stores the
//! change, and only then publishes it on the game's [`Feed`]: one versioned `events`
//! message per change, serialised once and written as is by every socket of the game
//! (see [`feed`]). Sockets and owner talk only through commands and these messages.
//! The [`Lobby`] gathers what the home page shows (games being played, open
//! challenges) and sends it on as coalesced changes. A restarted server loads every game
//! still going from the database and carries on with the clocks as stored (time left and
//! when the turn began), giving the running clock back the time the server was down
//! (from its last heartbeat: [`lifecycle`]), so the downtime is charged to nobody.

pub(crate) mod ai;
pub mod challenges;
pub mod chat;
pub mod conditional;
pub mod feed;
pub mod game;
pub mod hub;
pub mod lifecycle;
pub mod lobby;
pub mod lobby_chat;
pub mod messages;
pub mod people;
pub mod remote;
pub mod stored;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ::game::GameKind;
use session::{Session, TimeControl, Timestamp};
use tokio::sync::mpsc;

pub use crate::seat::Ident;
pub use ai::{AiKey, AiPool, AiStats, Asker, GameSlot, MoveWait, QuotaError, Ticket, Work};
pub use challenges::{
    CHALLENGES_PER_POSTER, POSTER_GRACE, accept_challenge, cancel_challenge, challenge_view,
    decline_challenge, open_challenges, post_challenge, poster_left, spawn_challenge_sweeper,
};
pub use feed::{CatchUp, Feed, Frame, Published, Snapshot};
pub(crate) use game::command::Command;
pub use game::command::{Handle, Reply, Request};
pub(crate) use game::setup::start_board;
pub use lifecycle::{ExpiryReport, expire_stale};
pub use lobby::{Lobby, LobbyFrame};
pub use messages::{
    AbsenceView, Act, Action, Actions, ChallengeView, ClientMessage, ClocksView, EventsView,
    GameStatusView, GameView, LegalMoves, LiveGame, LobbyMessage, MessageKind, PlayedList,
    PlayedView, PlayerInfo, Refusal, ServerMessage, SocketError,
};
pub use people::People;
pub use remote::reach;

use crate::state::AppState;
use crate::store::{GameRecord, GameStatus, Seat, SeatRecord, StoreError, now_ms};

/// The live games of this server, and its lobby.
pub struct Live {
    games: Mutex<HashMap<String, Handle>>,
    /// Relays to the games other processes own that sockets here are open to
    /// ([`remote`]).
    remotes: Mutex<HashMap<String, Handle>>,
    /// Held while a relay starts: one relay per game.
    attaching: tokio::sync::Mutex<()>,
    lobby: Arc<Lobby>,
    lobby_chat: lobby_chat::LobbyChat,
    people: Arc<People>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            games: Mutex::default(),
            remotes: Mutex::default(),
            attaching: tokio::sync::Mutex::new(()),
            lobby: Lobby::new(),
            lobby_chat: lobby_chat::LobbyChat::default(),
            people: People::new(),
        }
    }
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("games", &self.count())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Live {
    /// How many games have an owner now.
    #[must_use]
    pub fn count(&self) -> usize {
        lock(&self.games).len()
    }

    /// The live game `id`, if it has an owner.
    #[must_use]
    pub fn handle(&self, id: &str) -> Option<Handle> {
        lock(&self.games).get(id).cloned()
    }

    /// Every live game's id and handle.
    pub(crate) fn entries(&self) -> Vec<(String, Handle)> {
        lock(&self.games)
            .iter()
            .map(|(id, handle)| (id.clone(), handle.clone()))
            .collect()
    }

    /// Every game with an owner now.
    #[must_use]
    pub fn handles(&self) -> Vec<Handle> {
        lock(&self.games).values().cloned().collect()
    }

    fn insert(&self, id: String, handle: Handle) {
        lock(&self.games).insert(id, handle);
    }

    /// Removes game `id` if its owner is still the one that sends to `commands` (a later
    /// owner of the same game, after a lease came back, stays).
    pub(crate) fn remove_owner(&self, id: &str, commands: &mpsc::Sender<Command>) {
        let mut games = lock(&self.games);
        if games
            .get(id)
            .is_some_and(|handle| handle.commands.same_channel(commands))
        {
            games.remove(id);
        }
    }

    /// The relay to game `id`, owned by another process, if one runs here.
    #[must_use]
    pub fn remote(&self, id: &str) -> Option<Handle> {
        lock(&self.remotes).get(id).cloned()
    }

    /// How many relays to games owned elsewhere run here.
    #[must_use]
    pub fn remote_count(&self) -> usize {
        lock(&self.remotes).len()
    }

    fn insert_remote(&self, id: &str, handle: Handle) {
        lock(&self.remotes).insert(id.to_owned(), handle);
    }

    /// Removes the relay to game `id` if it is the one that sends to `commands`.
    fn remove_remote(&self, id: &str, commands: &mpsc::Sender<Command>) {
        let mut remotes = lock(&self.remotes);
        if remotes
            .get(id)
            .is_some_and(|handle| handle.commands.same_channel(commands))
        {
            remotes.remove(id);
        }
    }

    /// The lobby.
    #[must_use]
    pub fn lobby(&self) -> &Lobby {
        &self.lobby
    }

    /// The lobby chat.
    #[must_use]
    pub fn lobby_chat(&self) -> &lobby_chat::LobbyChat {
        &self.lobby_chat
    }

    /// Each player's own channel (their games as they change), and who is online.
    #[must_use]
    pub fn people(&self) -> &Arc<People> {
        &self.people
    }
}

/// Why a game cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The stored game cannot be read back.
    #[error("stored game {id} cannot be resumed: {why}")]
    Corrupt {
        /// The game.
        id: String,
        /// Why.
        why: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Stores a new game and starts its owner; the game starts at once when both seats are
/// taken. Returns its record.
///
/// # Errors
/// On a database failure.
pub async fn create_game(
    state: &AppState,
    kind: GameKind,
    first: Seat,
    second: Seat,
    control: TimeControl,
    rated: bool,
) -> Result<GameRecord, SetupError> {
    game::setup::create_game(&state.game_deps(), kind, first, second, control, rated).await
}

/// Starts the owner of a game accepted from the lobby (already stored).
///
/// # Errors
/// On a database failure.
pub(crate) async fn start_stored(state: &AppState, record: GameRecord) -> Result<(), SetupError> {
    game::setup::start_stored(&state.game_deps(), record).await
}

/// Loads every game still going from the database and starts its owner: what a server
/// does when it starts. Returns how many were resumed.
///
/// # Errors
/// On a database failure. A game that cannot be read back is logged and left alone.
pub async fn resume_all(state: &AppState) -> Result<usize, StoreError> {
    challenges::load_lobby(state).await?;
    state.live.lobby_chat().restore(state).await?;
    spawn_challenge_sweeper(state);
    let now = now_ms();
    state.store.renew_lease(now).await?;
    // When each game's last owner was last known alive; else the server's heartbeat.
    let alive_until: HashMap<String, i64> = state
        .store
        .claim_games(now)
        .await?
        .into_iter()
        .filter_map(|claimed| Some((claimed.id, claimed.alive_until?)))
        .collect();
    let games = state.store.owned_live_games().await?;
    let heartbeat = lifecycle::down_since(state).await;
    let mut resumed = 0;
    for (record, stored) in games {
        let down_since = alive_until
            .get(&record.id)
            .map(|&ms| Timestamp::from_millis(millis(ms)))
            .or(heartbeat);
        if resume_one(state, record, stored, down_since).await {
            resumed += 1;
        }
    }
    spawn_lease_keeper(state);
    Ok(resumed)
}

/// Starts the owner of a stored live game this process has claimed; false when it
/// cannot be read back (logged). `down_since`: when the server stopped, to give the time
/// back to the clocks.
async fn resume_one(
    state: &AppState,
    record: GameRecord,
    stored: Option<crate::store::StoredSession>,
    down_since: Option<Timestamp>,
) -> bool {
    let mut session = match (&record.status, stored) {
        (GameStatus::Waiting, _) => None,
        // The snapshot and the moves after it, replayed at their stored times.
        (_, Some(stored)) => match stored::restore(stored) {
            Ok(session) => Some(session),
            Err(why) => {
                tracing::error!(game = %record.id, %why, "a stored game cannot be resumed");
                return false;
            }
        },
        (_, None) => match game::setup::new_session(&record, Timestamp::now()) {
            Ok(session) => Some(session),
            Err(error) => {
                tracing::error!(game = %record.id, %error, "a stored game cannot be resumed");
                return false;
            }
        },
    };
    if let (Some(session), Some(from)) = (&mut session, down_since) {
        lifecycle::give_back_downtime(state, &record.id, session, from).await;
    }
    let chatty = session.is_some()
        && ![&record.first, &record.second]
            .iter()
            .any(|s| s.ai_level.is_some());
    let id = record.id.clone();
    spawn_owner(state, record, session).await;
    if chatty
        && let Some(handle) = state.live.handle(&id)
        && let Err(error) = chat::restore(state, &id, handle.feed()).await
    {
        tracing::error!(game = %id, %error, "a game's chat cannot be read back");
    }
    true
}

/// How often the lease keeper renews this process's lease and looks for lapsed ones.
const LEASE_EVERY: Duration = Duration::from_millis(crate::store::LEASE_MS.unsigned_abs() / 4);

/// Renews this process's lease every [`LEASE_EVERY`]; tells the owners of games it no
/// longer holds to stop; claims and resumes the games whose process's lease lapsed (it
/// died). On a graceful stop, lets its lease lapse at once.
fn spawn_lease_keeper(state: &AppState) {
    let state = state.clone();
    let tasks = state.tasks.clone();
    tasks.spawn(async move {
        let mut every = tokio::time::interval(LEASE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => break,
                _ = every.tick() => keep_leases(&state).await,
            }
        }
        match state.store.release_lease().await {
            Ok(()) => tracing::info!("lease released: another process may take the live games"),
            Err(error) => tracing::warn!(%error, "releasing the lease of the live games"),
        }
    });
}

/// One round of the lease keeper.
async fn keep_leases(state: &AppState) {
    let now = now_ms();
    if let Err(error) = state.store.renew_lease(now).await {
        tracing::warn!(%error, "renewing the lease of the live games");
        return;
    }
    match state.store.owned_games().await {
        Ok(held) => {
            let held: std::collections::HashSet<String> = held.into_iter().collect();
            for (id, handle) in state.live.entries() {
                if !held.contains(&id) {
                    handle.send(Command::LeaseLost).await;
                }
            }
        }
        Err(error) => tracing::warn!(%error, "reading this process's live games"),
    }
    let claimed = match state.store.claim_games(now).await {
        Ok(claimed) => claimed,
        Err(error) => {
            tracing::warn!(%error, "claiming the live games of a process gone");
            return;
        }
    };
    for crate::store::Claimed { id, alive_until } in claimed {
        if state.live.handle(&id).is_some() {
            continue;
        }
        let loaded = match state.store.game(&id).await {
            Ok(Some(record)) if record.status.is_live() => state
                .store
                .stored_session(&id)
                .await
                .map(|stored| Some((record, stored))),
            Ok(_) => Ok(None),
            Err(error) => Err(error),
        };
        match loaded {
            Ok(Some((record, stored))) => {
                tracing::info!(game = %id, "took over a live game whose process is gone");
                // The time since its process was last known alive is nobody's.
                let down_since = alive_until.map(|ms| Timestamp::from_millis(millis(ms)));
                resume_one(state, record, stored, down_since).await;
            }
            Ok(None) => {}
            Err(error) => tracing::error!(game = %id, %error, "loading a claimed game"),
        }
    }
}

/// The session as stored (JSON): a snapshot.
#[must_use]
pub fn session_json(session: &Session) -> String {
    // SessionData is plain data: serialising it cannot fail.
    serde_json::to_string(&session.data()).unwrap_or_default()
}

/// Milliseconds since the epoch as the session's unsigned timestamp.
pub(crate) fn millis(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0)
}

async fn spawn_owner(state: &AppState, record: GameRecord, session: Option<Session>) {
    game::setup::spawn(&state.game_deps(), record, session).await;
}

/// The game as `ident` sees it when it has no owner (finished, or aborted, some time
/// ago): read from the database.
///
/// # Errors
/// On a database failure; `Ok(None)` when there is no such game or it has no session.
pub async fn stored_view(
    state: &AppState,
    id: &str,
    ident: &Ident,
) -> Result<Option<GameView>, StoreError> {
    let Some(record) = state.store.game(id).await? else {
        return Ok(None);
    };
    let session = match state.store.stored_session(id).await? {
        Some(stored) => stored::restore(stored)
            .inspect_err(|why| tracing::error!(game = %id, %why, "a stored game does not load"))
            .ok(),
        None => None,
    };
    let ratings = game::view::ratings_of(&state.store, &record).await;
    let you = ident.side_in(&record);
    // No owner: no rematch can be made any more.
    let actions = game::view::actions_of(&record, session.as_ref(), None);
    let mut view = game::view::view_of(
        &record,
        session.as_ref(),
        &ratings,
        you,
        0,
        actions,
        PlayedList::of(session.as_ref().map_or(&[], |s| s.moves())),
        game::view::Known::default(),
    );
    // An imported game has no seats: its players are the names its record gives.
    let seatless = |seat: &SeatRecord| seat.player().is_none();
    if seatless(&record.first)
        && seatless(&record.second)
        && let Some(archived) = state.store.archived_game(id).await?
        && archived.imported
    {
        for (player, name) in view.players.iter_mut().zip(archived.names) {
            player.name = name.unwrap_or_default();
        }
    }
    Ok(Some(view))
}
