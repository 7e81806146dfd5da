//! The rating list (the established players of one game by rating, a page at a time, and
//! one player's place in it) and the games a player has not finished.

use game::GameKind;
use serde::Serialize;
use sqlx::Row;

use super::{Store, StoreError};
use crate::ratings::PROVISIONAL_DEVIATION;

/// One player of the rating list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// Their place: 1 for the highest rating (ties by name).
    pub rank: i64,
    /// Their name.
    pub name: String,
    /// Their user id (not shown: to tell who is online).
    #[serde(skip)]
    pub user_id: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation (at most [`PROVISIONAL_DEVIATION`]: provisional ratings are not
    /// listed).
    pub deviation: f64,
    /// Rated games of this kind played.
    pub games: i64,
    /// Won.
    pub wins: i64,
    /// Lost.
    pub losses: i64,
    /// Drawn.
    pub draws: i64,
    /// When they last played here, rated or not, any game (ms since the Unix epoch).
    pub last_active: i64,
}

impl Store {
    /// The established players of `kind` (rating not provisional), highest first (ties
    /// by name), `limit` from `offset`, and how many there are in all.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn rating_list(
        &self,
        kind: GameKind,
        offset: i64,
        limit: i64,
    ) -> Result<(Vec<Standing>, i64), StoreError> {
        let total: i64 =
            sqlx::query("SELECT COUNT(*) FROM ratings WHERE kind = $1 AND deviation <= $2")
                .bind(kind.as_str())
                .bind(PROVISIONAL_DEVIATION)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?;
        let rows = sqlx::query(
            "SELECT u.username, r.user_id, r.rating, r.deviation, r.games, r.wins, r.losses, \
             r.draws, r.updated_at, \
             (SELECT MAX(g.updated_at) FROM games g WHERE g.first_user_id = r.user_id), \
             (SELECT MAX(g.updated_at) FROM games g WHERE g.second_user_id = r.user_id) \
             FROM ratings r JOIN users u ON u.id = r.user_id \
             WHERE r.kind = $1 AND r.deviation <= $2 \
             ORDER BY r.rating DESC, u.username_key ASC LIMIT $3 OFFSET $4",
        )
        .bind(kind.as_str())
        .bind(PROVISIONAL_DEVIATION)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        let mut list = Vec::with_capacity(rows.len());
        for (index, row) in rows.iter().enumerate() {
            let rated_at: i64 = row.try_get(8)?;
            let as_first: Option<i64> = row.try_get(9)?;
            let as_second: Option<i64> = row.try_get(10)?;
            list.push(Standing {
                rank: offset + i64::try_from(index).unwrap_or(i64::MAX) + 1,
                name: row.try_get(0)?,
                user_id: row.try_get(1)?,
                rating: row.try_get(2)?,
                deviation: row.try_get(3)?,
                games: row.try_get(4)?,
                wins: row.try_get(5)?,
                losses: row.try_get(6)?,
                draws: row.try_get(7)?,
                last_active: [Some(rated_at), as_first, as_second]
                    .into_iter()
                    .flatten()
                    .max()
                    .unwrap_or(rated_at),
            });
        }
        Ok((list, total))
    }

    /// The place of user `user_id` in the rating list of `kind` (as [`Store::rating_list`]
    /// numbers it), or `None` while their rating there is provisional or they have none.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn rank_of(&self, user_id: &str, kind: GameKind) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(
            "SELECT r.rating, u.username_key FROM ratings r JOIN users u ON u.id = r.user_id \
             WHERE r.user_id = $1 AND r.kind = $2 AND r.deviation <= $3",
        )
        .bind(user_id)
        .bind(kind.as_str())
        .bind(PROVISIONAL_DEVIATION)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let rating: f64 = row.try_get(0)?;
        let key: String = row.try_get(1)?;
        let above: i64 = sqlx::query(
            "SELECT COUNT(*) FROM ratings r JOIN users u ON u.id = r.user_id \
             WHERE r.kind = $1 AND r.deviation <= $2 \
             AND (r.rating > $3 OR (r.rating = $3 AND u.username_key < $4))",
        )
        .bind(kind.as_str())
        .bind(PROVISIONAL_DEVIATION)
        .bind(rating)
        .bind(key)
        .fetch_one(&self.pool)
        .await?
        .try_get(0)?;
        Ok(Some(above + 1))
    }

    /// The ids of the games not over (waiting for a second player, or being played) in
    /// which the user `user` or the guest `guest` sits, latest activity first, at most
    /// `limit`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn unfinished_games_of(
        &self,
        user: Option<&str>,
        guest: Option<&str>,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT id FROM games WHERE status IN ('waiting', 'playing') \
             AND (first_user_id = $1 OR second_user_id = $1 \
                  OR first_guest_id = $2 OR second_guest_id = $2) \
             ORDER BY updated_at DESC, id LIMIT $3",
        )
        .bind(user)
        .bind(guest)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| row.try_get(0).map_err(StoreError::from))
            .collect()
    }
}
