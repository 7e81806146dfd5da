//! Which server process owns each live game (issue 23).
//!
//! A process is a row of `instances`: its [`Owner`] token (`INSTANCE#INCARNATION`) and
//! until when its lease holds. It renews that one row every few seconds
//! ([`Store::renew_lease`]), whatever the number of its games. A live game's `owner`
//! column names the process that runs it. When a process's lease lapses (it died, or lost
//! the database), another claims its games ([`Store::claim_games`]). Every write of a live
//! game checks `owner` (see `games.rs` and the move writer): a process that lost a game
//! gets [`StoreError::Fenced`] and changes nothing, so two processes never both write one
//! game, even for the moment before the loser notices.
//!
//! An instance restarted under the same name claims its own games at once (the process
//! before it is dead, or fenced from then on); another instance waits for the lease to
//! lapse. Stopping gracefully lets the lease lapse at once ([`Store::release_lease`]).

use std::sync::Arc;

use sqlx::Row;

use super::{Conflict, Store, StoreError};

/// How long a process's lease holds unless renewed: a dead process's games are taken over
/// by another within this time (plus the other's round of claims).
pub const LEASE_MS: i64 = 10_000;

/// The instance name of a store opened without one (tests, commands that do not serve).
pub const LOCAL_INSTANCE: &str = "local";

/// This process as the owner of live games: its instance's name and a word drawn at
/// start, which tells this run of the instance from any earlier one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    instance: Arc<str>,
    token: Arc<str>,
}

impl Owner {
    /// A new run of `instance` (`#` is not allowed in the name and is replaced).
    #[must_use]
    pub fn new(instance: &str) -> Owner {
        let instance: String = instance
            .chars()
            .map(|c| if c == '#' { '_' } else { c })
            .collect();
        let incarnation: u64 = rand::random();
        Owner {
            token: Arc::from(format!("{instance}#{incarnation:016x}")),
            instance: Arc::from(instance),
        }
    }

    /// The instance's name.
    #[must_use]
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// What the `owner` column holds for the games of this run.
    #[must_use]
    pub fn token(&self) -> &str {
        &self.token
    }

    /// What every run of this instance's tokens start with.
    fn prefix(&self) -> String {
        format!("{}#", self.instance)
    }
}

/// A game claimed by [`Store::claim_games`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    /// The game's id.
    pub id: String,
    /// Until when the process that owned it before was known to be alive (its last
    /// renewal: its lease's end less [`LEASE_MS`]); `None` when it had no owner, or its
    /// owner stopped gracefully or is unknown.
    pub alive_until: Option<i64>,
}

/// The claimable live games: no owner, an earlier run of this instance (prefix `$2`),
/// or a process whose lease lapsed at `$3` (or that never took one).
const CLAIMABLE: &str = "status IN ('waiting', 'playing') AND (owner IS NULL OR \
     (owner <> $1 AND (substr(owner, 1, length(CAST($2 AS TEXT))) = $2 \
      OR NOT EXISTS (SELECT 1 FROM instances i WHERE i.token = games.owner \
                     AND i.lease_until >= $3))))";

impl Store {
    /// This process as the owner of the games it writes.
    #[must_use]
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// Renews this process's lease until `now` + [`LEASE_MS`]: its games stay its own.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn renew_lease(&self, now: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO instances (token, lease_until) VALUES ($1, $2) \
             ON CONFLICT (token) DO UPDATE SET lease_until = excluded.lease_until",
        )
        .bind(self.owner.token())
        .bind(now + LEASE_MS)
        .execute(&self.pool)
        .await?;
        // Processes long gone that own nothing live any more.
        sqlx::query(
            "DELETE FROM instances WHERE lease_until < $1 AND NOT EXISTS (SELECT 1 FROM games g \
             WHERE g.owner = instances.token AND g.status IN ('waiting', 'playing'))",
        )
        .bind(now - 24 * 3600 * 1000)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The ids of the live games this process owns: one it runs that is missing was
    /// taken by another.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn owned_games(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE owner = $1 AND status IN ('waiting', 'playing')",
        )
        .bind(self.owner.token())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?)
    }

    /// Claims the live games that no live process holds at `now`: never claimed, held by
    /// an earlier run of this instance, or by a process whose lease lapsed. Each is taken
    /// only if its owner is still the one read (another process claiming at the same
    /// moment gets it or not, never both).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_games(&self, now: i64) -> Result<Vec<Claimed>, StoreError> {
        let prefix = self.owner.prefix();
        // It reads, then writes: another process's write in between must wait for it.
        let mut tx = self.pool.begin_writing(self.backend()).await?;
        let candidates = sqlx::query(&format!(
            "SELECT g.id, g.owner, i.lease_until FROM games g \
             LEFT JOIN instances i ON i.token = g.owner WHERE g.{}",
            CLAIMABLE.replace("games.owner", "g.owner")
        ))
        .bind(self.owner.token())
        .bind(&prefix)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        let mut claimed = Vec::with_capacity(candidates.len());
        for row in &candidates {
            let id: String = row.try_get(0)?;
            let owner: Option<String> = row.try_get(1)?;
            let until: Option<i64> = row.try_get(2)?;
            let taken = match owner {
                Some(owner) => sqlx::query(
                    "UPDATE games SET owner = $1 WHERE id = $2 \
                     AND status IN ('waiting', 'playing') AND owner = $3",
                )
                .bind(self.owner.token())
                .bind(&id)
                .bind(owner),
                None => sqlx::query(
                    "UPDATE games SET owner = $1 WHERE id = $2 \
                     AND status IN ('waiting', 'playing') AND owner IS NULL",
                )
                .bind(self.owner.token())
                .bind(&id),
            }
            .execute(&mut *tx)
            .await?;
            if taken.rows_affected() == 1 {
                claimed.push(Claimed {
                    id,
                    alive_until: until
                        .filter(|&until| until > 0)
                        .map(|until| until - LEASE_MS),
                });
            }
        }
        tx.commit().await?;
        Ok(claimed)
    }

    /// Lets this process's lease lapse now (a graceful stop): another process may claim
    /// its games at once. They stay this run's until one does.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn release_lease(&self) -> Result<(), StoreError> {
        sqlx::query("UPDATE instances SET lease_until = 0 WHERE token = $1")
            .bind(self.owner.token())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The process that owns game `id` while it is live (waiting or being played);
    /// `None` for a game over, or with no owner, or no such game.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn live_game_owner(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT owner FROM games WHERE id = $1 AND status IN ('waiting', 'playing')",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.and_then(|row| row.try_get::<Option<String>, _>(0).ok().flatten()))
    }

    /// The process that owns game `id` (`Ok(None)`: no such game; `Some(None)`: none).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn game_owner(&self, id: &str) -> Result<Option<Option<String>>, StoreError> {
        let row = sqlx::query("SELECT owner FROM games WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| row.try_get(0))
            .transpose()
            .map_err(Into::into)
    }

    /// Whether game `id` exists and is owned by another process than this one.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn owned_elsewhere(&self, id: &str) -> Result<bool, StoreError> {
        Ok(matches!(
            self.game_owner(id).await?,
            Some(Some(owner)) if owner != self.owner.token()
        ))
    }

    /// The error for a live-game write that changed nothing: [`StoreError::Fenced`] when
    /// the game is another process's now, else the conflict `why`.
    pub(super) async fn fenced_or(&self, id: &str, why: Conflict) -> StoreError {
        match self.owned_elsewhere(id).await {
            Ok(true) => StoreError::Fenced(id.to_owned()),
            _ => StoreError::Conflict(why),
        }
    }
}
