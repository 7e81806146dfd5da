//! E-mail: each account's address and switches, the single-use links sent by mail
//! (address confirmation, password reset), what the reminders have sent, and the
//! moderator flag.

use sqlx::Row;

use super::{Conflict, Store, StoreError, User, is_unique_violation};

/// What a link sent by mail is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenPurpose {
    /// Confirms an address for an account.
    Confirm,
    /// Sets a new password.
    Reset,
}

impl TokenPurpose {
    /// The stored name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            TokenPurpose::Confirm => "confirm",
            TokenPurpose::Reset => "reset",
        }
    }
}

/// An account's mail settings, for the account itself only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailSettings {
    /// The confirmed address (`None`: no mail goes to this account).
    pub email: Option<String>,
    /// An address waiting for its confirmation link to be followed, and when the link
    /// expires.
    pub pending: Option<(String, i64)>,
    /// Wants the daily digest of correspondence games waiting for their move.
    pub digest: bool,
    /// Wants a warning when a correspondence clock of theirs runs low.
    pub clock_warning: bool,
}

/// An account the reminders may write to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipient {
    /// The user's id.
    pub user_id: String,
    /// Their name.
    pub username: String,
    /// Their confirmed address.
    pub email: String,
    /// Wants the daily digest.
    pub digest: bool,
    /// Wants clock warnings.
    pub clock_warning: bool,
    /// The day of the last digest sent ([`day_of`]), if any.
    pub digest_day: Option<i64>,
    /// The language they read the site in (`en`, `it`, `fr`), if told.
    pub lang: Option<String>,
}

/// A day number (UTC days since the Unix epoch) of a time in milliseconds.
#[must_use]
pub const fn day_of(ms: i64) -> i64 {
    ms.div_euclid(86_400_000)
}

impl Store {
    /// An account's mail settings (`None`: no such account). `now` decides whether a
    /// pending address's link has expired.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn mail_settings(
        &self,
        user_id: &str,
        now: i64,
    ) -> Result<Option<MailSettings>, StoreError> {
        let Some(row) =
            sqlx::query("SELECT email, mail_digest, mail_clock_warning FROM users WHERE id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?
        else {
            return Ok(None);
        };
        let pending = sqlx::query(
            "SELECT address, expires_at FROM mail_tokens \
             WHERE user_id = $1 AND purpose = 'confirm' AND expires_at > $2 \
             ORDER BY created_at DESC LIMIT 1",
        )
        .bind(user_id)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?
        .map(|row| -> Result<(String, i64), StoreError> {
            Ok((
                row.try_get::<Option<String>, _>(0)?.unwrap_or_default(),
                row.try_get(1)?,
            ))
        })
        .transpose()?;
        Ok(Some(MailSettings {
            email: row.try_get(0)?,
            pending,
            digest: row.try_get::<i64, _>(1)? != 0,
            clock_warning: row.try_get::<i64, _>(2)? != 0,
        }))
    }

    /// Sets an account's mail switches (`None`: left as it is).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such user.
    pub async fn set_mail_switches(
        &self,
        user_id: &str,
        digest: Option<bool>,
        clock_warning: Option<bool>,
    ) -> Result<(), StoreError> {
        let updated = sqlx::query(
            "UPDATE users SET mail_digest = COALESCE($2, mail_digest), \
             mail_clock_warning = COALESCE($3, mail_clock_warning) WHERE id = $1",
        )
        .bind(user_id)
        .bind(digest.map(i64::from))
        .bind(clock_warning.map(i64::from))
        .execute(&self.pool)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(StoreError::NotFound("user"));
        }
        Ok(())
    }

    /// Stores a link's token (by its hash). A new confirmation link replaces the
    /// account's earlier ones (only the last address asked for can be confirmed).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create_mail_token(
        &self,
        token_hash: &str,
        user_id: &str,
        purpose: TokenPurpose,
        address: Option<&str>,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        if purpose == TokenPurpose::Confirm {
            sqlx::query("DELETE FROM mail_tokens WHERE user_id = $1 AND purpose = 'confirm'")
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "INSERT INTO mail_tokens (token_hash, user_id, purpose, address, created_at, \
             expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(token_hash)
        .bind(user_id)
        .bind(purpose.as_str())
        .bind(address)
        .bind(now)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The account a link's token (by hash) is for, if it is unused and unexpired.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn mail_token_user(
        &self,
        token_hash: &str,
        purpose: TokenPurpose,
        now: i64,
    ) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(
            "SELECT u.id, u.username, u.created_at FROM mail_tokens t \
             JOIN users u ON u.id = t.user_id \
             WHERE t.token_hash = $1 AND t.purpose = $2 AND t.expires_at > $3",
        )
        .bind(token_hash)
        .bind(purpose.as_str())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(User {
                id: row.try_get(0)?,
                username: row.try_get(1)?,
                created_at: row.try_get(2)?,
            })
        })
        .transpose()
    }

    /// Follows a confirmation link: the address it carries becomes the account's, and
    /// the link is used up. `Ok(None)`: no such link, or used, or expired (nothing
    /// changes).
    ///
    /// # Errors
    /// [`StoreError::Conflict`] when another account has confirmed that address since
    /// (nothing changes, the link stays); a database failure.
    pub async fn confirm_address(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<(User, String)>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let Some(row) = sqlx::query(
            "SELECT t.user_id, t.address, u.username, u.created_at FROM mail_tokens t \
             JOIN users u ON u.id = t.user_id \
             WHERE t.token_hash = $1 AND t.purpose = 'confirm' AND t.expires_at > $2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        let user = User {
            id: row.try_get(0)?,
            username: row.try_get(2)?,
            created_at: row.try_get(3)?,
        };
        let address: String = row.try_get::<Option<String>, _>(1)?.unwrap_or_default();
        // Used once: of two followers at once, one deletes it and the other finds none.
        let used = sqlx::query("DELETE FROM mail_tokens WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&mut *tx)
            .await?;
        if used.rows_affected() != 1 || address.is_empty() {
            return Ok(None);
        }
        let updated = sqlx::query("UPDATE users SET email = $2, email_key = $3 WHERE id = $1")
            .bind(&user.id)
            .bind(&address)
            .bind(address.to_lowercase())
            .execute(&mut *tx)
            .await;
        match updated {
            Err(e) if is_unique_violation(&e) => {
                return Err(StoreError::Conflict(Conflict::AddressTaken));
            }
            other => other?,
        };
        tx.commit().await?;
        Ok(Some((user, address)))
    }

    /// Forgets an account's address (confirmed or waiting): no more mail goes to it.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn remove_address(&self, user_id: &str) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE users SET email = NULL, email_key = NULL WHERE id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM mail_tokens WHERE user_id = $1 AND purpose = 'confirm'")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The account whose confirmed address this is (any case), with the address.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn user_by_address(
        &self,
        address: &str,
    ) -> Result<Option<(User, String)>, StoreError> {
        let row =
            sqlx::query("SELECT id, username, created_at, email FROM users WHERE email_key = $1")
                .bind(address.to_lowercase())
                .fetch_optional(&self.pool)
                .await?;
        row.map(|row| {
            Ok((
                User {
                    id: row.try_get(0)?,
                    username: row.try_get(1)?,
                    created_at: row.try_get(2)?,
                },
                row.try_get(3)?,
            ))
        })
        .transpose()
    }

    /// Follows a reset link: sets the new password hash, ends every sign-in of the
    /// account, and uses up all its reset links, in one transaction. `Ok(None)`: no such
    /// link, or used, or expired (nothing changes).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn reset_password(
        &self,
        token_hash: &str,
        password_hash: &str,
        now: i64,
    ) -> Result<Option<User>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let Some(row) = sqlx::query(
            "SELECT u.id, u.username, u.created_at FROM mail_tokens t \
             JOIN users u ON u.id = t.user_id \
             WHERE t.token_hash = $1 AND t.purpose = 'reset' AND t.expires_at > $2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        let user = User {
            id: row.try_get(0)?,
            username: row.try_get(1)?,
            created_at: row.try_get(2)?,
        };
        let used = sqlx::query("DELETE FROM mail_tokens WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&mut *tx)
            .await?;
        if used.rows_affected() != 1 {
            return Ok(None);
        }
        for statement in [
            "UPDATE users SET password_hash = $2 WHERE id = $1",
            "DELETE FROM sessions WHERE user_id = $1",
            "DELETE FROM mail_tokens WHERE user_id = $1 AND purpose = 'reset'",
        ] {
            let query = sqlx::query(statement).bind(&user.id);
            let query = if statement.contains("$2") {
                query.bind(password_hash)
            } else {
                query
            };
            query.execute(&mut *tx).await?;
        }
        super::users::record_revocation(&mut tx, &user.id).await?;
        tx.commit().await?;
        Ok(Some(user))
    }

    /// Deletes links that have expired; returns how many.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn delete_expired_mail_tokens(&self, now: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM mail_tokens WHERE expires_at <= $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// The accounts among `user_ids` that have a confirmed address and want at least one
    /// kind of reminder.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn mail_recipients(&self, user_ids: &[String]) -> Result<Vec<Recipient>, StoreError> {
        let mut found = Vec::new();
        // Bounded statements whatever the number of players.
        for chunk in user_ids.chunks(200) {
            let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT id, username, email, mail_digest, mail_clock_warning, mail_digest_day, \
                 lang FROM users \
                 WHERE email IS NOT NULL AND (mail_digest <> 0 OR mail_clock_warning <> 0) \
                 AND id IN ({})",
                placeholders.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for id in chunk {
                query = query.bind(id);
            }
            for row in query.fetch_all(&self.pool).await? {
                found.push(Recipient {
                    user_id: row.try_get(0)?,
                    username: row.try_get(1)?,
                    email: row.try_get(2)?,
                    digest: row.try_get::<i64, _>(3)? != 0,
                    clock_warning: row.try_get::<i64, _>(4)? != 0,
                    digest_day: row.try_get(5)?,
                    lang: row.try_get(6)?,
                });
            }
        }
        Ok(found)
    }

    /// Claims today's digest for an account: true (and recorded) when none was sent on
    /// day `day` or later, false when one was. At most one a day, across restarts and
    /// servers sharing the database.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_digest(&self, user_id: &str, day: i64) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE users SET mail_digest_day = $2 \
             WHERE id = $1 AND (mail_digest_day IS NULL OR mail_digest_day < $2)",
        )
        .bind(user_id)
        .bind(day)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Claims the clock warning of a player's turn in a game (the turn that began after
    /// `ply` moves): true (and recorded) the first time, false after.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn claim_clock_warning(
        &self,
        game_id: &str,
        user_id: &str,
        ply: u32,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO mail_clock_warnings (game_id, user_id, ply, sent_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(game_id)
        .bind(user_id)
        .bind(i64::from(ply))
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Makes a user a moderator or not. Returns false when there is no such user.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn set_moderator(&self, user_id: &str, moderator: bool) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE users SET moderator = $2 WHERE id = $1")
            .bind(user_id)
            .bind(i64::from(moderator))
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether a user is a moderator.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn is_moderator(&self, user_id: &str) -> Result<bool, StoreError> {
        let flag: Option<i64> = sqlx::query_scalar("SELECT moderator FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(flag.is_some_and(|f| f != 0))
    }

    /// The name behind a chat identity (`u:ID` for an account, `g:ID` for a guest), if
    /// it is still known.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn name_of_ident(&self, ident: &str) -> Result<Option<String>, StoreError> {
        let (sql, id) = match ident.split_once(':') {
            Some(("u", id)) => ("SELECT username FROM users WHERE id = $1", id),
            Some(("g", id)) => ("SELECT name FROM guests WHERE id = $1", id),
            _ => return Ok(None),
        };
        Ok(sqlx::query_scalar(sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
    }
}
