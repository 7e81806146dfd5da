//! The AI on a worker thread: requests go in over a channel, progress and results come
//! back through a callback, so the screen never waits for a search. A request is stopped
//! through its own stop flag; the search then answers at once with the best move it has.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use engine::{DefaultEngine, EngineGame, Level, Limits, Score};
use game::Game;

/// Why the AI is searching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// To play its move.
    Move,
    /// To suggest a move to a human.
    Hint,
}

/// One search to run.
#[derive(Debug)]
pub struct AiRequest<G: Game> {
    /// Identifies the request in the replies.
    pub id: u64,
    /// The game to search (a copy).
    pub game: G,
    /// How long or deep.
    pub limits: Limits,
    /// At what strength.
    pub level: Level,
    /// Set to stop the search early.
    pub stop: Arc<AtomicBool>,
}

/// What the worker reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AiEvent<M> {
    /// A search iteration finished.
    Progress {
        /// The request.
        id: u64,
        /// Depth reached.
        depth: u32,
        /// Score for the side to move.
        score: Score,
        /// The best line so far, in notation.
        pv: String,
    },
    /// The search is over.
    Done {
        /// The request.
        id: u64,
        /// The move found (`None` only if the game was over).
        best: Option<M>,
        /// Its score for the side to move.
        score: Score,
        /// The depth completed.
        depth: u32,
    },
}

/// The worker thread and its engine (kept between requests, so its transposition table
/// carries over from move to move).
pub struct AiWorker<G: Game> {
    jobs: Option<Sender<AiRequest<G>>>,
    thread: Option<JoinHandle<()>>,
}

/// Transposition table size for play: plenty for the levels' node counts, and kind to a
/// machine shared with other work.
const HASH_MB: usize = 32;

/// How the worker's engine is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiSetup {
    /// Seeds the lower levels' choice among near-best moves.
    pub seed: u64,
    /// Search threads.
    pub threads: usize,
}

impl<G: EngineGame> AiWorker<G> {
    /// Starts the worker; `report` is called from its thread for every event.
    pub fn spawn(
        setup: AiSetup,
        report: impl Fn(AiEvent<G::Move>) + Send + 'static,
    ) -> AiWorker<G> {
        let (jobs, inbox): (Sender<AiRequest<G>>, Receiver<AiRequest<G>>) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("kingstable-ai".into())
            .stack_size(32 << 20)
            .spawn(move || {
                let mut engine = DefaultEngine::<G>::default();
                engine.set_hash_mb(HASH_MB);
                engine.set_seed(setup.seed);
                engine.set_threads(setup.threads);
                for job in inbox {
                    engine.set_level(job.level);
                    let id = job.id;
                    let game = &job.game;
                    let result = engine.search(game, &job.limits, &job.stop, |info| {
                        report(AiEvent::Progress {
                            id,
                            depth: info.depth,
                            score: info.score,
                            pv: line_text(game, &info.pv),
                        });
                    });
                    report(AiEvent::Done {
                        id,
                        best: result.best_move,
                        score: result.score,
                        depth: result.depth,
                    });
                }
            })
            .expect("spawning the AI thread");
        AiWorker {
            jobs: Some(jobs),
            thread: Some(thread),
        }
    }

    /// Queues a search.
    pub fn submit(&self, request: AiRequest<G>) {
        if let Some(jobs) = &self.jobs {
            // The worker only stops when this handle is dropped, so the send succeeds.
            let _ = jobs.send(request);
        }
    }
}

impl<G: Game> Drop for AiWorker<G> {
    fn drop(&mut self) {
        // Closing the channel ends the worker's loop once the current search returns;
        // callers stop that search first.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A line of moves in notation, each written in the position it is played in.
#[must_use]
pub fn line_text<G: Game>(game: &G, line: &[G::Move]) -> String {
    let mut game = game.clone();
    let mut texts = Vec::new();
    for &mv in line {
        if !game.is_legal(mv) {
            break;
        }
        texts.push(game.format_move(mv));
        game.play(mv);
    }
    texts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use game::Game;
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    use tafl::{Rules, Tafl};

    #[test]
    fn the_worker_answers_with_a_legal_move_and_can_be_stopped() {
        let (tx, rx) = mpsc::channel();
        let setup = AiSetup {
            seed: 1,
            threads: 2,
        };
        let worker = AiWorker::<Tafl>::spawn(setup, move |event| {
            let _ = tx.send(event);
        });
        let game = Tafl::new(Rules::COPENHAGEN);
        let stop = Arc::new(AtomicBool::new(false));
        worker.submit(AiRequest {
            id: 7,
            game: game.clone(),
            limits: Limits::infinite(),
            level: Level::Maximum,
            stop: stop.clone(),
        });
        // An infinite search ends only through its stop flag.
        let first = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert!(
            matches!(first, AiEvent::Progress { id: 7, .. }),
            "{first:?}"
        );
        stop.store(true, Ordering::Relaxed);
        let done = loop {
            match rx.recv_timeout(Duration::from_secs(60)).unwrap() {
                AiEvent::Done { id, best, .. } => break (id, best),
                AiEvent::Progress { .. } => {}
            }
        };
        assert_eq!(done.0, 7);
        assert!(game.is_legal(done.1.unwrap()));
    }
}
