//! Kingstable's AI: one search for every game, written over [`game::Game`], and one
//! evaluation per game.
//!
//! The search is iterative deepening over principal-variation alpha-beta with aspiration
//! windows, a lock-free transposition table shared by all threads (Lazy SMP), move
//! ordering by hash move, the game's tactical moves, killers and history, late-move
//! reductions and shallow pruning, and a quiescence search over each game's forcing moves
//! in which threats to win at once are answered by every move. Wins and losses are
//! reported as "win in N" plies. Time comes from a fixed move time, clocks with
//! increment, depth or node limits, or runs until a stop flag is set.
//!
//! Front ends use the search through [`Worker`] (a search on its own thread, cancellable,
//! panic-isolated) or [`Engine::answer`]: both always answer with a legal move while the
//! game has one. [`AnyEngine`] runs it on a [`games::AnyGame`](::games::AnyGame), for
//! front ends that hold their game at run time (the server's AI, analysis and reviews).
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use engine::{DefaultEngine, Level, Limits, Score};
//! use game::Game;
//! use tafl::{Position, Rules, Tafl};
//!
//! // The king on c1 has an open line to a1.
//! let pos = Position::from_string_with_side("/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders")?;
//! let game = Tafl::from_position(Rules::FETLAR, pos);
//! let mut engine = DefaultEngine::<Tafl>::default();
//! engine.set_level("maximum".parse::<Level>()?);
//! let result = engine.search(&game, &Limits::depth(4), &AtomicBool::new(false), |_| {});
//! assert_eq!(game.format_move(result.best_move.unwrap()), "c1-a1");
//! assert_eq!(result.score, Score::win_in(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod any;
pub mod bench;
mod eval;
pub mod games;
mod level;
mod limits;
pub mod nnue;
mod score;
mod search;
#[cfg(feature = "training")]
pub mod train;
pub mod tt;
#[cfg(feature = "training")]
pub mod tune;
mod worker;

pub use crate::any::{AnyAnswer, AnyEngine, AnyInfo, AnyLine, EngineOptions};
pub use crate::eval::{EngineGame, Evaluator, Threats};
pub use crate::level::{Level, LevelSettings, ParseLevelError};
pub use crate::limits::{Clock, Limits, MOVE_OVERHEAD, TimeBudget};
pub use crate::score::{MAX_PLY, Score};
pub use crate::search::{
    DEFAULT_HASH_MB, DefaultEngine, Engine, MAX_DEPTH, MAX_HASH_MB, MAX_MULTI_PV, PvLine,
    SearchInfo, SearchResult,
};
pub use crate::worker::{
    Answer, DefaultWorker, Event, Job, Source, Worker, greedy_move, line_texts,
};
