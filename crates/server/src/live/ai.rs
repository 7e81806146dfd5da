//! The AI's work — game moves, analyses and reviews — on a fair pool of search threads.
//!
//! - **Moves first.** Waiting jobs form a priority queue: a game's move is always taken
//!   before an analysis or a review, and analyses and reviews together never occupy every
//!   thread (one is always left to moves), so a move waits for at most one search in
//!   flight to end.
//! - **Fair between players.** Among jobs of the same class the next is the one whose
//!   asker was served longest ago (round robin between players, then the oldest job):
//!   one player's twenty queued moves delay another player's move by at most the one
//!   search in flight.
//! - **Quotas per identity.** Every job and every AI game counts against each identity
//!   its asker carries — the account, the guest, the client address — with the bounds of
//!   [`AiQuotas`]: AI games being played, analyses and reviews queued or running.
//! - **Cancelled when unwanted.** A job's [`Ticket`] cancels it when dropped or told to:
//!   a waiting job leaves the queue (and its quota) at once, a running search stops. A
//!   game's search is cancelled when the game ends ([`AiPool::game_over`]).
//! - **Never held by a consumer.** Jobs never wait on whoever reads their results: the
//!   move goes to the game's owner through the async runtime, analysis progress through
//!   `try_send` (dropped when the reader is behind).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use engine::{AnyEngine, Clock, EngineOptions, Level, Limits, Score};
use game::{GameKind, Player};
use games::AnyGame;
use prometheus::IntGauge;
use tokio::sync::mpsc;

use super::{Command, Ident, Refusal, SocketError};
use crate::config::AiQuotas;
use crate::shared::Hold;
use crate::state::AppState;
use crate::store::{GameRecord, SeatRecord};

/// Hash table of one AI search, in MiB (small: many run at once).
const HASH_MB: usize = 16;
/// Think time per move without a Fischer clock (untimed and correspondence games). Only
/// level 6 uses it all (levels 1-5 stop at their own depth or node limits): at 3 s it
/// searches about four times level 5's million nodes here and scored 88% against it in
/// Copenhagen and Camelot, 65% in Fetlar; at 1.5 s, 58% in both tafl games
/// (`bench/RESULTS.md`, "The levels rated").
const UNTIMED_MOVE: Duration = Duration::from_millis(3000);
/// The longest an AI move may take, whatever the clock says.
const LONGEST_MOVE: Duration = Duration::from_secs(10);
/// How many searches an identity's last turn is remembered for once it holds nothing
/// (then it is forgotten, memory staying bounded, and counts as never served).
const REMEMBERED: u64 = 1024;
/// Stack of a search thread (the engine's recursion is deep).
const SEARCH_STACK: usize = 16 << 20;

/// What a job is, in the order the pool serves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Work {
    /// A game's move: a clock may be running.
    Move,
    /// An analysis on `/ws/analysis`.
    Analysis,
    /// A game review on `/ws/analysis`.
    Review,
}

/// One identity a job counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AiKey {
    /// An account.
    User(String),
    /// A guest.
    Guest(String),
    /// A client address.
    Addr(IpAddr),
}

impl AiKey {
    /// Its name in the shared quotas.
    fn identity(&self) -> String {
        match self {
            AiKey::User(id) => format!("u:{id}"),
            AiKey::Guest(id) => format!("g:{id}"),
            AiKey::Addr(addr) => format!("a:{addr}"),
        }
    }
}

/// Who asks for the AI's work: every identity it counts against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Asker {
    keys: Vec<AiKey>,
}

impl Asker {
    /// The account and guest of `ident`, and the client address if known.
    #[must_use]
    pub fn new(ident: &Ident, addr: Option<IpAddr>) -> Asker {
        let mut keys = Vec::with_capacity(3);
        keys.extend(ident.user.clone().map(AiKey::User));
        keys.extend(ident.guest.clone().map(AiKey::Guest));
        keys.extend(addr.map(AiKey::Addr));
        Asker { keys }
    }

    /// The human players of a game (for a game resumed after a restart, whose asker's
    /// address is not known any more).
    fn of_record(record: &GameRecord) -> Asker {
        let seat_keys = |seat: &SeatRecord| {
            seat.user_id
                .clone()
                .map(AiKey::User)
                .into_iter()
                .chain(seat.guest_id.clone().map(AiKey::Guest))
        };
        Asker {
            keys: seat_keys(&record.first)
                .chain(seat_keys(&record.second))
                .collect(),
        }
    }
}

/// Why the pool refused work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuotaError {
    /// The asker plays its most games against the AI.
    #[error("you are playing {0} games against the AI already: finish one first")]
    Games(usize),
    /// The asker has its most analyses running.
    #[error("you have {0} analyses running already: stop one first")]
    Analyses(usize),
    /// The asker has its most reviews running.
    #[error("you have {0} reviews running already: wait for one to finish")]
    Reviews(usize),
}

/// What one identity holds now.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    games: usize,
    analyses: usize,
    reviews: usize,
    /// Searches running now.
    running: usize,
    /// The pool's count of started searches when one of this identity's last started
    /// (0: none yet): the fair order serves the identity served longest ago first.
    last_started: u64,
}

impl Held {
    /// Whether the identity holds nothing and was served more than [`REMEMBERED`]
    /// searches before `now` (so it can be forgotten without losing its turn).
    const fn is_forgettable(&self, now: u64) -> bool {
        self.games == 0
            && self.analyses == 0
            && self.reviews == 0
            && self.running == 0
            && now.saturating_sub(self.last_started) > REMEMBERED
    }
}

/// How long a move waited, counted in searches rather than time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveWait {
    /// Searches that started after this move was queued and before it started.
    pub overtaken_by: u64,
    /// Searches that ended while it waited (at most one when the pool is fair).
    pub waited_for: u64,
}

/// A game against the AI as the pool knows it.
#[derive(Debug)]
struct AiGame {
    asker: Asker,
    /// Whether it still counts against its asker's quota (until it ends).
    active: bool,
    /// Its count in the quotas shared with the other processes, while active.
    hold: Option<Hold>,
    /// Its search, waiting or running.
    search: Option<Ticket>,
    /// The longest wait of its moves.
    worst_wait: MoveWait,
}

type Run = Box<dyn FnOnce(&AtomicBool) + Send>;

struct Job {
    id: u64,
    work: Work,
    asker: Asker,
    stop: Arc<AtomicBool>,
    run: Run,
    /// The game, for a move.
    game: Option<String>,
    started_before: u64,
    ended_before: u64,
}

#[derive(Default)]
struct State {
    waiting: VecDeque<Job>,
    held: HashMap<AiKey, Held>,
    games: HashMap<String, AiGame>,
    /// Reservations made for games not yet created.
    reserved: HashMap<u64, Asker>,
    running: usize,
    running_analyses: usize,
    next_id: u64,
    started: u64,
    ended: u64,
    closed: bool,
}

impl State {
    fn held(&mut self, key: &AiKey) -> &mut Held {
        self.held.entry(key.clone()).or_default()
    }

    fn tidy(&mut self, asker: &Asker) {
        for key in &asker.keys {
            let now = self.started;
            if self.held.get(key).is_some_and(|h| h.is_forgettable(now)) {
                self.held.remove(key);
            }
        }
    }

    /// When `asker` was last served: the latest start of any of its identities.
    fn last_served(&self, asker: &Asker) -> u64 {
        asker
            .keys
            .iter()
            .filter_map(|k| self.held.get(k))
            .map(|h| h.last_started)
            .max()
            .unwrap_or(0)
    }

    /// Gives back the quota a queued or finished analysis or review held.
    fn release(&mut self, work: Work, asker: &Asker) {
        for key in &asker.keys {
            let held = self.held(key);
            match work {
                Work::Analysis => held.analyses = held.analyses.saturating_sub(1),
                Work::Review => held.reviews = held.reviews.saturating_sub(1),
                Work::Move => {}
            }
        }
        self.tidy(asker);
    }

    fn release_game(&mut self, asker: &Asker) {
        for key in &asker.keys {
            let held = self.held(key);
            held.games = held.games.saturating_sub(1);
        }
        self.tidy(asker);
    }

    /// Takes the next job a thread may run, dropping cancelled ones: moves first, then
    /// (if fewer than `analysis_threads` run) analyses and reviews; within a class the
    /// asker served longest ago (round robin between players), then the oldest job.
    fn next(&mut self, analysis_threads: usize) -> Option<Job> {
        let cancelled: Vec<usize> = (0..self.waiting.len())
            .filter(|&i| self.waiting[i].stop.load(Ordering::SeqCst))
            .collect();
        for &i in cancelled.iter().rev() {
            if let Some(job) = self.waiting.remove(i) {
                self.release(job.work, &job.asker);
            }
        }
        let analyses_allowed = self.running_analyses < analysis_threads;
        let best = self
            .waiting
            .iter()
            .enumerate()
            .filter(|(_, job)| job.work == Work::Move || analyses_allowed)
            .min_by_key(|(_, job)| (job.work != Work::Move, self.last_served(&job.asker), job.id))
            .map(|(i, _)| i);
        let job = self.waiting.remove(best?)?;
        self.running += 1;
        if job.work != Work::Move {
            self.running_analyses += 1;
        }
        self.started += 1;
        let stamp = self.started;
        for key in &job.asker.keys {
            let held = self.held(key);
            held.running += 1;
            held.last_started = stamp;
        }
        if let Some(game) = job.game.as_ref().and_then(|id| self.games.get_mut(id)) {
            let wait = MoveWait {
                // (`started` counts this job already)
                overtaken_by: self.started - 1 - job.started_before,
                waited_for: self.ended - job.ended_before,
            };
            game.worst_wait.overtaken_by = game.worst_wait.overtaken_by.max(wait.overtaken_by);
            game.worst_wait.waited_for = game.worst_wait.waited_for.max(wait.waited_for);
        }
        Some(job)
    }

    fn finish(&mut self, work: Work, asker: &Asker) {
        self.running -= 1;
        self.ended += 1;
        if self.ended.is_multiple_of(REMEMBERED) {
            let now = self.started;
            self.held.retain(|_, h| !h.is_forgettable(now));
        }
        if work != Work::Move {
            self.running_analyses -= 1;
        }
        for key in &asker.keys {
            let held = self.held(key);
            held.running = held.running.saturating_sub(1);
        }
        self.release(work, asker);
    }
}

struct Inner {
    state: Mutex<State>,
    ready: Condvar,
    quotas: AiQuotas,
    threads: usize,
    queue_gauge: IntGauge,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn gauge(&self, state: &State) {
        self.queue_gauge
            .set(i64::try_from(state.waiting.len()).unwrap_or(i64::MAX));
    }

    /// A search thread: runs jobs until the pool is dropped.
    fn work(self: &Arc<Inner>) {
        let analysis_threads = self.threads.saturating_sub(1).max(1);
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            let Some(job) = state.next(analysis_threads) else {
                state = self
                    .ready
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            self.gauge(&state);
            drop(state);
            let Job {
                work,
                asker,
                stop,
                run,
                ..
            } = job;
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&stop))).is_err() {
                tracing::error!(?work, "an AI job panicked");
            }
            state = self.lock();
            state.finish(work, &asker);
            // Another thread may now take an analysis the cap held back.
            self.ready.notify_all();
        }
    }
}

/// A job given to the pool: cancels it when told to or dropped (a waiting job leaves the
/// queue and gives its quota back; a running one is told to stop).
#[derive(Debug)]
pub struct Ticket {
    inner: Arc<Inner>,
    id: u64,
    stop: Arc<AtomicBool>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AiPool")
            .field("threads", &self.threads)
            .field("quotas", &self.quotas)
            .finish_non_exhaustive()
    }
}

impl Ticket {
    /// Cancels the job.
    pub fn cancel(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let mut state = self.inner.lock();
        if let Some(i) = state.waiting.iter().position(|job| job.id == self.id)
            && let Some(job) = state.waiting.remove(i)
        {
            state.release(job.work, &job.asker);
            self.inner.gauge(&state);
        }
    }

    /// Whether the job was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// A game against the AI counted against its asker before it exists; bound to the game
/// once created ([`GameSlot::bind`]), given back if dropped unbound.
#[derive(Debug)]
pub struct GameSlot {
    inner: Arc<Inner>,
    id: u64,
    /// Its count in the quotas shared with the other processes.
    hold: Option<Hold>,
}

impl GameSlot {
    /// The new game `game_id` holds the slot until it ends.
    pub fn bind(mut self, game_id: &str) {
        let hold = self.hold.take();
        let mut state = self.inner.lock();
        if let Some(asker) = state.reserved.remove(&self.id) {
            // The game's owner may have asked for the AI's first move already.
            let game = state
                .games
                .entry(game_id.to_owned())
                .or_insert_with(|| AiGame {
                    asker: asker.clone(),
                    active: false,
                    hold: None,
                    search: None,
                    worst_wait: MoveWait::default(),
                });
            game.asker = asker;
            game.active = true;
            game.hold = hold;
        }
    }
}

impl Drop for GameSlot {
    fn drop(&mut self) {
        let mut state = self.inner.lock();
        if let Some(asker) = state.reserved.remove(&self.id) {
            state.release_game(&asker);
        }
    }
}

/// What the pool is doing, for tests and metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiStats {
    /// Jobs waiting.
    pub waiting: usize,
    /// Jobs running.
    pub running: usize,
    /// Jobs started since the pool began.
    pub started: u64,
}

/// The AI's search threads and their queue (see the [module documentation](self)).
#[derive(Debug)]
pub struct AiPool {
    inner: Arc<Inner>,
}

impl Drop for AiPool {
    fn drop(&mut self) {
        let mut state = self.inner.lock();
        state.closed = true;
        state.waiting.clear();
        drop(state);
        self.inner.ready.notify_all();
    }
}

impl AiPool {
    /// A pool of `threads` search threads (at least two: one is always left to moves)
    /// under `quotas`; `queue` is set to the number of jobs waiting.
    #[must_use]
    pub fn new(threads: usize, quotas: AiQuotas, queue: IntGauge) -> AiPool {
        let threads = threads.max(2);
        let inner = Arc::new(Inner {
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
            quotas,
            threads,
            queue_gauge: queue,
        });
        for _ in 0..threads {
            let inner = Arc::clone(&inner);
            let spawned = std::thread::Builder::new()
                .name("ai-search".into())
                .stack_size(SEARCH_STACK)
                .spawn(move || inner.work());
            if let Err(error) = spawned {
                tracing::error!(%error, "cannot start an AI search thread");
            }
        }
        AiPool { inner }
    }

    /// The quotas in force.
    #[must_use]
    pub fn quotas(&self) -> AiQuotas {
        self.inner.quotas
    }

    /// What the pool is doing now.
    #[must_use]
    pub fn stats(&self) -> AiStats {
        let state = self.inner.lock();
        AiStats {
            waiting: state.waiting.len(),
            running: state.running,
            started: state.started,
        }
    }

    /// The longest wait of the moves of game `id`, counted in searches (while the pool
    /// still knows the game).
    #[must_use]
    pub fn move_wait(&self, id: &str) -> Option<MoveWait> {
        self.inner.lock().games.get(id).map(|g| g.worst_wait)
    }

    /// Counts a game against the AI for `asker`, before it is created.
    ///
    /// # Errors
    /// [`QuotaError::Games`] when one of its identities plays its most AI games.
    pub fn reserve_game(&self, asker: &Asker) -> Result<GameSlot, QuotaError> {
        let cap = self.inner.quotas.games;
        let mut state = self.inner.lock();
        if asker
            .keys
            .iter()
            .any(|k| state.held.get(k).is_some_and(|h| h.games >= cap))
        {
            return Err(QuotaError::Games(cap));
        }
        for key in &asker.keys {
            state.held(key).games += 1;
        }
        state.next_id += 1;
        let id = state.next_id;
        state.reserved.insert(id, asker.clone());
        Ok(GameSlot {
            inner: Arc::clone(&self.inner),
            id,
            hold: None,
        })
    }

    /// Whoever asked for game `record` (an AI game), whose quota its rematch counts
    /// against.
    #[must_use]
    pub fn asker_of(&self, record: &GameRecord) -> Asker {
        self.inner
            .lock()
            .games
            .get(&record.id)
            .map_or_else(|| Asker::of_record(record), |g| g.asker.clone())
    }

    /// The client address that asked for game `id`, if known.
    #[must_use]
    pub fn address_of(&self, id: &str) -> Option<IpAddr> {
        self.inner.lock().games.get(id).and_then(|g| {
            g.asker.keys.iter().find_map(|k| match k {
                AiKey::Addr(addr) => Some(*addr),
                _ => None,
            })
        })
    }

    /// Game `id` is over: its search is cancelled and it no longer counts against its
    /// asker (it is still known, for a rematch). Cheap when there is nothing to do.
    pub fn game_over(&self, id: &str) {
        let search = {
            let mut state = self.inner.lock();
            let Some(game) = state.games.get_mut(id) else {
                return;
            };
            let search = game.search.take();
            let hold = game.hold.take();
            if game.active {
                game.active = false;
                let asker = game.asker.clone();
                state.release_game(&asker);
            }
            (search, hold)
        };
        drop(search);
    }

    /// Game `id`'s owner has ended: the pool forgets it.
    pub fn forget_game(&self, id: &str) {
        self.game_over(id);
        self.inner.lock().games.remove(id);
    }

    /// Queues `run` as `work` for `asker`; `game`: the game of a move.
    fn submit(
        &self,
        work: Work,
        asker: Asker,
        game: Option<String>,
        run: impl FnOnce(&AtomicBool) + Send + 'static,
    ) -> Ticket {
        let stop = Arc::new(AtomicBool::new(false));
        let mut state = self.inner.lock();
        state.next_id += 1;
        let id = state.next_id;
        let (started_before, ended_before) = (state.started, state.ended);
        state.waiting.push_back(Job {
            id,
            work,
            asker,
            stop: Arc::clone(&stop),
            run: Box::new(run),
            game,
            started_before,
            ended_before,
        });
        self.inner.gauge(&state);
        drop(state);
        self.inner.ready.notify_all();
        Ticket {
            inner: Arc::clone(&self.inner),
            id,
            stop,
        }
    }

    /// Queues an analysis or a review for `asker`, counted against its quota until it
    /// ends or its ticket is dropped.
    ///
    /// # Errors
    /// When one of the asker's identities has its most of that work.
    pub fn submit_analysis(
        &self,
        work: Work,
        asker: Asker,
        hold: Option<Hold>,
        run: impl FnOnce(&AtomicBool) + Send + 'static,
    ) -> Result<Ticket, QuotaError> {
        let quotas = self.inner.quotas;
        {
            let mut state = self.inner.lock();
            let over = |held: &Held| match work {
                Work::Review => held.reviews >= quotas.reviews,
                Work::Analysis | Work::Move => held.analyses >= quotas.analyses,
            };
            if asker
                .keys
                .iter()
                .any(|k| state.held.get(k).is_some_and(over))
            {
                return Err(match work {
                    Work::Review => QuotaError::Reviews(quotas.reviews),
                    Work::Analysis | Work::Move => QuotaError::Analyses(quotas.analyses),
                });
            }
            for key in &asker.keys {
                let held = state.held(key);
                match work {
                    Work::Review => held.reviews += 1,
                    Work::Analysis | Work::Move => held.analyses += 1,
                }
            }
        }
        let work = if work == Work::Move {
            Work::Analysis
        } else {
            work
        };
        // The shared count goes when the job ends, or leaves the queue unrun.
        Ok(self.submit(work, asker, None, move |stop| {
            let _hold = hold;
            run(stop);
        }))
    }

    /// Searches `game` (game `record`'s position at revision `rev`) at `level` (1-6) and
    /// sends the move to the game's owner. `clock`: both players' time left and the
    /// increment, for Fischer games. A search still waiting or running for the game is
    /// cancelled first (its answer would be stale).
    pub(crate) fn request(
        &self,
        record: &GameRecord,
        game: AnyGame,
        level: u8,
        clock: Option<([Duration; 2], Duration)>,
        rev: u64,
        owner: mpsc::Sender<Command>,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let asker = {
            let mut state = self.inner.lock();
            let known = state.games.entry(record.id.clone()).or_insert_with(|| {
                // A game resumed after a restart: it counts from now on.
                AiGame {
                    asker: Asker::of_record(record),
                    active: false,
                    hold: None,
                    search: None,
                    worst_wait: MoveWait::default(),
                }
            });
            known.asker.clone()
        };
        let level = Level::ALL[usize::from(level.clamp(1, 6)) - 1];
        let limits = limits(clock);
        let ticket = self.submit(Work::Move, asker, Some(record.id.clone()), move |stop| {
            if let (Some(text), score) = think(&game, level, &limits, stop) {
                runtime.spawn(async move {
                    let _ = owner.send(Command::AiMove { rev, text, score }).await;
                });
            }
        });
        let previous = {
            let mut state = self.inner.lock();
            match state.games.get_mut(&record.id) {
                Some(known) => known.search.replace(ticket),
                None => Some(ticket),
            }
        };
        drop(previous);
    }
}

/// The creation limits a rematch of `record` counts against: the creation rate of the
/// address that asked for the game (when known), and, against the AI, the asker's quota
/// of AI games (the slot to bind to the new game).
///
/// # Errors
/// `rate_limited` when either is spent.
pub(crate) async fn rematch_slot(
    state: &AppState,
    record: &GameRecord,
) -> Result<Option<GameSlot>, Refusal> {
    if let Some(addr) = state.ai.address_of(&record.id)
        && !state.limiters.challenge.take(&addr).await
    {
        return Err(Refusal::new(
            SocketError::RateLimited,
            "too many new games: wait a little",
        ));
    }
    if record.first.ai_level.is_none() && record.second.ai_level.is_none() {
        return Ok(None);
    }
    reserve_game(state, &state.ai.asker_of(record))
        .await
        .map(Some)
        .map_err(|quota| Refusal::new(SocketError::RateLimited, quota.to_string()))
}

/// Counts a game against the AI for `asker`, before it is created, in this process's
/// pool and in the quotas shared with the other processes.
///
/// # Errors
/// [`QuotaError::Games`] when one of its identities plays its most AI games.
pub(crate) async fn reserve_game(state: &AppState, asker: &Asker) -> Result<GameSlot, QuotaError> {
    let mut slot = state.ai.reserve_game(asker)?;
    slot.hold = hold(state, Work::Move, asker).await?;
    Ok(slot)
}

/// Counts one of `work` (a game for [`Work::Move`]) for `asker` in the quotas shared with
/// the other processes: `None` when there are none, or Redis does not answer (the
/// process's own pool still counts it).
///
/// # Errors
/// When one of the asker's identities holds its most of that work.
pub(crate) async fn hold(
    state: &AppState,
    work: Work,
    asker: &Asker,
) -> Result<Option<Hold>, QuotaError> {
    let Some(shared) = state.limiters.shared() else {
        return Ok(None);
    };
    let quotas = state.ai.quotas();
    let (name, cap, refusal) = match work {
        Work::Move => ("games", quotas.games, QuotaError::Games(quotas.games)),
        Work::Analysis => (
            "analyses",
            quotas.analyses,
            QuotaError::Analyses(quotas.analyses),
        ),
        Work::Review => (
            "reviews",
            quotas.reviews,
            QuotaError::Reviews(quotas.reviews),
        ),
    };
    let identities: Vec<String> = asker.keys.iter().map(AiKey::identity).collect();
    if identities.is_empty() {
        return Ok(None);
    }
    match shared.acquire(name, &identities, cap).await {
        Ok(Some(hold)) => Ok(Some(hold)),
        Ok(None) => Err(refusal),
        Err(_) => Ok(None),
    }
}

/// How long the AI may think: by its clock in Fischer games (never more than
/// [`LONGEST_MOVE`]), else [`UNTIMED_MOVE`].
fn limits(clock: Option<([Duration; 2], Duration)>) -> Limits {
    let mut limits = match clock {
        Some((remaining, increment)) => Limits::clock(Clock {
            remaining,
            increment: [increment; 2],
            moves_to_go: None,
        }),
        None => Limits::move_time(UNTIMED_MOVE),
    };
    let cap = limits
        .move_time
        .map_or(LONGEST_MOVE, |t| t.min(LONGEST_MOVE));
    limits.move_time = Some(cap);
    limits
}

/// The AI's move in `game`, as text (`None` when the game has no legal move), and its
/// evaluation of the position for itself.
fn think(
    game: &AnyGame,
    level: Level,
    limits: &Limits,
    stop: &AtomicBool,
) -> (Option<String>, Score) {
    let mut engine = AnyEngine::new(EngineOptions {
        hash_mb: HASH_MB,
        threads: 1,
        level: Some(level),
        contempt: None,
    });
    let answer = engine.answer(game, limits, stop, |_| {});
    (answer.best, answer.score)
}

/// Below this (in the engine's units, for itself) the AI takes a draw: it stands
/// clearly worse, so a draw is the most it can hope for. Each game's own: Camelot's
/// evaluation counts a man as about 100, so −150 is a man and a half down; in tafl the
/// learned correction spreads the scores (about 1,000 points to one logistic unit of
/// the game's result), so −400 is an expected score of about 40%, and −150 was no more
/// than where the evaluation leans at a start (the AI defending Fetlar, at −176 after
/// one move each, took a draw offered there).
pub(crate) const fn draw_accept_below(kind: GameKind) -> i32 {
    match kind {
        GameKind::Fetlar | GameKind::Copenhagen => -400,
        GameKind::Camelot => -150,
    }
}

/// Whether the AI playing `ai` accepts a draw offered in `game`: only when it cannot win
/// — the rules say it has not the pieces to win ([`Game::can_win`]), or its own
/// evaluation from its last search (`score`, for itself) is a forced loss or below
/// [`draw_accept_below`]. Before its first search it judges by the rules alone. Any
/// other offer is declined.
pub(crate) fn accepts_draw(game: &AnyGame, ai: Player, score: Option<Score>) -> bool {
    if !game::Game::can_win(game, ai) {
        return true;
    }
    score.is_some_and(|score| match score.plies_to_end() {
        Some(_) => score.0 < 0,
        None => score.0 < draw_accept_below(game.kind()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc as std_mpsc;

    #[test]
    fn the_ai_takes_a_draw_only_when_it_cannot_win() {
        let start = AnyGame::start(GameKind::Copenhagen);
        // Before its first search, and when it stands even, better or a little worse:
        // declined.
        assert!(!accepts_draw(&start, Player::First, None));
        assert!(!accepts_draw(&start, Player::First, Some(Score(0))));
        assert!(!accepts_draw(&start, Player::Second, Some(Score(-200))));
        assert!(!accepts_draw(
            &start,
            Player::Second,
            Some(Score::win_in(7))
        ));
        // Clearly worse, or lost: accepted.
        assert!(accepts_draw(&start, Player::First, Some(Score(-600))));
        assert!(accepts_draw(
            &start,
            Player::Second,
            Some(Score::loss_in(6))
        ));
        // Camelot: White's lone man cannot win (every way to win needs two pieces), so
        // White takes a draw even where its search liked its chances; Black does not.
        let lone = AnyGame::from_position(
            GameKind::Camelot,
            "2/8/10/12/12/12/3mm7/12/12/12/12/12/12/M9/8/2 w 0 0 0",
        )
        .unwrap();
        assert!(accepts_draw(&lone, Player::First, Some(Score(500))));
        assert!(accepts_draw(&lone, Player::First, None));
        assert!(!accepts_draw(&lone, Player::Second, Some(Score(0))));
    }

    /// The AI's own searches in the first plies of every game, as the levels the site's
    /// browser tests play: it never judges itself so far behind that it takes a draw
    /// offered there (below −150, the AI defending Fetlar, about −176 after one move each,
    /// took one).
    #[test]
    fn the_ai_declines_a_draw_offered_in_the_first_moves_of_every_game() {
        for kind in GameKind::ALL {
            for level in [Level::Beginner, Level::Club] {
                let mut game = AnyGame::start(kind);
                for ply in 0..4 {
                    let ai = game::Game::to_move(&game);
                    let stop = AtomicBool::new(false);
                    let (text, score) = think(&game, level, &limits(None), &stop);
                    assert!(
                        !accepts_draw(&game, ai, Some(score)),
                        "{kind}, {level}, ply {ply}: {score:?}"
                    );
                    game.try_play(&text.unwrap()).unwrap();
                }
            }
        }
    }

    #[test]
    fn the_ai_answers_a_legal_move_in_each_game() {
        for kind in GameKind::ALL {
            let mut game = AnyGame::start(kind);
            let stop = AtomicBool::new(false);
            let text = think(&game, Level::Beginner, &limits(None), &stop)
                .0
                .unwrap();
            game.try_play(&text).unwrap();
        }
    }

    #[test]
    fn a_fischer_clock_bounds_the_think_time() {
        let long = limits(Some((
            [Duration::from_secs(3600); 2],
            Duration::from_secs(30),
        )));
        assert!(long.move_time.unwrap() <= LONGEST_MOVE);
        assert_eq!(limits(None).move_time, Some(UNTIMED_MOVE));
    }

    fn pool(threads: usize) -> AiPool {
        AiPool::new(
            threads,
            AiQuotas {
                games: 2,
                analyses: 2,
                reviews: 1,
            },
            IntGauge::new("test_queue", "test").unwrap(),
        )
    }

    fn asker(name: &str) -> Asker {
        Asker::new(
            &Ident {
                user: None,
                guest: Some(name.to_owned()),
            },
            None,
        )
    }

    /// A job that says when it starts and runs until released (or stopped).
    fn held_job(
        label: &'static str,
        started: &std_mpsc::Sender<&'static str>,
    ) -> (
        impl FnOnce(&AtomicBool) + Send + 'static,
        std_mpsc::Sender<()>,
    ) {
        let (release, released) = std_mpsc::channel::<()>();
        let started = started.clone();
        let job = move |stop: &AtomicBool| {
            let _ = started.send(label);
            while !stop.load(Ordering::SeqCst)
                && released.recv_timeout(Duration::from_millis(5)).is_err()
            {}
        };
        (job, release)
    }

    fn wait_until(pool: &AiPool, done: impl Fn(&AiStats) -> bool) {
        while !done(&pool.stats()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_move_goes_before_a_flood_of_work_and_waits_for_one_search() {
        let pool = pool(2);
        let (started_tx, started) = std_mpsc::channel();
        // The flooder takes both threads with moves of its games and queues more of
        // everything.
        let mut releases = Vec::new();
        let mut tickets = Vec::new();
        for label in [
            "flood-move-1",
            "flood-move-2",
            "flood-move-3",
            "flood-move-4",
        ] {
            let (job, release) = held_job(label, &started_tx);
            tickets.push(pool.submit(Work::Move, asker("flooder"), None, job));
            releases.push(release);
        }
        let (job, release) = held_job("flood-analysis", &started_tx);
        tickets.push(
            pool.submit_analysis(Work::Analysis, asker("flooder"), None, job)
                .unwrap(),
        );
        releases.push(release);
        wait_until(&pool, |s| s.running == 2);
        let mut first = [started.recv().unwrap(), started.recv().unwrap()];
        first.sort_unstable();
        assert_eq!(first, ["flood-move-1", "flood-move-2"]);
        // The victim's move arrives last of all.
        let (job, victim_release) = held_job("victim-move", &started_tx);
        let victim = pool.submit(Work::Move, asker("victim"), Some("g".into()), job);
        let started_before = pool.stats().started;
        // One search in flight ends: the victim's move is next, before the flooder's
        // earlier moves and its analysis.
        releases[0].send(()).unwrap();
        assert_eq!(started.recv().unwrap(), "victim-move");
        assert_eq!(pool.stats().started, started_before + 1);
        victim_release.send(()).unwrap();
        drop(victim);
        drop(tickets);
    }

    #[test]
    fn players_take_turns() {
        let pool = pool(2);
        let (started_tx, started) = std_mpsc::channel();
        let mut releases = std::collections::HashMap::new();
        let mut tickets = Vec::new();
        // Both threads busy first, so that every job below waits before any is taken
        // (else a thread may take a2 before b1 is even submitted).
        for label in ["z1", "z2"] {
            let (job, release) = held_job(label, &started_tx);
            tickets.push(pool.submit(Work::Move, asker("z"), None, job));
            releases.insert(label, release);
        }
        let mut busy = [started.recv().unwrap(), started.recv().unwrap()];
        busy.sort_unstable();
        assert_eq!(busy, ["z1", "z2"]);
        for label in ["a1", "a2", "a3", "b1", "b2", "b3"] {
            let (job, release) = held_job(label, &started_tx);
            let who = &label[..1];
            tickets.push(pool.submit(Work::Move, asker(who), None, job));
            releases.insert(label, release);
        }
        releases["z1"].send(()).unwrap();
        releases["z2"].send(()).unwrap();
        let mut first = [started.recv().unwrap(), started.recv().unwrap()];
        first.sort_unstable();
        assert_eq!(first, ["a1", "b1"]);
        let mut order = Vec::new();
        let mut last = "a1";
        for _ in 0..4 {
            releases[last].send(()).unwrap();
            last = started.recv().unwrap();
            order.push(last);
        }
        assert_eq!(order, ["a2", "b2", "a3", "b3"]);
        drop(tickets);
    }

    #[test]
    fn analyses_never_take_every_thread() {
        let pool = pool(2);
        let (started_tx, started) = std_mpsc::channel();
        let (a, _ra) = held_job("analysis-a", &started_tx);
        let (b, _rb) = held_job("analysis-b", &started_tx);
        let _ta = pool
            .submit_analysis(Work::Analysis, asker("a"), None, a)
            .unwrap();
        let _tb = pool
            .submit_analysis(Work::Analysis, asker("b"), None, b)
            .unwrap();
        wait_until(&pool, |s| s.running == 1 && s.waiting == 1);
        let (mv, _rm) = held_job("move", &started_tx);
        let _tm = pool.submit(Work::Move, asker("c"), None, mv);
        assert_eq!(started.recv().unwrap(), "analysis-a");
        // The move starts on the thread the analyses may not take.
        assert_eq!(started.recv().unwrap(), "move");
        assert_eq!(pool.stats().waiting, 1);
    }

    #[test]
    fn quotas_bound_each_identity_and_come_back() {
        let pool = pool(2);
        let (started_tx, _started) = std_mpsc::channel();
        let (a, _ra) = held_job("a", &started_tx);
        let (b, _rb) = held_job("b", &started_tx);
        let (c, _rc) = held_job("c", &started_tx);
        let first = pool
            .submit_analysis(Work::Analysis, asker("x"), None, a)
            .unwrap();
        let _second = pool
            .submit_analysis(Work::Analysis, asker("x"), None, b)
            .unwrap();
        assert_eq!(
            pool.submit_analysis(Work::Analysis, asker("x"), None, c)
                .unwrap_err(),
            QuotaError::Analyses(2)
        );
        // The first was running: it is given back once its search has stopped, when
        // the second starts in its place.
        drop(first);
        wait_until(&pool, |s| s.running == 1 && s.waiting == 0);
        let (c, _rc) = held_job("c", &started_tx);
        assert!(
            pool.submit_analysis(Work::Analysis, asker("x"), None, c)
                .is_ok()
        );

        // The address counts too: another guest from the same address is refused.
        let addr: IpAddr = [192, 0, 2, 7].into();
        let by = |guest: &str| {
            Asker::new(
                &Ident {
                    user: None,
                    guest: Some(guest.into()),
                },
                Some(addr),
            )
        };
        let one = pool.reserve_game(&by("p")).unwrap();
        one.bind("game-1");
        let _two = pool.reserve_game(&by("q")).unwrap();
        assert_eq!(
            pool.reserve_game(&by("r")).unwrap_err(),
            QuotaError::Games(2)
        );
        pool.game_over("game-1");
        pool.game_over("game-1");
        assert!(pool.reserve_game(&by("r")).is_ok());
    }

    #[test]
    fn a_cancelled_job_never_runs_and_a_running_one_is_stopped() {
        let pool = pool(2);
        let (started_tx, started) = std_mpsc::channel();
        let (a, _ra) = held_job("a", &started_tx);
        let (b, _rb) = held_job("b", &started_tx);
        let (c, _rc) = held_job("c", &started_tx);
        let ta = pool.submit(Work::Move, asker("x"), None, a);
        let tb = pool.submit(Work::Move, asker("y"), None, b);
        wait_until(&pool, |s| s.running == 2);
        let tc = pool.submit(Work::Move, asker("z"), None, c);
        drop(tc);
        assert_eq!(pool.stats().waiting, 0);
        // Stopping the running ones frees the threads (the held jobs watch their flag).
        drop(ta);
        drop(tb);
        wait_until(&pool, |s| s.running == 0);
        let mut seen: Vec<_> = started.try_iter().collect();
        seen.sort_unstable();
        assert_eq!(seen, ["a", "b"]);
    }
}
