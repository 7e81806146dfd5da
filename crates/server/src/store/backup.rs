//! Backups of a SQLite database, taken while the server runs, and the checks a restore
//! makes (`kingstable backup`, `kingstable restore`; docs/OPERATIONS.md, "Backups").
//! PostgreSQL has its own tools (`pg_dump`), which the documentation gives.

use std::path::Path;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Row};

use super::{Conflict, Store, StoreError};
use crate::config::Backend;

/// The tables every backup is counted by, in the order they are printed.
pub const TABLES: [&str; 20] = [
    "users",
    "sessions",
    "guests",
    "games",
    "moves",
    "ratings",
    "rating_history",
    "reviews",
    "challenges",
    "conditional_moves",
    "chat_messages",
    "chat_reports",
    "chat_sanctions",
    "lobby_messages",
    "lobby_reports",
    "mail_tokens",
    "mail_clock_warnings",
    "revocations",
    "heartbeat",
    "instances",
];

/// A heartbeat younger than this (ms) is a server running on the database, or one
/// stopped just now (which writes a last one): the server writes one every 5 s.
pub const RUNNING_WITHIN_MS: i64 = 15_000;

/// What a SQLite file holds, as a restore checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// Rows per table of [`TABLES`] (a table the file does not have is left out).
    pub rows: Vec<(&'static str, i64)>,
    /// The server's last heartbeat written into it (ms since the Unix epoch), if any.
    pub heartbeat: Option<i64>,
}

impl Store {
    /// Writes a consistent copy of this SQLite database to `path` (`VACUUM INTO`: one
    /// read transaction, so the server goes on writing meanwhile, and the copy is
    /// compacted). The file must not exist yet.
    ///
    /// # Errors
    /// On PostgreSQL (use `pg_dump`), when `path` exists, or when SQLite cannot write
    /// it.
    pub async fn backup_sqlite(&self, path: &Path) -> Result<(), StoreError> {
        if self.backend != Backend::Sqlite {
            return Err(StoreError::Conflict(Conflict::BackupOfPostgres));
        }
        if path.exists() {
            return Err(StoreError::Conflict(Conflict::BackupExists(
                path.to_owned(),
            )));
        }
        let Some(target) = path.to_str() else {
            return Err(StoreError::Conflict(Conflict::NotUtf8Path(path.to_owned())));
        };
        sqlx::query("VACUUM INTO $1")
            .bind(target)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Reads the SQLite file at `path` without changing it: checks its pages
/// (`PRAGMA quick_check`) and counts its rows.
///
/// # Errors
/// When it cannot be opened, is damaged ([`StoreError::Damaged`]) or is not a
/// Kingstable database (no `games` table).
pub async fn inspect_sqlite_file(path: &Path) -> Result<FileReport, StoreError> {
    sqlx::any::install_default_drivers();
    if !path.is_file() {
        return Err(StoreError::NotFound("database file"));
    }
    let url = format!("sqlite://{}?mode=ro", path.display());
    let pool: AnyPool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await?;
    let report = inspect(&pool).await;
    super::close_pool(&pool).await;
    report
}

pub(super) async fn inspect(pool: &AnyPool) -> Result<FileReport, StoreError> {
    let problems: Vec<String> = sqlx::query_scalar("PRAGMA quick_check(20)")
        .fetch_all(pool)
        .await?;
    if problems.iter().any(|line| line != "ok") {
        return Err(StoreError::Damaged(problems.join("; ")));
    }
    let present: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
            .fetch_all(pool)
            .await?;
    if !present.iter().any(|t| t == "games") {
        return Err(StoreError::Corrupt(
            "not a Kingstable database (it has no games table)".into(),
        ));
    }
    let mut rows = Vec::new();
    for table in TABLES {
        if present.iter().any(|t| t == table) {
            // The table names are this module's constants, never input.
            let count: i64 = sqlx::query(&format!("SELECT COUNT(*) FROM {table}"))
                .fetch_one(pool)
                .await?
                .try_get(0)?;
            rows.push((table, count));
        }
    }
    let heartbeat = if present.iter().any(|t| t == "heartbeat") {
        sqlx::query("SELECT beat_at FROM heartbeat WHERE id = 1")
            .fetch_optional(pool)
            .await?
            .map(|row| row.try_get::<i64, _>(0))
            .transpose()?
    } else {
        None
    };
    Ok(FileReport { rows, heartbeat })
}
