//! Protections every request passes through: CSRF checks on state-changing requests,
//! rate limits, the client's address, and security headers on every response.

use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock};

use axum::extract::{ConnectInfo, FromRequestParts, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::{RateLimit, RateLimits};
use crate::error::{ApiError, ErrorCode};
use crate::metrics::UNMATCHED_ROUTE;
use crate::shared::{Bucket, Shared};
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

/// Where a limit keeps its buckets: Redis once the process shares its limits with
/// the others ([`Limiters::share`]), else this process's memory.
type SharedCell = Arc<OnceLock<Arc<Shared>>>;

/// A key of a limit, as Redis names it.
pub trait LimitKey {
    /// The key's name in Redis.
    fn limit_key(&self) -> String;
}

impl LimitKey for IpAddr {
    fn limit_key(&self) -> String {
        self.to_string()
    }
}

impl LimitKey for String {
    fn limit_key(&self) -> String {
        self.clone()
    }
}

impl LimitKey for (String, IpAddr) {
    fn limit_key(&self) -> String {
        format!("{}|{}", self.1, self.0)
    }
}

/// A rate limit per key (a burst, then one more each period), shared by every process
/// through Redis when there is one ([`crate::shared`]), else this process's own.
#[derive(Debug)]
pub struct Limited<K: Clone + Eq + Hash> {
    name: &'static str,
    limit: RateLimit,
    local: DefaultKeyedRateLimiter<K>,
    shared: SharedCell,
}

impl<K: Clone + Eq + Hash + LimitKey> Limited<K> {
    fn new(name: &'static str, limit: RateLimit, shared: &SharedCell) -> Limited<K> {
        Limited {
            name,
            limit,
            local: RateLimiter::keyed(quota(limit)),
            shared: Arc::clone(shared),
        }
    }

    /// Takes one request from `key`'s bucket (in Redis when shared and answering,
    /// else this process's own).
    ///
    /// # Errors
    /// `rate_limited`, with the time to wait, when the bucket is empty.
    pub async fn check(&self, key: &K) -> Result<(), ApiError> {
        if let Some(shared) = self.shared.get() {
            let taken = shared
                .bucket(
                    self.name,
                    &key.limit_key(),
                    self.limit.burst,
                    self.limit.period,
                    Bucket::Take,
                )
                .await;
            match taken {
                Ok(None) => return Ok(()),
                Ok(Some(wait)) => return Err(ApiError::rate_limited(wait)),
                Err(_) => {}
            }
        }
        check(&self.local, key)
    }

    /// Whether `key` may go on (spending one request).
    pub async fn take(&self, key: &K) -> bool {
        self.check(key).await.is_ok()
    }

    fn retain_recent(&self) {
        self.local.retain_recent();
    }
}

/// The keyed limiters of the endpoints that invite abuse.
#[derive(Debug)]
pub struct Limiters {
    /// Sign-in attempts per client address, right or wrong (change-password attempts
    /// count here too): bounds the password hashing one address can cause.
    pub sign_in: Limited<IpAddr>,
    /// Wrong passwords per account (lowercase name) from one client address. Only wrong
    /// guesses spend it, and only from that address: the owner signing in from another
    /// address is never refused, however many guesses others made.
    pub wrong_passwords: GuessBudget<(String, IpAddr)>,
    /// Sign-ups per client address.
    pub sign_up: Limited<IpAddr>,
    /// New guests per client address.
    pub guest: Limited<IpAddr>,
    /// New challenges per client address.
    pub challenge: Limited<IpAddr>,
    /// Records imported per client address.
    pub import: Limited<IpAddr>,
    /// Password-reset requests and address changes per client address.
    pub mail_requests: Limited<IpAddr>,
    /// Messages sent on request to one account (by user id).
    pub mail_per_account: Limited<String>,
    /// Chat messages per author (account or guest).
    pub chat: Limited<String>,
    socket_messages: Quota,
    shared: SharedCell,
}

impl Limiters {
    /// Limiters with these limits.
    #[must_use]
    pub fn new(limits: &RateLimits) -> Limiters {
        let shared = SharedCell::default();
        Limiters {
            sign_in: Limited::new("sign_in", limits.sign_in, &shared),
            wrong_passwords: GuessBudget::shared("wrong_password", limits.sign_in_account, &shared),
            sign_up: Limited::new("sign_up", limits.sign_up, &shared),
            guest: Limited::new("guest", limits.guest, &shared),
            challenge: Limited::new("challenge", limits.challenge, &shared),
            import: Limited::new("import", limits.import, &shared),
            mail_requests: Limited::new("mail_requests", limits.mail_requests, &shared),
            mail_per_account: Limited::new("mail_per_account", limits.mail_per_account, &shared),
            chat: Limited::new("chat", crate::live::chat::LIMIT, &shared),
            socket_messages: quota(limits.socket_messages),
            shared,
        }
    }

    /// From now on the limits (and the AI quotas) are kept in Redis through `shared`,
    /// together with the other processes'.
    pub fn share(&self, shared: Arc<Shared>) {
        let _ = self.shared.set(shared);
    }

    /// The limits and quotas shared with the other processes, if any.
    #[must_use]
    pub fn shared(&self) -> Option<&Arc<Shared>> {
        self.shared.get()
    }

    /// A fresh limiter for the messages of one WebSocket connection.
    #[must_use]
    pub fn socket_limiter(&self) -> DefaultDirectRateLimiter {
        RateLimiter::direct(self.socket_messages)
    }

    /// Forgets keys whose buckets are full again, so memory stays bounded.
    pub fn forget_idle(&self) {
        self.sign_in.retain_recent();
        self.wrong_passwords.retain_recent();
        self.sign_up.retain_recent();
        self.guest.retain_recent();
        self.challenge.retain_recent();
        self.import.retain_recent();
        self.mail_requests.retain_recent();
        self.mail_per_account.retain_recent();
        self.chat.retain_recent();
    }
}

/// Most keys a [`GuessBudget`] remembers (memory stays bounded whatever clients send);
/// past that, failures of new keys go uncounted until old ones are forgotten (the
/// per-address limit still bounds them) rather than refusing anyone.
const GUESS_KEYS: usize = 200_000;

/// A budget of failures per key (wrong passwords per account and address): `burst` at
/// once, then one more each `period`. Unlike a rate limit, asking does not spend it:
/// [`GuessBudget::check`] only looks, and [`GuessBudget::spend`] is called on a failure.
#[derive(Debug)]
pub struct GuessBudget<K> {
    name: &'static str,
    limit: RateLimit,
    spent: std::sync::Mutex<std::collections::HashMap<K, Spent>>,
    shared: SharedCell,
}

/// Failures counted as of `since`.
#[derive(Clone, Copy, Debug)]
struct Spent {
    count: u32,
    since: std::time::Instant,
}

impl Spent {
    /// The count as of `now`, one failure forgiven each `period`.
    fn at(self, now: std::time::Instant, period: std::time::Duration) -> Spent {
        let period = period.max(std::time::Duration::from_millis(1));
        let elapsed = now.saturating_duration_since(self.since);
        let forgiven = u32::try_from(elapsed.as_nanos() / period.as_nanos()).unwrap_or(u32::MAX);
        if forgiven >= self.count {
            Spent {
                count: 0,
                since: now,
            }
        } else {
            Spent {
                count: self.count - forgiven,
                since: self.since + period * forgiven,
            }
        }
    }
}

impl<K: Clone + Eq + Hash + LimitKey> GuessBudget<K> {
    /// A budget of `limit.burst` failures, one more each `limit.period`, this process's
    /// own.
    #[must_use]
    pub fn new(limit: RateLimit) -> GuessBudget<K> {
        GuessBudget::shared("guesses", limit, &SharedCell::default())
    }

    /// As [`GuessBudget::new`], kept in Redis (as `name`) once `shared` is set.
    fn shared(name: &'static str, limit: RateLimit, shared: &SharedCell) -> GuessBudget<K> {
        GuessBudget {
            name,
            limit,
            spent: std::sync::Mutex::new(std::collections::HashMap::new()),
            shared: Arc::clone(shared),
        }
    }

    /// Asks Redis, when shared: `None` when it does not answer (or is not used).
    async fn ask_shared(&self, key: &K, what: Bucket) -> Option<Option<std::time::Duration>> {
        let shared = self.shared.get()?;
        let name = key.limit_key();
        shared
            .bucket(self.name, &name, self.limit.burst, self.limit.period, what)
            .await
            .ok()
    }

    /// Whether `key` may try again (spends nothing).
    ///
    /// # Errors
    /// `rate_limited`, with the time until the next failure is forgiven, when the
    /// budget is spent.
    pub async fn check(&self, key: &K) -> Result<(), ApiError> {
        match self.ask_shared(key, Bucket::Look).await {
            Some(None) => Ok(()),
            Some(Some(wait)) => Err(ApiError::rate_limited(wait)),
            None => self.check_here(key),
        }
    }

    /// Counts a failure of `key`.
    pub async fn spend(&self, key: K) {
        if self.ask_shared(&key, Bucket::Spend).await.is_none() {
            self.spend_here(key);
        }
    }

    /// Forgets `key`'s failures (after a success).
    pub async fn forget(&self, key: &K) {
        if let Some(shared) = self.shared.get() {
            let _ = shared.forget(self.name, &key.limit_key()).await;
        }
        self.spent().remove(key);
    }

    fn spent(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<K, Spent>> {
        self.spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// [`GuessBudget::check`] in this process's memory.
    fn check_here(&self, key: &K) -> Result<(), ApiError> {
        let now = std::time::Instant::now();
        let spent = self.spent();
        match spent.get(key).map(|s| s.at(now, self.limit.period)) {
            Some(s) if s.count >= self.limit.burst.max(1) => Err(ApiError::rate_limited(
                (s.since + self.limit.period).saturating_duration_since(now),
            )),
            _ => Ok(()),
        }
    }

    /// [`GuessBudget::spend`] in this process's memory.
    fn spend_here(&self, key: K) {
        let now = std::time::Instant::now();
        let mut spent = self.spent();
        if spent.len() >= GUESS_KEYS && !spent.contains_key(&key) {
            let period = self.limit.period;
            spent.retain(|_, s| s.at(now, period).count > 0);
            if spent.len() >= GUESS_KEYS {
                return;
            }
        }
        let entry = spent.entry(key).or_insert(Spent {
            count: 0,
            since: now,
        });
        let mut current = entry.at(now, self.limit.period);
        current.count = current.count.saturating_add(1);
        *entry = current;
    }

    /// Forgets keys whose failures are all forgiven.
    pub fn retain_recent(&self) {
        let now = std::time::Instant::now();
        let period = self.limit.period;
        self.spent().retain(|_, s| s.at(now, period).count > 0);
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

/// The `host:port` authorities this server's own pages are served from: the configured
/// public origin, and the address it listens on (`config.addr`, the bound address once
/// the server has bound it) — with `localhost`, `127.0.0.1` and `[::1]` when it listens
/// on a loopback or on every interface, and without the port when that is 80. Never the
/// request's own `Host` header, which whoever sends the request chooses.
#[must_use]
pub fn own_authorities(config: &crate::config::Config) -> Vec<String> {
    let mut own: Vec<String> = config
        .public_origin
        .as_deref()
        .and_then(origin_authority)
        .into_iter()
        .collect();
    let addr = config.addr;
    let port = addr.port();
    let mut hosts = vec![match addr.ip() {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    }];
    if addr.ip().is_loopback() || addr.ip().is_unspecified() {
        hosts.extend(["localhost", "127.0.0.1", "[::1]"].map(str::to_owned));
    }
    for host in hosts {
        if port == 80 {
            own.push(host.clone());
        }
        own.push(format!("{host}:{port}"));
    }
    own
}

/// Whether a request comes from this site's own pages (or carries no credentials a
/// forged request could ride on). Checks, in order: `Sec-Fetch-Site: cross-site` is
/// refused; the `Origin` header (or, without one, the origin of `Referer`) must be one of
/// [`own_authorities`] (the configured public origin or the listen address; never the
/// request's own `Host`, which a forged request may set); a request with neither header
/// is accepted only without cookies — non-browser clients send no cookies unless they
/// sign in, and then they must send `Origin`. Also used for WebSocket upgrades, which
/// are GET requests that a browser lets any site open.
///
/// # Errors
/// `cross_origin` when the request may come from another site.
pub fn check_same_origin(
    headers: &HeaderMap,
    config: &crate::config::Config,
) -> Result<(), ApiError> {
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
    if own_authorities(config).contains(&authority) {
        Ok(())
    } else {
        refuse("the request comes from another origin")
    }
}

/// Middleware: refuses state-changing requests from other sites (see
/// [`check_same_origin`]).
pub async fn csrf_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !is_safe(request.method())
        && let Err(error) = check_same_origin(request.headers(), &state.config)
    {
        tracing::warn!(method = %request.method(), path = request.uri().path(), "cross-origin request refused");
        return error.into_response();
    }
    next.run(request).await
}

/// Middleware: headers every response carries, the count of responses by status, and
/// the time each took by route (the route's pattern, which the router has matched
/// before this runs: `Router::layer` wraps each route).
pub async fn response_headers(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let started = std::time::Instant::now();
    let method = request.method().clone();
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    state.metrics.http_request(
        &method,
        route.as_ref().map_or(UNMATCHED_ROUTE, MatchedPath::as_str),
        started.elapsed(),
    );
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

    fn config(addr: &str, public: Option<&str>) -> crate::config::Config {
        crate::config::Config {
            addr: addr.parse().unwrap(),
            public_origin: public.map(str::to_owned),
            ..crate::config::Config::default()
        }
    }

    #[test]
    fn same_origin_is_accepted() {
        let local = config("127.0.0.1:8080", None);
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
        ]);
        assert!(check_same_origin(&h, &local).is_ok());
        let h = headers(&[("origin", "http://localhost:8080")]);
        assert!(check_same_origin(&h, &local).is_ok());
        let public = config("127.0.0.1:8080", Some("https://Tafl.Example.org"));
        let h = headers(&[
            ("host", "Tafl.Example.org"),
            ("referer", "https://tafl.example.org/game/x"),
        ]);
        assert!(check_same_origin(&h, &public).is_ok());
        let lan = config("192.168.1.5:80", None);
        let h = headers(&[("origin", "http://192.168.1.5")]);
        assert!(check_same_origin(&h, &lan).is_ok());
    }

    #[test]
    fn the_host_header_is_not_trusted() {
        // A forged request names its own host in both headers: still another origin.
        let local = config("127.0.0.1:8080", None);
        for host in ["evil.example", "tafl.example.org"] {
            let mut h = HeaderMap::new();
            h.insert("host", HeaderValue::from_str(host).unwrap());
            h.insert(
                "origin",
                HeaderValue::from_str(&format!("http://{host}")).unwrap(),
            );
            let error = check_same_origin(&h, &local).unwrap_err();
            assert_eq!(error.code, ErrorCode::CrossOrigin, "{host}");
        }
        // A LAN address is not a loopback: `localhost` is not its own.
        let lan = config("192.168.1.5:8080", None);
        let h = headers(&[("origin", "http://localhost:8080")]);
        assert!(check_same_origin(&h, &lan).is_err());
    }

    #[test]
    fn other_origins_are_refused() {
        let local = config("127.0.0.1:8080", None);
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
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
                ("sec-fetch-site", "cross-site"),
            ],
        ] {
            let error = check_same_origin(&headers(pairs), &local).unwrap_err();
            assert_eq!(error.code, ErrorCode::CrossOrigin, "{pairs:?}");
        }
    }

    #[test]
    fn public_origin_is_accepted_behind_a_proxy() {
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://tafl.example.org"),
        ]);
        let public = config("127.0.0.1:8080", Some("https://tafl.example.org"));
        assert!(check_same_origin(&h, &public).is_ok());
        assert!(check_same_origin(&h, &config("127.0.0.1:8080", None)).is_err());
    }

    #[test]
    fn cookieless_request_without_origin_is_accepted() {
        let local = config("127.0.0.1:8080", None);
        assert!(check_same_origin(&headers(&[("host", "x")]), &local).is_ok());
    }

    #[tokio::test]
    async fn a_guess_budget_is_spent_by_failures_only_and_per_key() {
        let budget = GuessBudget::new(RateLimit::new(3, std::time::Duration::from_secs(60)));
        let (a, b) = ("a".to_owned(), "b".to_owned());
        for _ in 0..10 {
            assert!(budget.check(&a).await.is_ok(), "asking spends nothing");
        }
        for _ in 0..3 {
            budget.spend(a.clone()).await;
        }
        let error = budget.check(&a).await.unwrap_err();
        assert_eq!(error.code, ErrorCode::RateLimited);
        assert!(error.retry_after.unwrap().as_secs() >= 59);
        assert!(budget.check(&b).await.is_ok(), "another key is not touched");
        budget.forget(&a).await;
        assert!(budget.check(&a).await.is_ok());
        budget.retain_recent();
    }

    #[test]
    fn spent_failures_are_forgiven_one_a_period() {
        let period = std::time::Duration::from_secs(10);
        let t0 = std::time::Instant::now();
        let spent = Spent {
            count: 3,
            since: t0,
        };
        assert_eq!(spent.at(t0 + period * 2 + period / 2, period).count, 1);
        assert_eq!(
            spent.at(t0 + period * 2 + period / 2, period).since,
            t0 + period * 2
        );
        assert_eq!(spent.at(t0 + period * 5, period).count, 0);
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
