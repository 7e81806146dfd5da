//! The contestants a match runs: our engine at a level (in-process), a one-ply greedy
//! player, and external programs ([`crate::ugi`], [`crate::otep`], [`crate::htp`]), all
//! behind one trait the referee drives.

use std::time::Duration;

use engine::{Clock, DefaultWorker, EngineGame, Level, Limits, greedy_move};
use game::{Game, GameKind, Outcome};
use games::Board;

use crate::error::{DriverError, Error};
use crate::htp::{HtpContestant, Transport};
use crate::otep::OtepContestant;
use crate::ugi::UgiContestant;

/// What a contestant answers when asked for a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A move in the game's notation (the referee checks it).
    Move(String),
    /// The contestant resigns.
    Resign,
    /// The contestant holds the game over by its own rules where ours let it go on (a
    /// peer playing house rules, e.g. a ply limit): the game is aborted, reported apart
    /// with this reason and not scored.
    GameOver(String),
}

/// Why a contestant could not follow the game.
#[derive(Debug, thiserror::Error)]
pub enum ContestantError {
    /// It refused a move that our rules allow (a peer playing house rules): the game is
    /// aborted, not scored.
    #[error("refused: {0}")]
    Refused(String),
    /// It failed (crashed, timed out, spoke nonsense).
    #[error(transparent)]
    Failed(#[from] DriverError),
}

/// How long a move may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A fixed time per move.
    MoveTime(Duration),
    /// Clocks (a Fischer [`session::TimeControl`], written `5+3`).
    Clock(session::TimeControl),
    /// A fixed depth per move (fast and deterministic, for tests and quick runs).
    Depth(u32),
}

/// One side of a match (not a [`game::Player`], which is a side of the board).
pub trait Contestant<G: Game>: Send {
    /// The name used in progress lines and records.
    fn name(&self) -> String;

    /// A new game starts from `start` after the opening moves `opening` (already played
    /// on the referee's board; `start` is the position before them).
    ///
    /// # Errors
    /// [`ContestantError::Failed`] when it cannot start; [`ContestantError::Refused`]
    /// when it refuses an opening move our rules allow.
    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), ContestantError>;

    /// The move to play in `game`, with `clock` the time left on both sides.
    ///
    /// # Errors
    /// When it fails to answer (the referee scores the game as lost and lists it apart).
    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice, DriverError>;

    /// The opponent played `mv` in `before` (stateful peers must be told).
    ///
    /// # Errors
    /// As [`Contestant::new_game`].
    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), ContestantError>;

    /// The game is over with `outcome` (`None`: aborted, no result); peers that keep the
    /// game are told.
    fn finish(&mut self, _outcome: Option<Outcome>) {}
}

/// Builds a contestant from its description: `level:N` or `level:NAME` (our engine),
/// `greedy` (one ply, best static evaluation), `ugi:COMMAND` (a program speaking UGI,
/// such as another Kingstable build: `ugi:path/to/kingstable engine`), `otep:COMMAND` (a
/// tafl engine speaking the OpenTafl Engine Protocol), `htp:COMMAND` (a program speaking
/// the hnefatafl.org text protocol on stdin, Copenhagen only) or `htp-host:COMMAND` (the
/// same program in its TCP `--host` mode, where it takes `--depth`). Programs are
/// started when their first game starts.
///
/// # Errors
/// [`Error::UnknownPlayer`], [`Error::Level`], or [`Error::Unsupported`] for a protocol
/// that does not play `kind`.
pub fn from_spec<G: EngineGame + Board>(
    spec: &str,
    kind: GameKind,
    threads: usize,
) -> Result<Box<dyn Contestant<G>>, Error> {
    let spec = spec.trim();
    let command = |command: &str| {
        if command.split_whitespace().next().is_none() {
            return Err(Error::Unsupported(format!("{spec}: empty command")));
        }
        Ok(command.to_owned())
    };
    if let Some(level) = spec.strip_prefix("level:") {
        let level: Level = level.parse()?;
        return Ok(Box::new(LevelContestant::<G>::new(level, threads)));
    }
    if spec == "greedy" {
        return Ok(Box::new(GreedyContestant::<G>::new()));
    }
    if let Some(rest) = spec.strip_prefix("ugi:") {
        return Ok(Box::new(UgiContestant::new(&command(rest)?, kind)));
    }
    if let Some(rest) = spec.strip_prefix("otep:") {
        if !kind.is_tafl() {
            return Err(Error::Unsupported(
                "the OpenTafl Engine Protocol plays tafl only".into(),
            ));
        }
        return Ok(Box::new(OtepContestant::new(&command(rest)?)));
    }
    for (prefix, transport) in [("htp:", Transport::Stdin), ("htp-host:", Transport::Tcp)] {
        if let Some(rest) = spec.strip_prefix(prefix) {
            if kind != GameKind::Copenhagen {
                return Err(Error::Unsupported(
                    "the hnefatafl.org text protocol plays Copenhagen only".into(),
                ));
            }
            return Ok(Box::new(HtpContestant::new(&command(rest)?, transport)));
        }
    }
    Err(Error::UnknownPlayer(spec.to_owned()))
}

/// Our engine at a level, searching on the engine's worker (which always answers with a
/// legal move while the game has one).
pub struct LevelContestant<G: EngineGame> {
    worker: DefaultWorker<G>,
    level: Level,
    games: u64,
}

impl<G: EngineGame> LevelContestant<G> {
    /// Our engine at `level`, searching with `threads` threads.
    #[must_use]
    pub fn new(level: Level, threads: usize) -> Self {
        let mut worker = DefaultWorker::<G>::default();
        let engine = worker.engine_mut();
        engine.set_level(level);
        engine.set_threads(threads.max(1));
        LevelContestant {
            worker,
            level,
            games: 0,
        }
    }
}

impl<G: EngineGame> Contestant<G> for LevelContestant<G> {
    fn name(&self) -> String {
        format!("kingstable-{}", self.level.name())
    }

    fn new_game(&mut self, _start: &G, _opening: &[G::Move]) -> Result<(), ContestantError> {
        let engine = self.worker.engine_mut();
        engine.new_game();
        // Lower levels vary their choices from game to game, deterministically.
        self.games += 1;
        engine.set_seed(self.games);
        Ok(())
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice, DriverError> {
        let limits = match control {
            Limit::MoveTime(time) => Limits::move_time(time),
            Limit::Clock(_) => Limits::clock(*clock),
            Limit::Depth(depth) => Limits::depth(depth),
        };
        let answer = self
            .worker
            .think(game, &limits)
            .map_err(DriverError::Search)?;
        let mv = answer.result.best_move.ok_or(DriverError::NoMove)?;
        Ok(Choice::Move(game.format_move(mv)))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), ContestantError> {
        Ok(())
    }
}

/// A one-ply greedy player: plays a move that wins at once if there is one, else the
/// move after which the static evaluation is best for it (ties broken by a per-game
/// seed, so games vary).
pub struct GreedyContestant<G: EngineGame> {
    eval: G::Evaluator,
    seed: u64,
}

impl<G: EngineGame> GreedyContestant<G> {
    /// A greedy player with the game's default evaluation.
    #[must_use]
    pub fn new() -> Self {
        GreedyContestant {
            eval: G::Evaluator::default(),
            seed: 0,
        }
    }
}

impl<G: EngineGame> Default for GreedyContestant<G> {
    fn default() -> Self {
        Self::new()
    }
}

/// SplitMix64's output function: a well-spread hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl<G: EngineGame> Contestant<G> for GreedyContestant<G> {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn new_game(&mut self, _start: &G, _opening: &[G::Move]) -> Result<(), ContestantError> {
        self.seed = self.seed.wrapping_add(1);
        Ok(())
    }

    fn choose(&mut self, game: &G, _clock: &Clock, _control: Limit) -> Result<Choice, DriverError> {
        // Ties go to a pseudo-random move, different in each game.
        let seed = mix(self.seed);
        let mv = greedy_move(&self.eval, game, |board| mix(board.hash() ^ seed))
            .ok_or(DriverError::NoMove)?;
        Ok(Choice::Move(game.format_move(mv)))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), ContestantError> {
        Ok(())
    }
}
