//! The search: iterative deepening, principal-variation alpha-beta with aspiration
//! windows, quiescence over each game's forcing moves, and Lazy SMP (every thread
//! searches the same root and they share the transposition table).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use game::Game;

use crate::eval::{EngineGame, Evaluator, Threats};
use crate::level::{Level, LevelSettings};
use crate::limits::{Limits, TimeBudget};
use crate::score::{MAX_PLY, Score, from_tt, to_tt};
use crate::tt::{Bound, TableAllocError, TranspositionTable};

/// Progress after each completed iteration, for printing (`info depth …`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo<M> {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The deepest ply reached, extensions and quiescence included.
    pub seldepth: u32,
    /// The score for the side to move.
    pub score: Score,
    /// Nodes searched so far, all threads.
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation, first move first.
    pub pv: Vec<M>,
    /// Thousandths of the transposition table in use.
    pub hashfull: u32,
    /// The best lines, best first, as many as asked ([`Engine::set_multi_pv`]) and the
    /// position has moves: the first is `score` and `pv`. Each later line is the best
    /// line that starts with a move none of the earlier ones starts with.
    pub lines: Vec<PvLine<M>>,
}

/// One of the lines a multi-line search reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine<M> {
    /// The score for the side to move.
    pub score: Score,
    /// The line, first move first.
    pub pv: Vec<M>,
}

/// The most lines one search reports ([`Engine::set_multi_pv`]).
pub const MAX_MULTI_PV: usize = 8;

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    /// The move to play (`None` only when the game is over).
    pub best_move: Option<M>,
    /// The score for the side to move.
    pub score: Score,
    /// The deepest completed iteration.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched, all threads.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// The principal variation (starting with `best_move`).
    pub pv: Vec<M>,
}

impl<M> SearchResult<M> {
    /// Nodes per second.
    #[must_use]
    pub fn nps(&self) -> u64 {
        nps(self.nodes, self.time)
    }
}

fn nps(nodes: u64, time: Duration) -> u64 {
    (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64
}

/// An engine for one game: an evaluation, a transposition table (kept between moves of a
/// game), a thread count and a level. `Send + Sync`; one search at a time per engine.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::AtomicBool;
/// use engine::{DefaultEngine, Limits};
/// use game::Game;
/// use tafl::{Rules, Tafl};
///
/// let game = Tafl::new(Rules::COPENHAGEN);
/// let engine = DefaultEngine::<Tafl>::default();
/// let stop = Arc::new(AtomicBool::new(false)); // another thread may set it
/// let mut depths = Vec::new();
/// let result = engine.search(&game, &Limits::depth(2), &stop, |info| depths.push(info.depth));
/// assert_eq!(depths, [1, 2]);
/// assert!(game.is_legal(result.best_move.unwrap()));
/// assert_eq!(result.pv[0], result.best_move.unwrap());
/// ```
pub struct Engine<G: Game, E: Evaluator<G>> {
    eval: E,
    tt: TranspositionTable,
    threads: usize,
    level: Level,
    /// Set apart from the level's (analysis: 0).
    contempt: Option<i32>,
    seed: u64,
    multi_pv: usize,
    _game: PhantomData<fn(&G)>,
}

/// The engine with a game's default evaluation.
pub type DefaultEngine<G> = Engine<G, <G as EngineGame>::Evaluator>;

impl<G: EngineGame> Default for Engine<G, G::Evaluator> {
    fn default() -> Self {
        Engine::new(G::Evaluator::default())
    }
}

impl<G: Game, E: Evaluator<G>> std::fmt::Debug for Engine<G, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("threads", &self.threads)
            .field("level", &self.level)
            .field("tt", &self.tt)
            .finish_non_exhaustive()
    }
}

/// The transposition table size unless set otherwise.
pub const DEFAULT_HASH_MB: usize = 64;
/// The largest transposition table a front end offers (MB).
pub const MAX_HASH_MB: usize = 65_536;

impl<G: Game, E: Evaluator<G>> Engine<G, E> {
    /// An engine with `eval`, one thread, a 64 MB table, full strength.
    #[must_use]
    pub fn new(eval: E) -> Self {
        Engine {
            eval,
            tt: TranspositionTable::new(DEFAULT_HASH_MB),
            threads: 1,
            level: Level::Maximum,
            contempt: None,
            seed: 0,
            multi_pv: 1,
            _game: PhantomData,
        }
    }

    /// The evaluation.
    pub fn evaluator(&self) -> &E {
        &self.eval
    }

    /// Searches with `threads` threads (at least 1).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The number of search threads.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Replaces the transposition table by an empty one of about `megabytes` MB.
    ///
    /// # Panics
    ///
    /// If the memory cannot be had: [`Engine::try_set_hash_mb`] is for sizes that come
    /// from a user.
    pub fn set_hash_mb(&mut self, megabytes: usize) {
        self.tt = TranspositionTable::new(megabytes);
    }

    /// Replaces the transposition table by an empty one of about `megabytes` MB, or, if
    /// that much memory cannot be had, keeps the table it has and says so.
    ///
    /// ```
    /// use engine::DefaultEngine;
    /// let mut engine = DefaultEngine::<tafl::Tafl>::default();
    /// engine.try_set_hash_mb(2)?;
    /// assert_eq!(engine.hash_mb(), 2);
    /// assert!(engine.try_set_hash_mb(usize::MAX / 4).is_err());
    /// assert_eq!(engine.hash_mb(), 2, "the old table is kept");
    /// # Ok::<(), engine::tt::TableAllocError>(())
    /// ```
    pub fn try_set_hash_mb(&mut self, megabytes: usize) -> Result<(), TableAllocError> {
        self.tt = TranspositionTable::try_new(megabytes)?;
        Ok(())
    }

    /// The size of the transposition table in MB (rounded down).
    #[must_use]
    pub fn hash_mb(&self) -> usize {
        self.tt.megabytes()
    }

    /// Plays at `level` from now on.
    pub fn set_level(&mut self, level: Level) {
        self.level = level;
    }

    /// The level.
    #[must_use]
    pub fn level(&self) -> Level {
        self.level
    }

    /// Scores a draw `contempt` worse than an even position for the side searched for
    /// (and as much better for the other), instead of the level's
    /// ([`Level::contempt`]); `None`: the level's. Analysis wants 0, the game's own
    /// value of a draw.
    pub fn set_contempt(&mut self, contempt: Option<i32>) {
        self.contempt = contempt;
    }

    /// The seed of the lower levels' noise: give each game its own (a game id) so games
    /// differ, and the same seed to replay a game exactly.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// Reports the best `lines` lines (1 to [`MAX_MULTI_PV`]) after each iteration, each
    /// searched to the iteration's depth ([`SearchInfo::lines`]). More lines cost more
    /// time per depth. Only at full strength: a lower level reports one line.
    pub fn set_multi_pv(&mut self, lines: usize) {
        self.multi_pv = lines.clamp(1, MAX_MULTI_PV);
    }

    /// How many lines a search reports.
    #[must_use]
    pub fn multi_pv(&self) -> usize {
        self.multi_pv
    }

    /// Forgets what earlier searches stored (start of a new game).
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Searches `game` within `limits` (and the level's), calling `info` after each
    /// completed iteration, until a limit is reached or `stop` is set (from any thread).
    /// Returns at once with no move if the game is over.
    pub fn search(
        &self,
        game: &G,
        limits: &Limits,
        stop: &AtomicBool,
        mut info: impl FnMut(&SearchInfo<G::Move>),
    ) -> SearchResult<G::Move> {
        let start = Instant::now();
        let mut settings = self.level.settings();
        settings.contempt = self
            .contempt
            .unwrap_or_else(|| self.level.contempt(game.kind()));
        let budget = limits.budget(game.to_move());
        let node_limit = min_opt(limits.nodes, settings.nodes);
        let max_depth = min_opt(limits.depth, settings.depth)
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH);
        self.tt.new_search();
        let shared = Shared {
            tt: &self.tt,
            external_stop: stop,
            abort: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            start,
            budget,
            node_limit,
        };
        let threads = self.threads;
        let (main, helpers) = std::thread::scope(|scope| {
            let handles: Vec<_> = (1..threads)
                .map(|id| {
                    let shared = &shared;
                    std::thread::Builder::new()
                        .name(format!("search-{id}"))
                        .stack_size(16 << 20)
                        .spawn_scoped(scope, move || {
                            // A helper that fails ends the search rather than leaving the
                            // main thread to search on alone.
                            let _abort = AbortOnDrop {
                                flag: &shared.abort,
                                only_on_panic: true,
                            };
                            let mut worker =
                                Worker::new(id, game, &self.eval, shared, settings, self.seed);
                            worker.iterate(max_depth, &mut |_| {})
                        })
                        .expect("spawning a search thread")
                })
                .collect();
            // The helpers end when the main thread does, even if it panics.
            let abort = AbortOnDrop {
                flag: &shared.abort,
                only_on_panic: false,
            };
            let mut worker = Worker::new(0, game, &self.eval, &shared, settings, self.seed);
            // The helpers search the best line only; a lower level chooses among moves.
            if settings.margin == 0 {
                worker.multi_pv = self.multi_pv;
            }
            let main = worker.iterate(max_depth, &mut info);
            drop(abort);
            let helpers: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("a search thread panicked"))
                .collect();
            (main, helpers)
        });
        let nodes = main.nodes + helpers.iter().map(|h| h.nodes).sum::<u64>();
        // A helper that completed a deeper iteration knows more than the main thread.
        let mut best = &main;
        for helper in &helpers {
            if helper.depth > best.depth && !helper.pv.is_empty() && settings.margin == 0 {
                best = helper;
            }
        }
        let mut pv = best.pv.clone();
        let mut score = best.score;
        if settings.margin > 0
            && let Some((mv, s)) =
                choose_within_margin(&main.root, settings.margin, self.seed ^ game.hash())
            && pv.first() != Some(&mv)
        {
            pv = vec![mv];
            score = s;
        }
        SearchResult {
            best_move: pv.first().copied(),
            score: Score(score),
            depth: best.depth,
            seldepth: best.seldepth,
            nodes,
            time: start.elapsed(),
            pv,
        }
    }
}

/// The lines of the last iteration after the best line changed in an interrupted one:
/// the new best line first, then the others that do not start with its move.
fn lines_after_change<M: Copy + PartialEq>(
    lines: &[(i32, Vec<M>)],
    score: i32,
    pv: &[M],
) -> Vec<(i32, Vec<M>)> {
    let mut out = vec![(score, pv.to_vec())];
    out.extend(
        lines
            .iter()
            .filter(|(_, line)| line.first() != pv.first())
            .take(lines.len().saturating_sub(1))
            .cloned(),
    );
    out
}

/// Sets its flag when dropped: on unwinding, and with `only_on_panic` false on return
/// as well.
struct AbortOnDrop<'a> {
    flag: &'a AtomicBool,
    only_on_panic: bool,
}

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        if !self.only_on_panic || std::thread::panicking() {
            self.flag.store(true, Ordering::Relaxed);
        }
    }
}

fn min_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A lower level's choice: a move whose exact score is within `margin` of the best,
/// better moves more likely. A forced win is never given up.
fn choose_within_margin<M: Copy>(
    root: &[RootScore<M>],
    margin: i32,
    seed: u64,
) -> Option<(M, i32)> {
    let best = root.iter().filter(|r| r.exact).map(|r| r.score).max()?;
    if best >= Score::WIN_BOUND {
        return None;
    }
    let candidates: Vec<(M, i32, u64)> = root
        .iter()
        .filter(|r| r.exact && r.score >= best - margin)
        .map(|r| {
            let closeness = (margin - (best - r.score) + 1) as u64;
            (r.mv, r.score, closeness * closeness)
        })
        .collect();
    let total: u64 = candidates.iter().map(|c| c.2).sum();
    let mut pick = splitmix(seed) % total.max(1);
    for (mv, score, weight) in candidates {
        if pick < weight {
            return Some((mv, score));
        }
        pick -= weight;
    }
    None
}

/// SplitMix64's output for `x`: a good 64-bit mix for noise and choices, no state.
pub(crate) fn splitmix(x: u64) -> u64 {
    game::splitmix64(x).1
}

/// Iterations go no deeper than this.
pub const MAX_DEPTH: u32 = 64;

struct Shared<'a> {
    tt: &'a TranspositionTable,
    external_stop: &'a AtomicBool,
    abort: AtomicBool,
    nodes: AtomicU64,
    start: Instant,
    budget: TimeBudget,
    node_limit: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
struct RootScore<M> {
    mv: M,
    score: i32,
    /// The score is exact (inside the window), not a bound.
    exact: bool,
}

struct WorkerResult<M> {
    depth: u32,
    seldepth: u32,
    score: i32,
    pv: Vec<M>,
    nodes: u64,
    root: Vec<RootScore<M>>,
    /// The best lines of the last iteration (score, line), best first.
    lines: Vec<(i32, Vec<M>)>,
}

#[derive(Clone, Copy, Debug)]
struct Scored<M> {
    mv: M,
    key: i32,
    index: u16,
    /// The evaluator named it a capture or threat: never reduced or pruned.
    tactical: bool,
}

struct RootMove<M> {
    mv: M,
    index: u16,
    score: i32,
    /// What `score` is, from the last time this move was searched.
    bound: Bound,
    /// The attempt (iteration and aspiration window) in which it was last searched.
    attempt: u32,
    pv: Vec<M>,
}

// Move-ordering keys: the hash move, then tactical moves (the evaluator's bonus), then
// killers, then quiet moves by history.
const KEY_HASH: i32 = i32::MAX;
const KEY_TACTICAL: i32 = 1 << 24;
const KEY_KILLER: [i32; 2] = [(1 << 23) + 1, 1 << 23];
const HISTORY_MAX: i32 = 16_384;

/// What the side to move faces at a node ([`Threats`] without the winning move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pressure {
    /// The opponent wins next move unless answered: only answers are searched.
    Danger,
    /// The opponent has a move that threatens two wins at once: the node is extended.
    Looming,
    None,
}

/// A staged node's forcing move in the table: this bit pattern or its index
/// (`Worker::staged_code`).
const STAGED_FORCING: u16 = 0xFF00;

/// Moves `Worker::pick` finds by selection before it sorts the rest.
const PICK_SELECT: usize = 3;

/// Futility pruning: whether a quiet move (below the killers) at a node `depth` plies
/// from the horizon cannot lift a static score `static_eval` to `alpha`.
fn futile(depth: i32, static_eval: i32, alpha: i32) -> bool {
    depth <= 3 && static_eval + 100 + 110 * depth <= alpha
}

/// Nodes between two looks at the clock and the stop flags.
const POLL_INTERVAL: u64 = 1024;
/// Quiescence plies, and those of them in which threats are answered by all moves.
const QS_MAX: usize = 12;

struct Worker<'a, G: Game, E: Evaluator<G>> {
    id: usize,
    game: G,
    eval: &'a E,
    shared: &'a Shared<'a>,
    settings: LevelSettings,
    seed: u64,
    nodes: u64,
    flushed: u64,
    seldepth: usize,
    aborted: bool,
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
    history_size: usize,
    pv: Vec<Vec<G::Move>>,
    generated: Vec<Vec<G::Move>>,
    ordered: Vec<Vec<Scored<G::Move>>>,
    bonuses: Vec<Vec<i32>>,
    quiets: Vec<Vec<usize>>,
    keep: Vec<bool>,
    root: Vec<RootMove<G::Move>>,
    /// With staged moves: how many of the root's moves are forcing (they come first).
    root_forcing: usize,
    attempt: u32,
    /// Lines to search in each iteration (the main thread; 1 for helpers).
    multi_pv: usize,
    /// The root moves before this one are the lines already searched in this
    /// iteration: the root search looks only at the rest.
    pv_start: usize,
    lmr: Vec<[u8; 64]>,
    /// What the evaluation keeps between calls ([`Evaluator::evaluate_with`]).
    memo: E::Memo,
}

impl<'a, G: Game, E: Evaluator<G>> Worker<'a, G, E> {
    fn new(
        id: usize,
        game: &G,
        eval: &'a E,
        shared: &'a Shared<'a>,
        settings: LevelSettings,
        seed: u64,
    ) -> Self {
        let history_size = eval.history_size();
        let lmr = (0..64)
            .map(|depth| {
                let mut row = [0u8; 64];
                for (count, r) in row.iter_mut().enumerate() {
                    if depth > 0 && count > 0 {
                        let x = 0.5 + (depth as f64).ln() * (count as f64).ln() / 2.5;
                        *r = x as u8;
                    }
                }
                row
            })
            .collect();
        Worker {
            id,
            game: game.clone(),
            eval,
            shared,
            settings,
            seed,
            nodes: 0,
            flushed: 0,
            seldepth: 0,
            aborted: false,
            killers: vec![[None; 2]; MAX_PLY + 2],
            history: vec![0; 2 * history_size],
            history_size,
            pv: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(32)).collect(),
            generated: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(256)).collect(),
            ordered: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(256)).collect(),
            bonuses: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(256)).collect(),
            quiets: (0..MAX_PLY + 2).map(|_| Vec::with_capacity(64)).collect(),
            keep: Vec::with_capacity(256),
            root: Vec::new(),
            root_forcing: 0,
            attempt: 0,
            multi_pv: 1,
            pv_start: 0,
            lmr,
            memo: E::Memo::default(),
        }
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Looks at the flags and (main thread) the clock; true once the search must end.
    fn poll(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes - self.flushed < POLL_INTERVAL {
            return false;
        }
        let total = self
            .shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed)
            + (self.nodes - self.flushed);
        self.flushed = self.nodes;
        if self.shared.abort.load(Ordering::Relaxed) {
            self.aborted = true;
        } else if self.is_main() {
            let out_of_time = self
                .shared
                .budget
                .hard
                .is_some_and(|hard| self.shared.start.elapsed() >= hard);
            let out_of_nodes = self.shared.node_limit.is_some_and(|limit| total >= limit);
            if out_of_time || out_of_nodes || self.shared.external_stop.load(Ordering::Relaxed) {
                self.aborted = true;
                self.shared.abort.store(true, Ordering::Relaxed);
            }
        }
        self.aborted
    }

    /// A draw reached `ply` plies from the root, for the side to move there: a little
    /// worse than even for the side the search plays (the side to move at even plies)
    /// and as much better for its opponent, by the level's contempt.
    fn draw_score(&self, ply: usize) -> i32 {
        if ply.is_multiple_of(2) {
            Score::DRAW.0 - self.settings.contempt
        } else {
            Score::DRAW.0 + self.settings.contempt
        }
    }

    fn static_eval(&mut self) -> i32 {
        let eval = self.eval.evaluate_with(&self.game, &mut self.memo);
        if self.settings.noise == 0 {
            return eval;
        }
        let span = 2 * self.settings.noise as u64 + 1;
        eval + (splitmix(self.game.hash() ^ self.seed) % span) as i32 - self.settings.noise
    }

    fn iterate(
        &mut self,
        max_depth: u32,
        info: &mut dyn FnMut(&SearchInfo<G::Move>),
    ) -> WorkerResult<G::Move> {
        let mut result = WorkerResult {
            depth: 0,
            seldepth: 0,
            score: 0,
            pv: Vec::new(),
            nodes: 0,
            root: Vec::new(),
            lines: Vec::new(),
        };
        let to_move = self.game.to_move();
        if let Some(outcome) = self.game.outcome() {
            result.score = Score::of_outcome(outcome, to_move, 0).0;
            return result;
        }
        let mut moves = Vec::new();
        if self.eval.staged_moves() {
            // In the order inner nodes index their moves (forcing ones first), so that
            // the move the root stores means the same move where the root position
            // comes again in the tree.
            self.eval.forcing_moves(&self.game, false, &mut moves);
            self.root_forcing = moves.len();
            self.eval.quiet_moves(&self.game, &mut moves);
        } else {
            self.game.legal_moves(&mut moves);
        }
        if moves.is_empty() {
            result.score = Score::loss_in(0).0;
            return result;
        }
        if let Some(mv) = self.eval.winning_move(&self.game) {
            self.nodes += 1;
            result.depth = 1;
            result.score = Score::win_in(1).0;
            result.pv = vec![mv];
            result.nodes = self.nodes;
            result.root = vec![RootScore {
                mv,
                score: result.score,
                exact: true,
            }];
            result.lines = vec![(result.score, result.pv.clone())];
            if self.is_main() {
                self.report(&result, info);
            }
            return result;
        }
        let mut bonuses = vec![0; moves.len()];
        self.eval.tactical_scores(&self.game, &moves, &mut bonuses);
        self.root = moves
            .iter()
            .zip(&bonuses)
            .enumerate()
            .map(|(i, (&mv, &bonus))| RootMove {
                mv,
                index: i as u16,
                score: bonus,
                bound: Bound::Upper,
                attempt: 0,
                pv: vec![mv],
            })
            .collect();
        self.root.sort_by_key(|r| std::cmp::Reverse(r.score));
        if self.id > 0 {
            // Helpers start from a different order so the threads diverge.
            let n = self.root.len();
            self.root[..n.min(4)].rotate_left(self.id % n.min(4));
        }

        let mut stable_iterations = 0;
        for iteration in 1..=max_depth {
            let depth = if self.id % 2 == 1 {
                (iteration + 1).min(max_depth)
            } else {
                iteration
            } as i32;
            self.seldepth = 0;
            let previous_best = result.pv.first().copied();
            let (score, completed) = self.aspiration(depth, result.score, iteration);
            if !completed {
                // The interrupted iteration searched the old best move first: a move that
                // then scored inside the window, or above it, is better.
                if let Some(better) = self
                    .root
                    .iter()
                    .filter(|r| r.attempt == self.attempt && r.bound != Bound::Upper)
                    .max_by_key(|r| r.score)
                    && result.depth > 0
                    && Some(better.mv) != previous_best
                {
                    result.pv = better.pv.clone();
                    result.score = better.score;
                    result.lines = lines_after_change(&result.lines, result.score, &result.pv);
                }
                break;
            }
            result.depth = depth as u32;
            result.seldepth = self.seldepth as u32;
            result.score = score;
            result.pv = self.root[0].pv.clone();
            result.root = self
                .root
                .iter()
                .map(|r| RootScore {
                    mv: r.mv,
                    score: r.score,
                    exact: r.bound == Bound::Exact,
                })
                .collect();
            let completed = self.more_lines(depth, iteration, &result.lines);
            let shown = self.multi_pv.min(self.root.len());
            result.lines = if completed && shown > 1 {
                // Best first: a later line, searched with a full window, may score above
                // the first (whose rivals had only bounds): it is then the best line.
                self.root[..shown].sort_by_key(|r| std::cmp::Reverse(r.score));
                result.score = self.root[0].score;
                result.pv = self.root[0].pv.clone();
                self.root[..shown]
                    .iter()
                    .map(|r| (r.score, r.pv.clone()))
                    .collect()
            } else if completed {
                vec![(score, result.pv.clone())]
            } else {
                lines_after_change(&result.lines, score, &result.pv)
            };
            if result.pv.first().copied() == previous_best {
                stable_iterations += 1;
            } else {
                stable_iterations = 0;
            }
            if !self.is_main() {
                if self.shared.abort.load(Ordering::Relaxed) {
                    break;
                }
                continue;
            }
            result.nodes = self.nodes;
            self.report(&result, info);
            if !completed || self.should_stop_iterating(&result, stable_iterations) {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    fn report(&self, result: &WorkerResult<G::Move>, info: &mut dyn FnMut(&SearchInfo<G::Move>)) {
        let time = self.shared.start.elapsed();
        let nodes = self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed);
        info(&SearchInfo {
            depth: result.depth,
            seldepth: result.seldepth.max(result.depth),
            score: Score(result.score),
            nodes,
            nps: nps(nodes, time),
            time,
            pv: result.pv.clone(),
            hashfull: self.shared.tt.permille_full(),
            lines: result
                .lines
                .iter()
                .map(|(score, pv)| PvLine {
                    score: Score(*score),
                    pv: pv.clone(),
                })
                .collect(),
        });
    }

    /// After the best line of an iteration: the next best lines to the same depth, each
    /// among the root moves the earlier lines do not start with (multi-PV). False when
    /// the search was stopped before they were all searched.
    fn more_lines(&mut self, depth: i32, iteration: u32, last: &[(i32, Vec<G::Move>)]) -> bool {
        let shown = self.multi_pv.min(self.root.len());
        for k in 1..shown {
            self.pv_start = k;
            let previous = last.get(k).map_or(self.root[k].score, |line| line.0);
            let (_, completed) = self.aspiration(depth, previous, iteration);
            self.pv_start = 0;
            if !completed {
                return false;
            }
        }
        true
    }

    fn should_stop_iterating(&self, result: &WorkerResult<G::Move>, stable: u32) -> bool {
        if self.shared.external_stop.load(Ordering::Relaxed) {
            return true;
        }
        // A win found within the full-width depth needs no deeper search. (A loss may
        // still be put off by a move the shallower search pruned: keep looking.)
        if let Some(plies) = Score(result.score).plies_to_end()
            && plies > 0
            && plies.unsigned_abs() <= result.depth
        {
            return true;
        }
        if self.root.len() == 1 && self.shared.budget.soft.is_some() {
            return true;
        }
        if let Some(soft) = self.shared.budget.soft {
            // The next iteration takes several times as long as this one: start it only
            // when it can finish, and sooner give up when the best move keeps changing.
            let share = match stable {
                0 => 0.7,
                1 => 0.5,
                _ => 0.35,
            };
            return self.shared.start.elapsed().as_secs_f64() >= soft.as_secs_f64() * share;
        }
        false
    }

    /// One iteration, in a window around the last score that widens on failure.
    fn aspiration(&mut self, depth: i32, last: i32, iteration: u32) -> (i32, bool) {
        let mut delta = 30;
        let (mut alpha, mut beta) =
            if iteration >= 4 && self.settings.margin == 0 && !Score(last).is_decisive() {
                (last - delta, last + delta)
            } else {
                (-Score::INFINITE, Score::INFINITE)
            };
        loop {
            let score = self.root_search(depth, alpha, beta);
            if self.aborted {
                return (score, false);
            }
            if score <= alpha && alpha > -Score::INFINITE {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-Score::INFINITE);
            } else if score >= beta && beta < Score::INFINITE {
                beta = (score + delta).min(Score::INFINITE);
            } else {
                return (score, true);
            }
            delta *= 2;
            if delta > 1000 {
                alpha = -Score::INFINITE;
                beta = Score::INFINITE;
            }
        }
    }

    fn root_search(&mut self, depth: i32, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        self.attempt += 1;
        let margin = self.settings.margin;
        let window_alpha = alpha;
        let mut best = -Score::INFINITE;
        let mut best_index = None;
        let first = self.pv_start;
        for i in first..self.root.len() {
            let mv = self.root[i].mv;
            // A lower level wants exact scores for every move near the best, to choose
            // among them.
            let floor = if margin > 0 && best > -Score::INFINITE {
                (best - margin).max(window_alpha)
            } else {
                alpha
            };
            self.game.play(mv);
            let mut score;
            if i == first {
                score = -self.search(depth - 1, 1, -beta, -floor);
            } else {
                score = -self.search(depth - 1, 1, -floor - 1, -floor);
                if score > floor && score < beta && !self.aborted {
                    score = -self.search(depth - 1, 1, -beta, -floor);
                }
            }
            self.game.undo();
            if self.aborted {
                break;
            }
            let root = &mut self.root[i];
            root.score = score;
            root.attempt = self.attempt;
            root.bound = if score >= beta {
                Bound::Lower
            } else if score > floor {
                Bound::Exact
            } else {
                Bound::Upper
            };
            if score > floor {
                root.pv.clear();
                root.pv.push(mv);
                root.pv.extend_from_slice(&self.pv[1]);
            }
            if score > best {
                best = score;
                let index = root.index;
                best_index = if self.eval.staged_moves() {
                    self.staged_code(self.root_forcing, usize::from(index), mv)
                } else {
                    Some(index)
                };
                if score > alpha {
                    alpha = score;
                }
                if score >= beta {
                    break;
                }
            }
        }
        // Best first; the rest keep their order among equals (the lines already searched
        // in this iteration stay where they are).
        self.root[first..].sort_by_key(|r| std::cmp::Reverse(r.score));
        // The best of the moves after the first lines is not the position's best.
        if !self.aborted && first == 0 {
            let bound = if best >= beta {
                Bound::Lower
            } else if best_index.is_some() && best > -Score::INFINITE {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let eval = self.eval.evaluate(&self.game);
            self.shared.tt.store(
                self.game.hash(),
                best_index,
                to_tt(best, 0),
                eval,
                depth,
                bound,
            );
        }
        best
    }

    /// How a staged node stores its best move in the table: the `index`-th forcing
    /// move as `STAGED_FORCING | index`, a quiet one by its key
    /// ([`Evaluator::quiet_move_key`]), so that a quiet hash move can be found without
    /// generating every quiet move.
    fn staged_code(&self, forcing_count: usize, index: usize, mv: G::Move) -> Option<u16> {
        if index < forcing_count {
            (index < usize::from(!STAGED_FORCING)).then_some(STAGED_FORCING | index as u16)
        } else {
            self.eval
                .quiet_move_key(&self.game, mv)
                .filter(|&key| key < STAGED_FORCING)
        }
    }

    /// Appends to `out` the killers of `ply` that are legal quiet moves here, best
    /// first, but `hash_quiet` (already searched): true. False, with `out` as it was,
    /// when a killer has no quiet-move key, so that its legality cannot be checked
    /// without generating every quiet move.
    fn legal_quiet_killers(
        &self,
        ply: usize,
        hash_quiet: Option<G::Move>,
        out: &mut Vec<G::Move>,
    ) -> bool {
        let start = out.len();
        for killer in self.killers[ply].into_iter().flatten() {
            let Some(key) = self.eval.quiet_move_key(&self.game, killer) else {
                out.truncate(start);
                return false;
            };
            if Some(killer) != hash_quiet
                && self.eval.quiet_move_from_key(&self.game, key) == Some(killer)
            {
                out.push(killer);
            }
        }
        true
    }

    /// Fills the ordering keys of `ordered` from the generated moves.
    /// In danger, only the moves the evaluator names as answers to the threat are kept
    /// (the others lose at once).
    fn order(&mut self, ply: usize, hash_index: Option<u16>, in_danger: bool) {
        let moves = std::mem::take(&mut self.generated[ply]);
        let mut bonuses = std::mem::take(&mut self.bonuses[ply]);
        let mut ordered = std::mem::take(&mut self.ordered[ply]);
        let mut keep = std::mem::take(&mut self.keep);
        ordered.clear();
        if in_danger {
            keep.clear();
            keep.resize(moves.len(), true);
            self.eval.mark_evasions(&self.game, &moves, &mut keep);
        }
        bonuses.clear();
        bonuses.resize(moves.len(), 0);
        self.eval.tactical_scores(&self.game, &moves, &mut bonuses);
        let side = self.game.to_move().index() * self.history_size;
        let killers = self.killers[ply];
        for (i, (&mv, &bonus)) in moves.iter().zip(&bonuses).enumerate() {
            if in_danger && !keep[i] {
                continue;
            }
            let key = if Some(i as u16) == hash_index {
                KEY_HASH
            } else if bonus > 0 {
                KEY_TACTICAL + bonus
            } else {
                self.quiet_key(mv, killers, side)
            };
            ordered.push(Scored {
                mv,
                key,
                index: i as u16,
                tactical: bonus > 0,
            });
        }
        self.generated[ply] = moves;
        self.bonuses[ply] = bonuses;
        self.ordered[ply] = ordered;
        self.keep = keep;
    }

    /// The ordering key of a move that is neither the hash move nor tactical: a killer's
    /// rank, or the history of `side` (its offset in `history`) for the move.
    fn quiet_key(&self, mv: G::Move, killers: [Option<G::Move>; 2], side: usize) -> i32 {
        if Some(mv) == killers[0] {
            KEY_KILLER[0]
        } else if Some(mv) == killers[1] {
            KEY_KILLER[1]
        } else {
            self.history[side + self.eval.history_key(&self.game, mv)]
        }
    }

    /// Appends to `ordered` the ordering keys of the quiet moves of a staged node, the
    /// generated moves in `range` but `skip` (the hash move, already searched): what
    /// [`Worker::order`] gives them, without asking for tactical bonuses, as the
    /// staged generation's quiet moves have none ([`Evaluator::staged_moves`]).
    fn order_quiets(&mut self, ply: usize, range: std::ops::Range<usize>, skip: Option<u16>) {
        let moves = std::mem::take(&mut self.generated[ply]);
        let mut ordered = std::mem::take(&mut self.ordered[ply]);
        let side = self.game.to_move().index() * self.history_size;
        let killers = self.killers[ply];
        ordered.reserve(range.len());
        for i in range {
            if Some(i as u16) == skip {
                continue;
            }
            let mv = moves[i];
            let key = self.quiet_key(mv, killers, side);
            ordered.push(Scored {
                mv,
                key,
                index: i as u16,
                tactical: false,
            });
        }
        self.generated[ply] = moves;
        self.ordered[ply] = ordered;
    }

    /// Moves the best remaining move to `i`: a selection step for the first few (a cut
    /// comes early in most nodes), one sort for the rest.
    fn pick(list: &mut [Scored<G::Move>], i: usize) {
        const SELECT: usize = PICK_SELECT;
        if i < SELECT {
            let mut best = i;
            for j in i + 1..list.len() {
                if list[j].key > list[best].key {
                    best = j;
                }
            }
            list.swap(i, best);
        } else if i == SELECT {
            list[i..].sort_unstable_by_key(|s| std::cmp::Reverse(s.key));
        }
    }

    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    fn update_history(&mut self, slot: usize, bonus: i32) {
        let entry = &mut self.history[slot];
        *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
    }

    /// What every node does first: count it, check the limits, and settle it at once if
    /// the game is over, the side to move has a winning move, or the ply limit is
    /// reached (`Err(score)`). Otherwise `Ok` with the threats the side to move faces.
    #[inline]
    fn enter(&mut self, ply: usize) -> Result<Pressure, i32> {
        self.pv[ply].clear();
        self.nodes += 1;
        if self.poll() {
            return Err(0);
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(outcome) = self.game.outcome() {
            if outcome.winner.is_none() {
                return Err(self.draw_score(ply));
            }
            return Err(Score::of_outcome(outcome, self.game.to_move(), ply).0);
        }
        let pressure = match self.eval.threats(&self.game) {
            Threats::Win(mv) => {
                self.pv[ply].push(mv);
                return Err(Score::WIN - ply as i32 - 1);
            }
            Threats::Danger => Pressure::Danger,
            Threats::Looming => Pressure::Looming,
            Threats::None => Pressure::None,
        };
        if ply >= MAX_PLY - 1 {
            return Err(self.static_eval());
        }
        Ok(pressure)
    }

    fn search(&mut self, depth: i32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        if depth <= 0 {
            return self.qsearch(ply, alpha, beta, 0);
        }
        let pv_node = beta - alpha > 1;
        let pressure = match self.enter(ply) {
            Ok(pressure) => pressure,
            Err(score) => return score,
        };
        let in_danger = pressure == Pressure::Danger;
        // No line from here can beat a win already found nearer the root.
        alpha = alpha.max(-Score::WIN + ply as i32);
        beta = beta.min(Score::WIN - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        // A threat to win at once, or one that cannot be answered once made, is searched
        // a ply deeper (like a check), so a capture does not push it past the horizon.
        let mut depth = depth + i32::from(pressure != Pressure::None);

        let key = self.game.hash();
        let entry = self.shared.tt.probe(key);
        let mut hash_index = None;
        let mut tt_eval = None;
        if let Some(e) = entry {
            hash_index = e.move_index;
            tt_eval = Some(e.eval);
            if !pv_node && e.depth >= depth {
                let score = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        let static_eval = tt_eval.unwrap_or_else(|| self.static_eval());
        let quiet_node = !pv_node && !in_danger && beta.abs() < Score::WIN_BOUND;

        // Reverse futility: far enough above beta that a quiet move will not undo it.
        if quiet_node && depth <= 6 && static_eval - 90 * depth >= beta {
            return static_eval;
        }
        // Without a hash move a deep search is badly ordered: search it shallower first.
        if hash_index.is_none() && depth >= 5 {
            depth -= 1;
        }

        // Staged (where the game asks for it): the forcing moves first, and the quiet
        // ones only once neither they nor the hash move cut the node off. Move indexes
        // (the hash move's) then count the forcing moves first, the quiet ones after.
        let staged = !in_danger && self.eval.staged_moves();
        let mut generated = std::mem::take(&mut self.generated[ply]);
        generated.clear();
        let mut forcing_count = 0;
        // A quiet hash move of a staged node, found without the other quiet moves.
        let mut hash_quiet = None;
        let hash_index = if staged {
            self.eval.forcing_moves(&self.game, false, &mut generated);
            forcing_count = generated.len();
            match hash_index {
                Some(code) if code >= STAGED_FORCING => {
                    Some(code - STAGED_FORCING).filter(|&i| usize::from(i) < forcing_count)
                }
                Some(key) => self.eval.quiet_move_from_key(&self.game, key).map(|mv| {
                    // Searched first, at this index until the quiet moves come.
                    hash_quiet = Some(mv);
                    generated.push(mv);
                    forcing_count as u16
                }),
                None => None,
            }
        } else {
            self.game.legal_moves(&mut generated);
            hash_index.filter(|&i| usize::from(i) < generated.len())
        };
        let count = generated.len();
        self.generated[ply] = generated;
        // Whether the quiet moves of a staged node are still to be ordered.
        let mut quiets_pending = staged;
        if staged {
            self.order(ply, hash_index, false);
        } else {
            if count == 0 {
                return Score::loss_in(ply as u32).0;
            }
            self.order(ply, hash_index, in_danger);
            if self.ordered[ply].is_empty() {
                // No answer to the threat: the opponent wins with its next move, and
                // the game ends two plies from here.
                return -Score::WIN + ply as i32 + 2;
            }
        }
        let mut ordered = std::mem::take(&mut self.ordered[ply]);
        let mut quiets = std::mem::take(&mut self.quiets[ply]);
        quiets.clear();

        let side = self.game.to_move().index() * self.history_size;
        let original_alpha = alpha;
        let mut best = -Score::INFINITE;
        let mut best_index = None;
        let mut quiets_searched = 0usize;
        // Every move before the i-th was searched: pruning ends the loop.
        for i in 0.. {
            if i == ordered.len() {
                if !quiets_pending {
                    break;
                }
                // The second stage of a staged node: the quiet moves, all ranked below
                // the forcing ones already searched.
                quiets_pending = false;
                let mut generated = std::mem::take(&mut self.generated[ply]);
                generated.truncate(forcing_count);
                // Futility pruning would end the loop at the first quiet move below the
                // killers (alpha and `best` only rise from here): only the killers can
                // be searched, so only they are looked for.
                let only_killers = quiet_node
                    && best > -Score::WIN_BOUND
                    && futile(depth, static_eval, alpha)
                    && self.legal_quiet_killers(ply, hash_quiet, &mut generated);
                if !only_killers {
                    self.eval.quiet_moves(&self.game, &mut generated);
                }
                let count = generated.len();
                // The quiet hash move, already searched, is not searched again.
                let skip = hash_quiet.and_then(|mv| {
                    generated[forcing_count..]
                        .iter()
                        .position(|&m| m == mv)
                        .map(|j| (forcing_count + j) as u16)
                });
                self.generated[ply] = generated;
                if count == 0 {
                    self.ordered[ply] = ordered;
                    self.quiets[ply] = quiets;
                    return Score::loss_in(ply as u32).0;
                }
                self.ordered[ply] = ordered;
                self.order_quiets(ply, forcing_count..count, skip);
                ordered = std::mem::take(&mut self.ordered[ply]);
                if i > PICK_SELECT {
                    // `pick` sorted the list when it reached PICK_SELECT.
                    ordered[i..].sort_unstable_by_key(|s| std::cmp::Reverse(s.key));
                }
                if i == ordered.len() {
                    break;
                }
            }
            let searched = i;
            Self::pick(&mut ordered, i);
            let Scored {
                mv,
                key: order_key,
                index,
                tactical,
            } = ordered[i];
            let killer = order_key == KEY_KILLER[0] || order_key == KEY_KILLER[1];
            if quiet_node && !tactical && order_key < KEY_KILLER[1] && best > -Score::WIN_BOUND {
                // Late quiet moves at shallow depth rarely matter; the rest are no better.
                if depth <= 4 && quiets_searched >= 6 + 4 * (depth * depth) as usize {
                    break;
                }
                if futile(depth, static_eval, alpha) {
                    break;
                }
            }
            let history_slot = side + self.eval.history_key(&self.game, mv);
            self.game.play(mv);
            let new_depth = depth - 1;
            let mut score;
            if searched == 0 {
                score = -self.search(new_depth, ply + 1, -beta, -alpha);
            } else {
                let mut reduction = 0;
                if depth >= 3 && !tactical && searched >= 2 + 2 * usize::from(pv_node) {
                    reduction = i32::from(self.lmr[depth.min(63) as usize][searched.min(63)]);
                    if pv_node || killer {
                        reduction -= 1;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                score = -self.search(new_depth - reduction, ply + 1, -alpha - 1, -alpha);
                if score > alpha && reduction > 0 && !self.aborted {
                    score = -self.search(new_depth, ply + 1, -alpha - 1, -alpha);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.search(new_depth, ply + 1, -beta, -alpha);
                }
            }
            self.game.undo();
            if self.aborted {
                self.ordered[ply] = ordered;
                self.quiets[ply] = quiets;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_index = if staged {
                        self.staged_code(forcing_count, usize::from(index), mv)
                    } else {
                        Some(index)
                    };
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if !tactical {
                            let bonus = (depth * depth * 16).min(2000);
                            self.update_history(history_slot, bonus);
                            for &slot in &quiets {
                                self.update_history(slot, -bonus);
                            }
                            let killers = &mut self.killers[ply];
                            if killers[0] != Some(mv) {
                                killers[1] = killers[0];
                                killers[0] = Some(mv);
                            }
                        }
                        break;
                    }
                }
            }
            if !tactical {
                quiets_searched += 1;
                quiets.push(history_slot);
            }
        }
        self.ordered[ply] = ordered;
        self.quiets[ply] = quiets;
        if best == -Score::INFINITE {
            // Every move was pruned: the node is no better than its static score.
            best = static_eval.min(alpha);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha && best_index.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared
            .tt
            .store(key, best_index, to_tt(best, ply), static_eval, depth, bound);
        best
    }

    fn qsearch(&mut self, ply: usize, mut alpha: i32, beta: i32, qply: usize) -> i32 {
        let in_danger = match self.enter(ply) {
            Ok(pressure) => pressure == Pressure::Danger,
            Err(score) => return score,
        };
        let mut generated = std::mem::take(&mut self.generated[ply]);
        generated.clear();
        let mut best;
        let answering = in_danger && qply < QS_MAX;
        if answering {
            // The threat must be answered: every answer, no standing pat.
            best = -Score::WIN + ply as i32 + 2;
            self.game.legal_moves(&mut generated);
        } else {
            let stand = self.static_eval();
            if stand >= beta || qply >= QS_MAX {
                self.generated[ply] = generated;
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            self.eval
                .forcing_moves(&self.game, qply == 0, &mut generated);
        }
        self.generated[ply] = generated;
        self.order(ply, None, answering);
        let mut ordered = std::mem::take(&mut self.ordered[ply]);
        for i in 0..ordered.len() {
            Self::pick(&mut ordered, i);
            let mv = ordered[i].mv;
            self.game.play(mv);
            let score = -self.qsearch(ply + 1, -beta, -alpha, qply + 1);
            self.game.undo();
            if self.aborted {
                self.ordered[ply] = ordered;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.ordered[ply] = ordered;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_choice_keeps_forced_wins_and_stays_within_margin() {
        let root = [
            RootScore {
                mv: 1,
                score: 50,
                exact: true,
            },
            RootScore {
                mv: 2,
                score: 40,
                exact: true,
            },
            RootScore {
                mv: 3,
                score: 5,
                exact: true,
            },
            RootScore {
                mv: 4,
                score: 45,
                exact: false,
            },
        ];
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let (mv, _) = choose_within_margin(&root, 20, seed).unwrap();
            seen.insert(mv);
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [1, 2]);
        let won = [
            RootScore {
                mv: 1,
                score: Score::win_in(3).0,
                exact: true,
            },
            RootScore {
                mv: 2,
                score: Score::win_in(3).0 - 10,
                exact: true,
            },
        ];
        assert!(
            choose_within_margin(&won, 100, 7).is_none(),
            "a win is played as found"
        );
    }
}
