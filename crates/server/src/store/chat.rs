//! Chat: the messages said in games' rooms and in the lobby, their reports and the
//! sanctions on accounts (migrations 0010 and 0011). A lobby message is a
//! [`ChatRecord`] whose room is [`LOBBY_ROOM`] and whose game id is empty.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Store, StoreError, is_unique_violation, random_id};

/// A chat message as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatRecord {
    /// Its id (random text).
    pub id: String,
    /// The game it was said in.
    pub game_id: String,
    /// `players` or `spectators`.
    pub room: String,
    /// The author's account, if signed in.
    pub user_id: Option<String>,
    /// The author's guest id, if a guest.
    pub guest_id: Option<String>,
    /// The author's name when it was said.
    pub author: String,
    /// What was said.
    pub body: String,
    /// When (ms since the Unix epoch).
    pub created_at: i64,
}

/// What an account may not do in chat now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sanction {
    /// Banned from chat until unbanned.
    pub banned: bool,
    /// Muted until this time (ms since the Unix epoch).
    pub muted_until: Option<i64>,
}

impl Sanction {
    /// Whether it bars chatting at `now`.
    #[must_use]
    pub fn bars(&self, now: i64) -> bool {
        self.banned || self.muted_until.is_some_and(|until| until > now)
    }
}

/// The room name of the lobby chat's messages.
pub const LOBBY_ROOM: &str = "lobby";

const COLUMNS: &str = "id, game_id, room, user_id, guest_id, author, body, created_at";

fn record(row: &AnyRow) -> Result<ChatRecord, StoreError> {
    Ok(ChatRecord {
        id: row.try_get(0)?,
        game_id: row.try_get(1)?,
        room: row.try_get(2)?,
        user_id: row.try_get(3)?,
        guest_id: row.try_get(4)?,
        author: row.try_get(5)?,
        body: row.try_get(6)?,
        created_at: row.try_get(7)?,
    })
}

impl Store {
    /// Stores a chat message; its id is made here and set on the returned record.
    ///
    /// # Errors
    /// On a database failure (an unknown game among them).
    pub async fn add_chat(&self, message: &ChatRecord) -> Result<ChatRecord, StoreError> {
        let mut stored = message.clone();
        stored.id = random_id(16);
        sqlx::query(&format!(
            "INSERT INTO chat_messages ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .bind(&stored.id)
        .bind(&stored.game_id)
        .bind(&stored.room)
        .bind(&stored.user_id)
        .bind(&stored.guest_id)
        .bind(&stored.author)
        .bind(&stored.body)
        .bind(stored.created_at)
        .execute(&self.pool)
        .await?;
        Ok(stored)
    }

    /// The last `limit` messages of `game_id` in `room` (every room: `None`), oldest
    /// first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn game_chat(
        &self,
        game_id: &str,
        room: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let order = "ORDER BY created_at DESC, id DESC";
        let rows = match room {
            Some(room) => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM chat_messages WHERE game_id = $1 AND room = $2 \
                     {order} LIMIT $3"
                ))
                .bind(game_id)
                .bind(room)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM chat_messages WHERE game_id = $1 {order} LIMIT $2"
                ))
                .bind(game_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
            }
        };
        let mut messages = rows.iter().map(record).collect::<Result<Vec<_>, _>>()?;
        messages.reverse();
        Ok(messages)
    }

    /// The message `id`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn chat_message(&self, id: &str) -> Result<Option<ChatRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM chat_messages WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(record).transpose()
    }

    /// Records `reporter`'s report of message `message_id`; false when they had already
    /// reported it (the first report stays).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn report_chat(
        &self,
        message_id: &str,
        reporter: &str,
        reason: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.insert_report("chat_reports", message_id, reporter, reason, now)
            .await
    }

    /// How many reports `message_id` has.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn chat_reports(&self, message_id: &str) -> Result<u64, StoreError> {
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM chat_reports WHERE message_id = $1")
                .bind(message_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// The chat sanction on `user_id` (none: the default).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn sanction(&self, user_id: &str) -> Result<Sanction, StoreError> {
        let row = sqlx::query("SELECT banned, muted_until FROM chat_sanctions WHERE user_id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map_or(Ok(Sanction::default()), |row| {
            let banned: i64 = row.try_get(0)?;
            Ok(Sanction {
                banned: banned != 0,
                muted_until: row.try_get(1)?,
            })
        })
    }

    /// Bans (`true`) or unbans `user_id` from chat; unbanning also lifts a mute.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn set_chat_ban(
        &self,
        user_id: &str,
        banned: bool,
        now: i64,
    ) -> Result<(), StoreError> {
        let (banned, muted_until) = (i64::from(banned), None::<i64>);
        sqlx::query(
            "INSERT INTO chat_sanctions (user_id, banned, muted_until, updated_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO UPDATE SET \
             banned = excluded.banned, muted_until = \
             CASE WHEN excluded.banned = 0 THEN NULL ELSE chat_sanctions.muted_until END, \
             updated_at = excluded.updated_at",
        )
        .bind(user_id)
        .bind(banned)
        .bind(muted_until)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Mutes `user_id` in chat until `until` (ms since the Unix epoch).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn mute_chat(&self, user_id: &str, until: i64, now: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO chat_sanctions (user_id, banned, muted_until, updated_at) \
             VALUES ($1, 0, $2, $3) ON CONFLICT (user_id) DO UPDATE SET \
             muted_until = excluded.muted_until, updated_at = excluded.updated_at",
        )
        .bind(user_id)
        .bind(until)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

const LOBBY_COLUMNS: &str = "id, user_id, author, body, created_at";

fn lobby_record(row: &AnyRow) -> Result<ChatRecord, StoreError> {
    Ok(ChatRecord {
        id: row.try_get(0)?,
        game_id: String::new(),
        room: LOBBY_ROOM.to_owned(),
        user_id: Some(row.try_get(1)?),
        guest_id: None,
        author: row.try_get(2)?,
        body: row.try_get(3)?,
        created_at: row.try_get(4)?,
    })
}

impl Store {
    /// Stores a message of the lobby chat said by the account `user_id`; its id is made
    /// here and set on the returned record.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn add_lobby_chat(
        &self,
        user_id: &str,
        author: &str,
        body: &str,
        now: i64,
    ) -> Result<ChatRecord, StoreError> {
        let id = random_id(16);
        sqlx::query(&format!(
            "INSERT INTO lobby_messages ({LOBBY_COLUMNS}) VALUES ($1, $2, $3, $4, $5)"
        ))
        .bind(&id)
        .bind(user_id)
        .bind(author)
        .bind(body)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(ChatRecord {
            id,
            game_id: String::new(),
            room: LOBBY_ROOM.to_owned(),
            user_id: Some(user_id.to_owned()),
            guest_id: None,
            author: author.to_owned(),
            body: body.to_owned(),
            created_at: now,
        })
    }

    /// The last `limit` messages of the lobby chat, oldest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn lobby_chat(&self, limit: usize) -> Result<Vec<ChatRecord>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = sqlx::query(&format!(
            "SELECT {LOBBY_COLUMNS} FROM lobby_messages ORDER BY created_at DESC, id DESC \
             LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut messages = rows
            .iter()
            .map(lobby_record)
            .collect::<Result<Vec<_>, _>>()?;
        messages.reverse();
        Ok(messages)
    }

    /// The lobby chat's message `id`.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn lobby_message(&self, id: &str) -> Result<Option<ChatRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {LOBBY_COLUMNS} FROM lobby_messages WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(lobby_record).transpose()
    }

    /// Records `reporter`'s report of the lobby message `message_id`; false when they
    /// had already reported it (the first report stays).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn report_lobby_chat(
        &self,
        message_id: &str,
        reporter: &str,
        reason: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        self.insert_report("lobby_reports", message_id, reporter, reason, now)
            .await
    }
}

impl Store {
    /// One report into `table` (`chat_reports` or `lobby_reports`, whose columns are the
    /// same); false when the reporter had reported the message already.
    async fn insert_report(
        &self,
        table: &str,
        message_id: &str,
        reporter: &str,
        reason: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(&format!(
            "INSERT INTO {table} (message_id, reporter, reason, created_at) \
             VALUES ($1, $2, $3, $4)"
        ))
        .bind(message_id)
        .bind(reporter)
        .bind(reason)
        .bind(now)
        .execute(&self.pool)
        .await;
        match done {
            Ok(_) => Ok(true),
            Err(error) if is_unique_violation(&error) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
}

/// A reported message, for a moderator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRecord {
    /// The message.
    pub message: ChatRecord,
    /// Who reported it (`u:ID` or `g:ID`).
    pub reporter: String,
    /// Why, in their words.
    pub reason: String,
    /// When (ms since the Unix epoch).
    pub reported_at: i64,
}

impl Store {
    /// The latest `limit` reports of games' rooms and the lobby together, newest first,
    /// with their messages.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn chat_report_list(&self, limit: usize) -> Result<Vec<ReportRecord>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let columns = COLUMNS
            .split(", ")
            .map(|c| format!("m.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {columns}, r.reporter, r.reason, r.created_at FROM chat_reports r \
             JOIN chat_messages m ON m.id = r.message_id \
             ORDER BY r.created_at DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let mut reports = rows
            .iter()
            .map(|row| {
                Ok(ReportRecord {
                    message: record(row)?,
                    reporter: row.try_get(8)?,
                    reason: row.try_get(9)?,
                    reported_at: row.try_get(10)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let lobby_columns = LOBBY_COLUMNS
            .split(", ")
            .map(|c| format!("m.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = sqlx::query(&format!(
            "SELECT {lobby_columns}, r.reporter, r.reason, r.created_at FROM lobby_reports r \
             JOIN lobby_messages m ON m.id = r.message_id \
             ORDER BY r.created_at DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        for row in &rows {
            reports.push(ReportRecord {
                message: lobby_record(row)?,
                reporter: row.try_get(5)?,
                reason: row.try_get(6)?,
                reported_at: row.try_get(7)?,
            });
        }
        reports.sort_by_key(|r| std::cmp::Reverse(r.reported_at));
        reports.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(reports)
    }
}
