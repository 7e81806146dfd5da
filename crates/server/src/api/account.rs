//! Accounts: sign up, sign in, sign out (here or everywhere), change password, who am I,
//! and guests.

use axum::extract::State;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{AppendHeaders, IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::views::{UserView, WhoAmI};
use super::{ApiJson, json_with};
use crate::auth::{
    GUEST_COOKIE, GUEST_COOKIE_SECS, Password, SESSION_COOKIE, Username, Viewer, hash_password,
    new_token, set_cookie, token_hash, verify_password,
};
use crate::error::{ApiError, ErrorCode};
use crate::security::ClientIp;
use crate::state::AppState;
use crate::store::{User, now_ms};

/// The body of sign-up and sign-in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    username: String,
    password: Password,
}

/// The body of a password change.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    current_password: Password,
    new_password: Password,
}

/// The answer to sign-up and sign-in.
#[derive(Serialize)]
struct SignedIn {
    user: UserView,
    /// Sign-up only: the guest whose games the new account took over.
    #[serde(skip_serializing_if = "Option::is_none")]
    adopted_guest: Option<String>,
}

type SetCookie = (HeaderName, HeaderValue);

/// Stores a new sign-in for `user` and returns its cookie.
pub(super) async fn start_session(state: &AppState, user: &User) -> Result<SetCookie, ApiError> {
    let token = new_token();
    let now = now_ms();
    let lifetime = state.config.session_lifetime;
    let lifetime_ms = i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX);
    state
        .store
        .create_session(
            &user.id,
            &token_hash(&token),
            now,
            now.saturating_add(lifetime_ms),
        )
        .await?;
    let secs = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
    Ok(set_cookie(state, SESSION_COOKIE, &token, secs))
}

/// `POST /api/account/signup`.
pub async fn sign_up(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<Response, ApiError> {
    state.limiters.sign_up.check(&ip).await?;
    let username = Username::parse(&body.username)
        .map_err(|e| ApiError::new(ErrorCode::InvalidUsername, e.to_string()))?;
    body.password.check_new(username.as_str())?;
    let hash = hash_password(&state, body.password).await?;
    let guest = match &viewer {
        Viewer::Guest(guest)
        | Viewer::User {
            guest: Some(guest), ..
        } if guest.user_id.is_none() => Some(guest),
        _ => None,
    };
    // The adopted guest's token is replaced by one nobody holds, and the cookie deleted:
    // a copy of the old cookie (a shared machine, a leaked header) no longer acts in
    // the games that are now the user's. No new guest cookie is given: after signing
    // out it would act in them too.
    let retired_token_hash = token_hash(&new_token());
    let (user, adopted) = state
        .store
        .create_user(
            username.as_str(),
            &hash,
            guest.map(|g| (g.id.as_str(), retired_token_hash.as_str())),
            now_ms(),
        )
        .await?;
    let guest = guest.filter(|_| adopted);
    tracing::info!(user = %user.username, adopted_guest = guest.map(|g| g.name.as_str()), "account created");
    let mut cookies = vec![start_session(&state, &user).await?];
    if guest.is_some() {
        cookies.push(set_cookie(&state, GUEST_COOKIE, "", 0));
    }
    let body = SignedIn {
        user: UserView::from(&user),
        adopted_guest: guest.map(|g| g.name.clone()),
    };
    Ok((
        AppendHeaders(cookies),
        json_with(StatusCode::CREATED, &body),
    )
        .into_response())
}

/// `POST /api/account/signin`.
pub async fn sign_in(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiJson(body): ApiJson<Credentials>,
) -> Result<Response, ApiError> {
    // Every attempt from an address counts against it (each costs a password hash);
    // wrong ones also spend that account's budget at that address only. Nothing another
    // address does can refuse the owner's right password.
    state.limiters.sign_in.check(&ip).await?;
    let account_key: String = body.username.to_lowercase().chars().take(64).collect();
    let guesser = (account_key, ip);
    state.limiters.wrong_passwords.check(&guesser).await?;
    let found = state.store.user_with_password(&body.username).await?;
    let (user, hash) = match found {
        Some((user, hash)) => (Some(user), Some(hash)),
        None => (None, None),
    };
    let matches = verify_password(&state, body.password, hash).await?;
    let Some(user) = user.filter(|_| matches) else {
        tracing::info!(username = %guesser.0, "sign-in refused");
        state.limiters.wrong_passwords.spend(guesser).await;
        return Err(ApiError::new(
            ErrorCode::InvalidCredentials,
            "wrong username or password",
        ));
    };
    state.limiters.wrong_passwords.forget(&guesser).await;
    let cookie = start_session(&state, &user).await?;
    tracing::info!(user = %user.username, "signed in");
    let body = SignedIn {
        user: UserView::from(&user),
        adopted_guest: None,
    };
    Ok(([cookie], json_with(StatusCode::OK, &body)).into_response())
}

/// `POST /api/account/signout`: ends this sign-in (and is harmless when not signed in).
pub async fn sign_out(State(state): State<AppState>, viewer: Viewer) -> Result<Response, ApiError> {
    if let Viewer::User { session_hash, .. } = &viewer {
        state.store.delete_session(session_hash).await?;
    }
    Ok((
        [set_cookie(&state, SESSION_COOKIE, "", 0)],
        StatusCode::NO_CONTENT,
    )
        .into_response())
}

/// `POST /api/account/signout-everywhere`: ends every sign-in of this user.
pub async fn sign_out_everywhere(
    State(state): State<AppState>,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let (user, _) = viewer.user()?;
    let ended = state.store.delete_sessions_of(&user.id).await?;
    state.revocations.revoke(&user.id);
    tracing::info!(user = %user.username, ended, "signed out everywhere");
    Ok((
        [set_cookie(&state, SESSION_COOKIE, "", 0)],
        json_with(
            StatusCode::OK,
            &serde_json::json!({ "sessions_ended": ended }),
        ),
    )
        .into_response())
}

/// `POST /api/account/password`: needs the current password; ends every other sign-in.
pub async fn change_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    ApiJson(body): ApiJson<PasswordChange>,
) -> Result<Response, ApiError> {
    let (user, session_hash) = viewer.user()?;
    state.limiters.sign_in.check(&ip).await?;
    let guesser = (user.username.to_lowercase(), ip);
    state.limiters.wrong_passwords.check(&guesser).await?;
    let hash = state
        .store
        .user_by_id_with_password(&user.id)
        .await?
        .map(|(_, hash)| hash);
    if !verify_password(&state, body.current_password, hash).await? {
        state.limiters.wrong_passwords.spend(guesser).await;
        return Err(ApiError::new(
            ErrorCode::InvalidCredentials,
            "the current password is wrong",
        ));
    }
    body.new_password.check_new(&user.username)?;
    let hash = hash_password(&state, body.new_password).await?;
    state
        .store
        .set_password_hash(&user.id, &hash, Some(session_hash))
        .await?;
    // Sockets opened under the ended sign-ins close (this one's stay).
    state.revocations.revoke(&user.id);
    tracing::info!(user = %user.username, "password changed");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /api/whoami`.
///
/// # Errors
/// On a database failure (reading the moderator role).
pub async fn whoami(
    State(state): State<AppState>,
    viewer: Viewer,
) -> Result<axum::Json<WhoAmI>, ApiError> {
    Ok(axum::Json(match &viewer {
        Viewer::User { user, .. } => WhoAmI::User {
            name: user.username.clone(),
            created_at: user.created_at,
            moderator: state.store.is_moderator(&user.id).await?,
        },
        Viewer::Guest(guest) => WhoAmI::guest(guest),
        Viewer::Anonymous => WhoAmI::Anonymous,
    }))
}

/// `POST /api/guest`: makes the visitor a guest (201, with a cookie) unless they already
/// are one or are signed in (200, who they are).
pub async fn guest(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    match &viewer {
        Viewer::User { user, .. } => return Ok(json_with(StatusCode::OK, &WhoAmI::user(user))),
        Viewer::Guest(guest) => return Ok(json_with(StatusCode::OK, &WhoAmI::guest(guest))),
        Viewer::Anonymous => {}
    }
    state.limiters.guest.check(&ip).await?;
    let token = new_token();
    let guest = state
        .store
        .create_guest(&token_hash(&token), now_ms())
        .await?;
    tracing::info!(guest = %guest.name, "guest created");
    Ok((
        [set_cookie(&state, GUEST_COOKIE, &token, GUEST_COOKIE_SECS)],
        json_with(StatusCode::CREATED, &WhoAmI::guest(&guest)),
    )
        .into_response())
}

/// The body of `PUT /api/account/language`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageBody {
    /// `en`, `it` or `fr`.
    lang: String,
}

/// `PUT /api/account/language`: the language the account reads the site in (the web
/// client says it on signing in and on each change); mail to the account is written in
/// it.
///
/// # Errors
/// `not_signed_in` without an account; `bad_request` for a language the site does not
/// have.
pub async fn set_language(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiJson(body): ApiJson<LanguageBody>,
) -> Result<Response, ApiError> {
    let Viewer::User { user, .. } = &viewer else {
        return Err(ApiError::new(ErrorCode::NotSignedIn, "sign in first"));
    };
    if crate::mail::messages::Lang::from_code(&body.lang).is_none() {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("language {:?}: expected en, it or fr", body.lang),
        ));
    }
    state.store.set_user_lang(&user.id, &body.lang).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
