//! What a change found in its way ([`crate::store::StoreError::Conflict`]): one variant
//! per kind of conflict, each saying in words what it is (the text an operator or a log
//! reads), so that a caller tells them apart by kind, never by its text.

use std::path::PathBuf;

use game::Player;

/// What a storage change conflicts with; nothing was stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    /// Eight random ids in a row were taken already (about 1 in 2^47 each).
    #[error("no free {0} id")]
    NoFreeId(IdOf),
    /// A name for a new guest could not be found free.
    #[error("guest name")]
    GuestName,
    /// Another account has confirmed that e-mail address.
    #[error("address")]
    AddressTaken,
    /// A challenge is made by someone who is neither a user nor a guest.
    #[error("a challenge is made by a user or a guest")]
    ChallengeMaker,
    /// The challenge was answered, withdrawn or lapsed already.
    #[error("challenge {id} is not open")]
    ChallengeNotOpen {
        /// The challenge.
        id: String,
    },
    /// A move that is not the next one of a game being played.
    #[error("game {game} is not being played at ply {ply}")]
    NotAtPly {
        /// The game.
        game: String,
        /// The ply the game was expected at.
        ply: u32,
    },
    /// A takeback to a ply the game is not past, or in a game not being played.
    #[error("cannot take game {game} back to ply {ply}")]
    Takeback {
        /// The game.
        game: String,
        /// The ply it was to go back to.
        ply: u32,
    },
    /// A seat that is taken, or in a game that is not waiting.
    #[error("the {} seat of game {game} is not open", crate::store::result_str(Some(*side)))]
    SeatNotOpen {
        /// The game.
        game: String,
        /// The seat.
        side: Player,
    },
    /// A live-game write to a game that is not live.
    #[error("game {game} is not live")]
    NotLive {
        /// The game.
        game: String,
    },
    /// A game ended that was over already.
    #[error("game {game} is already {status}")]
    AlreadyOver {
        /// The game.
        game: String,
        /// Its status (`finished`, `aborted`).
        status: String,
    },
    /// The players' ratings changed under every try of the update.
    #[error("ratings of game {game} kept changing under the update")]
    RatingsKeptChanging {
        /// The game.
        game: String,
    },
    /// A number too large for its column.
    #[error("{0}")]
    TooLarge(TooLarge),
    /// A backup asked of PostgreSQL.
    #[error("a backup here is of a SQLite file; back PostgreSQL up with pg_dump")]
    BackupOfPostgres,
    /// A backup to a file that exists.
    #[error("{} exists already: a backup never overwrites a file", .0.display())]
    BackupExists(PathBuf),
    /// A backup to a path SQLite cannot be given.
    #[error("{} is not a UTF-8 path", .0.display())]
    NotUtf8Path(PathBuf),
    /// A copy between databases refused (`kingstable migrate-db`).
    #[error("{0}")]
    Copy(CopyRefusal),
}

/// What a [`Conflict::NoFreeId`] was an id for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::Display)]
#[strum(serialize_all = "snake_case")]
pub enum IdOf {
    /// A game's.
    Game,
    /// A challenge's.
    Challenge,
}

/// A number too large to store ([`Conflict::TooLarge`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TooLarge {
    /// An imported game's moves.
    #[error("too many moves")]
    Moves,
    /// A review's nodes.
    #[error("review nodes {0}")]
    ReviewNodes(u64),
}

/// Why a copy between databases was refused ([`Conflict::Copy`]): nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CopyRefusal {
    /// The SQLite file is at another migration than this program.
    #[error(
        "the SQLite database is at migration {version}, this program at {latest}: {}",
        if version < latest {
            "start this version's server on it once (it migrates the file), stop it, \
             and copy again"
        } else {
            "copy it with the kingstable that last ran on it"
        }
    )]
    Migration {
        /// The file's.
        version: i64,
        /// This program's.
        latest: i64,
    },
    /// The target is not PostgreSQL.
    #[error("{0} is not a PostgreSQL database")]
    NotPostgres(String),
    /// A copy asked of a store that is not PostgreSQL.
    #[error("the copy goes into a PostgreSQL database")]
    IntoPostgresOnly,
    /// The target holds data: its tables with their rows.
    #[error(
        "the PostgreSQL database already holds data ({}): migrate-db copies into an empty \
         database only (a new one, or one only ever started on); nothing changed",
        .0.join(", ")
    )]
    Occupied(Vec<String>),
    /// A server is running on the target.
    #[error(
        "a server wrote its heartbeat to the PostgreSQL database {seconds} s ago: stop it \
         first; nothing changed"
    )]
    ServerRunning {
        /// Since its last heartbeat.
        seconds: i64,
    },
    /// A table read short of its count.
    #[error("{table}: read {copied} rows of the {counted} counted; nothing changed")]
    ReadShort {
        /// The table.
        table: String,
        /// The rows read.
        copied: u64,
        /// The rows counted.
        counted: i64,
    },
    /// A table's copy has another number of rows than its source.
    #[error(
        "{table}: {source_rows} rows in the source, {target_rows} in the copy; nothing changed"
    )]
    CountsDiffer {
        /// The table.
        table: String,
        /// The source's rows.
        source_rows: i64,
        /// The copy's rows.
        target_rows: i64,
    },
    /// Sequences asked of SQLite.
    #[error("sequences are PostgreSQL's")]
    SequencesOnPostgres,
}

impl From<TooLarge> for Conflict {
    fn from(too_large: TooLarge) -> Conflict {
        Conflict::TooLarge(too_large)
    }
}

impl From<CopyRefusal> for Conflict {
    fn from(refusal: CopyRefusal) -> Conflict {
        Conflict::Copy(refusal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    #[test]
    fn each_conflict_says_what_it_said_in_words() {
        for (conflict, text) in [
            (Conflict::NoFreeId(IdOf::Game), "no free game id"),
            (Conflict::NoFreeId(IdOf::Challenge), "no free challenge id"),
            (Conflict::GuestName, "guest name"),
            (
                Conflict::ChallengeNotOpen { id: "k2".into() },
                "challenge k2 is not open",
            ),
            (
                Conflict::NotAtPly {
                    game: "g".into(),
                    ply: 4,
                },
                "game g is not being played at ply 4",
            ),
            (
                Conflict::SeatNotOpen {
                    game: "g".into(),
                    side: Player::Second,
                },
                "the second seat of game g is not open",
            ),
            (
                Conflict::AlreadyOver {
                    game: "g".into(),
                    status: "finished".into(),
                },
                "game g is already finished",
            ),
            (TooLarge::ReviewNodes(7).into(), "review nodes 7"),
            (
                Conflict::BackupExists(PathBuf::from("/tmp/b.db")),
                "/tmp/b.db exists already: a backup never overwrites a file",
            ),
            (
                CopyRefusal::Migration {
                    version: 3,
                    latest: 15,
                }
                .into(),
                "the SQLite database is at migration 3, this program at 15: start this \
                 version's server on it once (it migrates the file), stop it, and copy again",
            ),
            (
                CopyRefusal::Occupied(vec!["users 2".into(), "games 1".into()]).into(),
                "the PostgreSQL database already holds data (users 2, games 1): migrate-db \
                 copies into an empty database only (a new one, or one only ever started on); \
                 nothing changed",
            ),
        ] {
            assert_eq!(conflict.to_string(), text);
            assert_eq!(
                StoreError::Conflict(conflict).to_string(),
                format!("conflict: {text}")
            );
        }
    }
}
