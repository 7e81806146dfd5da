//! Kingstable's match runner as a library, in the spirit of cutechess-cli: engines play
//! each other over a set of openings (each from both sides), **our rules referee every
//! move**, every game is written as a record, and the score comes with the Elo
//! difference and its 95% interval.
//!
//! - [`Contestant`]: one side of a match. [`from_spec`] builds one from its description:
//!   our engine at a level ([`LevelContestant`]), a one-ply greedy player
//!   ([`GreedyContestant`]), or another program driven over its protocol: UGI
//!   ([`ugi`], through the [`client`]), the OpenTafl Engine Protocol ([`otep`]), or the
//!   hnefatafl.org text protocol ([`htp`]). Every program is started and read the same
//!   way ([`process`]): never left running, never waited on without a limit.
//! - [`play_game`]: the referee for one game (the clock, resignation, flag fall,
//!   failures, refusals of moves our rules allow, adjudication), with its record;
//!   [`report_from_record`] reads a saved game back.
//! - [`run`]: a whole match, several games at once if asked, resumable, reporting to an
//!   observer ([`Event`]) and returning a [`Summary`] with its [`Tally`]; with an
//!   [`Sprt`] it stops once the sequential test accepts or rejects ([`sprt`]).
//! - [`ladder`]: ratings of several players on one scale from the matches between
//!   them (how `kingstable levels` rates the AI's levels).
//!
//! ```
//! use arena::{Limit, MatchConfig, Event};
//! use game::GameKind;
//!
//! let config = MatchConfig {
//!     kind: GameKind::Fetlar,
//!     players: ["level:1".into(), "greedy".into()],
//!     games: 2,
//!     openings: arena::parse_openings(GameKind::Fetlar, "d1-d3\n")?,
//!     control: Limit::Depth(1),
//!     movetime_b: None,
//!     draw_after: Some(40),
//!     repetition: None,
//!     out: None,
//!     threads: 1,
//!     concurrency: 1,
//!     resume: false,
//!     sprt: None, // or Some("elo0=0,elo1=10,alpha=0.05,beta=0.05".parse()?)
//! };
//! let start = tafl::Tafl::new(tafl::Rules::FETLAR);
//! let summary = arena::run(&config, &start, &|event| {
//!     if let Event::Game { report, .. } = event {
//!         println!("game {}: {}", report.index + 1, report.note);
//!     }
//! })?;
//! assert_eq!(summary.tally.games(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod client;
mod contestant;
mod error;
pub mod htp;
pub mod ladder;
mod openings;
pub mod otep;
pub mod process;
mod referee;
mod runner;
pub mod sprt;
pub mod stats;
pub mod ugi;

pub use crate::contestant::{
    Choice, Contestant, ContestantError, GreedyContestant, LevelContestant, Limit, from_spec,
};
pub use crate::error::{DriverError, Error, ResumeError};
pub use crate::openings::{builtin_openings, parse_openings};
pub use crate::referee::{GameReport, engine_clock, play_game, report_from_record};
pub use crate::runner::{Endings, Event, MatchConfig, Summary, run};
pub use crate::sprt::Sprt;
pub use crate::stats::Tally;
