//! The HTTP API: routes, JSON bodies, and the layers every request passes through.
//! `docs/API.md` documents every endpoint.

mod account;
mod analysis;
mod archive;
mod challenges;
mod game_socket;
mod games;
mod lobby_socket;
mod ops;
mod players;
pub mod views;

use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post};
use axum::{Json, Router, middleware};
use serde::de::DeserializeOwned;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::error::{ApiError, ErrorCode};
use crate::security::{csrf_guard, response_headers};
use crate::state::AppState;
use crate::web::static_file;

/// Every endpoint as (method, path), as `docs/API.md` documents them; a test checks that
/// each one is routed and documented.
pub const ENDPOINTS: &[(&str, &str)] = &[
    ("GET", "/health"),
    ("GET", "/metrics"),
    ("GET", "/api/whoami"),
    ("POST", "/api/guest"),
    ("POST", "/api/account/signup"),
    ("POST", "/api/account/signin"),
    ("POST", "/api/account/signout"),
    ("POST", "/api/account/signout-everywhere"),
    ("POST", "/api/account/password"),
    ("GET", "/api/players/{name}"),
    ("POST", "/api/games"),
    ("GET", "/api/games"),
    ("GET", "/api/games/{id}"),
    ("POST", "/api/games/{id}/join"),
    ("POST", "/api/games/{id}/rematch"),
    ("POST", "/api/challenges"),
    ("GET", "/api/challenges"),
    ("POST", "/api/challenges/{id}/accept"),
    ("DELETE", "/api/challenges/{id}"),
    ("GET", "/ws/game/{id}"),
    ("GET", "/ws/lobby"),
    ("POST", "/api/position"),
    ("GET", "/ws/analysis"),
    ("GET", "/api/archive"),
    ("GET", "/api/archive/{id}"),
    ("GET", "/api/games/{id}/record"),
    ("POST", "/api/import"),
];

/// The whole application: the API, `/health`, `/metrics`, and the web client for every
/// other path.
pub fn router(state: AppState) -> Router {
    let body_limit = state.config.body_limit;
    Router::new()
        .route("/api/whoami", get(account::whoami))
        .route("/api/guest", post(account::guest))
        .route("/api/account/signup", post(account::sign_up))
        .route("/api/account/signin", post(account::sign_in))
        .route("/api/account/signout", post(account::sign_out))
        .route(
            "/api/account/signout-everywhere",
            post(account::sign_out_everywhere),
        )
        .route("/api/account/password", post(account::change_password))
        .route("/api/players/{name}", get(players::profile))
        .route("/api/games", post(games::create).get(games::list))
        .route("/api/games/{id}", get(games::get))
        .route("/api/games/{id}/join", post(games::join))
        .route("/api/games/{id}/rematch", post(games::rematch))
        .route(
            "/api/challenges",
            post(challenges::create).get(challenges::list),
        )
        .route("/api/challenges/{id}/accept", post(challenges::accept))
        .route("/api/challenges/{id}", delete(challenges::cancel))
        .route("/ws/game/{id}", get(game_socket::game_socket))
        .route("/ws/lobby", get(lobby_socket::lobby_socket))
        .route("/api/position", post(analysis::position))
        .route("/ws/analysis", get(analysis::socket))
        .route("/api/archive", get(archive::list))
        .route("/api/archive/{id}", get(archive::game))
        .route("/api/games/{id}/record", get(archive::download))
        .route("/api/import", post(archive::import))
        .route("/api/{*rest}", any(api_not_found))
        .route("/health", get(ops::health))
        .route("/metrics", get(ops::metrics))
        .fallback(static_file)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), csrf_guard))
        .layer(DefaultBodyLimit::max(body_limit))
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
/// `unsupported_media_type`, `body_too_large`) instead of axum's plain-text rejection.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(json_rejection(&rejection)),
        }
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
