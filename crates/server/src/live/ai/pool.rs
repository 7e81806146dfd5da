//! The AI's search threads and their jobs.
//!
//! - **Moves first, fair between players** ([`super::queue`]).
//! - **Quotas per identity.** Every job and every AI game counts against each identity
//!   its asker carries — the account, the guest, the client address — with the bounds of
//!   [`AiQuotas`]: AI games being played, analyses and reviews queued or running
//!   ([`super::quota`]).
//! - **Cancelled when unwanted.** A job's [`Ticket`] cancels it when dropped or told to:
//!   a waiting job leaves the queue (and its quota) at once, a running search stops. A
//!   game's search is cancelled when the game ends ([`AiPool::game_over`]).
//! - **Never held by a consumer.** Jobs never wait on whoever reads their results: the
//!   move goes to the game's owner through the async runtime, analysis progress through
//!   `try_send` (dropped when the reader is behind).

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use prometheus::IntGauge;

use super::queue::{AiGame, Job, MoveWait, State, Work};
use super::quota::{AiKey, Asker, Held, QuotaError};
use crate::config::AiQuotas;
use crate::shared::Hold;
use crate::store::GameRecord;

/// Stack of a search thread (the engine's recursion is deep).
const SEARCH_STACK: usize = 16 << 20;

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
    pub(super) hold: Option<Hold>,
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

/// The AI's search threads and their queue: moves first, fair between players, within
/// each asker's quotas, every job cancelled when unwanted.
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
    pub(super) fn submit(
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

    /// Queues `run` as game `record`'s move, for whoever asked for the game (a game
    /// resumed after a restart counts against its players from now on). A search still
    /// waiting or running for the game is cancelled (its answer would be stale).
    pub(super) fn submit_move(
        &self,
        record: &GameRecord,
        run: impl FnOnce(&AtomicBool) + Send + 'static,
    ) {
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
        let ticket = self.submit(Work::Move, asker, Some(record.id.clone()), run);
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

#[cfg(test)]
mod tests {
    use super::super::testing::{asker, held_job, pool, wait_until};
    use super::*;
    use std::sync::mpsc as std_mpsc;

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
