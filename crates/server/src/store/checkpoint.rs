//! SQLite's checkpoints, off the moves' path.
//!
//! In WAL mode a commit appends to the log, and by default the commit that takes the log
//! past 1,000 pages (4 MB) also copies the log into the database file and waits for the
//! disk: on the one connection that every move and request shares, so the moves that
//! queue behind that commit wait for it. Under 2,000 games at once that is several times
//! a second. Here a task with a connection of its own checkpoints every
//! [`CHECKPOINT_EVERY`] in `PASSIVE` mode, which runs beside the writer and never blocks
//! it; the shared connection checkpoints by itself only past [`FALLBACK_PAGES`], should
//! the task fall behind or stop.

use std::time::Duration;

use sqlx::{AnyConnection, Connection as _};
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::config::SqliteSync;

/// How often the log is copied into the file.
pub(super) const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// The log's length, in pages, past which the shared connection checkpoints itself
/// (`PRAGMA wal_autocheckpoint`): 64 MB.
pub(super) const FALLBACK_PAGES: u32 = 16_384;

/// The checkpointing task: stopped when [`Checkpoints::stop`] is called or the last
/// handle is dropped.
#[derive(Debug)]
pub(super) struct Checkpoints {
    task: tokio::sync::Mutex<Option<JoinHandle<()>>>,
    stop: CancellationToken,
    _on_drop: DropGuard,
}

impl Checkpoints {
    /// Starts checkpointing the SQLite database at `url`.
    pub(super) fn start(url: String, sync: SqliteSync) -> Checkpoints {
        let stop = CancellationToken::new();
        let task = tokio::spawn(run(url, sync, stop.clone()));
        Checkpoints {
            task: tokio::sync::Mutex::new(Some(task)),
            _on_drop: stop.clone().drop_guard(),
            stop,
        }
    }

    /// Stops the task and waits for its connection to close (before the shared one
    /// closes, so that the last connection leaves the file checkpointed).
    pub(super) async fn stop(&self) {
        self.stop.cancel();
        if let Some(task) = self.task.lock().await.take() {
            let _ = task.await;
        }
    }
}

async fn run(url: String, sync: SqliteSync, stop: CancellationToken) {
    let mut connection = match AnyConnection::connect(&url).await {
        Ok(connection) => connection,
        Err(error) => {
            tracing::warn!(%error, "no connection for checkpoints: SQLite checkpoints at commits");
            return;
        }
    };
    let pragma = format!("PRAGMA synchronous = {}", sync.pragma());
    if let Err(error) = sqlx::query(&pragma).execute(&mut connection).await {
        tracing::warn!(%error, "setting up the connection for checkpoints");
    }
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = false;
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = tick.tick() => {}
        }
        match sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&mut connection)
            .await
        {
            Ok(_) => failing = false,
            // Said once until it works again (a full disk would fail every tick).
            Err(error) if !failing => {
                failing = true;
                tracing::warn!(%error, "checkpointing the SQLite log");
            }
            Err(_) => {}
        }
    }
    let _ = connection.close().await;
}
