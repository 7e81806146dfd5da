//! Accounts and identity: naming and password rules, argon2id hashing, session and guest
//! tokens, their cookies, and [`Viewer`], who is making a request.

use std::fmt;
use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use axum::extract::FromRequestParts;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use cookie::{Cookie, SameSite};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::store::{Guest, User, now_ms};

/// The cookie holding a signed-in user's session token.
pub const SESSION_COOKIE: &str = "kingstable_session";
/// The cookie holding a guest's secret token.
pub const GUEST_COOKIE: &str = "kingstable_guest";
/// How long a guest cookie lasts (a year; renewed whenever the guest is created again).
pub const GUEST_COOKIE_SECS: i64 = 365 * 24 * 3600;

/// Shortest and longest username.
pub const USERNAME_LENGTH: std::ops::RangeInclusive<usize> = 3..=20;
/// Shortest and longest password, in characters.
pub const PASSWORD_LENGTH: std::ops::RangeInclusive<usize> = 8..=128;
/// Names nobody may take (compared ignoring case), besides anything starting `guest`.
pub const RESERVED_USERNAMES: &[&str] = &[
    "admin",
    "administrator",
    "ai",
    "anonymous",
    "api",
    "kingstable",
    "moderator",
    "root",
    "system",
];

/// A username that satisfies the rules: 3-20 characters, ASCII letters, digits, `_` and
/// `-`; starting with a letter; not ending with `_` or `-`; not starting with `guest`
/// (guests' names do) nor a reserved name. Unique ignoring case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

/// Why a username is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsernameError {
    /// Too short or too long.
    #[error("a username has 3 to 20 characters")]
    Length,
    /// A character other than ASCII letters, digits, `_` and `-`.
    #[error("a username has only letters a-z, digits, `_` and `-`")]
    Characters,
    /// Does not start with a letter, or ends with `_` or `-`.
    #[error("a username starts with a letter and ends with a letter or digit")]
    Shape,
    /// A reserved name, or one that looks like a guest's.
    #[error("this username is reserved")]
    Reserved,
}

impl Username {
    /// Checks a username against the rules.
    ///
    /// # Errors
    /// The first rule it breaks.
    pub fn parse(text: &str) -> Result<Username, UsernameError> {
        if !USERNAME_LENGTH.contains(&text.chars().count()) {
            return Err(UsernameError::Length);
        }
        if !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(UsernameError::Characters);
        }
        let bytes = text.as_bytes();
        if !bytes[0].is_ascii_alphabetic() || !bytes[bytes.len() - 1].is_ascii_alphanumeric() {
            return Err(UsernameError::Shape);
        }
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("guest") || RESERVED_USERNAMES.contains(&lower.as_str()) {
            return Err(UsernameError::Reserved);
        }
        Ok(Username(text.to_owned()))
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password as received: never printed, never logged (`Debug` shows `***`).
#[derive(Clone, Deserialize)]
#[serde(transparent)]
pub struct Password(String);

impl Password {
    /// Wraps a password.
    #[must_use]
    pub fn new(text: impl Into<String>) -> Password {
        Password(text.into())
    }

    /// Checks a new password against the rules: 8-128 characters, not the username.
    ///
    /// # Errors
    /// `invalid_password`, saying which rule.
    pub fn check_new(&self, username: &str) -> Result<(), ApiError> {
        let length = self.0.chars().count();
        if !PASSWORD_LENGTH.contains(&length) {
            return Err(ApiError::new(
                ErrorCode::InvalidPassword,
                "a password has 8 to 128 characters",
            ));
        }
        if self.0.eq_ignore_ascii_case(username) {
            return Err(ApiError::new(
                ErrorCode::InvalidPassword,
                "a password must not be the username",
            ));
        }
        Ok(())
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// Runs password work (hashing, verifying) on the blocking pool, a few at a time.
async fn hashing<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = state
        .hashing
        .acquire()
        .await
        .map_err(|e| ApiError::internal(&e))?;
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(&e))
}

/// An argon2id hash of `password` with a fresh salt, in PHC string form.
fn argon2_hash(password: &[u8]) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password, &salt)
        .map(|hash| hash.to_string())
}

/// Hashes a password with argon2id (the crate's defaults: 19 MiB, 2 passes, 1 lane —
/// OWASP's recommendation) off the async runtime.
///
/// # Errors
/// `internal` if hashing fails.
pub async fn hash_password(state: &AppState, password: Password) -> Result<String, ApiError> {
    hashing(state, move || argon2_hash(password.0.as_bytes()))
        .await?
        .map_err(|e| ApiError::internal(&e))
}

/// Hashes a password with argon2id on this thread, for command-line tools (`kingstable
/// admin reset-password`); the server uses [`hash_password`].
///
/// # Errors
/// If hashing fails.
pub fn hash_password_blocking(password: &Password) -> Result<String, argon2::password_hash::Error> {
    argon2_hash(password.0.as_bytes())
}

/// Whether `password` matches `hash`. With no hash (no such user) it still spends the
/// time of one verification, so response times do not tell which names exist.
///
/// # Errors
/// `internal` if the blocking task fails.
pub async fn verify_password(
    state: &AppState,
    password: Password,
    hash: Option<String>,
) -> Result<bool, ApiError> {
    hashing(state, move || {
        let exists = hash.is_some();
        let hash = hash.unwrap_or_else(|| dummy_hash().to_owned());
        let matches = verify_password_blocking(&password, &hash);
        exists && matches
    })
    .await
}

/// Whether `password` matches the argon2 `hash` (PHC string), checked on this thread:
/// for command-line tools and tests; the server uses [`verify_password`].
#[must_use]
pub fn verify_password_blocking(password: &Password, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.0.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of a random password, to verify against when there is no account.
fn dummy_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| argon2_hash(new_token().as_bytes()).unwrap_or_default())
}

/// A new secret token: 32 random bytes, URL-safe base64 (43 characters).
#[must_use]
pub fn new_token() -> String {
    use rand::Rng;
    let mut bytes = [0_u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// How a token is stored: its SHA-256 in hex (tokens are random, so no salt is needed;
/// a stolen database holds no usable token).
#[must_use]
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value of a cookie in a request.
#[must_use]
pub fn request_cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| Cookie::split_parse(v.to_owned()))
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

/// A `Set-Cookie` header: HttpOnly, SameSite=Lax, path `/`, `Secure` if configured;
/// `max_age_secs` 0 deletes the cookie.
#[must_use]
pub fn set_cookie(
    state: &AppState,
    name: &str,
    value: &str,
    max_age_secs: i64,
) -> (axum::http::HeaderName, HeaderValue) {
    let cookie = Cookie::build((name, value))
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(state.config.secure_cookies)
        .path("/")
        .max_age(cookie::time::Duration::seconds(max_age_secs))
        .build();
    // Names and values here are ours (fixed names, base64url tokens): always valid.
    let value =
        HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""));
    (SET_COOKIE, value)
}

/// Who is making a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// A signed-in user.
    User {
        /// The user.
        user: User,
        /// The hash of this sign-in's token.
        session_hash: String,
        /// The guest cookie they also carry, if any (games they played as that guest).
        guest: Option<Guest>,
    },
    /// A guest (with a valid guest cookie).
    Guest(Guest),
    /// Nobody known.
    Anonymous,
}

impl Viewer {
    /// The signed-in user, or `not_signed_in`.
    ///
    /// # Errors
    /// `not_signed_in` for guests and anonymous visitors.
    pub fn user(&self) -> Result<(&User, &str), ApiError> {
        match self {
            Viewer::User {
                user, session_hash, ..
            } => Ok((user, session_hash)),
            _ => Err(ApiError::new(ErrorCode::NotSignedIn, "sign in first")),
        }
    }
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let guest = match request_cookie(&parts.headers, GUEST_COOKIE) {
            Some(token) => state.store.guest_by_token(&token_hash(&token)).await?,
            None => None,
        };
        if let Some(token) = request_cookie(&parts.headers, SESSION_COOKIE) {
            let session_hash = token_hash(&token);
            if let Some(user) = state.store.session_user(&session_hash, now_ms()).await? {
                return Ok(Viewer::User {
                    user,
                    session_hash,
                    guest,
                });
            }
        }
        Ok(guest.map_or(Viewer::Anonymous, Viewer::Guest))
    }
}

/// How many revocations may wait for a slow socket before it re-checks its sign-in.
const REVOCATIONS: usize = 256;

/// Ended sign-ins, told to open sockets: sign-out everywhere and a password change name
/// the account; each socket of that account then checks its own sign-in (one query) and
/// closes when it has ended. One channel for the server, so nothing is kept per user.
#[derive(Debug)]
pub struct Revocations {
    sender: tokio::sync::broadcast::Sender<std::sync::Arc<str>>,
}

impl Default for Revocations {
    fn default() -> Revocations {
        Revocations {
            sender: tokio::sync::broadcast::channel(REVOCATIONS).0,
        }
    }
}

impl Revocations {
    /// Tells the sockets of `user_id` that some of their sign-ins have ended.
    pub fn revoke(&self, user_id: &str) {
        let _ = self.sender.send(std::sync::Arc::from(user_id));
    }

    /// What a socket opened by `viewer` watches for its sign-in's end.
    #[must_use]
    pub fn watch(&self, state: &AppState, viewer: &Viewer) -> SessionWatch {
        let signed_in = match viewer {
            Viewer::User {
                user, session_hash, ..
            } => Some((
                user.id.clone(),
                session_hash.clone(),
                self.sender.subscribe(),
            )),
            _ => None,
        };
        SessionWatch {
            store: state.store.clone(),
            signed_in,
            recheck: false,
        }
    }
}

/// A socket's view of its sign-in: ends when the sign-in is ended elsewhere. Guests and
/// anonymous visitors have none to end.
#[derive(Debug)]
pub struct SessionWatch {
    store: crate::store::Store,
    /// The user, the sign-in's token hash, and the revocations.
    signed_in: Option<(
        String,
        String,
        tokio::sync::broadcast::Receiver<std::sync::Arc<str>>,
    )>,
    /// A revocation of this account arrived and the sign-in is not checked yet (kept
    /// across a cancelled [`SessionWatch::ended`], so none is lost in a `select!`).
    recheck: bool,
}

impl SessionWatch {
    /// Completes when this socket's sign-in has ended; never for guests. Cancel-safe.
    pub async fn ended(&mut self) {
        loop {
            if self.recheck {
                if !self.holds().await {
                    return;
                }
                self.recheck = false;
            }
            let Some((user, _, revocations)) = &mut self.signed_in else {
                return std::future::pending().await;
            };
            match revocations.recv().await {
                Ok(id) => self.recheck = *id == **user,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => self.recheck = true,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                    return std::future::pending().await;
                }
            }
        }
    }

    /// Whether the sign-in still holds, for an action about to be taken: asks the
    /// database only when a revocation of this account has arrived since the last check.
    pub async fn still_valid(&mut self) -> bool {
        if let Some((user, _, revocations)) = &mut self.signed_in {
            loop {
                match revocations.try_recv() {
                    Ok(id) if *id == **user => self.recheck = true,
                    Ok(_) => {}
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {
                        self.recheck = true;
                    }
                    Err(_) => break,
                }
            }
        }
        if self.recheck {
            if !self.holds().await {
                return false;
            }
            self.recheck = false;
        }
        true
    }

    /// Whether the sign-in is still stored and unexpired (a database failure is not
    /// taken for a sign-out).
    async fn holds(&self) -> bool {
        let Some((_, hash, _)) = &self.signed_in else {
            return true;
        };
        !matches!(self.store.session_user(hash, now_ms()).await, Ok(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn username_rules() {
        for good in ["ragnar", "Bjorn_77", "a-b-c", "abc", "Twentycharacters1234"] {
            assert!(Username::parse(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("ab", UsernameError::Length),
            ("twentyonecharacters12", UsernameError::Length),
            ("björn", UsernameError::Characters),
            ("with space", UsernameError::Characters),
            ("1abc", UsernameError::Shape),
            ("abc_", UsernameError::Shape),
            ("_abc", UsernameError::Shape),
            ("Guest-ABC", UsernameError::Reserved),
            ("guesthouse", UsernameError::Reserved),
            ("Admin", UsernameError::Reserved),
        ] {
            assert_eq!(Username::parse(bad), Err(why), "{bad}");
        }
    }

    #[test]
    fn password_rules_and_no_leak_in_debug() {
        assert!(Password::new("correct horse").check_new("ragnar").is_ok());
        assert!(Password::new("short").check_new("ragnar").is_err());
        assert!(
            Password::new("RagnarLodbrok")
                .check_new("ragnarlodbrok")
                .is_err()
        );
        assert!(Password::new("x".repeat(129)).check_new("ragnar").is_err());
        assert_eq!(format!("{:?}", Password::new("hunter22")), "Password(***)");
    }

    #[test]
    fn tokens_are_random_and_hashes_hex() {
        let a = new_token();
        assert_eq!(a.len(), 43);
        assert_ne!(a, new_token());
        let h = token_hash(&a);
        assert_eq!(h.len(), 64);
        assert!(h.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(h, token_hash(&a));
    }

    #[test]
    fn cookies_are_read_from_any_cookie_header() {
        let mut headers = HeaderMap::new();
        headers.append(
            COOKIE,
            HeaderValue::from_static("a=1; kingstable_session=tok"),
        );
        headers.append(COOKIE, HeaderValue::from_static("kingstable_guest=g"));
        assert_eq!(
            request_cookie(&headers, SESSION_COOKIE).as_deref(),
            Some("tok")
        );
        assert_eq!(request_cookie(&headers, GUEST_COOKIE).as_deref(), Some("g"));
        assert_eq!(request_cookie(&headers, "b"), None);
    }
}
