//! E-mail for accounts: whether the site sends mail, an account's address (added with
//! the password, confirmed by a link) and switches, and password reset by a link.
//! `docs/API.md` ("E-mail") documents each endpoint; [`crate::mail`] sends.
//!
//! An address is shown to its account only: no other answer holds one.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::views::UserView;
use super::{ApiJson, json_with};
use crate::auth::{Password, Viewer, hash_password, new_token, token_hash, verify_password};
use crate::error::{ApiError, ErrorCode};
use crate::mail::{Mailer, Outgoing, messages, parse_address};
use crate::security::ClientIp;
use crate::state::AppState;
use crate::store::{Conflict, MailSettings, StoreError, TokenPurpose, User, now_ms};

/// How long a confirmation link works.
pub const CONFIRM_VALID: Duration = Duration::from_secs(24 * 3600);
/// How long a password-reset link works.
pub const RESET_VALID: Duration = Duration::from_secs(3600);

/// `GET /api/mail`: whether this site sends mail.
#[derive(Serialize)]
struct SiteMail {
    enabled: bool,
}

/// An account's mail settings as the account sees them.
#[derive(Serialize)]
struct MailView {
    /// Whether the site sends mail at all.
    enabled: bool,
    /// The confirmed address.
    address: Option<String>,
    /// An address waiting for its link to be followed.
    pending: Option<Pending>,
    /// The daily digest switch.
    digest: bool,
    /// The clock warning switch.
    clock_warning: bool,
}

#[derive(Serialize)]
struct Pending {
    address: String,
    /// When the link stops working (ms since the Unix epoch).
    expires_at: i64,
}

impl MailView {
    fn of(state: &AppState, settings: MailSettings) -> MailView {
        MailView {
            enabled: state.mailer.is_some(),
            address: settings.email,
            pending: settings.pending.map(|(address, expires_at)| Pending {
                address,
                expires_at,
            }),
            digest: settings.digest,
            clock_warning: settings.clock_warning,
        }
    }
}

/// The body of `POST /api/account/mail`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Switches {
    digest: Option<bool>,
    clock_warning: Option<bool>,
}

/// The body of `POST /api/account/email`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewAddress {
    address: String,
    password: Password,
}

/// The body of `POST /api/account/email/remove`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordOnly {
    password: Password,
}

/// The body of `POST /api/account/email/confirm`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenOnly {
    token: String,
}

/// The body of `POST /api/account/reset/request`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    /// A username or a confirmed address.
    login: String,
}

/// The body of `POST /api/account/reset`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reset {
    token: String,
    new_password: Password,
}

fn mailer(state: &AppState) -> Result<&Mailer, ApiError> {
    state.mailer.as_deref().ok_or_else(|| {
        ApiError::new(
            ErrorCode::MailOff,
            "this site sends no e-mail; ask its administrator",
        )
    })
}

/// A link's token as sent (43 characters of URL-safe base64), or `invalid_token`.
fn token_from(text: &str) -> Result<String, ApiError> {
    let ok = text.len() == 43
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(token_hash(text))
    } else {
        Err(invalid_token())
    }
}

fn invalid_token() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidToken,
        "this link is unknown, used already, or expired; ask for a new one",
    )
}

fn ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Checks the signed-in user's password as a password change does: counted against the
/// client address, wrong guesses against the account at that address.
async fn check_password(
    state: &AppState,
    ip: IpAddr,
    user: &User,
    password: Password,
) -> Result<(), ApiError> {
    state.limiters.sign_in.check(&ip).await?;
    let guesser = (user.username.to_lowercase(), ip);
    state.limiters.wrong_passwords.check(&guesser).await?;
    let hash = state
        .store
        .user_by_id_with_password(&user.id)
        .await?
        .map(|(_, hash)| hash);
    if !verify_password(state, password, hash).await? {
        state.limiters.wrong_passwords.spend(guesser).await;
        return Err(ApiError::new(
            ErrorCode::InvalidCredentials,
            "the password is wrong",
        ));
    }
    Ok(())
}

async fn settings_of(state: &AppState, user: &User) -> Result<MailView, ApiError> {
    let settings = state
        .store
        .mail_settings(&user.id, now_ms())
        .await?
        .ok_or_else(|| ApiError::not_found("no such user"))?;
    Ok(MailView::of(state, settings))
}

/// `GET /api/mail`.
pub async fn site(State(state): State<AppState>) -> Response {
    json_with(
        StatusCode::OK,
        &SiteMail {
            enabled: state.mailer.is_some(),
        },
    )
}

/// `GET /api/account/mail`.
pub async fn settings(State(state): State<AppState>, viewer: Viewer) -> Result<Response, ApiError> {
    let (user, _) = viewer.user()?;
    Ok(json_with(StatusCode::OK, &settings_of(&state, user).await?))
}

/// `POST /api/account/mail`: sets the switches given.
pub async fn set_switches(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiJson(body): ApiJson<Switches>,
) -> Result<Response, ApiError> {
    let (user, _) = viewer.user()?;
    state
        .store
        .set_mail_switches(&user.id, body.digest, body.clock_warning)
        .await?;
    Ok(json_with(StatusCode::OK, &settings_of(&state, user).await?))
}

/// `POST /api/account/email`: needs the password; mails a confirmation link to the new
/// address, which becomes the account's when the link is followed.
pub async fn set_address(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<NewAddress>,
) -> Result<Response, ApiError> {
    let (user, _) = viewer.user()?;
    let mailer = mailer(&state)?;
    state.limiters.mail_requests.check(&ip).await?;
    let address = parse_address(&body.address)
        .map_err(|why| ApiError::new(ErrorCode::InvalidAddress, why))?;
    check_password(&state, ip, user, body.password).await?;
    let current = state.store.mail_settings(&user.id, now_ms()).await?;
    if current
        .as_ref()
        .and_then(|s| s.email.as_deref())
        .is_some_and(|email| email.eq_ignore_ascii_case(address.as_ref()))
    {
        // Already this account's, confirmed: nothing to send.
        return Ok(json_with(StatusCode::OK, &settings_of(&state, user).await?));
    }
    state.limiters.mail_per_account.check(&user.id).await?;
    let token = new_token();
    let now = now_ms();
    state
        .store
        .create_mail_token(
            &token_hash(&token),
            &user.id,
            TokenPurpose::Confirm,
            Some(address.as_ref()),
            now,
            now.saturating_add(ms(CONFIRM_VALID)),
        )
        .await?;
    let lang = messages::Lang::of_stored(state.store.user_lang(&user.id).await?.as_deref());
    let text = messages::confirm(
        lang,
        mailer.base_url(),
        &user.username,
        &token,
        CONFIRM_VALID,
    );
    mailer.send(Outgoing {
        to: address,
        subject: text.subject,
        body: text.body,
        kind: "confirm",
    });
    tracing::info!(user = %user.username, "address confirmation sent");
    Ok(json_with(
        StatusCode::ACCEPTED,
        &settings_of(&state, user).await?,
    ))
}

/// `POST /api/account/email/remove`: needs the password; the account gets no more mail.
pub async fn remove_address(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<PasswordOnly>,
) -> Result<Response, ApiError> {
    let (user, _) = viewer.user()?;
    check_password(&state, ip, user, body.password).await?;
    state.store.remove_address(&user.id).await?;
    tracing::info!(user = %user.username, "address removed");
    Ok(json_with(StatusCode::OK, &settings_of(&state, user).await?))
}

/// `POST /api/account/email/confirm`: follows a confirmation link (signed in or not:
/// the link is the proof).
pub async fn confirm(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<TokenOnly>,
) -> Result<Response, ApiError> {
    let hash = token_from(&body.token)?;
    match state.store.confirm_address(&hash, now_ms()).await {
        Ok(Some((user, address))) => {
            tracing::info!(user = %user.username, "address confirmed");
            Ok(json_with(
                StatusCode::OK,
                &serde_json::json!({ "user": UserView::from(&user), "address": address }),
            ))
        }
        Ok(None) => Err(invalid_token()),
        Err(StoreError::Conflict(Conflict::AddressTaken)) => Err(ApiError::new(
            ErrorCode::AddressTaken,
            "another account has confirmed this address",
        )),
        Err(other) => Err(other.into()),
    }
}

/// `POST /api/account/reset/request`: mails a reset link to the account named (by
/// username or confirmed address) if it has a confirmed address. The answer is the same
/// whether or not such an account exists.
pub async fn request_reset(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<ResetRequest>,
) -> Result<Response, ApiError> {
    mailer(&state)?;
    state.limiters.mail_requests.check(&ip).await?;
    let login = body.login.trim();
    if login.is_empty() || login.chars().count() > crate::mail::ADDRESS_MAX {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "give your username or your e-mail address",
        ));
    }
    // Looked up and sent apart from the answer, so that neither its content nor its
    // timing tells whether the account or the address exists.
    let login = login.to_owned();
    let task_state = state.clone();
    state.tasks.spawn(async move {
        if let Err(error) = send_reset_link(&task_state, &login).await {
            tracing::warn!(error = %crate::error::error_chain(&error), "sending a reset link");
        }
    });
    Ok(json_with(
        StatusCode::ACCEPTED,
        &serde_json::json!({
            "message": "if an account with a confirmed address matches, a link is on its way"
        }),
    ))
}

/// Mails a reset link to the account `login` names (username or confirmed address), if
/// it has a confirmed address and has not had too many links lately.
async fn send_reset_link(state: &AppState, login: &str) -> Result<(), StoreError> {
    let Some(mailer) = state.mailer.as_deref() else {
        return Ok(());
    };
    let found = if login.contains('@') {
        state.store.user_by_address(login).await?
    } else {
        match state.store.user_by_name(login).await? {
            Some(user) => state
                .store
                .mail_settings(&user.id, now_ms())
                .await?
                .and_then(|s| s.email)
                .map(|email| (user, email)),
            None => None,
        }
    };
    // Whoever asks, an account gets a few links an hour at most; past that the request
    // is answered alike and nothing is sent.
    let Some((user, email)) = found else {
        return Ok(());
    };
    if state
        .limiters
        .mail_per_account
        .check(&user.id)
        .await
        .is_err()
    {
        tracing::info!(user = %user.username, "reset link not sent: too many lately");
        return Ok(());
    }
    let Ok(to) = email.parse::<lettre::Address>() else {
        tracing::warn!(user = %user.username, "a stored address does not parse: no reset link");
        return Ok(());
    };
    let token = new_token();
    let now = now_ms();
    state
        .store
        .create_mail_token(
            &token_hash(&token),
            &user.id,
            TokenPurpose::Reset,
            None,
            now,
            now.saturating_add(ms(RESET_VALID)),
        )
        .await?;
    let lang = messages::Lang::of_stored(state.store.user_lang(&user.id).await?.as_deref());
    let text = messages::reset(lang, mailer.base_url(), &user.username, &token, RESET_VALID);
    mailer.send(Outgoing {
        to,
        subject: text.subject,
        body: text.body,
        kind: "reset",
    });
    tracing::info!(user = %user.username, "password reset link sent");
    Ok(())
}

/// `POST /api/account/reset`: follows a reset link: sets the new password, ends every
/// sign-in of the account (closing their sockets), and signs this browser in.
pub async fn reset(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Reset>,
) -> Result<Response, ApiError> {
    let hash = token_from(&body.token)?;
    // Hashing costs: counted like a sign-in.
    state.limiters.sign_in.check(&ip).await?;
    let user = state
        .store
        .mail_token_user(&hash, TokenPurpose::Reset, now_ms())
        .await?
        .ok_or_else(invalid_token)?;
    body.new_password.check_new(&user.username)?;
    let password_hash = hash_password(&state, body.new_password).await?;
    let user = state
        .store
        .reset_password(&hash, &password_hash, now_ms())
        .await?
        .ok_or_else(invalid_token)?;
    state.revocations.revoke(&user.id);
    tracing::info!(user = %user.username, "password reset");
    let cookie = super::account::start_session(&state, &user).await?;
    Ok((
        [cookie],
        json_with(
            StatusCode::OK,
            &serde_json::json!({ "user": UserView::from(&user) }),
        ),
    )
        .into_response())
}
