//! The terminal game's side of the AI: requests with ids, and events the screen's loop
//! takes in, over [`engine::Worker`] (which runs each search on its own thread, so the
//! screen never waits for one). A request is stopped through its own stop flag; the
//! search then answers at once with the best move it has.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use engine::{DefaultWorker, Event, Job, Level, Limits, Score, line_texts};
use games::{AnyGame, AnyMove};

use super::board::PlayGame;

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
pub struct AiRequest {
    /// Identifies the request in the replies.
    pub id: u64,
    /// The game to search (a copy).
    pub game: AnyGame,
    /// How long or deep.
    pub limits: Limits,
    /// At what strength.
    pub level: Level,
    /// Set to stop the search early.
    pub stop: Arc<AtomicBool>,
}

/// What the worker reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AiEvent {
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
        best: Option<AnyMove>,
        /// Its score for the side to move.
        score: Score,
        /// The depth completed.
        depth: u32,
    },
}

/// The AI worker and its engine (kept between requests, so its transposition table
/// carries over from move to move).
pub struct AiWorker<G: PlayGame> {
    worker: DefaultWorker<G>,
    report: Arc<dyn Fn(AiEvent) + Send + Sync>,
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

impl<G: PlayGame> AiWorker<G> {
    /// Starts the worker; `report` is called from the search thread for every event.
    pub fn spawn(setup: AiSetup, report: impl Fn(AiEvent) + Send + Sync + 'static) -> AiWorker<G> {
        let mut worker = DefaultWorker::<G>::default();
        let engine = worker.engine_mut();
        engine.set_hash_mb(HASH_MB);
        engine.set_seed(setup.seed);
        engine.set_threads(setup.threads);
        AiWorker {
            worker,
            report: Arc::new(report),
        }
    }

    /// Starts a search, once the previous one (stopped or cancelled by the session) has
    /// ended.
    pub fn submit(&mut self, request: AiRequest) {
        self.worker.engine_mut().set_level(request.level);
        let report = Arc::clone(&self.report);
        let id = request.id;
        let Some(game) = G::from_any(request.game) else {
            // A game of another kind than this worker's: no search, and no move (the
            // session then plays the first legal one).
            (self.report)(AiEvent::Done {
                id,
                best: None,
                score: Score::DRAW,
                depth: 0,
            });
            return;
        };
        let job = Job {
            game,
            limits: request.limits,
            stop: request.stop,
        };
        let started = self.worker.start(job, move |game, event| {
            report(match event {
                Event::Progress(info) => AiEvent::Progress {
                    id,
                    depth: info.depth,
                    score: info.score,
                    pv: line_texts(game, &info.pv).join(" "),
                },
                Event::Done(answer) => AiEvent::Done {
                    id,
                    best: answer.result.best_move.map(G::any_move),
                    score: answer.result.score,
                    depth: answer.result.depth,
                },
            });
        });
        if started.is_err() {
            // No thread to search on: the session still gets its answer (no move: it
            // plays the first legal one).
            (self.report)(AiEvent::Done {
                id,
                best: None,
                score: Score::DRAW,
                depth: 0,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;
    use std::sync::atomic::Ordering;
    use std::sync::mpsc;
    use std::time::Duration;
    use tafl::{Rules, Tafl};

    /// A worker searching games like `G` on `threads` threads, and its events.
    fn spawn<G: PlayGame>(threads: usize) -> (AiWorker<G>, mpsc::Receiver<AiEvent>) {
        let (tx, rx) = mpsc::channel();
        let setup = AiSetup { seed: 1, threads };
        let worker = AiWorker::<G>::spawn(setup, move |event| {
            let _ = tx.send(event);
        });
        (worker, rx)
    }

    #[test]
    fn the_worker_answers_with_a_legal_move_and_can_be_stopped() {
        let (mut worker, rx) = spawn::<Tafl>(2);
        let game = AnyGame::from(Tafl::new(Rules::COPENHAGEN));
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

    #[test]
    fn a_request_cancelled_at_once_still_answers_and_the_next_one_follows() {
        let (mut worker, rx) = spawn::<camelot::Camelot>(1);
        let game = AnyGame::start(game::GameKind::Camelot);
        let request = |id, limits| AiRequest {
            id,
            game: game.clone(),
            limits,
            level: Level::Casual,
            stop: Arc::new(AtomicBool::new(false)),
        };
        let first = request(1, Limits::infinite());
        first.stop.store(true, Ordering::Relaxed);
        worker.submit(first);
        worker.submit(request(2, Limits::depth(2)));
        let mut answers = Vec::new();
        while answers.len() < 2 {
            if let AiEvent::Done { id, best, .. } =
                rx.recv_timeout(Duration::from_secs(60)).unwrap()
            {
                answers.push((id, best));
            }
        }
        assert_eq!(answers.iter().map(|a| a.0).collect::<Vec<_>>(), [1, 2]);
        for (_, best) in answers {
            assert!(game.is_legal(best.unwrap()));
        }
    }

    #[test]
    fn a_game_of_another_kind_gets_an_answer_without_a_move() {
        let (mut worker, rx) = spawn::<Tafl>(1);
        worker.submit(AiRequest {
            id: 3,
            game: AnyGame::start(game::GameKind::Camelot),
            limits: Limits::depth(1),
            level: Level::Beginner,
            stop: Arc::new(AtomicBool::new(false)),
        });
        let answer = rx.recv_timeout(Duration::from_secs(60)).unwrap();
        assert!(
            matches!(
                answer,
                AiEvent::Done {
                    id: 3,
                    best: None,
                    ..
                }
            ),
            "{answer:?}"
        );
    }
}
