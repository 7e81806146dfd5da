//! The connection layer: the server's own accept loop over hyper, so that every
//! connection has a bound and an end.
//!
//! - Every accepted socket is `TCP_NODELAY` (a move is one small write: without it the
//!   opponent saw each move ~24 ms late).
//! - A connection must send a whole request head within
//!   [`ConnectionLimits::header_read_timeout`] of opening (or of its previous response),
//!   and a keep-alive connection with no request for
//!   [`ConnectionLimits::idle_timeout`] is closed. An upgraded connection (a WebSocket)
//!   leaves hyper; its socket handler has its own idle timeout.
//! - At most [`ConnectionLimits::per_address`] connections from one address: the next
//!   one is answered `429` with a JSON error and closed (at most 32 such answers at
//!   once; past that, a flood's connections are closed without one). Behind
//!   `trust_proxy` every connection comes from the proxy, so the cap applies to
//!   requests in flight per forwarded address instead (answered `429` too).
//! - At most [`ConnectionLimits::max_connections`] connections in all, lowered at start
//!   below the descriptor limit (whose soft value is first raised to the hard one, see
//!   [`raise_descriptor_limit`]); a connection over it is closed at once. The
//!   [`DESCRIPTOR_RESERVE`] keeps descriptors for the database, files and `/health`.
//! - At most [`ConnectionLimits::sockets_per_address`] WebSockets from one address: the
//!   socket handlers take a [`SocketSlot`] before upgrading, refused with `429`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::Service;

use crate::config::ConnectionLimits;
use crate::error::{ApiError, ErrorCode};

/// Descriptors kept free of connections: the database's, files served, logs, and a
/// margin so `/health` and the metrics keep answering when the connections are full.
pub const DESCRIPTOR_RESERVE: usize = 128;
/// How long the accept loop pauses after an error that is not one connection's (out of
/// descriptors, out of memory), so it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// How long a refused connection is given to read its `429` before it is closed.
const REFUSAL_LINGER: Duration = Duration::from_millis(500);
/// Most refused connections given their `429` at once; past it (a flood from one
/// address) they are closed at once, so refusals never take the descriptors others need.
const REFUSING: usize = 32;

/// Raises the soft limit on open descriptors to the hard limit and says so in the log;
/// returns the soft limit now in force (`None` where it cannot be read).
pub fn raise_descriptor_limit() -> Option<u64> {
    let before = rlimit::getrlimit(rlimit::Resource::NOFILE).ok();
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(now) => {
            match before {
                Some((soft, _)) if soft < now => {
                    tracing::info!(from = soft, to = now, "raised the open-descriptor limit");
                }
                _ => tracing::info!(limit = now, "open-descriptor limit"),
            }
            Some(now)
        }
        Err(error) => {
            tracing::warn!(%error, "cannot raise the open-descriptor limit");
            before.map(|(soft, _)| soft)
        }
    }
}

/// `limits` with its connection cap lowered below `descriptors` (less the reserve), so
/// connections alone can never take every descriptor.
#[must_use]
pub fn fit_to_descriptors(
    mut limits: ConnectionLimits,
    descriptors: Option<u64>,
) -> ConnectionLimits {
    if let Some(descriptors) = descriptors {
        let usable = usize::try_from(descriptors)
            .unwrap_or(usize::MAX)
            .saturating_sub(DESCRIPTOR_RESERVE)
            .max(1);
        if limits.max_connections > usable {
            tracing::info!(
                configured = limits.max_connections,
                used = usable,
                "connection cap lowered to fit the descriptor limit"
            );
            limits.max_connections = usable;
        }
    }
    limits
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A count per address, each bounded.
#[derive(Debug, Default)]
struct Tally {
    counts: Mutex<HashMap<IpAddr, usize>>,
}

impl Tally {
    /// Counts one more for `addr` unless it has `cap` already.
    fn try_take(&self, addr: IpAddr, cap: usize) -> bool {
        let mut counts = lock(&self.counts);
        let count = counts.entry(addr).or_insert(0);
        if *count >= cap {
            if *count == 0 {
                counts.remove(&addr);
            }
            return false;
        }
        *count += 1;
        true
    }

    fn give_back(&self, addr: IpAddr) {
        let mut counts = lock(&self.counts);
        if let Some(count) = counts.get_mut(&addr) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&addr);
            }
        }
    }
}

/// The connections and WebSockets open now, and their bounds. One per server, in
/// [`crate::AppState`].
#[derive(Debug)]
pub struct Connections {
    limits: ConnectionLimits,
    trust_proxy: bool,
    open: AtomicUsize,
    /// Refused connections being told why.
    refusing: AtomicUsize,
    /// Connections per peer address; behind a proxy, requests per forwarded address.
    per_address: Tally,
    sockets: Tally,
}

/// Why a connection was not served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    /// The server holds its most connections: closed at once.
    Full,
    /// The address holds its most connections: answered `429`.
    AddressFull,
}

/// One open connection, counted until dropped (with the connection's socket, which an
/// upgraded WebSocket keeps).
#[derive(Debug)]
pub struct ConnectionSlot {
    connections: Arc<Connections>,
    addr: Option<IpAddr>,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.connections.open.fetch_sub(1, Ordering::SeqCst);
        if let Some(addr) = self.addr {
            self.connections.per_address.give_back(addr);
        }
    }
}

/// One request in flight from a forwarded address (behind a proxy).
#[derive(Debug)]
struct RequestSlot {
    connections: Arc<Connections>,
    addr: IpAddr,
}

impl Drop for RequestSlot {
    fn drop(&mut self) {
        self.connections.per_address.give_back(self.addr);
    }
}

/// One open WebSocket of an address, counted until dropped: the socket handlers take it
/// before upgrading and keep it as long as the socket.
#[derive(Debug)]
pub struct SocketSlot {
    connections: Arc<Connections>,
    addr: IpAddr,
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        self.connections.sockets.give_back(self.addr);
    }
}

impl Connections {
    /// Bounds for a server; `trust_proxy` as [`crate::Config::trust_proxy`].
    #[must_use]
    pub fn new(limits: ConnectionLimits, trust_proxy: bool) -> Arc<Connections> {
        Arc::new(Connections {
            limits,
            trust_proxy,
            open: AtomicUsize::new(0),
            refusing: AtomicUsize::new(0),
            per_address: Tally::default(),
            sockets: Tally::default(),
        })
    }

    /// The bounds in force.
    #[must_use]
    pub const fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// Connections open now.
    #[must_use]
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// Counts a connection from `peer`, or says why it is refused.
    fn connect(self: &Arc<Self>, peer: IpAddr) -> Result<ConnectionSlot, Refused> {
        let open = self.open.fetch_add(1, Ordering::SeqCst);
        let global = ConnectionSlot {
            connections: Arc::clone(self),
            addr: None,
        };
        if open >= self.limits.max_connections {
            return Err(Refused::Full);
        }
        if self.trust_proxy {
            return Ok(global);
        }
        if !self.per_address.try_take(peer, self.limits.per_address) {
            return Err(Refused::AddressFull);
        }
        let mut slot = global;
        slot.addr = Some(peer);
        Ok(slot)
    }

    /// A slot for one more WebSocket from `addr` (the client's address as
    /// [`crate::security::ClientIp`] reads it).
    ///
    /// # Errors
    /// `rate_limited` (429) when the address has its most sockets open.
    pub fn socket(self: &Arc<Self>, addr: IpAddr) -> Result<SocketSlot, ApiError> {
        if self.sockets.try_take(addr, self.limits.sockets_per_address) {
            Ok(SocketSlot {
                connections: Arc::clone(self),
                addr,
            })
        } else {
            Err(ApiError {
                retry_after: Some(Duration::from_secs(5)),
                ..ApiError::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many sockets open from your address (at most {}): close some",
                        self.limits.sockets_per_address
                    ),
                )
            })
        }
    }

    /// Behind a proxy: a slot for one more request in flight from `addr`.
    fn request(self: &Arc<Self>, addr: IpAddr) -> Option<RequestSlot> {
        self.per_address
            .try_take(addr, self.limits.per_address)
            .then(|| RequestSlot {
                connections: Arc::clone(self),
                addr,
            })
    }
}

/// The `429` for an address over its connection cap.
fn too_many_connections(cap: usize) -> ApiError {
    ApiError {
        retry_after: Some(Duration::from_secs(5)),
        ..ApiError::new(
            ErrorCode::RateLimited,
            format!("too many connections from your address (at most {cap})"),
        )
    }
}

/// Accepts one connection and prepares its socket (`TCP_NODELAY`).
///
/// # Errors
/// As `accept`; a socket whose option cannot be set is still returned (and logged).
pub async fn accept(listener: &TcpListener) -> std::io::Result<(TcpStream, SocketAddr)> {
    let (stream, peer) = listener.accept().await?;
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%error, "cannot set TCP_NODELAY");
    }
    Ok((stream, peer))
}

/// Whether an accept error concerns only the connection being accepted (the loop goes
/// on at once), rather than the server (out of descriptors: it pauses first).
fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}

/// Serves `app` on `listener` under `connections`' bounds until `shutdown` completes;
/// then stops accepting, lets requests in flight finish (closing idle keep-alive
/// connections at once), and returns once every connection has closed or been upgraded.
///
/// # Errors
/// None today: accept errors are logged and the loop goes on.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    connections: Arc<Connections>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let tracker = TaskTracker::new();
    let closing = CancellationToken::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&listener) => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(error) => {
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        match connections.connect(peer.ip()) {
            Ok(slot) => {
                let connection = Connection {
                    app: app.clone(),
                    connections: Arc::clone(&connections),
                    peer,
                    closing: closing.clone(),
                };
                tracker.spawn(connection.serve(stream, slot));
            }
            Err(Refused::AddressFull)
                if connections.refusing.fetch_add(1, Ordering::SeqCst) >= REFUSING =>
            {
                connections.refusing.fetch_sub(1, Ordering::SeqCst);
                tracing::debug!(%peer, "refused: too many connections from this address");
                drop(stream);
            }
            Err(Refused::AddressFull) => {
                tracing::debug!(%peer, "refused: too many connections from this address");
                // The refusal holds a descriptor for a moment: it counts in the total.
                let slot = ConnectionSlot {
                    connections: Arc::clone(&connections),
                    addr: None,
                };
                connections.open.fetch_add(1, Ordering::SeqCst);
                let cap = connections.limits.per_address;
                let refusals = Arc::clone(&connections);
                tracker.spawn(async move {
                    refuse(stream, cap, slot).await;
                    refusals.refusing.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Err(Refused::Full) => {
                tracing::debug!(%peer, "refused: the server holds its most connections");
                drop(stream);
            }
        }
    }
    drop(listener);
    closing.cancel();
    tracker.close();
    tracker.wait().await;
    Ok(())
}

/// Answers `429` on a connection over its address's cap, then closes it (after letting
/// the client read the answer for a moment).
async fn refuse(mut stream: TcpStream, cap: usize, _slot: ConnectionSlot) {
    let error = too_many_connections(cap);
    let body = format!(
        r#"{{"error":{{"code":"{}","message":"{}"}}}}"#,
        error.code.as_str(),
        error.message
    );
    let head = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let written = tokio::time::timeout(REFUSAL_LINGER, async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
    if matches!(written, Ok(Ok(()))) {
        // Reads what the client sent, so closing does not reset the connection before
        // the client has read the answer.
        let mut sink = [0_u8; 1024];
        let _ = tokio::time::timeout(REFUSAL_LINGER, async {
            while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
    }
}

/// When a connection last had a request, and how many it has in flight.
#[derive(Debug)]
struct Activity {
    last: Mutex<Instant>,
    in_flight: AtomicUsize,
}

/// A request in flight; dropping it marks the connection active now.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        *lock(&self.0.last) = Instant::now();
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Activity {
    fn begin(activity: &Arc<Activity>) -> InFlight {
        activity.in_flight.fetch_add(1, Ordering::SeqCst);
        *lock(&activity.last) = Instant::now();
        InFlight(Arc::clone(activity))
    }

    /// When to look again whether the connection is idle: `idle` after its last request
    /// if none is in flight, else a quarter of that from now.
    fn next_check(&self, idle: Duration) -> Instant {
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            *lock(&self.last) + idle
        } else {
            Instant::now() + idle / 4
        }
    }

    fn is_idle(&self, idle: Duration) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0 && lock(&self.last).elapsed() >= idle
    }
}

/// One connection being served.
struct Connection {
    app: Router,
    connections: Arc<Connections>,
    peer: SocketAddr,
    closing: CancellationToken,
}

impl Connection {
    async fn serve(self, stream: TcpStream, slot: ConnectionSlot) {
        let limits = self.connections.limits;
        let activity = Arc::new(Activity {
            last: Mutex::new(Instant::now()),
            in_flight: AtomicUsize::new(0),
        });
        let io = TokioIo::new(Counted {
            stream,
            _slot: slot,
        });
        let service = {
            let activity = Arc::clone(&activity);
            let (app, connections, peer) = (self.app, self.connections, self.peer);
            hyper::service::service_fn(move |mut request: Request<Incoming>| {
                let in_flight = Activity::begin(&activity);
                request.extensions_mut().insert(ConnectInfo(peer));
                let slot = connections.trust_proxy.then(|| {
                    let addr = crate::security::forwarded_ip(request.headers())
                        .unwrap_or_else(|| peer.ip());
                    connections.request(addr)
                });
                let mut app = app.clone();
                let cap = connections.limits.per_address;
                async move {
                    let _in_flight = in_flight;
                    if matches!(slot, Some(None)) {
                        return Ok::<Response, Infallible>(
                            too_many_connections(cap).into_response(),
                        );
                    }
                    let _slot = slot;
                    app.call(request.map(Body::new)).await
                }
            })
        };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read_timeout)
            .keep_alive(true);
        let mut connection = pin!(builder.serve_connection(io, service).with_upgrades());
        let mut closing = false;
        loop {
            let check = activity.next_check(limits.idle_timeout);
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(error) = served {
                        tracing::debug!(peer = %self.peer, %error, "connection ended");
                    }
                    break;
                }
                () = self.closing.cancelled(), if !closing => {
                    closing = true;
                    connection.as_mut().graceful_shutdown();
                }
                () = tokio::time::sleep_until(check), if !closing => {
                    if activity.is_idle(limits.idle_timeout) {
                        closing = true;
                        connection.as_mut().graceful_shutdown();
                    }
                }
            }
        }
    }
}

/// A connection's socket with its slot: the slot is given back when the socket closes,
/// also when an upgraded WebSocket (which takes the socket from hyper) ends.
struct Counted {
    stream: TcpStream,
    _slot: ConnectionSlot,
}

impl tokio::io::AsyncRead for Counted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Counted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_address: usize, sockets: usize, max: usize) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: max,
            per_address,
            sockets_per_address: sockets,
            ..ConnectionLimits::default()
        }
    }

    #[tokio::test]
    async fn accepted_sockets_are_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(addr));
        let (accepted, _) = accept(&listener).await.unwrap();
        assert!(accepted.nodelay().unwrap());
        drop(client.await.unwrap().unwrap());
    }

    #[test]
    fn the_caps_count_and_give_back() {
        let connections = Connections::new(limits(2, 1, 3), false);
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let first = connections.connect(a).unwrap();
        let _second = connections.connect(a).unwrap();
        assert_eq!(connections.connect(a).unwrap_err(), Refused::AddressFull);
        let _third = connections.connect(b).unwrap();
        assert_eq!(connections.connect(b).unwrap_err(), Refused::Full);
        assert_eq!(connections.open(), 3);
        drop(first);
        assert_eq!(connections.open(), 2);
        let _again = connections.connect(a).unwrap();

        let socket = connections.socket(a).unwrap();
        let refused = connections.socket(a).unwrap_err();
        assert_eq!(refused.code, ErrorCode::RateLimited);
        assert!(connections.socket(b).is_ok());
        drop(socket);
        assert!(connections.socket(a).is_ok());
    }

    #[test]
    fn behind_a_proxy_connections_are_not_capped_per_address() {
        let connections = Connections::new(limits(1, 1, 10), true);
        let proxy: IpAddr = [10, 0, 0, 9].into();
        let held: Vec<_> = (0..5)
            .map(|_| connections.connect(proxy).unwrap())
            .collect();
        let client: IpAddr = [192, 0, 2, 1].into();
        let request = connections.request(client).unwrap();
        assert!(connections.request(client).is_none());
        drop(request);
        assert!(connections.request(client).is_some());
        drop(held);
    }

    #[test]
    fn the_connection_cap_stays_below_the_descriptor_limit() {
        let fitted = fit_to_descriptors(limits(64, 32, 16_384), Some(1024));
        assert_eq!(fitted.max_connections, 1024 - DESCRIPTOR_RESERVE);
        let roomy = fit_to_descriptors(limits(64, 32, 100), Some(1_000_000));
        assert_eq!(roomy.max_connections, 100);
    }
}
