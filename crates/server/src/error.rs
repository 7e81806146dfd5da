//! Errors: [`ApiError`], what a client is told (`{"error": {"code", "message"}}` with a
//! stable [`ErrorCode`]), and [`ServerError`], why the server could not start or run.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::store::StoreError;

/// Every error code a client can receive. The text (`as_str`) is stable: clients match on
/// it; `docs/API.md` lists each with its HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The request is malformed in a way no other code describes (a bad query string).
    BadRequest,
    /// The body is not JSON of the expected shape.
    InvalidJson,
    /// The body is not declared as `application/json`.
    UnsupportedMediaType,
    /// The body is larger than the server accepts.
    BodyTooLarge,
    /// No such endpoint, player, game or file.
    NotFound,
    /// The endpoint exists but not with this HTTP method.
    MethodNotAllowed,
    /// A state-changing request came from another site (CSRF protection).
    CrossOrigin,
    /// Too many requests: wait `Retry-After` seconds.
    RateLimited,
    /// The request needs a signed-in user.
    NotSignedIn,
    /// Wrong username or password.
    InvalidCredentials,
    /// The username breaks the naming rules.
    InvalidUsername,
    /// The new password breaks the password rules.
    InvalidPassword,
    /// Someone already has this username.
    UsernameTaken,
    /// A record to import does not read or replay, or does not say how the game ended.
    InvalidRecord,
    /// The database cannot be reached (from `/health`).
    DatabaseUnavailable,
    /// The request is understood but not allowed for this player (not their game).
    Forbidden,
    /// The request conflicts with the state of things (a game already started, a seat
    /// taken, a move on an old position).
    Conflict,
    /// This server sends no mail (it runs without `--smtp`).
    MailOff,
    /// The e-mail address is not one.
    InvalidAddress,
    /// Another account has confirmed this e-mail address.
    AddressTaken,
    /// The link from a message is unknown, used already, or expired.
    InvalidToken,
    /// Something went wrong on the server; details are in its log, not in the response.
    Internal,
}

impl ErrorCode {
    /// Every code, for documentation tests.
    pub const ALL: [ErrorCode; 22] = [
        ErrorCode::BadRequest,
        ErrorCode::InvalidJson,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::BodyTooLarge,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::CrossOrigin,
        ErrorCode::RateLimited,
        ErrorCode::NotSignedIn,
        ErrorCode::InvalidCredentials,
        ErrorCode::InvalidUsername,
        ErrorCode::InvalidPassword,
        ErrorCode::UsernameTaken,
        ErrorCode::InvalidRecord,
        ErrorCode::DatabaseUnavailable,
        ErrorCode::Forbidden,
        ErrorCode::Conflict,
        ErrorCode::MailOff,
        ErrorCode::InvalidAddress,
        ErrorCode::AddressTaken,
        ErrorCode::InvalidToken,
        ErrorCode::Internal,
    ];

    /// The code as clients see it (`invalid_credentials`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::CrossOrigin => "cross_origin",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::NotSignedIn => "not_signed_in",
            ErrorCode::InvalidCredentials => "invalid_credentials",
            ErrorCode::InvalidUsername => "invalid_username",
            ErrorCode::InvalidPassword => "invalid_password",
            ErrorCode::UsernameTaken => "username_taken",
            ErrorCode::InvalidRecord => "invalid_record",
            ErrorCode::DatabaseUnavailable => "database_unavailable",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Conflict => "conflict",
            ErrorCode::MailOff => "mail_off",
            ErrorCode::InvalidAddress => "invalid_address",
            ErrorCode::AddressTaken => "address_taken",
            ErrorCode::InvalidToken => "invalid_token",
            ErrorCode::Internal => "internal",
        }
    }

    /// The HTTP status that goes with the code.
    #[must_use]
    pub const fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadRequest | ErrorCode::InvalidJson => StatusCode::BAD_REQUEST,
            ErrorCode::InvalidUsername
            | ErrorCode::InvalidPassword
            | ErrorCode::InvalidRecord
            | ErrorCode::InvalidAddress => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::InvalidToken => StatusCode::GONE,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::CrossOrigin | ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::NotSignedIn | ErrorCode::InvalidCredentials => StatusCode::UNAUTHORIZED,
            ErrorCode::UsernameTaken
            | ErrorCode::Conflict
            | ErrorCode::MailOff
            | ErrorCode::AddressTaken => StatusCode::CONFLICT,
            ErrorCode::DatabaseUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error as a client receives it: a stable code and a sentence for people. Server
/// internals (database messages, file paths) never go in the message: [`ApiError::internal`]
/// logs them and sends a generic one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// What went wrong, for programs.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
    /// For [`ErrorCode::RateLimited`]: when to try again.
    pub retry_after: Option<Duration>,
    /// Which case of the code it is, for clients to say it in their own words
    /// (`challenge_gone` of a `conflict`); stable, like the code.
    pub reason: Option<&'static str>,
}

impl ApiError {
    /// An error with its code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after: None,
            reason: None,
        }
    }

    /// The same error naming its case (`reason` in the response).
    #[must_use]
    pub fn because(self, reason: &'static str) -> ApiError {
        ApiError {
            reason: Some(reason),
            ..self
        }
    }

    /// A server-side failure: logged in full here, reported to the client as `internal`.
    pub fn internal(error: &dyn std::error::Error) -> ApiError {
        tracing::error!(error = %error_chain(error), "internal error");
        ApiError::new(
            ErrorCode::Internal,
            "something went wrong on the server; please try again",
        )
    }

    /// `not_found` with a message.
    pub fn not_found(what: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, what)
    }

    /// `rate_limited`, to retry after `wait`.
    #[must_use]
    pub fn rate_limited(wait: Duration) -> ApiError {
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        ApiError {
            code: ErrorCode::RateLimited,
            message: format!("too many requests; try again in {seconds} s"),
            retry_after: Some(Duration::from_secs(seconds.max(1))),
            reason: None,
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ApiError {}

/// The JSON body of an error response.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str(),
                message: &self.message,
                reason: self.reason,
            },
        };
        let mut response = (self.code.status(), Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(wait.as_secs().max(1)),
            );
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::UsernameTaken => {
                ApiError::new(ErrorCode::UsernameTaken, "this username is taken")
            }
            StoreError::NotFound(what) => ApiError::not_found(format!("no such {what}")),
            other => ApiError::internal(&other),
        }
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or migrated.
    #[error("database: {0}")]
    Store(#[from] StoreError),
    /// The address could not be listened on.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// The bus to the other server processes (`--redis`) could not be reached.
    #[error("bus: {0}")]
    Bus(#[from] crate::bus::BusError),
}

/// An error and its sources on one line, for logs.
#[must_use]
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
