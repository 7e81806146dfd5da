//! The players a match runs: our engine at a level (in-process), a one-ply greedy player,
//! and external programs (see [`super::htp`]).

use std::time::Duration;

use anyhow::{Context, Result, bail};
use engine::{Clock, DefaultWorker, EngineGame, Level, Limits, greedy_move};
use game::{Game, GameKind, Outcome};

use super::htp::{HtpPlayer, Transport};
use super::otep::OtepPlayer;
use super::ugi::UgiPlayer;
use games::Board;

/// What a player answers when asked for a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A move in the game's notation (the referee checks it).
    Move(String),
    /// The player resigns.
    Resign,
    /// The player holds the game over by its own rules where ours let it go on (a peer
    /// playing house rules, e.g. a ply limit): the game is aborted, reported apart with
    /// this reason and not scored.
    GameOver(String),
}

/// Why a player could not go on.
#[derive(Debug)]
pub enum PlayerError {
    /// The player refused a move that our rules allow (a peer playing house rules).
    Refused(String),
    /// The player failed (crashed, timed out, spoke nonsense).
    Failed(anyhow::Error),
}

impl From<anyhow::Error> for PlayerError {
    fn from(err: anyhow::Error) -> Self {
        PlayerError::Failed(err)
    }
}

/// How long a move may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A fixed time per move.
    MoveTime(Duration),
    /// Clocks (a Fischer [`session::TimeControl`], as `match --tc` reads it: `5+3`).
    Clock(session::TimeControl),
    /// A fixed depth per move (fast and deterministic, for tests and quick runs).
    Depth(u32),
}

/// One side of a match.
pub trait Player<G: Game>: Send {
    /// The name used in progress lines and records.
    fn name(&self) -> String;

    /// A new game starts from `start` after the opening moves `opening` (already played
    /// on the referee's board; `start` is the position before them).
    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), PlayerError>;

    /// The move to play in `game`, with `clock` the time left on both sides.
    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice>;

    /// The opponent played `mv` in `before` (stateful peers must be told).
    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), PlayerError>;

    /// The game is over with `outcome` (`None`: aborted, no result); peers that keep the
    /// game are told.
    fn finish(&mut self, _outcome: Option<Outcome>) {}
}

/// Builds a player from its description: `level:N` or `level:NAME` (our engine),
/// `greedy` (one ply, best static evaluation), `ugi:COMMAND` (a program speaking UGI,
/// such as another Kingstable build: `ugi:path/to/kingstable engine`), `otep:COMMAND` (a
/// tafl engine speaking the OpenTafl Engine Protocol), `htp:COMMAND`
/// (a program speaking the hnefatafl.org text protocol on stdin, Copenhagen only) or
/// `htp-host:COMMAND` (the same program in its TCP `--host` mode, where it takes
/// `--depth`).
pub fn player_from_spec<G: EngineGame + Board>(
    spec: &str,
    kind: GameKind,
    threads: usize,
) -> Result<Box<dyn Player<G>>> {
    let spec = spec.trim();
    if let Some(level) = spec.strip_prefix("level:") {
        let level: Level = level.parse()?;
        return Ok(Box::new(LevelPlayer::<G>::new(level, threads)));
    }
    if spec == "greedy" {
        return Ok(Box::new(GreedyPlayer::<G>::new()));
    }
    if let Some(command) = spec.strip_prefix("ugi:") {
        return Ok(Box::new(UgiPlayer::new(command, kind)?));
    }
    if let Some(command) = spec.strip_prefix("otep:") {
        if !kind.is_tafl() {
            bail!("the OpenTafl Engine Protocol plays tafl only");
        }
        return Ok(Box::new(OtepPlayer::new(command)?));
    }
    for (prefix, transport) in [("htp:", Transport::Stdin), ("htp-host:", Transport::Tcp)] {
        if let Some(command) = spec.strip_prefix(prefix) {
            if kind != GameKind::Copenhagen {
                bail!("the hnefatafl.org text protocol plays Copenhagen only");
            }
            return Ok(Box::new(HtpPlayer::new(command, transport)?));
        }
    }
    bail!(
        "unknown player {spec:?}: expected level:N, greedy, ugi:COMMAND, otep:COMMAND, \
         htp:COMMAND or htp-host:COMMAND"
    )
}

/// Our engine at a level, searching on the engine's worker (which always answers with a
/// legal move while the game has one).
pub struct LevelPlayer<G: EngineGame> {
    worker: DefaultWorker<G>,
    level: Level,
    games: u64,
}

impl<G: EngineGame> LevelPlayer<G> {
    /// Our engine at `level`, searching with `threads` threads.
    pub fn new(level: Level, threads: usize) -> Self {
        let mut worker = DefaultWorker::<G>::default();
        let engine = worker.engine_mut();
        engine.set_level(level);
        engine.set_threads(threads.max(1));
        LevelPlayer {
            worker,
            level,
            games: 0,
        }
    }
}

impl<G: EngineGame> Player<G> for LevelPlayer<G> {
    fn name(&self) -> String {
        format!("kingstable-{}", self.level.name())
    }

    fn new_game(&mut self, _start: &G, _opening: &[G::Move]) -> Result<(), PlayerError> {
        let engine = self.worker.engine_mut();
        engine.new_game();
        // Lower levels vary their choices from game to game, deterministically.
        self.games += 1;
        engine.set_seed(self.games);
        Ok(())
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice> {
        let limits = match control {
            Limit::MoveTime(time) => Limits::move_time(time),
            Limit::Clock(_) => Limits::clock(*clock),
            Limit::Depth(depth) => Limits::depth(depth),
        };
        let answer = self
            .worker
            .think(game, &limits)
            .context("the engine's search thread")?;
        let mv = answer.best_move.context("the engine found no move")?;
        Ok(Choice::Move(game.format_move(mv)))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), PlayerError> {
        Ok(())
    }
}

/// A one-ply greedy player: plays a move that wins at once if there is one, else the
/// move after which the static evaluation is best for it (ties broken by a per-game
/// seed, so games vary).
pub struct GreedyPlayer<G: EngineGame> {
    eval: G::Evaluator,
    seed: u64,
}

impl<G: EngineGame> GreedyPlayer<G> {
    /// A greedy player with the game's default evaluation.
    pub fn new() -> Self {
        GreedyPlayer {
            eval: G::Evaluator::default(),
            seed: 0,
        }
    }
}

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl<G: EngineGame> Player<G> for GreedyPlayer<G> {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn new_game(&mut self, _start: &G, _opening: &[G::Move]) -> Result<(), PlayerError> {
        self.seed = self.seed.wrapping_add(1);
        Ok(())
    }

    fn choose(&mut self, game: &G, _clock: &Clock, _control: Limit) -> Result<Choice> {
        // Ties go to a pseudo-random move, different in each game.
        let seed = mix(self.seed);
        let mv = greedy_move(&self.eval, game, |board| mix(board.hash() ^ seed))
            .context("no legal move")?;
        Ok(Choice::Move(game.format_move(mv)))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), PlayerError> {
        Ok(())
    }
}
