//! The engine behind a session: one [`engine::Worker`] per game type, made when first
//! needed and kept between searches (so its transposition table carries over), and the
//! worker's answers put into text in the game's own notation.

use std::sync::atomic::AtomicBool;

use engine::tt::TableAllocError;
use engine::{
    Answer, DEFAULT_HASH_MB, DefaultEngine, DefaultWorker, EngineGame, Level, Limits, Score,
    SearchInfo, Source, line_texts,
};

pub use engine::MAX_HASH_MB;

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

/// The most search threads a protocol may ask for.
pub const MAX_THREADS: usize = 256;

/// One game type's worker, made when first needed (UGI: no large allocation before the
/// first `isready`) and kept between searches.
pub(crate) struct EngineCell<G: EngineGame> {
    worker: Option<DefaultWorker<G>>,
    applied: EngineSettings,
}

impl<G: EngineGame> Default for EngineCell<G> {
    fn default() -> Self {
        EngineCell {
            worker: None,
            applied: EngineSettings::default(),
        }
    }
}

impl<G: EngineGame> EngineCell<G> {
    /// Makes the worker if need be and applies `settings` to it (waiting for a search
    /// still under way). If the table of `settings.hash_mb` cannot be allocated, nothing
    /// changes: the worker keeps its table, or is not made.
    pub(crate) fn prepare(&mut self, settings: &EngineSettings) -> Result<(), TableAllocError> {
        match &mut self.worker {
            Some(worker) => {
                if self.applied != *settings {
                    let engine = worker.engine_mut();
                    if self.applied.hash_mb != settings.hash_mb {
                        engine.try_set_hash_mb(settings.hash_mb)?;
                    }
                    apply(engine, settings);
                    self.applied = *settings;
                }
            }
            None => {
                let mut engine = DefaultEngine::<G>::default();
                if settings.hash_mb != DEFAULT_HASH_MB {
                    engine.try_set_hash_mb(settings.hash_mb)?;
                }
                apply(&mut engine, settings);
                self.worker = Some(DefaultWorker::new(engine));
                self.applied = *settings;
            }
        }
        Ok(())
    }

    /// Like [`EngineCell::prepare`], but always leaves a worker: if there is none and the
    /// table cannot be had, `settings.hash_mb` falls back to the default size. Returns
    /// the allocation error, to be reported.
    pub(crate) fn ensure(&mut self, settings: &mut EngineSettings) -> Option<TableAllocError> {
        let error = self.prepare(settings).err();
        if error.is_some() {
            if self.worker.is_some() {
                settings.hash_mb = self.applied.hash_mb;
            } else {
                settings.hash_mb = DEFAULT_HASH_MB;
            }
            // Keeps (or makes) a table the machine has already given, or the default.
            let _ = self.prepare(settings);
        }
        error
    }

    /// The worker, if it has been made.
    pub(crate) fn worker(&mut self) -> Option<&mut DefaultWorker<G>> {
        self.worker.as_mut()
    }

    /// Forgets what earlier searches stored (a new game).
    pub(crate) fn new_game(&mut self) {
        if let Some(worker) = &mut self.worker {
            worker.engine_mut().new_game();
        }
    }

    /// Frees the worker (another game is played now).
    pub(crate) fn release(&mut self) {
        self.worker = None;
    }

    /// Whether a search is under way (started and not yet answering).
    pub(crate) fn is_searching(&self) -> bool {
        self.worker
            .as_ref()
            .is_some_and(DefaultWorker::is_searching)
    }

    /// Waits for a search that has answered; whether none is left.
    pub(crate) fn reap(&mut self) -> bool {
        self.worker.as_mut().is_none_or(DefaultWorker::reap)
    }

    /// Asks a running search to stop (it still answers).
    pub(crate) fn stop(&self) {
        if let Some(worker) = &self.worker {
            worker.stop();
        }
    }

    /// Waits for a running search to end and answer.
    pub(crate) fn wait(&mut self) {
        if let Some(worker) = &mut self.worker {
            worker.wait();
        }
    }
}

fn apply<G: EngineGame>(engine: &mut DefaultEngine<G>, settings: &EngineSettings) {
    engine.set_level(settings.level);
    engine.set_threads(settings.threads);
    engine.set_seed(settings.seed);
}

/// Progress of a search, with the principal variation in the game's notation (moves
/// written with their captures).
pub type InfoText = engine::SearchInfo<String>;

/// `info` with its line written in `game`'s notation.
pub(crate) fn info_text<G: EngineGame>(game: &G, info: &SearchInfo<G::Move>) -> InfoText {
    InfoText {
        depth: info.depth,
        seldepth: info.seldepth,
        score: info.score,
        nodes: info.nodes,
        nps: info.nps,
        time: info.time,
        hashfull: info.hashfull,
        pv: line_texts(game, &info.pv),
        lines: info
            .lines
            .iter()
            .map(|line| engine::PvLine {
                score: line.score,
                pv: line_texts(game, &line.pv),
            })
            .collect(),
    }
}

/// What a search found, in the game's notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The move to play (`None` only when the game is over).
    pub best: Option<String>,
    /// Score for the side to move.
    pub score: Score,
    /// Depth of the iteration the move comes from.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Principal variation.
    pub pv: Vec<String>,
    /// Why the move did not come from the search itself, if it did not.
    pub note: Option<String>,
}

impl Found {
    /// `answer` written in `game`'s notation.
    pub(crate) fn new<G: EngineGame>(game: &G, answer: &Answer<G::Move>) -> Found {
        Found {
            best: answer.result.best_move.map(|mv| game.format_move(mv)),
            score: answer.result.score,
            depth: answer.result.depth,
            nodes: answer.result.nodes,
            pv: line_texts(game, &answer.result.pv),
            note: note(answer),
        }
    }
}

/// Why an answer's move did not come from the search itself, in words, if it did not.
pub(crate) fn note<M>(answer: &Answer<M>) -> Option<String> {
    let failed = answer
        .failure
        .as_ref()
        .map(|why| format!("the search failed ({why}); "));
    let choice = match answer.source {
        Source::Search | Source::NoMove => return failed.map(|f| f.trim_end_matches("; ").into()),
        Source::LastIteration => format!("the best move of depth {}", answer.result.depth),
        Source::OnePly => "the one-ply choice".to_owned(),
        Source::FirstLegal => "the first legal move".to_owned(),
    };
    Some(match failed {
        Some(failed) => format!("{failed}playing {choice}"),
        None if answer.source == Source::OnePly => {
            "stopped before the first iteration; one-ply choice".to_owned()
        }
        None => format!("stopped early; playing {choice}"),
    })
}

/// Searches `game` with [`engine::Engine::answer`] (never panics; a legal move while the
/// game has one) and writes the result as text.
pub(crate) fn search_texts<G: EngineGame>(
    game: &G,
    engine: &DefaultEngine<G>,
    limits: &Limits,
    stop: &AtomicBool,
    mut on_info: impl FnMut(InfoText),
) -> Found {
    let answer = engine.answer(game, limits, stop, |info| on_info(info_text(game, info)));
    Found::new(game, &answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn answer(source: Source, failure: Option<&str>) -> Answer<u8> {
        Answer {
            result: engine::SearchResult {
                best_move: Some(1),
                score: Score::DRAW,
                depth: 3,
                seldepth: 3,
                nodes: 10,
                time: Duration::ZERO,
                pv: vec![1],
            },
            source,
            failure: failure.map(str::to_owned),
        }
    }

    #[test]
    fn notes_say_where_the_move_came_from() {
        assert_eq!(note(&answer(Source::Search, None)), None);
        assert_eq!(
            note(&answer(Source::OnePly, None)).unwrap(),
            "stopped before the first iteration; one-ply choice"
        );
        assert_eq!(
            note(&answer(Source::LastIteration, Some("boom"))).unwrap(),
            "the search failed (boom); playing the best move of depth 3"
        );
        assert_eq!(
            note(&answer(Source::FirstLegal, Some("boom"))).unwrap(),
            "the search failed (boom); playing the first legal move"
        );
        assert_eq!(
            note(&answer(Source::Search, Some("boom"))).unwrap(),
            "the search failed (boom)"
        );
    }
}
