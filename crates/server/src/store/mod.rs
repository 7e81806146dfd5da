//! Storage: one interface over SQLite and PostgreSQL.
//!
//! Both databases run the same migrations (`crates/server/migrations/`, applied at
//! start) and the same queries, through sqlx's `Any` driver with `$1`-style parameters
//! (which SQLite reads too). The schema keeps to what both read alike: TEXT, BIGINT,
//! DOUBLE PRECISION, random text ids instead of autoincrement, times as milliseconds
//! since the Unix epoch, JSON as TEXT.
//!
//! SQLite runs with one connection in WAL mode: SQLite has one writer at a time anyway,
//! and a single connection never fails a transaction with "database is locked". (A
//! second connection only copies the log into the file: `checkpoint.rs`.) The moves'
//! writer goes ahead of the other queries for that connection: `pool.rs`.

mod archive;
pub mod backup;
mod challenges;
mod chat;
mod checkpoint;
mod conditional;
mod conflict;
mod games;
mod leases;
mod lifecycle;
mod mail;
mod players;
mod pool;
mod ratings;
mod reviews;
mod standings;
pub mod transfer;
mod users;
mod writer;

use std::borrow::Cow;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::Row;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationType, Migrator};

pub use archive::{ArchiveFilter, ArchivePage, ArchivedGame, ImportedGame};
pub use challenges::{
    CHALLENGES_TO_ONE, CORRESPONDENCE_CHALLENGE_TTL_MS, Challenge, ChallengeSide, ChallengeStatus,
    LIVE_CHALLENGE_TTL_MS, NewChallenge, challenge_expires_at,
};
pub use chat::{ChatRecord, LOBBY_ROOM, ReportRecord, Sanction};
pub use conditional::StoredLines;
pub use conflict::{Conflict, CopyRefusal, IdOf, TooLarge};
pub use games::{
    Finished, GameRecord, GameStatus, NewGame, PlayerRef, SNAPSHOT_EVERY, Seat, SeatRecord,
    StoredMove, StoredSession, result_str, snapshot_due,
};
pub use leases::{Claimed, LEASE_MS, LOCAL_INSTANCE, Owner};
pub use mail::{MailSettings, Recipient, TokenPurpose, day_of};
pub use players::{OpponentRecord, Profile};
pub use ratings::{RatingChange, RatingHistoryPoint, RatingRecord};
pub use reviews::StoredReview;
pub use standings::Standing;
pub use users::{Guest, User};

use crate::config::{Backend, DatabaseUrl, SqliteSync};

/// How long a query waits for a connection (at the gate of `pool.rs`, then at the pool)
/// before it fails.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest [`close_pool`] waits for the pool's last connections to close.
const CLOSE_WAIT: Duration = Duration::from_secs(10);

/// The migrations, in order: (version, description, SQL). Embedded in the binary.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../migrations/0001_initial.sql"),
    ),
    (
        2,
        "archive",
        include_str!("../../migrations/0002_archive.sql"),
    ),
    (
        3,
        "lifecycle",
        include_str!("../../migrations/0003_lifecycle.sql"),
    ),
    (
        4,
        "move log",
        include_str!("../../migrations/0004_move_log.sql"),
    ),
    (5, "play", include_str!("../../migrations/0005_play.sql")),
    (
        6,
        "import key",
        include_str!("../../migrations/0006_import_key.sql"),
    ),
    (7, "mail", include_str!("../../migrations/0007_mail.sql")),
    (
        8,
        "standings",
        include_str!("../../migrations/0008_standings.sql"),
    ),
    (
        9,
        "conditional moves",
        include_str!("../../migrations/0009_conditional.sql"),
    ),
    (10, "chat", include_str!("../../migrations/0010_chat.sql")),
    (
        11,
        "lobby chat",
        include_str!("../../migrations/0011_lobby_chat.sql"),
    ),
    (
        12,
        "direct challenges",
        include_str!("../../migrations/0012_direct_challenges.sql"),
    ),
    (
        13,
        "revocations",
        include_str!("../../migrations/0013_revocations.sql"),
    ),
    (
        14,
        "user language",
        include_str!("../../migrations/0014_user_lang.sql"),
    ),
    (
        15,
        "leases",
        include_str!("../../migrations/0015_leases.sql"),
    ),
];

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused or failed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// The migrations could not be applied.
    #[error("migrating the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A new account's name is already someone's.
    #[error("username taken")]
    UsernameTaken,
    /// No row with that key (the word names what was looked for: "game", "player").
    #[error("no such {0}")]
    NotFound(&'static str),
    /// The change conflicts with the stored state (a move for a ply that is already
    /// stored, a finished game finished again, a seat already taken): what it found.
    #[error("conflict: {0}")]
    Conflict(Conflict),
    /// The SQLite file fails its integrity check (`PRAGMA quick_check`): the server
    /// will not start on it.
    #[error(
        "the database file is damaged (SQLite's quick_check: {0}); restore it from a \
         backup, or try `sqlite3 FILE .recover`, before starting the server"
    )]
    Damaged(String),
    /// A stored value the server cannot read (a game kind it does not know).
    #[error("unreadable stored value: {0}")]
    Corrupt(String),
    /// The live game is owned by another server process now (its lease passed to it):
    /// this one may no longer change it.
    #[error("game {0} is owned by another server process")]
    Fenced(String),
}

/// The database: a pool of connections and which program is behind it. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pool: pool::Pool,
    backend: Backend,
    /// This process as the owner of the live games it writes.
    owner: Owner,
    /// Stores the moves of every game, those waiting together in one transaction.
    writer: writer::MoveWriter,
    /// SQLite's checkpoints, on a connection of their own (`None` on PostgreSQL).
    checkpoints: Option<std::sync::Arc<checkpoint::Checkpoints>>,
}

/// Closes every connection of `pool`, waiting for each to close (at most
/// [`CLOSE_WAIT`], then said in the log).
///
/// sqlx's `Pool::close` can return with a connection still open (sqlx issue #3217): one
/// given back while it waits (a query's connection goes back by a task of its own,
/// after a ping) lands in the idle queue after close last looked there, and stays open
/// until the pool is dropped, to close on its own thread some time later. On SQLite the
/// last connection to close copies the log into the file and deletes the log, so a
/// file restored or copied in the meantime would lose its own log to it. So close is
/// asked again until no connection is left.
pub(super) async fn close_pool(pool: &sqlx::AnyPool) {
    pool.close().await;
    let deadline = tokio::time::Instant::now() + CLOSE_WAIT;
    while pool.size() > 0 {
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                open = pool.size(),
                "database connections still open after closing the pool"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
        pool.close().await;
    }
}

impl Store {
    /// Connects (creating a SQLite file when missing) and applies any migrations not yet
    /// applied.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn open(url: &DatabaseUrl, max_connections: u32) -> Result<Store, StoreError> {
        Store::open_with(url, max_connections, SqliteSync::default()).await
    }

    /// [`Store::open`], saying when a SQLite write counts as stored.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn open_with(
        url: &DatabaseUrl,
        max_connections: u32,
        sync: SqliteSync,
    ) -> Result<Store, StoreError> {
        Store::open_as(url, max_connections, sync, Owner::new(LOCAL_INSTANCE)).await
    }

    /// [`Store::open_with`], owning live games as `owner`.
    ///
    /// # Errors
    /// When the database cannot be reached or migrated.
    pub async fn open_as(
        url: &DatabaseUrl,
        max_connections: u32,
        sync: SqliteSync,
        owner: Owner,
    ) -> Result<Store, StoreError> {
        // Idempotent: sqlx guards it with its own `Once`.
        sqlx::any::install_default_drivers();
        let backend = url.backend();
        let connections = match backend {
            Backend::Sqlite => 1,
            Backend::Postgres => max_connections.max(1),
        };
        let pool = AnyPoolOptions::new()
            .max_connections(connections)
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    // Per connection: each new one is told again.
                    if backend == Backend::Sqlite {
                        let pragma = format!("PRAGMA synchronous = {}", sync.pragma());
                        sqlx::query(&pragma).execute(&mut *connection).await?;
                        // Checkpoints are a task's own work (`checkpoint.rs`).
                        let pragma =
                            format!("PRAGMA wal_autocheckpoint = {}", checkpoint::FALLBACK_PAGES);
                        sqlx::query(&pragma).execute(&mut *connection).await?;
                    }
                    Ok(())
                })
            })
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // A SQLite connection is a file in this process: it cannot have been lost,
            // so it is not pinged before each query (a round trip to its worker thread
            // that cost more than the move's insert). A PostgreSQL one is.
            .test_before_acquire(backend == Backend::Postgres)
            .connect(url.connection_string())
            .await
            .map_err(damaged_or)?;
        if backend == Backend::Sqlite {
            // A file with damaged pages opens, and would answer `/health`, until a query
            // reads them: check every page's structure first (seconds for a large file).
            let problems: Vec<String> = sqlx::query_scalar("PRAGMA quick_check(20)")
                .fetch_all(&pool)
                .await
                .map_err(damaged_or)?;
            if problems.iter().any(|line| line != "ok") {
                close_pool(&pool).await;
                return Err(StoreError::Damaged(problems.join("; ")));
            }
            // Persistent in the file; readers then never block the writer.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await?;
        }
        let writer = writer::MoveWriter::start(pool.clone());
        let checkpoints = (backend == Backend::Sqlite).then(|| {
            std::sync::Arc::new(checkpoint::Checkpoints::start(
                url.connection_string().to_owned(),
                sync,
            ))
        });
        let store = Store {
            pool: pool::Pool::new(pool, connections),
            backend,
            owner,
            writer,
            checkpoints,
        };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let migrations: Vec<Migration> = MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    Cow::Borrowed(sql),
                    false,
                )
            })
            .collect();
        let migrator = Migrator {
            migrations: Cow::Owned(migrations),
            ignore_missing: false,
            locking: true,
            no_tx: false,
        };
        migrator.run(self.pool.priority()).await?;
        Ok(())
    }

    /// Which database program this is.
    #[must_use]
    pub const fn backend(&self) -> Backend {
        self.backend
    }

    /// Checks that the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Waits for running queries, then closes every connection (SQLite checkpoints its
    /// log into the file).
    pub async fn close(&self) {
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.stop().await;
        }
        self.pool.close().await;
    }

    /// Deletes sign-ins that have expired; returns how many.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn delete_expired_sessions(&self, now: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}

/// SQLite's "database disk image is malformed" (`SQLITE_CORRUPT`, 11) and "file is not a
/// database" (`SQLITE_NOTADB`, 26) as [`StoreError::Damaged`]; other errors as they are.
fn damaged_or(error: sqlx::Error) -> StoreError {
    match &error {
        sqlx::Error::Database(e) if matches!(e.code().as_deref(), Some("11" | "26")) => {
            StoreError::Damaged(e.message().to_owned())
        }
        _ => StoreError::Database(error),
    }
}

/// Now, in milliseconds since the Unix epoch (the unit of every time in the database).
#[must_use]
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A random id of `len` letters and digits (about 5.95 bits each).
#[must_use]
pub fn random_id(len: usize) -> String {
    use rand::RngExt;
    use rand::distr::Alphanumeric;
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(len)
        .map(char::from)
        .collect()
}

/// Whether a database error is a unique-key violation.
fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

/// Reads a text column into a type that parses from text, reporting unreadable values
/// as [`StoreError::Corrupt`].
fn parse_column<T: FromStr>(row: &AnyRow, index: usize) -> Result<T, StoreError> {
    let text: String = row.try_get(index)?;
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("column {index}: `{text}`")))
}

/// Reads an optional text column that parses from text.
fn parse_optional_column<T: FromStr>(row: &AnyRow, index: usize) -> Result<Option<T>, StoreError> {
    let text: Option<String> = row.try_get(index)?;
    text.map(|text| {
        text.parse()
            .map_err(|_| StoreError::Corrupt(format!("column {index}: `{text}`")))
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--sqlite-sync` reaches SQLite, on every connection the pool makes.
    #[tokio::test]
    async fn the_sqlite_sync_setting_is_applied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let url: DatabaseUrl = path.to_str().unwrap().parse().unwrap();
        for (sync, expected) in [(SqliteSync::Full, 2_i64), (SqliteSync::Normal, 1)] {
            let store = Store::open_with(&url, 1, sync).await.unwrap();
            let level: i64 = sqlx::query_scalar("PRAGMA synchronous")
                .fetch_one(&store.pool)
                .await
                .unwrap();
            assert_eq!(level, expected, "{sync:?}");
            store.close().await;
        }
        assert_eq!("Normal".parse(), Ok(SqliteSync::Normal));
        assert!("fast".parse::<SqliteSync>().is_err());
    }

    /// `close` returns once every connection has closed, the one a query gave back an
    /// instant before included: the last connection to close deletes the log, so the
    /// log is gone the moment `close` returns. (sqlx's pool close alone left that
    /// connection open in 5 of 6 runs of this test, to close on its own thread later:
    /// `close_pool`.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn close_closes_the_connection_a_query_just_gave_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let url: DatabaseUrl = path.to_str().unwrap().parse().unwrap();
        for round in 0..100 {
            let store = Store::open(&url, 1).await.unwrap();
            store.ping().await.unwrap();
            store.close().await;
            assert!(
                !dir.path().join("k.db-wal").exists(),
                "round {round}: a connection was still open after close"
            );
        }
    }

    /// The log is copied into the file by the checkpoints' own connection, not by the
    /// commits of the shared one (which does so only past the fallback length); after
    /// `close` the file holds everything and the log is gone.
    #[tokio::test]
    async fn sqlite_checkpoints_are_a_task_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let url: DatabaseUrl = path.to_str().unwrap().parse().unwrap();
        let store = Store::open(&url, 1).await.unwrap();
        let pages: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(pages, i64::from(checkpoint::FALLBACK_PAGES));
        let size = || std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let before = size();
        for i in 0..200 {
            store.create_guest(&format!("token {i}"), i).await.unwrap();
        }
        // Far below the fallback: only the task copies these pages into the file.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while size() <= before {
            assert!(
                std::time::Instant::now() < deadline,
                "no checkpoint in 20 s: the file is still {before} bytes"
            );
            tokio::time::sleep(checkpoint::CHECKPOINT_EVERY).await;
        }
        store.close().await;
        assert!(
            !dir.path().join("k.db-wal").exists(),
            "the log is left after close"
        );
        let store = Store::open(&url, 1).await.unwrap();
        let guests: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM guests")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(guests, 200);
        store.close().await;
    }
}
