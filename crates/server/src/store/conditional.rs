//! Conditional moves of correspondence games: each player's lines, kept so that a restart
//! loses none (see [`crate::live::conditional`]).

use game::Player;
use sqlx::Row;

use super::{Store, StoreError, games::ply_from};

/// A player's stored lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredLines {
    /// Whose lines.
    pub side: Player,
    /// The moves played when they were entered.
    pub ply: u32,
    /// The lines, as JSON.
    pub lines: String,
}

const fn side_text(side: Player) -> &'static str {
    match side {
        Player::First => "first",
        Player::Second => "second",
    }
}

impl Store {
    /// Both players' conditional lines in game `game_id` (none, one or two).
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn conditional_lines(&self, game_id: &str) -> Result<Vec<StoredLines>, StoreError> {
        let rows = sqlx::query(
            "SELECT side, ply, lines FROM conditional_moves WHERE game_id = $1 ORDER BY side",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let side: String = row.try_get(0)?;
                let side = match side.as_str() {
                    "first" => Player::First,
                    "second" => Player::Second,
                    other => return Err(StoreError::Corrupt(format!("side {other:?}"))),
                };
                Ok(StoredLines {
                    side,
                    ply: ply_from(row.try_get(1)?)?,
                    lines: row.try_get(2)?,
                })
            })
            .collect()
    }

    /// Keeps `side`'s lines in `game_id` (replacing theirs), or drops them when `lines`
    /// is `None`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn set_conditional_lines(
        &self,
        game_id: &str,
        side: Player,
        lines: Option<(u32, &str)>,
        now: i64,
    ) -> Result<(), StoreError> {
        match lines {
            Some((ply, lines)) => {
                sqlx::query(
                    "INSERT INTO conditional_moves (game_id, side, ply, lines, updated_at) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id, side) DO UPDATE \
                     SET ply = excluded.ply, lines = excluded.lines, \
                     updated_at = excluded.updated_at",
                )
                .bind(game_id)
                .bind(side_text(side))
                .bind(i64::from(ply))
                .bind(lines)
                .bind(now)
                .execute(&self.pool)
                .await?;
            }
            None => {
                sqlx::query("DELETE FROM conditional_moves WHERE game_id = $1 AND side = $2")
                    .bind(game_id)
                    .bind(side_text(side))
                    .execute(&self.pool)
                    .await?;
            }
        }
        Ok(())
    }
}
