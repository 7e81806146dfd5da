//! What ends games and guests nobody uses, and the heartbeat that lets a restarted
//! server give the time it was down back to the clocks (docs/API.md, "How games start
//! and end"). The maintenance job in `lib.rs` runs these.

use sqlx::Row;

use super::{Store, StoreError};

impl Store {
    /// Records that the server is alive at `now` (ms since the Unix epoch).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn beat(&self, now: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO heartbeat (id, beat_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET beat_at = excluded.beat_at",
        )
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The server's last recorded sign of life, if it ever gave one.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn last_heartbeat(&self) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT beat_at FROM heartbeat WHERE id = 1")
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }

    /// The games still waiting for a second player that were made before `before`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn unjoined_games_before(&self, before: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE status = 'waiting' AND created_at < $1 ORDER BY id",
        )
        .bind(before)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    /// The untimed games in play that have not changed since before `before` (no move
    /// and no other change: the row's `updated_at` is not written at each move).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn idle_untimed_games(&self, before: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE status = 'playing' AND time_control = 'untimed' \
             AND updated_at < $1 AND COALESCE((SELECT m.played_at FROM moves m \
             WHERE m.game_id = games.id ORDER BY m.ply DESC LIMIT 1), 0) < $1 ORDER BY id",
        )
        .bind(before)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }

    /// Deletes the guests made before `before` that never became an account and have no
    /// game and no challenge; returns how many. A purged guest's cookie no longer names
    /// anyone: the next visit makes a new guest.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn purge_idle_guests(&self, before: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "DELETE FROM guests WHERE created_at < $1 AND user_id IS NULL \
             AND NOT EXISTS (SELECT 1 FROM games g \
                 WHERE g.first_guest_id = guests.id OR g.second_guest_id = guests.id) \
             AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.creator_guest_id = guests.id)",
        )
        .bind(before)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }
}
