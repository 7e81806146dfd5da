//! The engine on a game of any kind ([`AnyGame`]): one adapter for every front end that
//! holds its game at run time (the server's AI, analysis and reviews), so none of them
//! writes out the dispatch to the concrete game, the engine's settings and the moves'
//! text again.
//!
//! An [`AnyEngine`] keeps one engine per game family (made on first use, with its
//! transposition table kept from search to search, as a review wants), searches with
//! [`Engine::answer`](crate::Engine::answer) (so it always names a legal move while the
//! game has one), and reports progress and answers with moves as text.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use engine::{AnyEngine, EngineOptions, Level, Limits};
//! use games::{AnyGame, GameKind};
//!
//! let mut engine = AnyEngine::new(EngineOptions { hash_mb: 4, level: Some(Level::Beginner), ..EngineOptions::default() });
//! let mut game = AnyGame::start(GameKind::Fetlar);
//! let answer = engine.answer(&game, &Limits::depth(2), &AtomicBool::new(false), |_| {});
//! game.try_play(&answer.best.unwrap()).unwrap();
//! ```

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use camelot::Camelot;
use games::AnyGame;
use tafl::Tafl;

use crate::eval::EngineGame;
use crate::level::Level;
use crate::limits::Limits;
use crate::score::Score;
use crate::search::{DEFAULT_HASH_MB, DefaultEngine, SearchInfo};
use crate::worker::{Source, line_texts};

/// How an [`AnyEngine`] searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size, in MiB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// The playing level; `None` plays at full strength.
    pub level: Option<Level>,
    /// A draw's score for the side searched for, instead of the level's contempt
    /// ([`Engine::set_contempt`](crate::Engine::set_contempt)); analysis sets 0.
    pub contempt: Option<i32>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            level: None,
            contempt: None,
        }
    }
}

/// A completed iteration, with its line as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyInfo {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// The score for the side to move.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second so far.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation in the game's notation.
    pub pv: Vec<String>,
    /// The best lines, best first ([`AnyEngine::set_lines`]); the first is `score` and
    /// `pv`.
    pub lines: Vec<AnyLine>,
}

/// One of the best lines, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyLine {
    /// The score for the side to move.
    pub score: Score,
    /// The line in the game's notation.
    pub pv: Vec<String>,
}

/// What a search answered, with its move as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyAnswer {
    /// The move to play, `None` only when the game has no legal move.
    pub best: Option<String>,
    /// The score for the side to move.
    pub score: Score,
    /// The depth completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Where the move came from.
    pub source: Source,
    /// The panic message, if the search failed (and fell back).
    pub failure: Option<String>,
}

/// The engine for games of every kind, one engine per family made when first needed.
#[derive(Debug)]
pub struct AnyEngine {
    options: EngineOptions,
    lines: usize,
    tafl: Option<DefaultEngine<Tafl>>,
    camelot: Option<DefaultEngine<Camelot>>,
}

impl AnyEngine {
    /// An engine searching with `options` (no table is allocated before the first
    /// search).
    #[must_use]
    pub const fn new(options: EngineOptions) -> AnyEngine {
        AnyEngine {
            options,
            lines: 1,
            tafl: None,
            camelot: None,
        }
    }

    /// Reports the best `lines` lines (1 to [`crate::MAX_MULTI_PV`]) from now on, see
    /// [`Engine::set_multi_pv`](crate::Engine::set_multi_pv).
    pub fn set_lines(&mut self, lines: usize) {
        self.lines = lines.clamp(1, crate::MAX_MULTI_PV);
        if let Some(engine) = &mut self.tafl {
            engine.set_multi_pv(self.lines);
        }
        if let Some(engine) = &mut self.camelot {
            engine.set_multi_pv(self.lines);
        }
    }

    /// Searches `game` within `limits` (or until `stop` is set) and answers with a move
    /// whenever the game has one; `on_info` gets each completed iteration.
    pub fn answer(
        &mut self,
        game: &AnyGame,
        limits: &Limits,
        stop: &AtomicBool,
        mut on_info: impl FnMut(&AnyInfo),
    ) -> AnyAnswer {
        let options = self.options;
        let lines = self.lines;
        match game {
            AnyGame::Tafl(g) => {
                let engine = self.tafl.get_or_insert_with(|| made(&options, lines));
                answer(engine, g, limits, stop, &mut on_info)
            }
            AnyGame::Camelot(g) => {
                let engine = self.camelot.get_or_insert_with(|| made(&options, lines));
                answer(engine, g, limits, stop, &mut on_info)
            }
        }
    }
}

fn made<G: EngineGame>(options: &EngineOptions, lines: usize) -> DefaultEngine<G> {
    let mut engine = DefaultEngine::<G>::default();
    engine.set_multi_pv(lines);
    engine.set_hash_mb(options.hash_mb);
    engine.set_threads(options.threads.max(1));
    if let Some(level) = options.level {
        engine.set_level(level);
    }
    engine.set_contempt(options.contempt);
    engine
}

fn answer<G: EngineGame>(
    engine: &DefaultEngine<G>,
    game: &G,
    limits: &Limits,
    stop: &AtomicBool,
    on_info: &mut impl FnMut(&AnyInfo),
) -> AnyAnswer {
    let answer = engine.answer(game, limits, stop, |info: &SearchInfo<G::Move>| {
        on_info(&AnyInfo {
            depth: info.depth,
            seldepth: info.seldepth,
            score: info.score,
            nodes: info.nodes,
            nps: info.nps,
            time: info.time,
            pv: line_texts(game, &info.pv),
            lines: info
                .lines
                .iter()
                .map(|line| AnyLine {
                    score: line.score,
                    pv: line_texts(game, &line.pv),
                })
                .collect(),
        });
    });
    AnyAnswer {
        best: answer.result.best_move.map(|mv| game.format_move(mv)),
        score: answer.result.score,
        depth: answer.result.depth,
        nodes: answer.result.nodes,
        source: answer.source,
        failure: answer.failure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::GameKind;

    #[test]
    fn answers_a_legal_move_in_each_game_and_reports_progress() {
        let mut engine = AnyEngine::new(EngineOptions {
            hash_mb: 2,
            ..EngineOptions::default()
        });
        for kind in GameKind::ALL {
            let mut game = AnyGame::start(kind);
            let mut infos = Vec::new();
            let answer = engine.answer(&game, &Limits::depth(2), &AtomicBool::new(false), |i| {
                infos.push(i.clone());
            });
            assert_eq!(answer.source, Source::Search, "{kind}");
            assert!(!infos.is_empty(), "{kind}");
            let best = answer.best.unwrap();
            assert_eq!(infos.last().unwrap().pv.first(), Some(&best), "{kind}");
            game.try_play(&best).unwrap();
        }
    }

    #[test]
    fn several_lines_each_start_with_another_legal_move_best_first() {
        let mut engine = AnyEngine::new(EngineOptions {
            hash_mb: 2,
            ..EngineOptions::default()
        });
        engine.set_lines(3);
        for kind in GameKind::ALL {
            let game = AnyGame::start(kind);
            let mut last = None;
            let answer = engine.answer(&game, &Limits::depth(3), &AtomicBool::new(false), |i| {
                last = Some(i.clone());
            });
            let info = last.unwrap();
            assert_eq!(info.depth, 3, "{kind}");
            assert_eq!(info.lines.len(), 3, "{kind}");
            assert_eq!(info.lines[0].pv, info.pv, "{kind}");
            assert_eq!(info.lines[0].score, info.score, "{kind}");
            assert_eq!(info.lines[0].pv.first(), answer.best.as_ref(), "{kind}");
            let firsts: std::collections::BTreeSet<_> =
                info.lines.iter().map(|l| l.pv[0].clone()).collect();
            assert_eq!(firsts.len(), 3, "three different first moves in {kind}");
            for pair in info.lines.windows(2) {
                assert!(pair[0].score >= pair[1].score, "best first in {kind}");
            }
            for line in &info.lines {
                let mut after = game.clone();
                for text in &line.pv {
                    after.try_play(text).unwrap();
                }
            }
        }
        // One line unless asked.
        engine.set_lines(1);
        let mut count = 0;
        engine.answer(
            &AnyGame::start(GameKind::Fetlar),
            &Limits::depth(2),
            &AtomicBool::new(false),
            |i| {
                count = i.lines.len();
            },
        );
        assert_eq!(count, 1);
    }

    #[test]
    fn a_stopped_search_still_answers() {
        let mut engine = AnyEngine::new(EngineOptions {
            hash_mb: 2,
            ..EngineOptions::default()
        });
        let game = AnyGame::start(GameKind::Camelot);
        let answer = engine.answer(&game, &Limits::infinite(), &AtomicBool::new(true), |_| {});
        assert!(game.clone().try_play(&answer.best.unwrap()).is_ok());
    }
}
