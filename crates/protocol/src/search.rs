//! Searches run on a worker thread, so a session keeps reading its input (`stop`,
//! `isready`, `quit`) while the engine thinks; and the results put into text in the
//! game's own notation.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use engine::{DEFAULT_HASH_MB, DefaultEngine, EngineGame, Level, Limits, Score, SearchInfo};
use game::Game;

/// Engine settings a protocol can change (UGI options, command-line flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineSettings {
    /// Playing level.
    pub level: Level,
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Seed of the lower levels' noise.
    pub seed: u64,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            level: Level::Maximum,
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            seed: 0,
        }
    }
}

/// The most transposition table a protocol may ask for (MB).
pub const MAX_HASH_MB: usize = 65_536;
/// The most search threads a protocol may ask for.
pub const MAX_THREADS: usize = 256;

/// One game type's engine, made when first needed (UGI: no large allocation before the
/// first `isready`) and kept between searches so its transposition table carries over.
pub(crate) struct EngineCell<G: EngineGame> {
    engine: Option<Arc<DefaultEngine<G>>>,
    applied: EngineSettings,
}

impl<G: EngineGame> Default for EngineCell<G> {
    fn default() -> Self {
        EngineCell {
            engine: None,
            applied: EngineSettings::default(),
        }
    }
}

impl<G: EngineGame> EngineCell<G> {
    /// The engine with `settings` applied, made if need be.
    pub(crate) fn get(&mut self, settings: &EngineSettings) -> Arc<DefaultEngine<G>> {
        if let Some(engine) = &mut self.engine
            && self.applied != *settings
        {
            match Arc::get_mut(engine) {
                Some(engine) => {
                    apply(engine, &self.applied, settings);
                    self.applied = *settings;
                }
                // Still held by a finished search's thread: start afresh.
                None => self.engine = None,
            }
        }
        if self.engine.is_none() {
            let mut engine = DefaultEngine::<G>::default();
            apply(&mut engine, &EngineSettings::default(), settings);
            self.engine = Some(Arc::new(engine));
            self.applied = *settings;
        }
        Arc::clone(self.engine.as_ref().expect("made above"))
    }

    /// Forgets what earlier searches stored (a new game).
    pub(crate) fn new_game(&mut self) {
        if let Some(engine) = self.engine.as_mut().and_then(Arc::get_mut) {
            engine.new_game();
        }
    }

    /// Frees the engine (another game is played now).
    pub(crate) fn release(&mut self) {
        self.engine = None;
    }
}

fn apply<G: EngineGame>(engine: &mut DefaultEngine<G>, old: &EngineSettings, new: &EngineSettings) {
    engine.set_level(new.level);
    engine.set_threads(new.threads);
    engine.set_seed(new.seed);
    if old.hash_mb != new.hash_mb {
        engine.set_hash_mb(new.hash_mb);
    }
}

/// Progress of a search, with the principal variation in the game's notation (moves
/// written with their captures).
pub type InfoText = engine::SearchInfo<String>;

/// What a search found, in the game's notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The move to play (`None` only when the game is over).
    pub best: Option<String>,
    /// Score for the side to move.
    pub score: Score,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Principal variation.
    pub pv: Vec<String>,
    /// Why the move did not come from the search itself, if it did not.
    pub note: Option<String>,
}

/// `pv` written move by move, each in the position it is played in; stops at the first
/// move that is not legal (a stale line).
pub(crate) fn pv_texts<G: Game>(game: &G, pv: &[G::Move]) -> Vec<String> {
    let mut scratch = game.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &mv in pv {
        if !scratch.is_legal(mv) {
            break;
        }
        out.push(scratch.format_move(mv));
        scratch.play(mv);
    }
    out
}

/// Searches `game` and writes the result as text. Never panics: a panic inside the engine
/// is caught and reported in [`Found::note`], and a search stopped before it had any move
/// (a stop or a zero time limit straight away) is completed by a one-ply search so a
/// legal, sensible move is always returned while the game is not over.
pub(crate) fn search_texts<G: EngineGame>(
    game: &G,
    engine: &DefaultEngine<G>,
    limits: &Limits,
    stop: &AtomicBool,
    mut on_info: impl FnMut(InfoText),
) -> Found {
    let run = catch_unwind(AssertUnwindSafe(|| {
        engine.search(game, limits, stop, |info: &SearchInfo<G::Move>| {
            on_info(InfoText {
                depth: info.depth,
                seldepth: info.seldepth,
                score: info.score,
                nodes: info.nodes,
                nps: info.nps,
                time: info.time,
                hashfull: info.hashfull,
                pv: pv_texts(game, &info.pv),
            });
        })
    }));
    let mut note = None;
    let result = match run {
        Ok(result) => Some(result),
        Err(_) => {
            note = Some("the search failed; playing the one-ply choice".to_owned());
            None
        }
    };
    if let Some(result) = &result
        && let Some(best) = result.best_move
        && game.is_legal(best)
    {
        let pv = pv_texts(game, &result.pv);
        return Found {
            best: Some(game.format_move(best)),
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            pv,
            note,
        };
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    if moves.is_empty() {
        return Found {
            best: None,
            score: result.map_or(Score::DRAW, |r| r.score),
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            note,
        };
    }
    // The engine returns no move when stopped before its first iteration completed: a
    // one-ply search takes milliseconds and gives a sensible move instead.
    let quick = catch_unwind(AssertUnwindSafe(|| {
        engine.search(game, &Limits::depth(1), &AtomicBool::new(false), |_| {})
    }))
    .ok()
    .and_then(|r| {
        r.best_move
            .filter(|&mv| game.is_legal(mv))
            .map(|mv| (mv, r.score))
    });
    let note = note.or_else(|| Some("stopped before the first iteration; one-ply choice".into()));
    let (mv, score) = quick.unwrap_or((moves[0], Score::DRAW));
    Found {
        best: Some(game.format_move(mv)),
        score,
        depth: 1,
        nodes: 0,
        pv: vec![game.format_move(mv)],
        note,
    }
}

/// A search running on its own thread.
pub(crate) struct Running {
    handle: JoinHandle<()>,
    control: Arc<Control>,
}

/// What a search thread shares with its session.
pub(crate) struct Control {
    /// Set by the session to end the search.
    pub(crate) stop: AtomicBool,
    /// Set by the thread just before it writes its answer: from then on the session may
    /// wait for the thread instead of treating the search as under way (a peer that has
    /// read the answer may send its next command before the thread has quite ended).
    answering: AtomicBool,
}

impl Control {
    /// Marks that the answer is being written.
    pub(crate) fn answering(&self) {
        self.answering.store(true, Ordering::SeqCst);
    }
}

/// Stack for search threads: the engine's own helpers use the same.
const SEARCH_STACK: usize = 16 << 20;

impl Running {
    /// Runs `work` on a new search thread.
    pub(crate) fn spawn(
        name: &str,
        work: impl FnOnce(&Control) + Send + 'static,
    ) -> std::io::Result<Running> {
        let control = Arc::new(Control {
            stop: AtomicBool::new(false),
            answering: AtomicBool::new(false),
        });
        let shared = Arc::clone(&control);
        let handle = std::thread::Builder::new()
            .name(name.to_owned())
            .stack_size(SEARCH_STACK)
            .spawn(move || work(&shared))?;
        Ok(Running { handle, control })
    }

    /// Whether the thread has ended or is writing its answer (so joining it is quick).
    pub(crate) fn is_done(&self) -> bool {
        self.handle.is_finished() || self.control.answering.load(Ordering::SeqCst)
    }

    /// Asks the search to stop (and wakes a thread waiting for the stop).
    pub(crate) fn stop(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
        self.handle.thread().unpark();
    }

    /// Waits for the thread to end.
    pub(crate) fn join(self) {
        // The work catches the engine's panics itself; a panic here would be in our own
        // output code, and the session carries on without the thread either way.
        let _ = self.handle.join();
    }
}

/// Blocks until `stop` is set: an infinite search reports its move only when told to.
pub(crate) fn wait_for_stop(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        std::thread::park_timeout(Duration::from_millis(50));
    }
}
