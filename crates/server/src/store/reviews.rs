//! Computer reviews of finished games: computed once, kept, served from here afterwards.

use sqlx::Row;

use super::{Store, StoreError, TooLarge};

/// A stored review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReview {
    /// The search budget per position it was computed with, in nodes.
    pub nodes: u64,
    /// The reviewed moves, as JSON.
    pub plies: String,
}

impl Store {
    /// The review of `game_id`, if one is stored.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn review(&self, game_id: &str) -> Result<Option<StoredReview>, StoreError> {
        let row = sqlx::query("SELECT nodes, plies FROM reviews WHERE game_id = $1")
            .bind(game_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            let nodes: i64 = row.try_get(0)?;
            Ok(StoredReview {
                nodes: u64::try_from(nodes)
                    .map_err(|_| StoreError::Corrupt(format!("review nodes {nodes}")))?,
                plies: row.try_get(1)?,
            })
        })
        .transpose()
    }

    /// Keeps the review of `game_id` (replacing one made with another budget; two made
    /// at once with the same budget are the same review, and the first stays).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn save_review(
        &self,
        game_id: &str,
        review: &StoredReview,
        now: i64,
    ) -> Result<(), StoreError> {
        let nodes = i64::try_from(review.nodes)
            .map_err(|_| StoreError::Conflict(TooLarge::ReviewNodes(review.nodes).into()))?;
        sqlx::query(
            "INSERT INTO reviews (game_id, nodes, plies, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (game_id) DO UPDATE SET nodes = excluded.nodes, \
             plies = excluded.plies, created_at = excluded.created_at \
             WHERE reviews.nodes <> excluded.nodes",
        )
        .bind(game_id)
        .bind(nodes)
        .bind(&review.plies)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
