//! The AI as every front end uses it: a search that always answers, and a worker that
//! runs it on its own thread.
//!
//! [`Engine::answer`] is a search that never panics and always names a legal move while
//! the game has one. A search that is stopped before its first iteration completes, or
//! that fails (panics), falls back to the best move it reported so far, else to a
//! one-ply choice (a depth-1 search, else the move after which the static evaluation is
//! best), else to the first legal move; [`Answer::source`] says which.
//!
//! [`Worker`] runs searches on a thread of their own, one at a time, and keeps its
//! engine (and so its transposition table) from one search to the next. A search is
//! cancelled through its stop flag ([`Worker::stop`], or the flag of its [`Job`]); its
//! progress and its answer are reported through a callback on the search thread.
//!
//! ```
//! use std::sync::mpsc;
//! use engine::{DefaultWorker, Event, Job, Limits, Source, line_texts};
//! use game::Game;
//! use tafl::{Rules, Tafl};
//!
//! let mut worker = DefaultWorker::<Tafl>::default();
//! worker.engine_mut().set_hash_mb(4);
//! let game = Tafl::new(Rules::COPENHAGEN);
//! let (tx, rx) = mpsc::channel();
//! worker.start(Job::new(game.clone(), Limits::infinite()), move |game, event| {
//!     if let Event::Progress(info) = &event {
//!         let _line = line_texts(game, &info.pv).join(" ");
//!     }
//!     let _ = tx.send(event);
//! })?;
//! // An infinite search answers once it is stopped.
//! assert!(matches!(rx.recv().unwrap(), Event::Progress(_)));
//! worker.stop();
//! let answer = rx.iter().find_map(|e| match e {
//!     Event::Done(answer) => Some(answer),
//!     Event::Progress(_) => None,
//! });
//! let answer = answer.unwrap();
//! assert_eq!(answer.source, Source::Search);
//! assert!(game.is_legal(answer.result.best_move.unwrap()));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use game::Game;

use crate::eval::{EngineGame, Evaluator};
use crate::limits::Limits;
use crate::score::Score;
use crate::search::{Engine, SearchInfo, SearchResult};

/// A line of moves in the game's notation (with captures), each written in the position
/// it is played in; it stops at the first move that is not legal there (a stale line).
///
/// ```
/// use game::Game;
/// use tafl::{Rules, Tafl};
/// let game = Tafl::new(Rules::COPENHAGEN);
/// let first = game.parse_move("d1-d3").unwrap();
/// let mut after = game.clone();
/// after.play(first);
/// let line = [first, after.parse_move("e5-e2").unwrap()];
/// assert_eq!(engine::line_texts(&game, &line), ["d1-d3", "e5-e2"]);
/// // The same move twice: the second is not legal and ends the line.
/// assert_eq!(engine::line_texts(&game, &[first, first]), ["d1-d3"]);
/// ```
#[must_use]
pub fn line_texts<G: Game>(game: &G, line: &[G::Move]) -> Vec<String> {
    let mut scratch = game.clone();
    let mut texts = Vec::with_capacity(line.len());
    for &mv in line {
        if !scratch.is_legal(mv) {
            break;
        }
        texts.push(scratch.format_move(mv));
        scratch.play(mv);
    }
    texts
}

/// Where an [`Answer`]'s move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The search chose it.
    Search,
    /// The search ended without a move of its own (it failed): the best move of the
    /// last iteration it completed.
    LastIteration,
    /// No iteration was completed (stopped at once, or failed): a one-ply choice.
    OnePly,
    /// Everything else failed: the first legal move.
    FirstLegal,
    /// There is no legal move: the game is over.
    NoMove,
}

/// What [`Engine::answer`] found: a legal move whenever the game has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer<M> {
    /// The search's result, or the fallback's: `best_move` is `None` only when there is
    /// no legal move; the score is 0 and the depth 0 when nothing better is known; the
    /// time includes the fallbacks.
    pub result: SearchResult<M>,
    /// Where the move came from.
    pub source: Source,
    /// The panic message, if the search failed.
    pub failure: Option<String>,
}

/// The most nodes the one-ply fallback search may take, so a stopped search still
/// answers promptly.
const ONE_PLY_NODES: u64 = 250_000;

impl<G: Game, E: Evaluator<G>> Engine<G, E> {
    /// Searches like [`Engine::search`], but never panics and answers with a legal move
    /// whenever the game has one (see the [module documentation](crate::worker) for the
    /// fallbacks). `on_info` is called after each completed iteration.
    ///
    /// ```
    /// use std::sync::atomic::AtomicBool;
    /// use engine::{DefaultEngine, Limits, Source};
    /// use game::Game;
    /// use camelot::Camelot;
    ///
    /// let game = Camelot::start();
    /// let engine = DefaultEngine::<Camelot>::default();
    /// // Stopped before it starts: a legal move all the same.
    /// let answer = engine.answer(&game, &Limits::infinite(), &AtomicBool::new(true), |_| {});
    /// assert!(matches!(answer.source, Source::Search | Source::OnePly));
    /// assert!(game.is_legal(answer.result.best_move.unwrap()));
    /// ```
    pub fn answer(
        &self,
        game: &G,
        limits: &Limits,
        stop: &AtomicBool,
        mut on_info: impl FnMut(&SearchInfo<G::Move>),
    ) -> Answer<G::Move> {
        let start = Instant::now();
        let mut last: Option<SearchInfo<G::Move>> = None;
        let run = catch_unwind(AssertUnwindSafe(|| {
            self.search(game, limits, stop, |info| {
                last = Some(info.clone());
                on_info(info);
            })
        }));
        let (result, failure) = match run {
            Ok(result) => (Some(result), None),
            Err(payload) => (None, Some(panic_message(payload.as_ref()))),
        };
        if let Some(result) = &result
            && result.best_move.is_some_and(|mv| game.is_legal(mv))
        {
            return Answer {
                result: result.clone(),
                source: Source::Search,
                failure,
            };
        }
        if let Some(info) = last
            && let Some(&mv) = info.pv.first()
            && game.is_legal(mv)
        {
            return Answer {
                result: SearchResult {
                    best_move: Some(mv),
                    score: info.score,
                    depth: info.depth,
                    seldepth: info.seldepth,
                    nodes: result.as_ref().map_or(info.nodes, |r| r.nodes),
                    time: start.elapsed(),
                    pv: info.pv,
                },
                source: Source::LastIteration,
                failure,
            };
        }
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let Some(&first) = moves.first() else {
            return Answer {
                result: SearchResult {
                    best_move: None,
                    score: result.as_ref().map_or(Score::DRAW, |r| r.score),
                    depth: 0,
                    seldepth: 0,
                    nodes: result.as_ref().map_or(0, |r| r.nodes),
                    time: start.elapsed(),
                    pv: Vec::new(),
                },
                source: Source::NoMove,
                failure,
            };
        };
        // A depth-1 search takes milliseconds and sees captures and threats.
        let quick = catch_unwind(AssertUnwindSafe(|| {
            let limits = Limits::depth(1).with_nodes(ONE_PLY_NODES);
            self.search(game, &limits, &AtomicBool::new(false), |_| {})
        }));
        if let Ok(quick) = quick
            && quick.best_move.is_some_and(|mv| game.is_legal(mv))
        {
            return Answer {
                result: SearchResult {
                    time: start.elapsed(),
                    ..quick
                },
                source: Source::OnePly,
                failure,
            };
        }
        let greedy = catch_unwind(AssertUnwindSafe(|| {
            greedy_move(self.evaluator(), game, |_| 0).filter(|&mv| game.is_legal(mv))
        }));
        let (mv, source) = match greedy {
            Ok(Some(mv)) => (mv, Source::OnePly),
            _ => (first, Source::FirstLegal),
        };
        Answer {
            result: SearchResult {
                best_move: Some(mv),
                score: Score::DRAW,
                depth: u32::from(source == Source::OnePly),
                seldepth: 0,
                nodes: 0,
                time: start.elapsed(),
                pv: vec![mv],
            },
            source,
            failure,
        }
    }
}

/// A panic's message, as far as it has one.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "the search panicked".to_owned()
    }
}

/// The one-ply choice: a move that wins at once if there is one, else the move after
/// which `eval`'s static evaluation is best for the mover; a draw counts as 0 and a loss
/// as worst. Among equals, the move with the highest `tie` of the position after it
/// (the first in generation order if `tie` is constant). `None` only when there is no
/// legal move.
///
/// ```
/// use engine::{EngineGame, greedy_move};
/// use game::Game;
/// use tafl::{Position, Rules, Tafl};
///
/// // The king on c1 escapes to a1 at once.
/// let pos = Position::from_string_with_side("/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders")?;
/// let game = Tafl::from_position(Rules::FETLAR, pos);
/// let eval = <Tafl as EngineGame>::Evaluator::default();
/// let mv = greedy_move(&eval, &game, |_| 0).unwrap();
/// assert_eq!(game.format_move(mv), "c1-a1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn greedy_move<G: Game, E: Evaluator<G>>(
    eval: &E,
    game: &G,
    mut tie: impl FnMut(&G) -> u64,
) -> Option<G::Move> {
    let me = game.to_move();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut board = game.clone();
    let mut best: Option<(i64, u64, G::Move)> = None;
    for mv in moves {
        board.play(mv);
        let value: i64 = match board.outcome() {
            Some(o) if o.winner == Some(me) => i64::MAX,
            Some(o) if o.winner.is_none() => 0,
            Some(_) => i64::MIN,
            // The evaluation is for the side to move: the opponent now.
            None => -i64::from(eval.evaluate(&board)),
        };
        let tie = tie(&board);
        board.undo();
        if best.is_none_or(|(v, t, _)| value > v || (value == v && tie > t)) {
            best = Some((value, tie, mv));
        }
    }
    best.map(|(_, _, mv)| mv)
}

/// One search for a [`Worker`]: the game (a copy), its limits and its stop flag.
#[derive(Clone, Debug)]
pub struct Job<G> {
    /// The position to search.
    pub game: G,
    /// How long or deep. An infinite search answers only once it is stopped, even if
    /// it has finished searching (as UCI has it).
    pub limits: Limits,
    /// Set (from any thread) to stop the search; it then answers at once.
    pub stop: Arc<AtomicBool>,
}

impl<G> Job<G> {
    /// A job with a stop flag of its own.
    #[must_use]
    pub fn new(game: G, limits: Limits) -> Job<G> {
        Job {
            game,
            limits,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What a [`Worker`] reports about a search, on the search thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<M> {
    /// An iteration was completed.
    Progress(SearchInfo<M>),
    /// The search is over: its answer (always the last event of a job).
    Done(Answer<M>),
}

/// A search running on its thread.
struct Running {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
    /// Set just before the answer is delivered: from then on joining is quick.
    answering: Arc<AtomicBool>,
}

/// Stack for search threads (the engine's own helper threads use the same).
const SEARCH_STACK: usize = 16 << 20;

/// An engine and the thread its searches run on: one search at a time, cancellable,
/// panic-isolated, always answering with a legal move while the game has one (see
/// [`Engine::answer`]). The engine, and its transposition table, is kept from search to
/// search; change it with [`Worker::engine_mut`] between searches. Dropping the worker
/// stops a running search and waits for it.
pub struct Worker<G: Game, E: Evaluator<G>> {
    engine: Arc<Engine<G, E>>,
    running: Option<Running>,
}

/// The worker with a game's default evaluation.
pub type DefaultWorker<G> = Worker<G, <G as EngineGame>::Evaluator>;

impl<G: EngineGame> Default for Worker<G, G::Evaluator> {
    fn default() -> Self {
        Worker::new(Engine::default())
    }
}

impl<G: Game, E: Evaluator<G>> std::fmt::Debug for Worker<G, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("engine", &self.engine)
            .field("searching", &self.running.is_some())
            .finish()
    }
}

impl<G: Game, E: Evaluator<G> + 'static> Worker<G, E> {
    /// A worker searching with `engine`.
    #[must_use]
    pub fn new(engine: Engine<G, E>) -> Self {
        Worker {
            engine: Arc::new(engine),
            running: None,
        }
    }

    /// The engine (its settings can be read during a search).
    #[must_use]
    pub fn engine(&self) -> &Engine<G, E> {
        &self.engine
    }

    /// The engine, to change its settings: first waits for a running search to end
    /// (without stopping it).
    pub fn engine_mut(&mut self) -> &mut Engine<G, E> {
        self.wait();
        Arc::get_mut(&mut self.engine)
            .expect("only a search thread shares the engine, and it has been joined")
    }

    /// Whether a search is under way: started, and its answer not yet being delivered.
    #[must_use]
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished() && !r.answering.load(Ordering::SeqCst))
    }

    /// Whether a search has been started and not yet waited for.
    #[must_use]
    pub fn has_search(&self) -> bool {
        self.running.is_some()
    }

    /// Asks the running search to stop: it answers at once with the best move it has.
    pub fn stop(&self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::SeqCst);
            running.handle.thread().unpark();
        }
    }

    /// Waits until the running search, if any, has ended and delivered its answer.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            // The work runs under catch_unwind; a panic here came from a callback, and
            // the worker carries on without that thread either way.
            let _ = running.handle.join();
        }
    }

    /// If the running search has delivered its answer, waits for its thread (which is
    /// then quick) so a new search may start; returns whether none is left.
    pub fn reap(&mut self) -> bool {
        if self.running.is_some() && !self.is_searching() {
            self.wait();
        }
        self.running.is_none()
    }

    /// Starts searching `job` on a new thread, after waiting for the previous search to
    /// end (stop it first for that to be prompt). `on_event` gets the job's game and
    /// every [`Event`]: progress after each iteration, then one [`Event::Done`] with the
    /// answer. An error only if the thread cannot be started.
    pub fn start(
        &mut self,
        job: Job<G>,
        on_event: impl FnMut(&G, Event<G::Move>) + Send + 'static,
    ) -> std::io::Result<()> {
        let Job { game, limits, stop } = job;
        self.start_work(
            stop,
            move |engine, stop| {
                let mut on_event = on_event;
                let answer = engine.answer(&game, &limits, stop, |info| {
                    on_event(&game, Event::Progress(info.clone()));
                });
                if limits.infinite {
                    wait_for_stop(stop);
                }
                (game, on_event, answer)
            },
            |(game, mut on_event, answer)| on_event(&game, Event::Done(answer)),
        )
    }

    /// Runs `work` on a new search thread with the engine and `stop` (for work made of
    /// several searches, such as a multi-line analysis: it should search with
    /// [`Engine::answer`]), then hands its result to `deliver`. Waits for the previous
    /// search first. A panic in `work` is contained: nothing is delivered.
    pub fn start_work<R: Send + 'static>(
        &mut self,
        stop: Arc<AtomicBool>,
        work: impl FnOnce(&Engine<G, E>, &AtomicBool) -> R + Send + 'static,
        deliver: impl FnOnce(R) + Send + 'static,
    ) -> std::io::Result<()> {
        self.wait();
        let engine = Arc::clone(&self.engine);
        let answering = Arc::new(AtomicBool::new(false));
        let (thread_stop, thread_answering) = (Arc::clone(&stop), Arc::clone(&answering));
        let handle = std::thread::Builder::new()
            .name("engine-worker".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                let result = catch_unwind(AssertUnwindSafe(|| work(&engine, &thread_stop)));
                drop(engine);
                thread_answering.store(true, Ordering::SeqCst);
                if let Ok(result) = result {
                    deliver(result);
                }
            })?;
        self.running = Some(Running {
            handle,
            stop,
            answering,
        });
        Ok(())
    }

    /// Searches `game` on the worker's thread and waits for the answer (the caller's
    /// thread keeps its own small stack).
    pub fn think(&mut self, game: &G, limits: &Limits) -> std::io::Result<Answer<G::Move>> {
        let (tx, rx) = mpsc::channel();
        self.start(Job::new(game.clone(), *limits), move |_, event| {
            if let Event::Done(answer) = event {
                let _ = tx.send(answer);
            }
        })?;
        self.wait();
        rx.recv()
            .map_err(|_| std::io::Error::other("the search thread ended without an answer"))
    }
}

impl<G: Game, E: Evaluator<G>> Drop for Worker<G, E> {
    fn drop(&mut self) {
        if let Some(running) = self.running.take() {
            running.stop.store(true, Ordering::SeqCst);
            running.handle.thread().unpark();
            let _ = running.handle.join();
        }
    }
}

/// Blocks until `stop` is set (an infinite search answers only when told to).
fn wait_for_stop(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        std::thread::park_timeout(Duration::from_millis(50));
    }
}
