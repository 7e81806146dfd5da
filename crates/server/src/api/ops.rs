//! Operations: `/health` and `/metrics`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// `GET /health`: 200 when the database answers, 503 `database_unavailable` when not.
pub async fn health(State(state): State<AppState>) -> Result<Response, ApiError> {
    if let Err(error) = state.store.ping().await {
        tracing::error!(error = %crate::error::error_chain(&error), "health check: database");
        return Err(ApiError::new(
            ErrorCode::DatabaseUnavailable,
            "the database does not answer",
        ));
    }
    Ok(Json(json!({
        "status": "ok",
        "database": state.store.backend().as_str(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
    .into_response())
}

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(state): State<AppState>) -> Response {
    if let Some(bus) = state.bus() {
        let failures = state
            .limiters
            .shared()
            .map_or(0, |shared| shared.failures());
        state.metrics.bus(
            !bus.is_closed(),
            bus.dropped(),
            state.live.remote_count(),
            failures,
        );
    }
    let mut response = state.metrics.render().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
