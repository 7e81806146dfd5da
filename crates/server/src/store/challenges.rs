//! Challenges: open ones in the lobby, made by a user or a guest and accepted by anyone
//! (which makes a game), and direct ones from one account to another, accepted or
//! declined only by that other; either cancelled by their maker.

use std::str::FromStr;

use game::GameKind;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::games::insert_game;
use super::{
    Conflict, GameRecord, IdOf, NewGame, Seat, SeatRecord, Store, StoreError, is_unique_violation,
    parse_column, random_id,
};

/// The side the maker of a challenge plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeSide {
    /// The first player (tafl attackers, Camelot White).
    First,
    /// The second player.
    Second,
    /// Drawn by lot when the challenge is accepted.
    Random,
}

impl ChallengeSide {
    /// The stored and JSON name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ChallengeSide::First => "first",
            ChallengeSide::Second => "second",
            ChallengeSide::Random => "random",
        }
    }
}

impl FromStr for ChallengeSide {
    type Err = ();

    fn from_str(text: &str) -> Result<ChallengeSide, ()> {
        match text {
            "first" => Ok(ChallengeSide::First),
            "second" => Ok(ChallengeSide::Second),
            "random" => Ok(ChallengeSide::Random),
            _ => Err(()),
        }
    }
}

/// Where a challenge is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeStatus {
    /// In the lobby, waiting for someone to accept it.
    Open,
    /// Accepted: its game exists.
    Accepted,
    /// Withdrawn by its maker, or lapsed.
    Cancelled,
    /// Declined by the player it was made to.
    Declined,
}

impl FromStr for ChallengeStatus {
    type Err = ();

    fn from_str(text: &str) -> Result<ChallengeStatus, ()> {
        match text {
            "open" => Ok(ChallengeStatus::Open),
            "accepted" => Ok(ChallengeStatus::Accepted),
            "cancelled" => Ok(ChallengeStatus::Cancelled),
            "declined" => Ok(ChallengeStatus::Declined),
            _ => Err(()),
        }
    }
}

/// A challenge to store.
#[derive(Clone, Debug)]
pub struct NewChallenge {
    /// Which game.
    pub kind: GameKind,
    /// The time control as the session crate writes it.
    pub time_control: String,
    /// The side the maker plays.
    pub side: ChallengeSide,
    /// Whether the game will be rated.
    pub rated: bool,
    /// Its maker: [`Seat::User`] or [`Seat::Guest`] ([`Seat::User`] for a direct one).
    pub creator: Seat,
    /// The account it is made to (a direct challenge), or `None` (the lobby's).
    pub to_user_id: Option<String>,
}

/// A stored challenge.
#[derive(Clone, Debug, PartialEq)]
pub struct Challenge {
    /// Random id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The time control text.
    pub time_control: String,
    /// The side the maker plays.
    pub side: ChallengeSide,
    /// Whether the game will be rated.
    pub rated: bool,
    /// Its maker, with their name.
    pub creator: SeatRecord,
    /// Where it is in its life.
    pub status: ChallengeStatus,
    /// The game it became, once accepted.
    pub game_id: Option<String>,
    /// When it was made (ms since the Unix epoch).
    pub created_at: i64,
    /// The account it is made to (a direct challenge), or `None` (the lobby's).
    pub to_user_id: Option<String>,
    /// That account's name.
    pub to_username: Option<String>,
}

/// How many open direct challenges one account may have waiting for its answer.
pub const CHALLENGES_TO_ONE: usize = 20;

/// How long a challenge for a live game (Fischer or untimed) stays open unless accepted:
/// its poster is expected to be waiting for it.
pub const LIVE_CHALLENGE_TTL_MS: i64 = 30 * 60 * 1000;
/// How long a correspondence challenge stays open.
pub const CORRESPONDENCE_CHALLENGE_TTL_MS: i64 = 7 * 24 * 60 * 60 * 1000;

/// Whether a challenge with this time control is for a correspondence game.
fn is_correspondence(time_control: &str) -> bool {
    matches!(
        time_control.parse::<session::TimeControl>(),
        Ok(session::TimeControl::Correspondence { .. })
    )
}

/// When a challenge made at `created_at` with this time control lapses.
#[must_use]
pub fn challenge_expires_at(time_control: &str, created_at: i64) -> i64 {
    let ttl = if is_correspondence(time_control) {
        CORRESPONDENCE_CHALLENGE_TTL_MS
    } else {
        LIVE_CHALLENGE_TTL_MS
    };
    created_at.saturating_add(ttl)
}

impl Challenge {
    /// When it lapses unless accepted (ms since the Unix epoch).
    #[must_use]
    pub fn expires_at(&self) -> i64 {
        challenge_expires_at(&self.time_control, self.created_at)
    }

    /// Whether it is for a live game (its poster is expected to be waiting).
    #[must_use]
    pub fn is_live(&self) -> bool {
        !is_correspondence(&self.time_control)
    }
}

const CHALLENGE_SELECT: &str = "SELECT c.id, c.kind, c.time_control, c.side, c.rated, \
    c.creator_user_id, u.username, c.creator_guest_id, q.name, c.status, c.game_id, \
    c.created_at, c.to_user_id, t.username \
    FROM challenges c \
    LEFT JOIN users u ON u.id = c.creator_user_id \
    LEFT JOIN guests q ON q.id = c.creator_guest_id \
    LEFT JOIN users t ON t.id = c.to_user_id";

fn challenge_from_row(row: &AnyRow) -> Result<Challenge, StoreError> {
    Ok(Challenge {
        id: row.try_get(0)?,
        kind: parse_column(row, 1)?,
        time_control: row.try_get(2)?,
        side: parse_column(row, 3)?,
        rated: row.try_get::<i64, _>(4)? != 0,
        creator: SeatRecord {
            user_id: row.try_get(5)?,
            username: row.try_get(6)?,
            guest_id: row.try_get(7)?,
            guest_name: row.try_get(8)?,
            ai_level: None,
        },
        status: parse_column(row, 9)?,
        game_id: row.try_get(10)?,
        created_at: row.try_get(11)?,
        to_user_id: row.try_get(12)?,
        to_username: row.try_get(13)?,
    })
}

/// The (user, guest) columns of a challenge's maker.
fn creator_columns(seat: &Seat) -> Result<(Option<&str>, Option<&str>), StoreError> {
    match seat.columns() {
        (user @ Some(_), None, None) => Ok((user, None)),
        (None, guest @ Some(_), None) => Ok((None, guest)),
        _ => Err(StoreError::Conflict(Conflict::ChallengeMaker)),
    }
}

impl Store {
    /// Puts a challenge in the lobby.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the maker is not a user or a guest; a database
    /// failure.
    pub async fn create_challenge(
        &self,
        challenge: &NewChallenge,
        now: i64,
    ) -> Result<Challenge, StoreError> {
        let (user, guest) = creator_columns(&challenge.creator)?;
        for _ in 0..8 {
            let id = random_id(10);
            let inserted = sqlx::query(
                "INSERT INTO challenges (id, kind, time_control, side, rated, creator_user_id, \
                 creator_guest_id, status, game_id, created_at, to_user_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', NULL, $8, $9)",
            )
            .bind(&id)
            .bind(challenge.kind.as_str())
            .bind(&challenge.time_control)
            .bind(challenge.side.as_str())
            .bind(i64::from(challenge.rated))
            .bind(user)
            .bind(guest)
            .bind(now)
            .bind(&challenge.to_user_id)
            .execute(&self.pool)
            .await;
            match inserted {
                Ok(_) => {
                    return self
                        .challenge(&id)
                        .await?
                        .ok_or(StoreError::NotFound("challenge"));
                }
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Conflict(Conflict::NoFreeId(IdOf::Challenge)))
    }

    /// The challenge with this id.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn challenge(&self, id: &str) -> Result<Option<Challenge>, StoreError> {
        let row = sqlx::query(&format!("{CHALLENGE_SELECT} WHERE c.id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(challenge_from_row).transpose()
    }

    /// The lobby's open challenges (not direct ones) not lapsed at `now`, newest first,
    /// at most `limit`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn open_challenges(
        &self,
        limit: i64,
        now: i64,
    ) -> Result<Vec<Challenge>, StoreError> {
        let rows = sqlx::query(&format!(
            "{CHALLENGE_SELECT} WHERE c.status = 'open' AND c.created_at > $2 \
             AND c.to_user_id IS NULL ORDER BY c.created_at DESC, c.id DESC LIMIT $1"
        ))
        .bind(limit)
        .bind(now - CORRESPONDENCE_CHALLENGE_TTL_MS)
        .fetch_all(&self.pool)
        .await?;
        let all = rows
            .iter()
            .map(challenge_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(all.into_iter().filter(|c| c.expires_at() > now).collect())
    }

    /// The open challenges of `by` not lapsed at `now`, newest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn open_challenges_of(
        &self,
        by: &Seat,
        now: i64,
    ) -> Result<Vec<Challenge>, StoreError> {
        let (user, guest) = creator_columns(by)?;
        let rows = sqlx::query(&format!(
            "{CHALLENGE_SELECT} WHERE c.status = 'open' \
             AND (c.creator_user_id = $1 OR c.creator_guest_id = $2) \
             ORDER BY c.created_at DESC, c.id DESC"
        ))
        .bind(user)
        .bind(guest)
        .fetch_all(&self.pool)
        .await?;
        let all = rows
            .iter()
            .map(challenge_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(all.into_iter().filter(|c| c.expires_at() > now).collect())
    }

    /// The open direct challenges not lapsed at `now` made to or by the account
    /// `user_id`, newest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn direct_challenges_of(
        &self,
        user_id: &str,
        now: i64,
    ) -> Result<Vec<Challenge>, StoreError> {
        let rows = sqlx::query(&format!(
            "{CHALLENGE_SELECT} WHERE c.status = 'open' AND c.to_user_id IS NOT NULL \
             AND (c.to_user_id = $1 OR c.creator_user_id = $1) AND c.created_at > $2 \
             ORDER BY c.created_at DESC, c.id DESC"
        ))
        .bind(user_id)
        .bind(now - CORRESPONDENCE_CHALLENGE_TTL_MS)
        .fetch_all(&self.pool)
        .await?;
        let all = rows
            .iter()
            .map(challenge_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(all.into_iter().filter(|c| c.expires_at() > now).collect())
    }

    /// The player a direct challenge was made to declines it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when no open challenge with this id is made to
    /// `user_id`.
    pub async fn decline_challenge(&self, id: &str, user_id: &str) -> Result<(), StoreError> {
        let updated = sqlx::query(
            "UPDATE challenges SET status = 'declined' WHERE id = $1 AND status = 'open' \
             AND to_user_id = $2",
        )
        .bind(id)
        .bind(user_id)
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 1 {
            Ok(())
        } else {
            Err(StoreError::NotFound("open challenge to you"))
        }
    }

    /// Closes the open challenges lapsed at `now`; returns their ids.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn expire_challenges(&self, now: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(&format!(
            "{CHALLENGE_SELECT} WHERE c.status = 'open' AND c.created_at <= $1"
        ))
        .bind(now - LIVE_CHALLENGE_TTL_MS)
        .fetch_all(&self.pool)
        .await?;
        let mut expired = Vec::new();
        for row in &rows {
            let challenge = challenge_from_row(row)?;
            if challenge.expires_at() <= now && self.close_challenge(&challenge.id).await? {
                expired.push(challenge.id);
            }
        }
        Ok(expired)
    }

    /// Withdraws every open challenge of `by` in the lobby for a live game (they left
    /// the lobby; their direct challenges stay); returns their ids.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn cancel_live_challenges_of(&self, by: &Seat) -> Result<Vec<String>, StoreError> {
        let mut cancelled = Vec::new();
        for challenge in self.open_challenges_of(by, i64::MIN).await? {
            if challenge.is_live()
                && challenge.to_user_id.is_none()
                && self.close_challenge(&challenge.id).await?
            {
                cancelled.push(challenge.id);
            }
        }
        Ok(cancelled)
    }

    /// Marks an open challenge cancelled; false if it was no longer open.
    async fn close_challenge(&self, id: &str) -> Result<bool, StoreError> {
        let updated = sqlx::query(
            "UPDATE challenges SET status = 'cancelled' WHERE id = $1 AND status = 'open'",
        )
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(updated.rows_affected() == 1)
    }

    /// Withdraws an open challenge; only its maker may.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when `by` has no open challenge with this id.
    pub async fn cancel_challenge(&self, id: &str, by: &Seat) -> Result<(), StoreError> {
        let (user, guest) = creator_columns(by)?;
        let updated = sqlx::query(
            "UPDATE challenges SET status = 'cancelled' WHERE id = $1 AND status = 'open' \
             AND (creator_user_id = $2 OR creator_guest_id = $3)",
        )
        .bind(id)
        .bind(user)
        .bind(guest)
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 1 {
            Ok(())
        } else {
            Err(StoreError::NotFound("open challenge of yours"))
        }
    }

    /// Accepts an open challenge: stores `game` (the caller seats the maker and the
    /// acceptor, drawing a random side) and marks the challenge accepted, in one
    /// transaction, so two players accepting at once make one game.
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when the challenge is no longer open (nothing is stored).
    pub async fn accept_challenge(
        &self,
        id: &str,
        game: &NewGame,
        now: i64,
    ) -> Result<GameRecord, StoreError> {
        let game_id = random_id(8);
        let mut tx = self.pool.begin().await?;
        insert_game(&mut tx, &game_id, game, now, self.owner.token()).await?;
        let accepted = sqlx::query(
            "UPDATE challenges SET status = 'accepted', game_id = $2 \
             WHERE id = $1 AND status = 'open'",
        )
        .bind(id)
        .bind(&game_id)
        .execute(&mut *tx)
        .await?;
        if accepted.rows_affected() != 1 {
            return Err(StoreError::Conflict(Conflict::ChallengeNotOpen {
                id: id.to_owned(),
            }));
        }
        tx.commit().await?;
        self.game(&game_id)
            .await?
            .ok_or(StoreError::NotFound("game"))
    }
}
