//! Protections every request passes through: CSRF checks on state-changing requests,
//! rate limits, the client's address, and security headers on every response.

use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::{RateLimit, RateLimits};
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;

/// The policy every page runs under: nothing loaded from other sites, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
    style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; \
    frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// A [`RateLimit`] as a governor quota.
#[must_use]
pub fn quota(limit: RateLimit) -> Quota {
    let burst = NonZeroU32::new(limit.burst.max(1)).unwrap_or(NonZeroU32::MIN);
    Quota::with_period(limit.period)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(burst)
}

/// The keyed limiters of the endpoints that invite abuse.
#[derive(Debug)]
pub struct Limiters {
    /// Sign-in attempts per client address (change-password attempts count here too).
    pub sign_in: DefaultKeyedRateLimiter<IpAddr>,
    /// Sign-in attempts per account name (lowercase).
    pub sign_in_account: DefaultKeyedRateLimiter<String>,
    /// Sign-ups per client address.
    pub sign_up: DefaultKeyedRateLimiter<IpAddr>,
    /// New guests per client address.
    pub guest: DefaultKeyedRateLimiter<IpAddr>,
    /// New challenges per client address.
    pub challenge: DefaultKeyedRateLimiter<IpAddr>,
    /// Records imported per client address.
    pub import: DefaultKeyedRateLimiter<IpAddr>,
    socket_messages: Quota,
}

impl Limiters {
    /// Limiters with these limits.
    #[must_use]
    pub fn new(limits: &RateLimits) -> Limiters {
        Limiters {
            sign_in: RateLimiter::keyed(quota(limits.sign_in)),
            sign_in_account: RateLimiter::keyed(quota(limits.sign_in_account)),
            sign_up: RateLimiter::keyed(quota(limits.sign_up)),
            guest: RateLimiter::keyed(quota(limits.guest)),
            challenge: RateLimiter::keyed(quota(limits.challenge)),
            import: RateLimiter::keyed(quota(limits.import)),
            socket_messages: quota(limits.socket_messages),
        }
    }

    /// A fresh limiter for the messages of one WebSocket connection.
    #[must_use]
    pub fn socket_limiter(&self) -> DefaultDirectRateLimiter {
        RateLimiter::direct(self.socket_messages)
    }

    /// Forgets keys whose buckets are full again, so memory stays bounded.
    pub fn forget_idle(&self) {
        self.sign_in.retain_recent();
        self.sign_in_account.retain_recent();
        self.sign_up.retain_recent();
        self.guest.retain_recent();
        self.challenge.retain_recent();
        self.import.retain_recent();
    }
}

/// Takes one request from `key`'s bucket.
///
/// # Errors
/// `rate_limited`, with the time to wait, when the bucket is empty.
pub fn check<K: Clone + Eq + Hash>(
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
) -> Result<(), ApiError> {
    limiter.check_key(key).map_err(|not_until| {
        ApiError::rate_limited(not_until.wait_time_from(DefaultClock::default().now()))
    })
}

/// Takes one message from a socket's bucket.
///
/// # Errors
/// `rate_limited` when the bucket is empty.
pub fn check_direct(limiter: &DefaultDirectRateLimiter) -> Result<(), ApiError> {
    limiter.check().map_err(|not_until| {
        ApiError::rate_limited(not_until.wait_time_from(DefaultClock::default().now()))
    })
}

/// The last address in `X-Forwarded-For` (the one a reverse proxy saw; earlier entries
/// are the client's own word), if it is one.
#[must_use]
pub fn forwarded_ip(headers: &HeaderMap) -> Option<IpAddr> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|entry| entry.trim().parse::<IpAddr>().ok())
}

/// The client's address: the connection's peer, or, when the server is configured to
/// trust a reverse proxy, the last address in `X-Forwarded-For` (the one the proxy saw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if state.config.trust_proxy
            && let Some(ip) = forwarded_ip(&parts.headers)
        {
            return Ok(ClientIp(ip));
        }
        parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| ClientIp(addr.ip()))
            .ok_or_else(|| {
                ApiError::internal(&std::io::Error::other("no peer address on the connection"))
            })
    }
}

fn is_safe(method: &Method) -> bool {
    matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

/// The `host[:port]` of an origin (`https://Example.org:8443` → `example.org:8443`).
fn origin_authority(origin: &str) -> Option<String> {
    let (scheme, rest) = origin.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty()).then(|| authority.to_ascii_lowercase())
}

/// Whether a request comes from this site's own pages (or carries no credentials a
/// forged request could ride on). Checks, in order: `Sec-Fetch-Site: cross-site` is
/// refused; the `Origin` header (or, without one, the origin of `Referer`) must be the
/// request's own `Host` or the configured public origin; a request with neither header
/// is accepted only without cookies — non-browser clients send no cookies unless they
/// sign in, and then they must send `Origin`. Also used for WebSocket upgrades, which
/// are GET requests that a browser lets any site open.
///
/// # Errors
/// `cross_origin` when the request may come from another site.
pub fn check_same_origin(headers: &HeaderMap, public_origin: Option<&str>) -> Result<(), ApiError> {
    let refuse = |why: &str| {
        Err(ApiError::new(
            ErrorCode::CrossOrigin,
            format!("refused: {why} (state-changing requests must come from this site)"),
        ))
    };
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"))
    {
        return refuse("the browser says the request is cross-site");
    }
    let origin = headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .map(|v| v.to_str().unwrap_or("null"));
    let Some(origin) = origin else {
        return if headers.contains_key(header::COOKIE) {
            refuse("a request with cookies must send an Origin header")
        } else {
            Ok(())
        };
    };
    let Some(authority) = origin_authority(origin) else {
        return refuse("the Origin header is not an http(s) origin");
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    let public = public_origin.and_then(origin_authority);
    if host.as_deref() == Some(authority.as_str()) || public.as_deref() == Some(authority.as_str())
    {
        Ok(())
    } else {
        refuse("the request comes from another origin")
    }
}

/// Middleware: refuses state-changing requests from other sites (see
/// [`check_same_origin`]).
pub async fn csrf_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !is_safe(request.method())
        && let Err(error) =
            check_same_origin(request.headers(), state.config.public_origin.as_deref())
    {
        tracing::warn!(method = %request.method(), path = request.uri().path(), "cross-origin request refused");
        return error.into_response();
    }
    next.run(request).await
}

/// Middleware: headers every response carries, and the count of responses by status.
pub async fn response_headers(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = next.run(request).await;
    state.metrics.http_response(response.status());
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "same-origin"),
        ("content-security-policy", CONTENT_SECURITY_POLICY),
    ] {
        if !headers.contains_key(name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn same_origin_is_accepted() {
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
        ]);
        assert!(check_same_origin(&h, None).is_ok());
        let h = headers(&[
            ("host", "Tafl.Example.org"),
            ("referer", "https://tafl.example.org/game/x"),
        ]);
        assert!(check_same_origin(&h, None).is_ok());
    }

    #[test]
    fn other_origins_are_refused() {
        for pairs in [
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://evil.example"),
            ][..],
            &[("host", "127.0.0.1:8080"), ("origin", "null")],
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8081"),
            ],
            &[("host", "127.0.0.1:8080"), ("cookie", "a=b")],
            &[
                ("host", "x"),
                ("origin", "http://x"),
                ("sec-fetch-site", "cross-site"),
            ],
        ] {
            let error = check_same_origin(&headers(pairs), None).unwrap_err();
            assert_eq!(error.code, ErrorCode::CrossOrigin, "{pairs:?}");
        }
    }

    #[test]
    fn public_origin_is_accepted_behind_a_proxy() {
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://tafl.example.org"),
        ]);
        assert!(check_same_origin(&h, Some("https://tafl.example.org")).is_ok());
        assert!(check_same_origin(&h, None).is_err());
    }

    #[test]
    fn cookieless_request_without_origin_is_accepted() {
        assert!(check_same_origin(&headers(&[("host", "x")]), None).is_ok());
    }

    #[test]
    fn keyed_limit_refuses_after_burst_with_wait() {
        let limiter =
            RateLimiter::keyed(quota(RateLimit::new(2, std::time::Duration::from_secs(60))));
        let ip: IpAddr = [127, 0, 0, 1].into();
        assert!(check(&limiter, &ip).is_ok());
        assert!(check(&limiter, &ip).is_ok());
        let error = check(&limiter, &ip).unwrap_err();
        assert_eq!(error.code, ErrorCode::RateLimited);
        assert!(error.retry_after.unwrap().as_secs() >= 59);
        let other: IpAddr = [127, 0, 0, 2].into();
        assert!(check(&limiter, &other).is_ok());
    }
}
