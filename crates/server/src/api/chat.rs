//! A game's chat over HTTP: the messages a viewer may read (the whole chat of a finished
//! game, for the archive), and reporting a message to the moderators. Messages are said
//! on the game socket (`{"t":"chat"}`, see [`crate::live::chat`]).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::{ApiJson, ApiPath, json_with};
use crate::auth::Viewer;
use crate::error::{ApiError, ErrorCode};
use crate::live::Ident;
use crate::live::chat::{self, ChatLine, ChatRoom};
use crate::state::AppState;
use crate::store::now_ms;

/// The longest reason a report takes, in characters.
pub const MAX_REASON_CHARS: usize = 200;

/// The body of `GET /api/games/{id}/chat`.
#[derive(Debug, Serialize)]
pub struct ChatList {
    /// Whether the game is over (both rooms are then read by everyone).
    pub over: bool,
    /// The messages the viewer may read, oldest first (at most [`chat::ARCHIVE`]).
    pub messages: Vec<ChatLine>,
}

/// `GET /api/games/{id}/chat`: the messages of the game that the viewer may read.
///
/// # Errors
/// `not_found` for no such game.
pub async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let Some(record) = state.store.game(&id).await? else {
        return Err(ApiError::not_found("no such game"));
    };
    let over = match state.live.handle(&id) {
        Some(handle) => chat::is_over(handle.feed()),
        None => !record.status.is_live(),
    };
    let you = Ident::from(&viewer).side_in(&record);
    let mut messages = chat::stored_lines(&state, &id).await?;
    messages.retain(|line| line.room.readable_by(you, over));
    Ok(json_with(StatusCode::OK, &ChatList { over, messages }))
}

/// The body of `POST /api/chat/{id}/report`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportBody {
    /// Why, in the reporter's words (optional, at most [`MAX_REASON_CHARS`]).
    #[serde(default)]
    reason: String,
}

/// `POST /api/chat/{id}/report`: reports a message the reporter can read (of a game's
/// room, or of the lobby chat). Reporting the same message again changes nothing.
///
/// # Errors
/// `not_signed_in` without an account or guest cookie, `bad_request` for a long reason,
/// `not_found` for a message they cannot read, `rate_limited` past the chat's limit.
pub async fn report(
    State(state): State<AppState>,
    viewer: Viewer,
    ApiPath(message_id): ApiPath<String>,
    ApiJson(body): ApiJson<ReportBody>,
) -> Result<Response, ApiError> {
    let ident = Ident::from(&viewer);
    let reporter = match (&ident.user, &ident.guest) {
        (Some(user), _) => format!("u:{user}"),
        (None, Some(guest)) => format!("g:{guest}"),
        (None, None) => {
            return Err(ApiError::new(
                ErrorCode::NotSignedIn,
                "play or sign in to report a message",
            ));
        }
    };
    let reason = body.reason.trim();
    if reason.chars().count() > MAX_REASON_CHARS
        || reason.chars().any(|c| c.is_control() && c != '\n')
    {
        return Err(ApiError::new(
            ErrorCode::BadRequest,
            format!("a reason is at most {MAX_REASON_CHARS} characters of text"),
        ));
    }
    let unknown = || ApiError::not_found("no such message");
    let Some(message) = state.store.chat_message(&message_id).await? else {
        // A message of the lobby chat, which everyone reads.
        state
            .store
            .lobby_message(&message_id)
            .await?
            .ok_or_else(unknown)?;
        if !state.limiters.chat.take(&reporter).await {
            return Err(ApiError::rate_limited(chat::REFILL));
        }
        let first = state
            .store
            .report_lobby_chat(&message_id, &reporter, reason, now_ms())
            .await?;
        return Ok(reported(first));
    };
    let record = state
        .store
        .game(&message.game_id)
        .await?
        .ok_or_else(unknown)?;
    let over = match state.live.handle(&record.id) {
        Some(handle) => chat::is_over(handle.feed()),
        None => !record.status.is_live(),
    };
    let room = ChatRoom::from_name(&message.room).ok_or_else(unknown)?;
    if !room.readable_by(ident.side_in(&record), over) {
        return Err(unknown());
    }
    if !state.limiters.chat.take(&reporter).await {
        return Err(ApiError::rate_limited(chat::REFILL));
    }
    let first = state
        .store
        .report_chat(&message_id, &reporter, reason, now_ms())
        .await?;
    Ok(reported(first))
}

/// The answer to a report: `201` the first time, `200` again.
fn reported(first: bool) -> Response {
    json_with(
        if first {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        &serde_json::json!({ "reported": true }),
    )
}
