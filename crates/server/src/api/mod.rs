//! The HTTP API: routes, JSON bodies, and the layers every request passes through.
//! `docs/API.md` documents every endpoint.

mod account;
mod analysis;
mod archive;
mod challenges;
mod chat;
mod conditional;
mod game_socket;
mod games;
mod levels;
mod lobby_socket;
mod mail;
mod me;
mod moderation;
mod ops;
mod players;
mod standings;
pub mod views;

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post, put};
use axum::{Json, Router, middleware};
use serde::de::DeserializeOwned;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::error::{ApiError, ErrorCode};
use crate::security::{csrf_guard, response_headers};
use crate::state::AppState;
use crate::web::static_file;

/// Declares the endpoints once, as `METHOD "path" => handler`: [`ENDPOINTS`] lists them
/// and `endpoint_routes` routes them, so a route cannot be served without being listed
/// (and the tests check that each listed one is documented and each documented one
/// listed).
macro_rules! endpoints {
    ($($method:ident $path:literal => $handler:expr,)*) => {
        /// Every endpoint as (method, path), as `docs/API.md` documents them: the routes
        /// of [`router`] (besides the web client's files), from the same table.
        pub const ENDPOINTS: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        /// Routes every endpoint of [`ENDPOINTS`] (two methods on one path share its
        /// route).
        fn endpoint_routes(router: Router<AppState>) -> Router<AppState> {
            router$(.route($path, endpoints!(@method $method)($handler)))*
        }
    };
    (@method GET) => { get };
    (@method POST) => { post };
    (@method PUT) => { put };
    (@method DELETE) => { delete };
}

endpoints! {
    GET "/health" => ops::health,
    GET "/metrics" => ops::metrics,
    GET "/api/whoami" => account::whoami,
    POST "/api/guest" => account::guest,
    POST "/api/account/signup" => account::sign_up,
    POST "/api/account/signin" => account::sign_in,
    POST "/api/account/signout" => account::sign_out,
    POST "/api/account/signout-everywhere" => account::sign_out_everywhere,
    POST "/api/account/password" => account::change_password,
    PUT "/api/account/language" => account::set_language,
    GET "/api/mail" => mail::site,
    GET "/api/account/mail" => mail::settings,
    POST "/api/account/mail" => mail::set_switches,
    POST "/api/account/email" => mail::set_address,
    POST "/api/account/email/remove" => mail::remove_address,
    POST "/api/account/email/confirm" => mail::confirm,
    POST "/api/account/reset/request" => mail::request_reset,
    POST "/api/account/reset" => mail::reset,
    GET "/api/players/{name}" => players::profile,
    GET "/api/me/games" => me::games,
    GET "/api/me/challenges" => me::challenges,
    GET "/api/ratings" => standings::list,
    GET "/api/levels" => levels::list,
    POST "/api/games" => games::create,
    GET "/api/games" => games::list,
    GET "/api/games/{id}" => games::get,
    POST "/api/games/{id}/join" => games::join,
    POST "/api/games/{id}/rematch" => games::rematch,
    GET "/api/games/{id}/conditional" => conditional::get,
    PUT "/api/games/{id}/conditional" => conditional::put,
    POST "/api/challenges" => challenges::create,
    GET "/api/challenges" => challenges::list,
    POST "/api/challenges/{id}/accept" => challenges::accept,
    POST "/api/challenges/{id}/decline" => challenges::decline,
    DELETE "/api/challenges/{id}" => challenges::cancel,
    GET "/ws/game/{id}" => game_socket::game_socket,
    GET "/ws/lobby" => lobby_socket::lobby_socket,
    POST "/api/position" => analysis::position,
    GET "/ws/analysis" => analysis::socket,
    GET "/api/archive" => archive::list,
    GET "/api/archive/{id}" => archive::game,
    GET "/api/games/{id}/record" => archive::download,
    POST "/api/import" => archive::import,
    GET "/api/games/{id}/chat" => chat::list,
    POST "/api/chat/{id}/report" => chat::report,
    GET "/api/mod/reports" => moderation::reports,
    POST "/api/mod/sanction" => moderation::sanction,
}

/// The whole application: the API, `/health`, `/metrics`, and the web client for every
/// other path.
pub fn router(state: AppState) -> Router {
    let body_limit = state.config.body_limit;
    endpoint_routes(Router::new())
        .route("/api/{*rest}", any(api_not_found))
        .fallback(static_file)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), csrf_guard))
        .layer(middleware::from_fn(refuse_control_characters))
        .layer(DefaultBodyLimit::max(body_limit))
        // Pages, scripts and JSON compressed (brotli or gzip, as the client accepts; tiny
        // bodies, images and socket upgrades are left alone). tower-http's default level
        // for brotli is 4 (nginx's): cheap enough to compress each answer as it goes.
        .layer(CompressionLayer::new())
        .layer(CatchPanicLayer::custom(
            |_panic: Box<dyn std::any::Any + Send>| {
                tracing::error!("a request handler panicked");
                ApiError::new(
                    ErrorCode::Internal,
                    "something went wrong on the server; please try again",
                )
                .into_response()
            },
        ))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
        .layer(middleware::from_fn_with_state(
            state.clone(),
            response_headers,
        ))
        .with_state(state)
}

async fn api_not_found() -> ApiError {
    ApiError::not_found("no such endpoint")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this endpoint does not take this method",
    )
}

/// A JSON request body; anything wrong with it becomes a JSON error (`invalid_json`,
/// `unsupported_media_type`, `body_too_large`) instead of axum's plain-text rejection. A
/// string in it holding a control character other than tab, line feed and carriage
/// return (NUL, escape, DEL, the C1 controls) is refused with `bad_request`: no text
/// field takes one, and the databases would not store them alike.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(request.headers()) {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "send the body as JSON with `Content-Type: application/json`",
            ));
        }
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(
                        ErrorCode::BodyTooLarge,
                        "the request body is larger than the server accepts",
                    )
                } else {
                    ApiError::new(ErrorCode::InvalidJson, "the body could not be read")
                }
            })?;
        let Json(value) = Json::<T>::from_bytes(&bytes).map_err(|e| json_rejection(&e))?;
        if let Some(control) = json_control_character(&bytes) {
            return Err(control_character_error(control, "the body"));
        }
        Ok(ApiJson(value))
    }
}

/// Whether the request says its body is JSON (`application/json`, or `application/*+json`).
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let mime = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// Whether `c` is a control character no text field takes: all but tab, line feed and
/// carriage return (which records and messages may hold).
#[must_use]
pub fn is_refused_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// The `bad_request` for a control character found in `place`.
pub(crate) fn control_character_error(control: char, place: &str) -> ApiError {
    ApiError::new(
        ErrorCode::BadRequest,
        format!(
            "{place} holds a control character (U+{:04X}); text may not contain control \
             characters other than tab and line breaks",
            u32::from(control)
        ),
    )
}

/// The first refused control character inside a string of the JSON text `json` (raw,
/// as a `\u` escape, or as `\b` / `\f`). Outside strings JSON allows only whitespace,
/// which its parser checks.
#[must_use]
pub fn json_control_character(json: &[u8]) -> Option<char> {
    let text = std::str::from_utf8(json).ok()?;
    let mut chars = text.chars();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            continue;
        }
        match c {
            '"' => in_string = false,
            '\\' => match chars.next() {
                Some('b') => return Some('\u{8}'),
                Some('f') => return Some('\u{c}'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let escaped = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                    if let Some(escaped) = escaped.filter(|&e| is_refused_control(e)) {
                        return Some(escaped);
                    }
                }
                _ => {}
            },
            c if is_refused_control(c) => return Some(c),
            _ => {}
        }
    }
    None
}

/// The first refused control character a percent-encoded path or query decodes to.
#[must_use]
pub fn uri_control_character(encoded: &str) -> Option<char> {
    let bytes = encoded.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| {
            bytes
                .get(at..at + 2)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        };
        match (bytes[i], hex(i + 1)) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded)
        .chars()
        .find(|&c| is_refused_control(c) || matches!(c, '\t' | '\n' | '\r'))
}

/// Middleware: a path or query that decodes to a control character is refused with
/// `bad_request` before any handler reads it (no name, id or filter holds one).
async fn refuse_control_characters(request: Request, next: middleware::Next) -> Response {
    let uri = request.uri();
    let found = uri_control_character(uri.path())
        .map(|c| (c, "the path"))
        .or_else(|| {
            uri.query()
                .and_then(uri_control_character)
                .map(|c| (c, "the query"))
        });
    match found {
        Some((control, place)) => control_character_error(control, place).into_response(),
        None => next.run(request).await,
    }
}

fn json_rejection(rejection: &JsonRejection) -> ApiError {
    match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            ErrorCode::BodyTooLarge,
            "the request body is larger than the server accepts",
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "send the body as JSON with `Content-Type: application/json`",
        ),
        _ => match rejection {
            // serde's message says which field is missing or of the wrong type, and where.
            JsonRejection::JsonDataError(e) => ApiError::new(ErrorCode::InvalidJson, e.body_text()),
            JsonRejection::JsonSyntaxError(e) => {
                ApiError::new(ErrorCode::InvalidJson, e.body_text())
            }
            _ => ApiError::new(ErrorCode::InvalidJson, "the body could not be read as JSON"),
        },
    }
}

/// A path parameter; a bad one becomes `bad_request`.
#[derive(Debug)]
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| ApiPath(value))
            .map_err(|rejection: PathRejection| {
                ApiError::new(ErrorCode::BadRequest, rejection.body_text())
            })
    }
}

/// A response with a status code and a JSON body.
pub(crate) fn json_with<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    (status, Json(body)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_listed_once() {
        let mut seen = std::collections::HashSet::new();
        for endpoint in ENDPOINTS {
            assert!(seen.insert(endpoint), "{endpoint:?} twice");
        }
        assert!(ENDPOINTS.contains(&("GET", "/api/levels")));
    }

    #[test]
    fn control_characters_in_json_strings_are_found_however_written() {
        for (json, control) in [
            (r#"{"username": "a\u0000b"}"#, '\u{0}'),
            (r#"{"a": ["x", "\u001B[31m"]}"#, '\u{1b}'),
            (r#"{"a": "\b"}"#, '\u{8}'),
            (r#"{"a\u007f": 1}"#, '\u{7f}'),
            ("{\"a\": \"\u{85}\"}", '\u{85}'),
            ("{\"a\": \"x\u{7f}\"}", '\u{7f}'),
        ] {
            assert_eq!(
                json_control_character(json.as_bytes()),
                Some(control),
                "{json}"
            );
        }
        for json in [
            r#"{"record": "line one\nline two\r\n\tand three"}"#,
            r#"{"a": "\\u0000 is written, not a NUL", "b": "\"\u00e9"}"#,
            "{\n\t\"a\": 1\r\n}",
        ] {
            assert_eq!(json_control_character(json.as_bytes()), None, "{json}");
        }
    }

    #[test]
    fn control_characters_in_paths_and_queries_are_found_once_decoded() {
        assert_eq!(uri_control_character("/api/players/a%00b"), Some('\u{0}'));
        assert_eq!(uri_control_character("player=x%0Ay"), Some('\n'));
        assert_eq!(uri_control_character("player=%C2%85"), Some('\u{85}'));
        assert_eq!(uri_control_character("/api/players/ragnar"), None);
        assert_eq!(uri_control_character("player=Bj%C3%B6rn&page=2%"), None);
    }
}
