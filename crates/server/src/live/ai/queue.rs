//! The order in which the pool serves waiting jobs, and what it counts as it does.
//!
//! - **Moves first.** Waiting jobs form a priority queue: a game's move is always taken
//!   before an analysis or a review, and analyses and reviews together never occupy every
//!   thread (one is always left to moves), so a move waits for at most one search in
//!   flight to end.
//! - **Fair between players.** Among jobs of the same class the next is the one whose
//!   asker was served longest ago (round robin between players, then the oldest job):
//!   one player's twenty queued moves delay another player's move by at most the one
//!   search in flight.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::pool::Ticket;
use super::quota::{AiKey, Asker, Held, REMEMBERED};
use crate::shared::Hold;

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
pub(super) struct AiGame {
    pub(super) asker: Asker,
    /// Whether it still counts against its asker's quota (until it ends).
    pub(super) active: bool,
    /// Its count in the quotas shared with the other processes, while active.
    pub(super) hold: Option<Hold>,
    /// Its search, waiting or running.
    pub(super) search: Option<Ticket>,
    /// The longest wait of its moves.
    pub(super) worst_wait: MoveWait,
}

/// A job's work, told through its flag when to stop.
type Run = Box<dyn FnOnce(&AtomicBool) + Send>;

/// A job waiting or running.
pub(super) struct Job {
    /// Its number, by which its ticket finds it in the queue.
    pub(super) id: u64,
    pub(super) work: Work,
    /// Whoever asked: the identities it counts against, whose turn it takes.
    pub(super) asker: Asker,
    /// Set when it is cancelled.
    pub(super) stop: Arc<AtomicBool>,
    pub(super) run: Run,
    /// The game, for a move.
    pub(super) game: Option<String>,
    /// The pool's count of started searches when it was queued.
    pub(super) started_before: u64,
    /// The pool's count of ended searches when it was queued.
    pub(super) ended_before: u64,
}

/// What the pool's threads share, under one lock.
#[derive(Default)]
pub(super) struct State {
    /// Jobs not yet started, in the order they came.
    pub(super) waiting: VecDeque<Job>,
    /// What each identity holds now.
    pub(super) held: HashMap<AiKey, Held>,
    /// The games against the AI the pool knows, by id.
    pub(super) games: HashMap<String, AiGame>,
    /// Reservations made for games not yet created.
    pub(super) reserved: HashMap<u64, Asker>,
    /// Searches running now.
    pub(super) running: usize,
    /// Analyses and reviews among them.
    pub(super) running_analyses: usize,
    /// The last number given to a job or a reservation.
    pub(super) next_id: u64,
    /// Searches started since the pool began.
    pub(super) started: u64,
    /// Searches ended since the pool began.
    pub(super) ended: u64,
    /// Set when the pool is dropped: its threads end.
    pub(super) closed: bool,
}

impl State {
    pub(super) fn held(&mut self, key: &AiKey) -> &mut Held {
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
    pub(super) fn release(&mut self, work: Work, asker: &Asker) {
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

    pub(super) fn release_game(&mut self, asker: &Asker) {
        for key in &asker.keys {
            let held = self.held(key);
            held.games = held.games.saturating_sub(1);
        }
        self.tidy(asker);
    }

    /// Takes the next job a thread may run, dropping cancelled ones: moves first, then
    /// (if fewer than `analysis_threads` run) analyses and reviews; within a class the
    /// asker served longest ago (round robin between players), then the oldest job.
    pub(super) fn next(&mut self, analysis_threads: usize) -> Option<Job> {
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

    pub(super) fn finish(&mut self, work: Work, asker: &Asker) {
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

#[cfg(test)]
mod tests {
    use super::super::testing::{asker, held_job, pool, wait_until};
    use super::*;
    use std::sync::mpsc as std_mpsc;

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
}
