//! Stored ratings and their history.

use game::{GameKind, Player};
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::{Store, StoreError, parse_column};
use crate::ratings::{Rating, rate};

/// A user's rating in one game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingRecord {
    /// Which game.
    pub kind: GameKind,
    /// The rating itself.
    #[serde(flatten)]
    pub rating: Rating,
    /// Whether it is still provisional.
    pub provisional: bool,
    /// Rated games played.
    pub games: i64,
    /// Of which won.
    pub wins: i64,
    /// Lost.
    pub losses: i64,
    /// Drawn.
    pub draws: i64,
    /// When it last changed (ms since the Unix epoch).
    pub updated_at: i64,
}

/// A player's rating before and after one rated game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingChange {
    /// The user.
    pub user_id: String,
    /// Before the game (the default for a first game).
    pub before: Rating,
    /// After it.
    pub after: Rating,
}

/// A user's rating after one rated game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingHistoryPoint {
    /// Which game kind.
    pub kind: GameKind,
    /// The game that changed it.
    pub game_id: String,
    /// The rating after it.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// When (ms since the Unix epoch).
    pub recorded_at: i64,
}

/// One stored rating row as read inside a rating update.
struct Current {
    rating: Rating,
    games: i64,
    wins: i64,
    losses: i64,
    draws: i64,
    revision: i64,
    /// When it last changed: a later change is never recorded as earlier.
    updated_at: i64,
}

async fn current(
    tx: &mut AnyConnection,
    user_id: &str,
    kind: GameKind,
) -> Result<Option<Current>, StoreError> {
    let row = sqlx::query(
        "SELECT rating, deviation, volatility, wins, losses, draws, revision, games, updated_at \
         FROM ratings WHERE user_id = $1 AND kind = $2",
    )
    .bind(user_id)
    .bind(kind.as_str())
    .fetch_optional(&mut *tx)
    .await?;
    row.map(|row| {
        Ok(Current {
            rating: Rating {
                rating: row.try_get(0)?,
                deviation: row.try_get(1)?,
                volatility: row.try_get(2)?,
            },
            wins: row.try_get(3)?,
            losses: row.try_get(4)?,
            draws: row.try_get(5)?,
            revision: row.try_get(6)?,
            games: row.try_get(7)?,
            updated_at: row.try_get(8)?,
        })
    })
    .transpose()
}

/// Updates both players' ratings for a finished rated game inside the caller's
/// transaction. Returns `None` when another transaction changed one of the rows since it
/// was read (the caller rolls back and tries again): a row is written only if its
/// `revision` is still the one read, which needs no row locks and works the same on
/// SQLite and PostgreSQL.
pub(super) async fn apply_game_ratings(
    tx: &mut AnyConnection,
    users: [&String; 2],
    kind: GameKind,
    game_id: &str,
    winner: Option<Player>,
    now: i64,
) -> Result<Option<[RatingChange; 2]>, StoreError> {
    let first = current(tx, users[0], kind).await?;
    let second = current(tx, users[1], kind).await?;
    let before = [
        first.as_ref().map_or_else(Rating::default, |c| c.rating),
        second.as_ref().map_or_else(Rating::default, |c| c.rating),
    ];
    let (after_first, after_second) = rate(before[0], before[1], winner);
    let after = [after_first, after_second];
    for (index, (player, stored)) in Player::BOTH.into_iter().zip([first, second]).enumerate() {
        let (win, loss, draw) = match winner {
            Some(w) if w == player => (1, 0, 0),
            Some(_) => (0, 1, 0),
            None => (0, 0, 1),
        };
        let new = after[index];
        let game_number = stored.as_ref().map_or(1, |c| c.games + 1);
        // Games finishing at once are rated one after another; the history's time must
        // follow that order (a clock read before the transaction may not).
        let at = stored.as_ref().map_or(now, |c| now.max(c.updated_at));
        let written = match stored {
            Some(c) => {
                sqlx::query(
                    "UPDATE ratings SET rating = $3, deviation = $4, volatility = $5, \
                     games = games + 1, wins = $6, losses = $7, draws = $8, \
                     revision = revision + 1, updated_at = $9 \
                     WHERE user_id = $1 AND kind = $2 AND revision = $10",
                )
                .bind(users[index])
                .bind(kind.as_str())
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .bind(c.wins + win)
                .bind(c.losses + loss)
                .bind(c.draws + draw)
                .bind(at)
                .bind(c.revision)
                .execute(&mut *tx)
                .await?
            }
            None => {
                sqlx::query(
                    "INSERT INTO ratings (user_id, kind, rating, deviation, volatility, games, \
                     wins, losses, draws, revision, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, 1, $9) \
                     ON CONFLICT (user_id, kind) DO NOTHING",
                )
                .bind(users[index])
                .bind(kind.as_str())
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .bind(win)
                .bind(loss)
                .bind(draw)
                .bind(at)
                .execute(&mut *tx)
                .await?
            }
        };
        if written.rows_affected() != 1 {
            return Ok(None);
        }
        sqlx::query(
            "INSERT INTO rating_history (user_id, game_id, kind, game_number, rating, deviation, \
             volatility, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(users[index])
        .bind(game_id)
        .bind(kind.as_str())
        .bind(game_number)
        .bind(new.rating)
        .bind(new.deviation)
        .bind(new.volatility)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    }
    Ok(Some([
        RatingChange {
            user_id: users[0].clone(),
            before: before[0],
            after: after[0],
        },
        RatingChange {
            user_id: users[1].clone(),
            before: before[1],
            after: after[1],
        },
    ]))
}

fn rating_from_row(row: &AnyRow) -> Result<RatingRecord, StoreError> {
    let rating = Rating {
        rating: row.try_get(1)?,
        deviation: row.try_get(2)?,
        volatility: row.try_get(3)?,
    };
    Ok(RatingRecord {
        kind: parse_column(row, 0)?,
        provisional: rating.is_provisional(),
        rating,
        games: row.try_get(4)?,
        wins: row.try_get(5)?,
        losses: row.try_get(6)?,
        draws: row.try_get(7)?,
        updated_at: row.try_get(8)?,
    })
}

impl Store {
    /// A user's ratings, one per game kind they have played rated.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn ratings_of(&self, user_id: &str) -> Result<Vec<RatingRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT kind, rating, deviation, volatility, games, wins, losses, draws, updated_at \
             FROM ratings WHERE user_id = $1 ORDER BY kind",
        )
        .bind(user_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(rating_from_row).collect()
    }

    /// A user's rating after each of their last `limit` rated games, oldest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn rating_history(
        &self,
        user_id: &str,
        limit: i64,
    ) -> Result<Vec<RatingHistoryPoint>, StoreError> {
        let rows = sqlx::query(
            "SELECT kind, game_id, rating, deviation, recorded_at FROM rating_history \
             WHERE user_id = $1 ORDER BY recorded_at DESC, game_number DESC LIMIT $2",
        )
        .bind(user_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut points = rows
            .iter()
            .map(|row| {
                Ok(RatingHistoryPoint {
                    kind: parse_column(row, 0)?,
                    game_id: row.try_get(1)?,
                    rating: row.try_get(2)?,
                    deviation: row.try_get(3)?,
                    recorded_at: row.try_get(4)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        points.reverse();
        Ok(points)
    }
}
