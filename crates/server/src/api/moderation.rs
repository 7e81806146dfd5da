//! Moderation on the site, for accounts with the moderator role (`kingstable admin grant
//! moderator NAME`): the reported messages, and bans and mutes from chat. The same actions
//! as `kingstable admin` ([`crate::admin::run`]), so a sanction laid here takes hold as one
//! laid there: at the author's next message, on open pages too. A moderator cannot
//! sanction a moderator (that is the operator's, from the command line).

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::{ApiJson, json_with};
use crate::admin::{self, AdminError, ChatAction, MAX_MUTE_MINUTES};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use crate::store::User;

/// The most reports one request lists.
pub const MAX_REPORTS: usize = 200;

/// The signed-in moderator, or `not_signed_in` / `forbidden`.
async fn moderator<'a>(state: &AppState, viewer: &'a Viewer) -> Result<&'a User, ApiError> {
    let (user, _) = viewer.user()?;
    if state.store.is_moderator(&user.id).await? {
        Ok(user)
    } else {
        Err(ApiError::new(
            ErrorCode::Forbidden,
            "only moderators may do this",
        ))
    }
}

/// The query of `GET /api/mod/reports`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportsQuery {
    /// How many (1 to [`MAX_REPORTS`], default 50).
    #[serde(default)]
    limit: Option<usize>,
}

/// One report as a moderator sees it.
#[derive(Debug, Serialize)]
struct ReportView {
    /// The message's id.
    message_id: String,
    /// The game it was said in; absent for the lobby chat.
    #[serde(skip_serializing_if = "Option::is_none")]
    game_id: Option<String>,
    /// `players`, `spectators` or `lobby`.
    room: String,
    /// The author's name when it was said.
    author: String,
    /// Whether the author has an account (only accounts can be sanctioned).
    author_is_account: bool,
    /// What was said.
    body: String,
    /// When it was said (ms since the Unix epoch).
    said_at: i64,
    /// The reporter's name (an account or a guest).
    reporter: String,
    /// Why, in the reporter's words (may be empty).
    reason: String,
    /// When it was reported.
    reported_at: i64,
}

/// `GET /api/mod/reports?limit=N`: the latest reports of game and lobby chat, newest
/// first.
///
/// # Errors
/// `not_signed_in`, `forbidden` for a player who is not a moderator, `bad_request` for a
/// limit out of range.
pub async fn reports(
    State(state): State<AppState>,
    viewer: Viewer,
    query: Result<Query<ReportsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    moderator(&state, &viewer).await?;
    let Ok(Query(query)) = query else {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            "the query takes only limit (a number)",
        ));
    };
    let limit = query.limit.unwrap_or(50);
    if !(1..=MAX_REPORTS).contains(&limit) {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("limit is 1 to {MAX_REPORTS}"),
        ));
    }
    let reports = state.store.chat_report_list(limit).await?;
    let mut views = Vec::with_capacity(reports.len());
    for report in reports {
        let reporter = state
            .store
            .name_of_ident(&report.reporter)
            .await?
            .unwrap_or_else(|| "?".to_owned());
        let message = report.message;
        views.push(ReportView {
            message_id: message.id,
            game_id: (!message.game_id.is_empty()).then_some(message.game_id),
            room: message.room,
            author: message.author,
            author_is_account: message.user_id.is_some(),
            body: message.body,
            said_at: message.created_at,
            reporter,
            reason: report.reason,
            reported_at: report.reported_at,
        });
    }
    Ok(json_with(
        StatusCode::OK,
        &serde_json::json!({ "reports": views }),
    ))
}

/// The body of `POST /api/mod/sanction`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanctionBody {
    /// The account's name.
    user: String,
    /// `ban`, `unban` or `mute`.
    action: String,
    /// For `mute`: how long, 1 to [`MAX_MUTE_MINUTES`] minutes.
    #[serde(default)]
    minutes: Option<u64>,
}

/// `POST /api/mod/sanction`: bans, unbans or mutes an account in chat.
///
/// # Errors
/// `not_signed_in`, `forbidden` (not a moderator, or the account is a moderator),
/// `not_found` for no such account, `bad_request` for an unknown action or a mute of no
/// time or longer than a year.
pub async fn sanction(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiJson(body): ApiJson<SanctionBody>,
) -> Result<Response, ApiError> {
    let by = moderator(&state, &viewer).await?;
    let action = match (body.action.as_str(), body.minutes) {
        ("ban", None) => ChatAction::Ban(body.user.clone()),
        ("unban", None) => ChatAction::Unban(body.user.clone()),
        ("mute", Some(minutes)) => ChatAction::Mute(body.user.clone(), minutes),
        ("mute", None) => {
            return Err(ApiError::new(ErrorCode::BadRequest, "a mute needs minutes"));
        }
        _ => {
            return Err(ApiError::new(
                ErrorCode::BadRequest,
                "action is ban, unban or mute (only mute takes minutes)",
            ));
        }
    };
    let Some(target) = state.store.user_by_name(&body.user).await? else {
        return Err(ApiError::not_found("no such player"));
    };
    if state.store.is_moderator(&target.id).await? {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "a moderator's chat is the operator's to restrict (kingstable admin)",
        ));
    }
    let done = admin::run(&state.store, &action)
        .await
        .map_err(|error| match error {
            AdminError::NoSuchUser(_) => ApiError::not_found("no such player"),
            AdminError::BadMinutes(_) => ApiError::new(
                ErrorCode::BadRequest,
                format!("a mute lasts 1 to {MAX_MUTE_MINUTES} minutes (for longer, ban)"),
            ),
            AdminError::Store(error) => error.into(),
            AdminError::Io(error) => ApiError::internal(&error),
        })?;
    tracing::info!(moderator = %by.username, target = %target.username, action = %body.action,
        minutes = ?body.minutes, "chat sanction");
    Ok(json_with(
        StatusCode::OK,
        &serde_json::json!({ "done": done, "user": target.username }),
    ))
}
