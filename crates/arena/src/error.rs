//! What can go wrong in a match: a contestant's failure ([`DriverError`]), a saved game
//! that is not this match's ([`ResumeError`]), and the match itself ([`Error`]).

use std::io;
use std::path::PathBuf;

use crate::client::ClientError;
use crate::process::SpawnError;

/// Why a contestant could not give a move or follow the game: the program could not be
/// started, hung, exited, or broke its protocol; our own engine's thread failed.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The program could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// A UGI engine failed (see [`ClientError`]).
    #[error(transparent)]
    Ugi(#[from] ClientError),
    /// A program broke its protocol, hung or went away; `protocol` names the protocol
    /// (`otep`, `htp`, `ugi`).
    #[error("{protocol}: {message}")]
    Protocol {
        /// The protocol's short name.
        protocol: &'static str,
        /// What happened.
        message: String,
    },
    /// Our engine's search thread could not be run.
    #[error("the engine's search thread: {0}")]
    Search(io::Error),
    /// No legal move to give (the referee asks only while the game goes on, so this is a
    /// failure).
    #[error("the engine found no move")]
    NoMove,
}

impl DriverError {
    /// A protocol failure.
    pub(crate) fn protocol(protocol: &'static str, message: impl Into<String>) -> DriverError {
        DriverError::Protocol {
            protocol,
            message: message.into(),
        }
    }
}

/// Why a saved game cannot be counted as this match's (`--resume`).
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(io::Error),
    /// The file holds no game or several.
    #[error("expected one game, found {0}")]
    GameCount(usize),
    /// A tag differs from this match's.
    #[error("its {key} is {found:?}, this match's is {want:?}")]
    Tag {
        /// The tag.
        key: &'static str,
        /// What the record says.
        found: String,
        /// What this match would write.
        want: String,
    },
    /// A tag this match writes is missing.
    #[error("it has no {0} tag")]
    MissingTag(&'static str),
    /// The moves do not replay by our rules.
    #[error(transparent)]
    Replay(#[from] games::record::Fault),
    /// The game neither ended by the rules nor states how it ended.
    #[error("the game is unfinished and states no result")]
    Unfinished,
}

/// Why a match cannot be run (or goes no further).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A contestant description that names nothing known.
    #[error(
        "unknown player {0:?}: expected level:N, greedy, ugi:COMMAND, otep:COMMAND, \
         htp:COMMAND or htp-host:COMMAND"
    )]
    UnknownPlayer(String),
    /// `level:` names no level.
    #[error(transparent)]
    Level(#[from] engine::ParseLevelError),
    /// A contestant, a time control or a rule this game or protocol cannot have.
    #[error("{0}")]
    Unsupported(String),
    /// A line of the openings does not play.
    #[error("openings line {line}: {error}")]
    Opening {
        /// The 1-based line.
        line: usize,
        /// Which move, and why.
        error: games::PlayTextsError,
    },
    /// A line of the openings ends the game.
    #[error("openings line {0}: the game is already over")]
    OpeningEndsGame(usize),
    /// The openings hold no opening.
    #[error("no openings")]
    NoOpenings,
    /// An opening move does not play in the game it was given for.
    #[error("game {game}: opening move {text:?}: {message}")]
    OpeningMove {
        /// The 1-based game number.
        game: usize,
        /// The move.
        text: String,
        /// Why.
        message: String,
    },
    /// The repetition rule cannot be set for this game.
    #[error(transparent)]
    Rules(#[from] games::RulesError),
    /// A contestant could not start a game: the match stops, as no game it would lose by
    /// default is worth scoring.
    #[error("game {game}: {player} failed to start: {error}")]
    Start {
        /// The 1-based game number.
        game: usize,
        /// The contestant's name.
        player: String,
        /// Why.
        error: DriverError,
    },
    /// A record or directory cannot be written.
    #[error("cannot write {}: {error}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// `resume` without a directory to resume from.
    #[error("resuming needs the directory the games were saved in")]
    ResumeWithoutDirectory,
    /// A saved game is not this match's.
    #[error("cannot resume from {}: {error}", path.display())]
    Resume {
        /// The record.
        path: PathBuf,
        /// Why.
        error: Box<ResumeError>,
    },
}
