//! What a player page shows: ratings, rating history, record against opponents and
//! recent games.

use serde::Serialize;
use sqlx::Row;

use super::games::{GAME_SELECT, game_from_row};
use super::{
    GameRecord, PlayerRef, RatingHistoryPoint, RatingRecord, SeatRecord, Store, StoreError, User,
};

/// A player's results against one opponent (finished games, rated or not).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpponentRecord {
    /// The opponent.
    pub opponent: PlayerRef,
    /// Games played against them.
    pub games: i64,
    /// Won.
    pub wins: i64,
    /// Lost.
    pub losses: i64,
    /// Drawn.
    pub draws: i64,
}

/// Everything on a player's page.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// The player.
    pub user: User,
    /// A rating per game kind played rated.
    pub ratings: Vec<RatingRecord>,
    /// The rating after each recent rated game, oldest first.
    pub history: Vec<RatingHistoryPoint>,
    /// Results against each opponent, most games first.
    pub opponents: Vec<OpponentRecord>,
    /// The latest games, newest first.
    pub recent_games: Vec<GameRecord>,
}

/// How many points of rating history a profile carries.
const HISTORY_POINTS: i64 = 500;
/// How many opponents a profile lists.
const OPPONENTS: i64 = 50;
/// How many recent games a profile lists.
const RECENT_GAMES: i64 = 20;

impl Store {
    /// The page of the player with this name (any case).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn profile(&self, username: &str) -> Result<Option<Profile>, StoreError> {
        let Some(user) = self.user_by_name(username).await? else {
            return Ok(None);
        };
        Ok(Some(Profile {
            ratings: self.ratings_of(&user.id).await?,
            history: self.rating_history(&user.id, HISTORY_POINTS).await?,
            opponents: self.record_against_opponents(&user.id, OPPONENTS).await?,
            recent_games: self.recent_games_of(&user.id, RECENT_GAMES).await?,
            user,
        }))
    }

    /// A user's latest games (any status), newest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn recent_games_of(
        &self,
        user_id: &str,
        limit: i64,
    ) -> Result<Vec<GameRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "{GAME_SELECT} WHERE g.first_user_id = $1 OR g.second_user_id = $1 \
             ORDER BY g.created_at DESC, g.id DESC LIMIT $2"
        ))
        .bind(user_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_from_row).collect()
    }

    /// A user's finished games counted per opponent, most games first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn record_against_opponents(
        &self,
        user_id: &str,
        limit: i64,
    ) -> Result<Vec<OpponentRecord>, StoreError> {
        let rows = sqlx::query(
            "SELECT t.opp_user, u.username, t.opp_guest, q.name, t.opp_ai, COUNT(*), \
             COUNT(CASE WHEN t.result = t.side THEN 1 END), \
             COUNT(CASE WHEN t.result <> t.side AND t.result <> 'draw' THEN 1 END), \
             COUNT(CASE WHEN t.result = 'draw' THEN 1 END) \
             FROM ( \
               SELECT 'first' AS side, result, second_user_id AS opp_user, \
                      second_guest_id AS opp_guest, second_ai_level AS opp_ai \
               FROM games WHERE first_user_id = $1 AND status = 'finished' \
               UNION ALL \
               SELECT 'second' AS side, result, first_user_id AS opp_user, \
                      first_guest_id AS opp_guest, first_ai_level AS opp_ai \
               FROM games WHERE second_user_id = $1 AND status = 'finished' \
             ) t \
             LEFT JOIN users u ON u.id = t.opp_user \
             LEFT JOIN guests q ON q.id = t.opp_guest \
             GROUP BY t.opp_user, u.username, t.opp_guest, q.name, t.opp_ai \
             ORDER BY COUNT(*) DESC, u.username, q.name, t.opp_ai LIMIT $2",
        )
        .bind(user_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut records = Vec::with_capacity(rows.len());
        for row in &rows {
            let ai_level: Option<i64> = row.try_get(4)?;
            let seat = SeatRecord {
                user_id: row.try_get(0)?,
                username: row.try_get(1)?,
                guest_id: row.try_get(2)?,
                guest_name: row.try_get(3)?,
                ai_level: ai_level.and_then(|level| u8::try_from(level).ok()),
            };
            // A finished game always has both seats taken; skip anything else.
            let Some(opponent) = seat.player() else {
                continue;
            };
            records.push(OpponentRecord {
                opponent,
                games: row.try_get(5)?,
                wins: row.try_get(6)?,
                losses: row.try_get(7)?,
                draws: row.try_get(8)?,
            });
        }
        Ok(records)
    }
}
