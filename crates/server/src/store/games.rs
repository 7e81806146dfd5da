//! Games and their moves: what the live layer writes before it acknowledges anything,
//! and what it reads back to resume after a restart.

use std::fmt;
use std::str::FromStr;

use game::{EndReason, GameKind, Outcome, Player};
use serde::Serialize;
use sqlx::AnyConnection;
use sqlx::Row;
use sqlx::any::AnyRow;

pub use crate::seat::{PlayerRef, Seat, SeatRecord};

use super::{
    Conflict, IdOf, RatingChange, Store, StoreError, is_unique_violation, parse_column,
    parse_optional_column, random_id,
};

impl Seat {
    pub(super) fn columns(&self) -> (Option<&str>, Option<&str>, Option<i64>) {
        match self {
            Seat::Open => (None, None, None),
            Seat::User(id) => (Some(id), None, None),
            Seat::Guest(id) => (None, Some(id), None),
            Seat::Ai(level) => (None, None, Some(i64::from(*level))),
        }
    }
}

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// A seat is still open.
    Waiting,
    /// Both seats are taken; moves are being played (`ongoing` in JSON, as the game
    /// socket says it; `playing` in the database).
    #[serde(rename = "ongoing")]
    Playing,
    /// Over, with a result.
    Finished,
    /// Called off before both sides moved: no result, no rating change.
    Aborted,
}

impl GameStatus {
    /// The stored and JSON name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::Playing => "playing",
            GameStatus::Finished => "finished",
            GameStatus::Aborted => "aborted",
        }
    }

    /// Whether the game is still going (waiting or playing).
    #[must_use]
    pub const fn is_live(self) -> bool {
        matches!(self, GameStatus::Waiting | GameStatus::Playing)
    }
}

impl From<session::Status> for GameStatus {
    /// A session's status as stored: a session is being played, finished or aborted (an
    /// open seat is the stored game's, not the session's).
    fn from(status: session::Status) -> GameStatus {
        match status {
            session::Status::Ongoing => GameStatus::Playing,
            session::Status::Finished { .. } => GameStatus::Finished,
            session::Status::Aborted { .. } => GameStatus::Aborted,
        }
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameStatus {
    type Err = ();

    fn from_str(text: &str) -> Result<GameStatus, ()> {
        match text {
            "waiting" => Ok(GameStatus::Waiting),
            "playing" => Ok(GameStatus::Playing),
            "finished" => Ok(GameStatus::Finished),
            "aborted" => Ok(GameStatus::Aborted),
            _ => Err(()),
        }
    }
}

/// A game to store.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Which game.
    pub kind: GameKind,
    /// The first player (tafl attackers, Camelot White).
    pub first: Seat,
    /// The second player.
    pub second: Seat,
    /// The time control as the session crate writes it.
    pub time_control: String,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// The position string it starts from.
    pub start_position: String,
    /// The live session, serialised (JSON), if there is one yet.
    pub session_state: Option<String>,
}

/// A stored game (without its moves and session state, which are read separately).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The short id in the game's link.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The first player.
    pub first: SeatRecord,
    /// The second player.
    pub second: SeatRecord,
    /// The time control text.
    pub time_control: String,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// Where the game is in its life.
    pub status: GameStatus,
    /// The result once finished.
    pub outcome: Option<Outcome>,
    /// The position string it started from.
    pub start_position: String,
    /// How many moves are stored.
    pub plies: u32,
    /// When it was made (ms since the Unix epoch).
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
    /// When it ended.
    pub finished_at: Option<i64>,
    /// Who ended it outside the rules: the player who resigned, whose flag fell, or who
    /// left and was claimed against.
    pub ended_by: Option<Player>,
}

impl GameRecord {
    /// The seat of one player.
    #[must_use]
    pub const fn seat(&self, player: Player) -> &SeatRecord {
        match player {
            Player::First => &self.first,
            Player::Second => &self.second,
        }
    }
}

/// One stored move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredMove {
    /// 1 for the first move of the game.
    pub ply: u32,
    /// The move in the game's notation, as the games crate writes it.
    pub text: String,
    /// The first player's time left after the move (ms); `None` when untimed.
    pub first_clock_ms: Option<i64>,
    /// The second player's time left after the move (ms).
    pub second_clock_ms: Option<i64>,
    /// When it was played (ms since the Unix epoch).
    pub played_at: i64,
}

/// A game's session as stored: the last snapshot, and the moves played after it (in
/// order, with their times), which replayed on the snapshot give the session as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSession {
    /// The session as it was after `snapshot_ply` moves (JSON).
    pub snapshot: String,
    /// How many moves the snapshot holds.
    pub snapshot_ply: u32,
    /// The moves after it, ply `snapshot_ply + 1` first.
    pub moves_after: Vec<StoredMove>,
}

/// The fewest moves between two snapshots of a game's session.
pub const SNAPSHOT_EVERY: u32 = 32;

/// Whether the session after move `ply` is stored whole, the last snapshot holding
/// `snapshot_ply` moves: when the moves since reach [`SNAPSHOT_EVERY`] or as many as the
/// snapshot held. The gap grows with the game, so the snapshots of a game of `n` moves
/// cost O(n) bytes in all (each is about twice the one before, and written after twice
/// as many moves), the same per move whatever the game's length; and a resumed game
/// replays at most half of its moves (or 32).
#[must_use]
pub const fn snapshot_due(ply: u32, snapshot_ply: u32) -> bool {
    let since = ply.saturating_sub(snapshot_ply);
    let gap = if snapshot_ply > SNAPSHOT_EVERY {
        snapshot_ply
    } else {
        SNAPSHOT_EVERY
    };
    since >= gap
}

/// What finishing a game did.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// The two players' rating changes (first player's first), when the game was rated
    /// and both players are users.
    pub rating_changes: Option<[RatingChange; 2]>,
}

/// The moves stored of the game of an `UPDATE games` (its row's `ply_count` is brought up
/// to date only with a snapshot or the end, not at each move).
const STORED_PLIES: &str =
    "(SELECT COALESCE(MAX(m.ply), 0) FROM moves m WHERE m.game_id = games.id)";

/// The columns a [`GameRecord`] is read from, with the players' names. A live game's
/// moves are counted in `moves` (its row's `ply_count` is not written at each move).
pub(super) const GAME_SELECT: &str = "SELECT g.id, g.kind, \
    g.first_user_id, u1.username, g.first_guest_id, q1.name, g.first_ai_level, \
    g.second_user_id, u2.username, g.second_guest_id, q2.name, g.second_ai_level, \
    g.time_control, g.rated, g.status, g.result, g.reason, g.start_position, \
    CASE WHEN g.status IN ('waiting', 'playing') \
    THEN (SELECT COALESCE(MAX(m.ply), 0) FROM moves m WHERE m.game_id = g.id) \
    ELSE g.ply_count END, \
    g.created_at, g.updated_at, g.finished_at, g.ended_by \
    FROM games g \
    LEFT JOIN users u1 ON u1.id = g.first_user_id \
    LEFT JOIN guests q1 ON q1.id = g.first_guest_id \
    LEFT JOIN users u2 ON u2.id = g.second_user_id \
    LEFT JOIN guests q2 ON q2.id = g.second_guest_id";

fn seat_from_row(row: &AnyRow, at: usize) -> Result<SeatRecord, StoreError> {
    let ai_level: Option<i64> = row.try_get(at + 4)?;
    Ok(SeatRecord {
        user_id: row.try_get(at)?,
        username: row.try_get(at + 1)?,
        guest_id: row.try_get(at + 2)?,
        guest_name: row.try_get(at + 3)?,
        ai_level: ai_level
            .map(|level| {
                u8::try_from(level).map_err(|_| StoreError::Corrupt(format!("AI level {level}")))
            })
            .transpose()?,
    })
}

/// Reads a game from a row of [`GAME_SELECT`].
pub(super) fn game_from_row(row: &AnyRow) -> Result<GameRecord, StoreError> {
    let result: Option<String> = row.try_get(15)?;
    let reason: Option<EndReason> = parse_optional_column(row, 16)?;
    let outcome = match (result.as_deref(), reason) {
        (None, _) | (_, None) => None,
        (Some(result), Some(reason)) => Some(Outcome {
            winner: parse_result(result)?,
            reason,
        }),
    };
    let plies = ply_from(row.try_get(18)?)?;
    let ended_by: Option<String> = row.try_get(22)?;
    Ok(GameRecord {
        id: row.try_get(0)?,
        kind: parse_column(row, 1)?,
        first: seat_from_row(row, 2)?,
        second: seat_from_row(row, 7)?,
        time_control: row.try_get(12)?,
        rated: row.try_get::<i64, _>(13)? != 0,
        status: parse_column(row, 14)?,
        outcome,
        start_position: row.try_get(17)?,
        plies,
        created_at: row.try_get(19)?,
        updated_at: row.try_get(20)?,
        finished_at: row.try_get(21)?,
        ended_by: ended_by.as_deref().map(parse_side).transpose()?,
    })
}

/// A stored ply count or ply.
pub(super) fn ply_from(value: i64) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| StoreError::Corrupt(format!("ply {value}")))
}

/// `first` / `second` / `draw`, the stored form of a result.
#[must_use]
pub const fn result_str(winner: Option<Player>) -> &'static str {
    match winner {
        Some(Player::First) => "first",
        Some(Player::Second) => "second",
        None => "draw",
    }
}

/// A side as stored (`first`, `second`).
const fn side_str(side: Player) -> &'static str {
    result_str(Some(side))
}

fn parse_side(text: &str) -> Result<Player, StoreError> {
    parse_result(text)?.ok_or_else(|| StoreError::Corrupt(format!("side `{text}`")))
}

fn parse_result(text: &str) -> Result<Option<Player>, StoreError> {
    match text {
        "first" => Ok(Some(Player::First)),
        "second" => Ok(Some(Player::Second)),
        "draw" => Ok(None),
        other => Err(StoreError::Corrupt(format!("result `{other}`"))),
    }
}

/// Inserts a new game row with id `id`, owned by `owner` (a process's token, see
/// `leases.rs`).
pub(super) async fn insert_game(
    conn: &mut AnyConnection,
    id: &str,
    game: &NewGame,
    now: i64,
    owner: &str,
) -> Result<(), sqlx::Error> {
    let (fu, fg, fa) = game.first.columns();
    let (su, sg, sa) = game.second.columns();
    let status = if game.first == Seat::Open || game.second == Seat::Open {
        GameStatus::Waiting
    } else {
        GameStatus::Playing
    };
    sqlx::query(
        "INSERT INTO games (id, kind, first_user_id, first_guest_id, first_ai_level, \
         second_user_id, second_guest_id, second_ai_level, time_control, rated, status, \
         result, reason, start_position, session_state, ply_count, created_at, updated_at, \
         finished_at, owner) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, $12, $13, 0, \
         $14, $14, NULL, $15)",
    )
    .bind(id)
    .bind(game.kind.as_str())
    .bind(fu)
    .bind(fg)
    .bind(fa)
    .bind(su)
    .bind(sg)
    .bind(sa)
    .bind(&game.time_control)
    .bind(i64::from(game.rated))
    .bind(status.as_str())
    .bind(&game.start_position)
    .bind(game.session_state.as_deref())
    .bind(now)
    .bind(owner)
    .execute(conn)
    .await?;
    Ok(())
}

/// The column names of one side's seat (static text: never built from input).
const fn seat_columns(player: Player) -> (&'static str, &'static str, &'static str) {
    match player {
        Player::First => ("first_user_id", "first_guest_id", "first_ai_level"),
        Player::Second => ("second_user_id", "second_guest_id", "second_ai_level"),
    }
}

impl Store {
    /// Stores a new game with a fresh random id (8 letters and digits) and returns it.
    /// Its status is `playing` when both seats are taken, else `waiting`.
    ///
    /// # Errors
    /// On a database failure (a player id that does not exist is one).
    pub async fn create_game(&self, game: &NewGame, now: i64) -> Result<GameRecord, StoreError> {
        for _ in 0..8 {
            let id = random_id(8);
            // The connection goes back to the pool before the game is read back (SQLite
            // has only one).
            let inserted = {
                let mut conn = self.pool.acquire().await?;
                insert_game(&mut conn, &id, game, now, self.owner.token()).await
            };
            match inserted {
                Ok(()) => return self.game(&id).await?.ok_or(StoreError::NotFound("game")),
                // An id clash (about 1 in 2^47 per pair of games) is retried.
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Conflict(Conflict::NoFreeId(IdOf::Game)))
    }

    /// The game with this id.
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn game(&self, id: &str) -> Result<Option<GameRecord>, StoreError> {
        let row = sqlx::query(&format!("{GAME_SELECT} WHERE g.id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(game_from_row).transpose()
    }

    /// Every game still going (waiting or playing), oldest first, with its stored
    /// session: what a restarted server resumes.
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn live_games(&self) -> Result<Vec<(GameRecord, Option<StoredSession>)>, StoreError> {
        let rows = sqlx::query(&format!(
            "{GAME_SELECT} WHERE g.status IN ('waiting', 'playing') ORDER BY g.created_at, g.id"
        ))
        .fetch_all(&self.pool)
        .await?;
        self.with_sessions(&rows).await
    }

    /// The games of `rows` with their stored sessions.
    async fn with_sessions(
        &self,
        rows: &[sqlx::any::AnyRow],
    ) -> Result<Vec<(GameRecord, Option<StoredSession>)>, StoreError> {
        let mut games = Vec::with_capacity(rows.len());
        for row in rows {
            let game = game_from_row(row)?;
            let state = self.stored_session(&game.id).await?;
            games.push((game, state));
        }
        Ok(games)
    }

    /// The live games this process owns (see [`Store::claim_games`]), each with its
    /// stored session, oldest first.
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn owned_live_games(
        &self,
    ) -> Result<Vec<(GameRecord, Option<StoredSession>)>, StoreError> {
        let rows = sqlx::query(&format!(
            "{GAME_SELECT} WHERE g.status IN ('waiting', 'playing') AND g.owner = $1 \
             ORDER BY g.created_at, g.id"
        ))
        .bind(self.owner.token())
        .fetch_all(&self.pool)
        .await?;
        self.with_sessions(&rows).await
    }

    /// A game's stored session: its last snapshot and the moves played since.
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn stored_session(&self, id: &str) -> Result<Option<StoredSession>, StoreError> {
        let row = sqlx::query(
            "SELECT session_state, COALESCE(snapshot_ply, ply_count) FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let Some(snapshot) = row.try_get::<Option<String>, _>(0)? else {
            return Ok(None);
        };
        let snapshot_ply: i64 = row.try_get(1)?;
        let moves_after = self.moves_after(id, snapshot_ply).await?;
        Ok(Some(StoredSession {
            snapshot,
            snapshot_ply: ply_from(snapshot_ply)?,
            moves_after,
        }))
    }

    /// A game's moves in order.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn moves(&self, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
        self.moves_after(game_id, 0).await
    }

    /// A game's moves after the first `after`, in order.
    async fn moves_after(&self, game_id: &str, after: i64) -> Result<Vec<StoredMove>, StoreError> {
        let rows = sqlx::query(
            "SELECT ply, text, first_clock_ms, second_clock_ms, played_at FROM moves \
             WHERE game_id = $1 AND ply > $2 ORDER BY ply",
        )
        .bind(game_id)
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredMove {
                    ply: ply_from(row.try_get(0)?)?,
                    text: row.try_get(1)?,
                    first_clock_ms: row.try_get(2)?,
                    second_clock_ms: row.try_get(3)?,
                    played_at: row.try_get(4)?,
                })
            })
            .collect()
    }

    /// Stores the next move of a game being played: call it before acknowledging or
    /// broadcasting the move. The move is appended (with one statement for the moves of
    /// every game waiting at the same moment: a group commit), and nothing else is
    /// written unless [`snapshot_due`] says so after the last snapshot, of
    /// `snapshot_ply` moves: only then is `snapshot` called (the session after this
    /// move, serialised) and stored whole, with the game's ply count and time of last
    /// change. So most moves cost one short row and no serialising, whatever the game's
    /// length. The snapshot is written after the move's commit: a crash between the two
    /// resumes from the snapshot before, replaying one more move. Returns whether the
    /// snapshot was written.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when `mv.ply` is not the next ply or the game is not
    /// being played (nothing is written); a database failure.
    pub async fn append_move(
        &self,
        game_id: &str,
        mv: &StoredMove,
        snapshot_ply: u32,
        snapshot: impl FnOnce() -> String + Send,
    ) -> Result<bool, StoreError> {
        // With the moves of other games waiting at the same moment, in one statement.
        match self.writer.append(game_id, mv, self.owner.token()).await {
            Ok(()) => {}
            Err(StoreError::Conflict(why)) => return Err(self.fenced_or(game_id, why).await),
            Err(error) => return Err(error),
        }
        if !snapshot_due(mv.ply, snapshot_ply) {
            return Ok(false);
        }
        // The move is stored: a snapshot that fails to be written is only due again at
        // the next move (resuming replays the moves after the last one written).
        let ply = i64::from(mv.ply);
        let written = sqlx::query(&format!(
            "UPDATE games SET session_state = $2, snapshot_ply = $3, ply_count = $3, \
             updated_at = $4 WHERE id = $1 AND status = 'playing' AND {STORED_PLIES} = $3 \
             AND owner = $5"
        ))
        .bind(game_id)
        .bind(snapshot())
        .bind(ply)
        .bind(mv.played_at)
        .bind(self.owner.token())
        // On the moves' path: not behind the requests (see `pool.rs`).
        .execute(self.pool.priority())
        .await;
        match written {
            Ok(done) => Ok(done.rows_affected() == 1),
            Err(error) => {
                tracing::warn!(game = %game_id, %error, "writing a snapshot (the move is stored)");
                Ok(false)
            }
        }
    }

    /// Takes moves back: keeps the first `keep_plies` moves and stores the session
    /// state after that.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the game is not being played or has fewer moves.
    pub async fn take_back(
        &self,
        game_id: &str,
        keep_plies: u32,
        session_state: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let keep = i64::from(keep_plies);
        let mut tx = self.pool.begin().await?;
        let updated = sqlx::query(&format!(
            "UPDATE games SET ply_count = $2, session_state = $3, snapshot_ply = $2, \
                 updated_at = $4 WHERE id = $1 AND {STORED_PLIES} >= $2 AND status = 'playing' \
                 AND owner = $5"
        ))
        .bind(game_id)
        .bind(keep)
        .bind(session_state)
        .bind(now)
        .bind(self.owner.token())
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            drop(tx);
            return Err(self
                .fenced_or(
                    game_id,
                    Conflict::Takeback {
                        game: game_id.to_owned(),
                        ply: keep_plies,
                    },
                )
                .await);
        }
        sqlx::query("DELETE FROM moves WHERE game_id = $1 AND ply > $2")
            .bind(game_id)
            .bind(keep)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores a live game's session state (after a draw offer, say): a snapshot holding
    /// every stored move.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such live game.
    pub async fn save_session_state(
        &self,
        game_id: &str,
        session_state: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let updated = sqlx::query(&format!(
            "UPDATE games SET session_state = $2, snapshot_ply = {STORED_PLIES}, \
                 ply_count = {STORED_PLIES}, updated_at = $3 \
                 WHERE id = $1 AND status IN ('waiting', 'playing') AND owner = $4"
        ))
        .bind(game_id)
        .bind(session_state)
        .bind(now)
        .bind(self.owner.token())
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 1 {
            Ok(())
        } else {
            match self
                .fenced_or(
                    game_id,
                    Conflict::NotLive {
                        game: game_id.to_owned(),
                    },
                )
                .await
            {
                StoreError::Conflict(_) => Err(StoreError::NotFound("live game")),
                fenced => Err(fenced),
            }
        }
    }

    /// Seats a player in a waiting game's open seat; the game is `playing` once both
    /// seats are taken. `session_state`, when given, is stored as the game's session in
    /// the same transaction (the session the game starts with). Returns the game as it
    /// now is.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the seat is taken or the game is not waiting.
    pub async fn take_seat(
        &self,
        game_id: &str,
        player: Player,
        seat: &Seat,
        session_state: Option<&str>,
        now: i64,
    ) -> Result<GameRecord, StoreError> {
        let (user_column, guest_column, ai_column) = seat_columns(player);
        let (user, guest, ai) = seat.columns();
        let mut tx = self.pool.begin().await?;
        let taken = sqlx::query(&format!(
            "UPDATE games SET {user_column} = $2, {guest_column} = $3, {ai_column} = $4, \
             updated_at = $5, session_state = COALESCE($7, session_state), \
             snapshot_ply = CASE WHEN $7 IS NULL THEN snapshot_ply ELSE {STORED_PLIES} END \
             WHERE id = $1 AND status = 'waiting' AND {user_column} IS NULL \
             AND {guest_column} IS NULL AND {ai_column} IS NULL AND owner = $6"
        ))
        .bind(game_id)
        .bind(user)
        .bind(guest)
        .bind(ai)
        .bind(now)
        .bind(self.owner.token())
        .bind(session_state)
        .execute(&mut *tx)
        .await?;
        if taken.rows_affected() != 1 {
            drop(tx);
            return Err(self
                .fenced_or(
                    game_id,
                    Conflict::SeatNotOpen {
                        game: game_id.to_owned(),
                        side: player,
                    },
                )
                .await);
        }
        sqlx::query(
            "UPDATE games SET status = 'playing' WHERE id = $1 AND status = 'waiting' \
             AND (first_user_id IS NOT NULL OR first_guest_id IS NOT NULL \
                  OR first_ai_level IS NOT NULL) \
             AND (second_user_id IS NOT NULL OR second_guest_id IS NOT NULL \
                  OR second_ai_level IS NOT NULL)",
        )
        .bind(game_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.game(game_id)
            .await?
            .ok_or(StoreError::NotFound("game"))
    }

    /// Calls a live game off (no result, no rating change).
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the game is not live.
    pub async fn abort_game(
        &self,
        game_id: &str,
        session_state: Option<&str>,
        now: i64,
    ) -> Result<(), StoreError> {
        let updated = sqlx::query(&format!(
            "UPDATE games SET status = 'aborted', session_state = COALESCE($2, session_state), \
                 snapshot_ply = CASE WHEN $2 IS NULL THEN snapshot_ply ELSE {STORED_PLIES} END, \
                 ply_count = {STORED_PLIES}, updated_at = $3, finished_at = $3 \
                 WHERE id = $1 AND status IN ('waiting', 'playing') AND owner = $4"
        ))
        .bind(game_id)
        .bind(session_state)
        .bind(now)
        .bind(self.owner.token())
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 1 {
            Ok(())
        } else {
            Err(self
                .fenced_or(
                    game_id,
                    Conflict::NotLive {
                        game: game_id.to_owned(),
                    },
                )
                .await)
        }
    }

    /// Ends a game with its result and, when it is rated between two users, updates both
    /// players' Glicko-2 ratings ([`crate::ratings::rate`]) and their rating history — all
    /// in one transaction.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown game, [`StoreError::Conflict`] when it is
    /// already over (nothing changes); a database failure.
    pub async fn finish_game(
        &self,
        game_id: &str,
        outcome: Outcome,
        session_state: Option<&str>,
        now: i64,
    ) -> Result<Finished, StoreError> {
        self.finish_game_by(game_id, outcome, None, session_state, now)
            .await
    }

    /// As [`Store::finish_game`], keeping who ended the game outside the rules
    /// (`ended_by`: who resigned, whose flag fell, who left).
    ///
    /// # Errors
    /// As [`Store::finish_game`].
    pub async fn finish_game_by(
        &self,
        game_id: &str,
        outcome: Outcome,
        ended_by: Option<Player>,
        session_state: Option<&str>,
        now: i64,
    ) -> Result<Finished, StoreError> {
        // A rating row changed by another transaction between our read and write makes
        // the write miss (see `ratings`): start over with fresh values.
        for _ in 0..16 {
            if let Some(finished) = self
                .try_finish_game(game_id, outcome, ended_by, session_state, now)
                .await?
            {
                return Ok(finished);
            }
        }
        Err(StoreError::Conflict(Conflict::RatingsKeptChanging {
            game: game_id.to_owned(),
        }))
    }

    async fn try_finish_game(
        &self,
        game_id: &str,
        outcome: Outcome,
        ended_by: Option<Player>,
        session_state: Option<&str>,
        now: i64,
    ) -> Result<Option<Finished>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let game = sqlx::query(&format!("{GAME_SELECT} WHERE g.id = $1"))
            .bind(game_id)
            .fetch_optional(&mut *tx)
            .await?
            .as_ref()
            .map(game_from_row)
            .transpose()?
            .ok_or(StoreError::NotFound("game"))?;
        let updated = sqlx::query(&format!(
            "UPDATE games SET status = 'finished', result = $2, reason = $3, \
                 session_state = COALESCE($4, session_state), \
                 snapshot_ply = CASE WHEN $4 IS NULL THEN snapshot_ply ELSE {STORED_PLIES} END, \
                 ply_count = {STORED_PLIES}, updated_at = $5, finished_at = $5, ended_by = $6 \
                 WHERE id = $1 AND status IN ('waiting', 'playing') AND owner = $7"
        ))
        .bind(game_id)
        .bind(result_str(outcome.winner))
        .bind(outcome.reason.as_str())
        .bind(session_state)
        .bind(now)
        .bind(ended_by.map(side_str))
        .bind(self.owner.token())
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            drop(tx);
            return Err(self
                .fenced_or(
                    game_id,
                    Conflict::AlreadyOver {
                        game: game_id.to_owned(),
                        status: game.status.to_string(),
                    },
                )
                .await);
        }
        let rating_changes = match (&game.first.user_id, &game.second.user_id) {
            (Some(first), Some(second)) if game.rated && first != second => {
                let Some(changes) = super::ratings::apply_game_ratings(
                    &mut tx,
                    [first, second],
                    game.kind,
                    game_id,
                    outcome.winner,
                    now,
                )
                .await?
                else {
                    return Ok(None);
                };
                Some(changes)
            }
            _ => None,
        };
        tx.commit().await?;
        Ok(Some(Finished { rating_changes }))
    }
}
