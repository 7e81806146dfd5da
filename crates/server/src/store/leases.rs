//! Which server process owns each live game (issue 23): a lease on the game's row.
//!
//! A process owns the games whose `owner` column holds its [`Owner`] token
//! (`INSTANCE#INCARNATION`). It renews the lease of all of them with one statement every
//! few seconds ([`Store::renew_leases`]); a game whose lease lapses (its process died or
//! lost the database) is claimed by another process ([`Store::claim_games`]). Every write
//! of a live game checks `owner` (see `games.rs` and the move writer): a process that lost
//! a game gets [`StoreError::Fenced`] and changes nothing, so two processes never both
//! write one game, even for the moment before the loser notices.
//!
//! An instance restarted under the same name claims its own games at once (the process
//! before it is dead, or fenced from then on); another instance waits for the lease to
//! lapse. Stopping gracefully lets the leases lapse at once ([`Store::release_games`]).

use std::sync::Arc;

use sqlx::Row;

use super::{Store, StoreError};

/// How long a lease holds unless renewed: a dead process's games are taken over by
/// another within this time (plus the other's sweep interval).
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

/// A live game's owner as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The owner's token (`None`: no process has claimed it yet).
    pub owner: Option<String>,
    /// Until when the claim holds (ms since the Unix epoch).
    pub until: i64,
}

impl Store {
    /// This process as the owner of the games it writes.
    #[must_use]
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    /// Renews the lease of every live game this process owns, until `now` + [`LEASE_MS`].
    /// Returns their ids: a game this process runs that is missing was taken by another.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn renew_leases(&self, now: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "UPDATE games SET lease_until = $2 \
             WHERE owner = $1 AND status IN ('waiting', 'playing') RETURNING id",
        )
        .bind(self.owner.token())
        .bind(now + LEASE_MS)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?)
    }

    /// Claims the live games that no process holds: never claimed, lapsed at `now`, or
    /// held by an earlier run of this instance. Returns the ids claimed (not those this
    /// run already held).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_games(&self, now: i64) -> Result<Vec<String>, StoreError> {
        let prefix = self.owner.prefix();
        let rows = sqlx::query(
            "UPDATE games SET owner = $1, lease_until = $3 \
             WHERE status IN ('waiting', 'playing') \
             AND (owner IS NULL OR (owner <> $1 AND (lease_until < $2 \
                  OR substr(owner, 1, length(CAST($4 AS TEXT))) = $4))) \
             RETURNING id",
        )
        .bind(self.owner.token())
        .bind(now)
        .bind(now + LEASE_MS)
        .bind(&prefix)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?)
    }

    /// Lets the leases of this process's games lapse now (a graceful stop): another
    /// process may claim them at once. They stay this run's until one does.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn release_games(&self) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE games SET lease_until = 0 \
             WHERE owner = $1 AND status IN ('waiting', 'playing')",
        )
        .bind(self.owner.token())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The lease of game `id` (`None`: no such game).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn lease(&self, id: &str) -> Result<Option<Lease>, StoreError> {
        let row = sqlx::query("SELECT owner, lease_until FROM games WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(Lease {
                owner: row.try_get(0)?,
                until: row.try_get(1)?,
            })
        })
        .transpose()
    }

    /// The error for a live-game write that changed nothing: [`StoreError::Fenced`] when
    /// the game is another process's now, else a conflict saying `why`.
    pub(super) async fn fenced_or(&self, id: &str, why: String) -> StoreError {
        match self.lease(id).await {
            Ok(Some(Lease {
                owner: Some(owner), ..
            })) if owner != self.owner.token() => StoreError::Fenced(id.to_owned()),
            _ => StoreError::Conflict(why),
        }
    }
}
