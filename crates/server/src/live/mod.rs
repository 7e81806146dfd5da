//! Live games: one owner task per game in memory, holding its [`Session`]. Every action
//! reaches the owner as a command; the owner checks it through the session, stores the
//! change, and only then answers and broadcasts it. A restarted server loads every game
//! still going from the database and carries on with the clocks as stored (time left and
//! when the turn began), giving the running clock back the time the server was down
//! (from its last heartbeat: [`lifecycle`]), so the downtime is charged to nobody.

mod ai;
pub mod lifecycle;
pub mod messages;
mod owner;
pub mod stored;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use game::{GameKind, Player};
use games::{AnyGame, BoardView};
use session::{ClockStart, Options, Session, Takebacks, TimeControl, Timestamp};
use tokio::sync::{broadcast, mpsc, oneshot};

pub use ai::{AiKey, AiPool, AiStats, Asker, GameSlot, MoveWait, QuotaError, Ticket, Work};
pub use lifecycle::{ExpiryReport, expire_stale};
pub use messages::{
    AbsenceView, ClientMessage, ClocksView, GameView, LiveGame, LobbyMessage, PlayedView,
    PlayerInfo, Refusal, ServerMessage, SocketError,
};

use crate::state::AppState;
use crate::store::{GameRecord, GameStatus, NewGame, Seat, SeatRecord, StoreError, now_ms};

/// How many commands may wait for one game's owner.
const QUEUE: usize = 256;
/// How many updates a slow socket may fall behind before it is sent the whole state.
const UPDATES: usize = 64;

/// Who is asking: the account and the guest cookie of a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ident {
    /// The signed-in user's id.
    pub user: Option<String>,
    /// The guest's id (also carried by a signed-in user who was a guest first).
    pub guest: Option<String>,
}

impl Ident {
    /// The side `seat` gives this person, if it is theirs.
    fn owns(&self, seat: &SeatRecord) -> bool {
        (self.user.is_some() && seat.user_id == self.user)
            || (self.guest.is_some() && seat.guest_id == self.guest)
    }

    /// Their side in `record`.
    #[must_use]
    pub fn side_in(&self, record: &GameRecord) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| self.owns(record.seat(p)))
    }

    /// Whether the request carries no identity.
    #[must_use]
    pub fn is_anonymous(&self) -> bool {
        self.user.is_none() && self.guest.is_none()
    }
}

/// What a game's owner broadcasts to the sockets on it.
#[derive(Clone, Debug)]
pub enum Update {
    /// The session moved on from revision `from`; each socket sends its client the
    /// events since then (with its own legal moves).
    Changed {
        /// The revision before the change.
        from: u64,
    },
    /// Something the events do not carry (a seat taken): each client gets the state.
    Reload,
    /// The number of watchers changed.
    Watchers(usize),
    /// The rematch was agreed: the new game.
    Rematch(String),
    /// A player left or came back: who is gone now.
    Absent(Vec<AbsenceView>),
}

/// A command to a game's owner.
pub(crate) enum Command {
    /// The game as `ident` sees it.
    View {
        ident: Ident,
        reply: oneshot::Sender<GameView>,
    },
    /// What a client at revision `rev` has missed: the events since, or the whole state
    /// (when `rev` is `None`, or the session no longer has those events).
    CatchUp {
        ident: Ident,
        rev: Option<u64>,
        reply: oneshot::Sender<ServerMessage>,
    },
    /// A player's action.
    Act {
        ident: Ident,
        message: ClientMessage,
        reply: oneshot::Sender<Result<Option<String>, Refusal>>,
    },
    /// `seat` takes the open seat.
    Join {
        ident: Ident,
        seat: Seat,
        reply: oneshot::Sender<Result<Player, Refusal>>,
    },
    /// A socket of `ident` opened (+1) or closed (-1).
    Watch { change: isize, ident: Ident },
    /// The maintenance job found the game unjoined or abandoned: end it if it still is
    /// at `now`.
    Expire { now: Timestamp },
    /// The AI's move for revision `rev`.
    AiMove { rev: u64, text: String },
}

/// A live game as the registry holds it.
#[derive(Clone)]
pub(crate) struct Handle {
    commands: mpsc::Sender<Command>,
    updates: broadcast::Sender<Update>,
    summary: Arc<Mutex<Option<LiveGame>>>,
}

/// The live games of this server.
#[derive(Default)]
pub struct Live {
    games: Mutex<HashMap<String, Handle>>,
    lobby: Mutex<Option<broadcast::Sender<LobbyMessage>>>,
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

    pub(crate) fn handle(&self, id: &str) -> Option<Handle> {
        lock(&self.games).get(id).cloned()
    }

    fn insert(&self, id: String, handle: Handle) {
        lock(&self.games).insert(id, handle);
    }

    pub(crate) fn remove(&self, id: &str) {
        lock(&self.games).remove(id);
    }

    /// The games being played now (both seats taken), newest first.
    #[must_use]
    pub fn live_games(&self) -> Vec<LiveGame> {
        let handles: Vec<Handle> = lock(&self.games).values().cloned().collect();
        let mut games: Vec<LiveGame> = handles
            .iter()
            .filter_map(|h| lock(&h.summary).clone())
            .collect();
        games.sort_by(|a, b| b.id.cmp(&a.id));
        games
    }

    /// The lobby's broadcast channel (made on first use).
    pub fn lobby(&self) -> broadcast::Sender<LobbyMessage> {
        lock(&self.lobby)
            .get_or_insert_with(|| broadcast::channel(16).0)
            .clone()
    }

    /// Tells the lobby sockets what is being played now.
    pub fn announce_live_games(&self) {
        let sender = self.lobby();
        if sender.receiver_count() > 0 {
            let _ = sender.send(LobbyMessage::LiveGames {
                games: self.live_games(),
            });
        }
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

/// The options of a server game: takebacks at once against the AI, never otherwise.
fn options_for(record: &GameRecord, control: TimeControl) -> Options {
    let vs_ai = record.first.ai_level.is_some() || record.second.ai_level.is_some();
    Options {
        control,
        takebacks: if vs_ai {
            Takebacks::Immediate
        } else {
            Takebacks::Never
        },
        // Each side's clock starts with its own first move (docs/API.md, "How games
        // start and end").
        clock_start: ClockStart::FirstMove,
    }
}

/// A new session for `record` starting at `now`.
fn new_session(record: &GameRecord, now: Timestamp) -> Result<Session, SetupError> {
    let corrupt = |why: String| SetupError::Corrupt {
        id: record.id.clone(),
        why,
    };
    let control: TimeControl = record
        .time_control
        .parse()
        .map_err(|e: session::ParseTimeControlError| corrupt(e.to_string()))?;
    let game = AnyGame::from_position(record.kind, &record.start_position)
        .map_err(|e| corrupt(e.to_string()))?;
    Ok(Session::new(game, options_for(record, control), now))
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
    let start = AnyGame::start(kind);
    let new = NewGame {
        kind,
        first,
        second,
        time_control: control.to_string(),
        rated,
        start_position: start.start_position_string(),
        session_state: None,
    };
    let now = now_ms();
    let record = state.store.create_game(&new, now).await?;
    let session = if record.status == GameStatus::Playing {
        let session = new_session(&record, Timestamp::from_millis(millis(now)))?;
        let data = session_json(&session);
        state
            .store
            .save_session_state(&record.id, &data, now)
            .await?;
        Some(session)
    } else {
        None
    };
    spawn_owner(state, record.clone(), session).await;
    Ok(record)
}

/// Starts the owner of a game accepted from the lobby (already stored).
///
/// # Errors
/// On a database failure.
pub async fn start_stored(state: &AppState, record: GameRecord) -> Result<(), SetupError> {
    let now = now_ms();
    let session = new_session(&record, Timestamp::from_millis(millis(now)))?;
    state
        .store
        .save_session_state(&record.id, &session_json(&session), now)
        .await?;
    spawn_owner(state, record, Some(session)).await;
    Ok(())
}

/// Loads every game still going from the database and starts its owner: what a server
/// does when it starts. Returns how many were resumed.
///
/// # Errors
/// On a database failure. A game that cannot be read back is logged and left alone.
pub async fn resume_all(state: &AppState) -> Result<usize, StoreError> {
    let games = state.store.live_games().await?;
    let down_since = lifecycle::down_since(state).await;
    let mut resumed = 0;
    for (record, stored) in games {
        let mut session = match (&record.status, stored) {
            (GameStatus::Waiting, _) => None,
            // The snapshot and the moves after it, replayed at their stored times.
            (_, Some(stored)) => match stored::restore(stored) {
                Ok(session) => Some(session),
                Err(why) => {
                    tracing::error!(game = %record.id, %why, "a stored game cannot be resumed");
                    continue;
                }
            },
            (_, None) => match new_session(&record, Timestamp::now()) {
                Ok(session) => Some(session),
                Err(error) => {
                    tracing::error!(game = %record.id, %error, "a stored game cannot be resumed");
                    continue;
                }
            },
        };
        if let (Some(session), Some(from)) = (&mut session, down_since) {
            lifecycle::give_back_downtime(state, &record.id, session, from).await;
        }
        spawn_owner(state, record, session).await;
        resumed += 1;
    }
    Ok(resumed)
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
    let (commands, receiver) = mpsc::channel(QUEUE);
    let (updates, _) = broadcast::channel(UPDATES);
    let summary = Arc::new(Mutex::new(None));
    let handle = Handle {
        commands: commands.clone(),
        updates: updates.clone(),
        summary: Arc::clone(&summary),
    };
    let id = record.id.clone();
    let ratings = owner::ratings_of(state, &record).await;
    let owner = owner::Owner::new(
        state.clone(),
        record,
        session,
        ratings,
        commands,
        updates,
        summary,
    );
    state.live.insert(id, handle);
    state
        .metrics
        .live_games
        .set(i64::try_from(state.live.count()).unwrap_or(i64::MAX));
    state.tasks.spawn(owner.run(receiver));
}

impl Handle {
    /// Sends `command` to the owner; false if it has ended.
    pub(crate) async fn send(&self, command: Command) -> bool {
        self.commands.send(command).await.is_ok()
    }

    /// Subscribes to the game's updates.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.updates.subscribe()
    }

    /// The game as `ident` sees it, if the owner still runs.
    pub(crate) async fn view(&self, ident: Ident) -> Option<GameView> {
        let (reply, answer) = oneshot::channel();
        if !self.send(Command::View { ident, reply }).await {
            return None;
        }
        answer.await.ok()
    }

    /// What a client at `rev` missed.
    pub(crate) async fn catch_up(&self, ident: Ident, rev: Option<u64>) -> Option<ServerMessage> {
        let (reply, answer) = oneshot::channel();
        if !self.send(Command::CatchUp { ident, rev, reply }).await {
            return None;
        }
        answer.await.ok()
    }

    /// A player's action; `Ok(Some(id))` names a new game (an agreed rematch).
    pub(crate) async fn act(
        &self,
        ident: Ident,
        message: ClientMessage,
    ) -> Result<Option<String>, Refusal> {
        let (reply, answer) = oneshot::channel();
        let gone = || Refusal::new(SocketError::GameOver, "the game is over");
        if !self
            .send(Command::Act {
                ident,
                message,
                reply,
            })
            .await
        {
            return Err(gone());
        }
        answer.await.map_err(|_| gone())?
    }

    /// Takes the open seat for `seat`.
    pub(crate) async fn join(&self, ident: Ident, seat: Seat) -> Result<Player, Refusal> {
        let (reply, answer) = oneshot::channel();
        if !self.send(Command::Join { ident, seat, reply }).await {
            return Err(Refusal::new(SocketError::GameOver, "the game is over"));
        }
        answer
            .await
            .map_err(|_| Refusal::new(SocketError::Internal, "the game stopped"))?
    }
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
    let ratings = owner::ratings_of(state, &record).await;
    let you = ident.side_in(&record);
    Ok(Some(owner::view_of(
        &record,
        session.as_ref(),
        &ratings,
        you,
        0,
        Timestamp::now(),
    )))
}

/// A board with no moves, for games not started.
pub(crate) fn start_board(record: &GameRecord) -> (AnyGame, BoardView) {
    let game = AnyGame::from_position(record.kind, &record.start_position)
        .unwrap_or_else(|_| AnyGame::start(record.kind));
    let board = BoardView::of(&game);
    (game, board)
}
