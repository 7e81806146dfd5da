//! Accounts, sign-in sessions and guests.

use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Conflict, Store, StoreError, is_unique_violation, random_id};

/// A player with an account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct User {
    /// Random id (never shown in URLs: players are found by name).
    pub id: String,
    /// The name as the player chose it.
    pub username: String,
    /// When the account was made (ms since the Unix epoch).
    pub created_at: i64,
}

/// A player without an account, known by a secret token in a cookie.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Guest {
    /// Random id.
    pub id: String,
    /// Generated name (`Guest-K7QX2M`).
    pub name: String,
    /// The account this guest became, if they signed up.
    pub user_id: Option<String>,
    /// When the guest was first seen (ms since the Unix epoch).
    pub created_at: i64,
}

/// Letters and digits that cannot be mistaken for each other, for guest names.
const GUEST_NAME_ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

fn user_from_row(row: &AnyRow) -> Result<User, StoreError> {
    Ok(User {
        id: row.try_get(0)?,
        username: row.try_get(1)?,
        created_at: row.try_get(2)?,
    })
}

fn guest_from_row(row: &AnyRow) -> Result<Guest, StoreError> {
    Ok(Guest {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        user_id: row.try_get(2)?,
        created_at: row.try_get(3)?,
    })
}

impl Store {
    /// Makes an account (the name must already satisfy the naming rules). When
    /// `adopt_guest` names a guest who has no account yet (by id, with a new token hash),
    /// that guest's games and challenges become the new user's and the guest's token is
    /// replaced by the new one (the old cookie no longer works), in the same
    /// transaction. Returns the user, and whether the guest was adopted.
    ///
    /// # Errors
    /// [`StoreError::UsernameTaken`] when the name (ignoring case) is someone's.
    pub async fn create_user(
        &self,
        username: &str,
        password_hash: &str,
        adopt_guest: Option<(&str, &str)>,
        now: i64,
    ) -> Result<(User, bool), StoreError> {
        let user = User {
            id: random_id(16),
            username: username.to_owned(),
            created_at: now,
        };
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO users (id, username, username_key, password_hash, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&user.id)
        .bind(&user.username)
        .bind(username.to_lowercase())
        .bind(password_hash)
        .bind(now)
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(e) if is_unique_violation(&e) => return Err(StoreError::UsernameTaken),
            other => other?,
        };
        let mut adopted = false;
        if let Some((guest_id, new_token_hash)) = adopt_guest {
            let linked = sqlx::query(
                "UPDATE guests SET user_id = $1, token_hash = $3 WHERE id = $2 AND user_id IS NULL",
            )
            .bind(&user.id)
            .bind(guest_id)
            .bind(new_token_hash)
            .execute(&mut *tx)
            .await?;
            adopted = linked.rows_affected() == 1;
            if adopted {
                for statement in [
                    "UPDATE games SET first_user_id = $1 \
                     WHERE first_guest_id = $2 AND first_user_id IS NULL",
                    "UPDATE games SET second_user_id = $1 \
                     WHERE second_guest_id = $2 AND second_user_id IS NULL",
                    "UPDATE challenges SET creator_user_id = $1 \
                     WHERE creator_guest_id = $2 AND creator_user_id IS NULL",
                ] {
                    sqlx::query(statement)
                        .bind(&user.id)
                        .bind(guest_id)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
        tx.commit().await?;
        Ok((user, adopted))
    }

    /// The account with this name (any case) and its password hash.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn user_with_password(
        &self,
        username: &str,
    ) -> Result<Option<(User, String)>, StoreError> {
        let row = sqlx::query(
            "SELECT id, username, created_at, password_hash FROM users WHERE username_key = $1",
        )
        .bind(username.to_lowercase())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| Ok((user_from_row(&row)?, row.try_get(3)?)))
            .transpose()
    }

    /// The account with this id and its password hash.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn user_by_id_with_password(
        &self,
        id: &str,
    ) -> Result<Option<(User, String)>, StoreError> {
        let row =
            sqlx::query("SELECT id, username, created_at, password_hash FROM users WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|row| Ok((user_from_row(&row)?, row.try_get(3)?)))
            .transpose()
    }

    /// The account with this name (any case).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn user_by_name(&self, username: &str) -> Result<Option<User>, StoreError> {
        Ok(self
            .user_with_password(username)
            .await?
            .map(|(user, _)| user))
    }

    /// Replaces a user's password hash and ends every sign-in of theirs except
    /// `keep_session` (the one that asked for the change).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] when there is no such user.
    pub async fn set_password_hash(
        &self,
        user_id: &str,
        password_hash: &str,
        keep_session: Option<&str>,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let updated = sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        if updated.rows_affected() == 0 {
            return Err(StoreError::NotFound("user"));
        }
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2")
            .bind(user_id)
            .bind(keep_session.unwrap_or(""))
            .execute(&mut *tx)
            .await?;
        record_revocation(&mut tx, user_id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores a sign-in (by the hash of its token).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create_session(
        &self,
        user_id: &str,
        token_hash: &str,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(token_hash)
        .bind(user_id)
        .bind(now)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The user signed in with this token hash, if the sign-in has not expired.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn session_user(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(
            "SELECT u.id, u.username, u.created_at FROM sessions s \
             JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2",
        )
        .bind(token_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(user_from_row).transpose()
    }

    /// Ends one sign-in.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends every sign-in of a user; returns how many there were.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn delete_sessions_of(&self, user_id: &str) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(user_id)
            .execute(&mut *tx)
            .await?;
        record_revocation(&mut tx, user_id).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// The accounts whose sign-ins were ended after `since` (ms since the Unix epoch),
    /// by any process: (user id, when), oldest first.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn revocations_since(&self, since: i64) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query("SELECT user_id, at FROM revocations WHERE at > $1 ORDER BY at")
            .bind(since)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect()
    }

    /// Records the language the account `user_id` reads the site in (a code the caller
    /// checked).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn set_user_lang(&self, user_id: &str, lang: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE users SET lang = $1 WHERE id = $2")
            .bind(lang)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The language the account `user_id` reads the site in, if told.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn user_lang(&self, user_id: &str) -> Result<Option<String>, StoreError> {
        let lang: Option<Option<String>> =
            sqlx::query_scalar("SELECT lang FROM users WHERE id = $1")
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(lang.flatten())
    }

    /// Forgets the revocations made before `before`; returns how many.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn prune_revocations(&self, before: i64) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM revocations WHERE at < $1")
            .bind(before)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// Makes a guest with a generated name, known by the hash of their secret token.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn create_guest(&self, token_hash: &str, now: i64) -> Result<Guest, StoreError> {
        // 32^6 ≈ 10^9 names: a clash is rare, and is simply retried.
        let mut last_error = None;
        for _ in 0..8 {
            let guest = Guest {
                id: random_id(16),
                name: generated_guest_name(),
                user_id: None,
                created_at: now,
            };
            let inserted = sqlx::query(
                "INSERT INTO guests (id, name, token_hash, user_id, created_at) \
                 VALUES ($1, $2, $3, NULL, $4)",
            )
            .bind(&guest.id)
            .bind(&guest.name)
            .bind(token_hash)
            .bind(now)
            .execute(&self.pool)
            .await;
            match inserted {
                Ok(_) => return Ok(guest),
                Err(e) if is_unique_violation(&e) => last_error = Some(e),
                Err(e) => return Err(e.into()),
            }
        }
        Err(last_error.map_or(StoreError::Conflict(Conflict::GuestName), StoreError::from))
    }

    /// The guest known by this token hash.
    ///
    /// # Errors
    /// On a database failure.
    pub async fn guest_by_token(&self, token_hash: &str) -> Result<Option<Guest>, StoreError> {
        let row =
            sqlx::query("SELECT id, name, user_id, created_at FROM guests WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?;
        row.as_ref().map(guest_from_row).transpose()
    }
}

fn generated_guest_name() -> String {
    use rand::RngExt;
    let mut rng = rand::rng();
    let suffix: String = (0..6)
        .map(|_| char::from(GUEST_NAME_ALPHABET[rng.random_range(0..GUEST_NAME_ALPHABET.len())]))
        .collect();
    format!("Guest-{suffix}")
}

/// Records, in the transaction that ends them, that `user_id`'s sign-ins were ended: every
/// server process reads it and closes that account's sockets whose sign-in has ended.
pub(super) async fn record_revocation(
    tx: &mut sqlx::AnyConnection,
    user_id: &str,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO revocations (user_id, at) VALUES ($1, $2)")
        .bind(user_id)
        .bind(super::now_ms())
        .execute(&mut *tx)
        .await?;
    Ok(())
}
