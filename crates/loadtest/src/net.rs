//! Talking to the server: the loopback-only target, identities (a cookie jar and the
//! client address the server is told, through `X-Forwarded-For` when it trusts a proxy),
//! JSON requests and WebSocket connections.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use futures_util::stream::{SplitSink, StreamExt};
use reqwest::StatusCode;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::proto::{self, Incoming};

/// The server under test: always on this machine.
#[derive(Clone, Debug)]
pub struct Target {
    /// `http://127.0.0.1:PORT`, also sent as `Origin`.
    pub base: String,
    /// Its socket address (a loopback address).
    pub addr: SocketAddr,
    /// Send each identity's own address in `X-Forwarded-For` (the server runs with
    /// `--trust-proxy`), so that per-address limits see many clients, as in real life.
    pub forwarded: bool,
    /// The HTTP client (its connection pool is shared).
    pub http: reqwest::Client,
}

impl Target {
    /// The target at `url`, refused unless it is a loopback address.
    ///
    /// # Errors
    /// When `url` is not `http://HOST:PORT` with a loopback `HOST`.
    pub fn new(url: &str, forwarded: bool) -> Result<Target> {
        let url = url.trim_end_matches('/');
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| anyhow!("--url must be http://127.0.0.1:PORT (got {url})"))?;
        let authority = rest.split('/').next().unwrap_or("");
        let addr = loopback_addr(authority).with_context(|| {
            format!("refusing {url}: the load generator only talks to this machine (127.0.0.1, ::1, localhost)")
        })?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .pool_max_idle_per_host(64)
            .build()?;
        Ok(Target {
            base: format!("http://{authority}"),
            addr,
            forwarded,
            http,
        })
    }
}

/// `authority` as a socket address if it is a loopback one.
fn loopback_addr(authority: &str) -> Result<SocketAddr> {
    let (host, port) = authority
        .rsplit_once(':')
        .ok_or_else(|| anyhow!("no port in {authority}"))?;
    let port: u16 = port.parse().context("the port")?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        host.parse()
            .map_err(|_| anyhow!("{host} is not an IP address or localhost"))?
    };
    if !ip.is_loopback() {
        bail!("{ip} is not a loopback address");
    }
    Ok(SocketAddr::new(ip, port))
}

static NEXT_ADDRESS: AtomicU32 = AtomicU32::new(1);

/// A fresh made-up client address (10.x.y.z), different for each call.
#[must_use]
pub fn fresh_address() -> Ipv4Addr {
    let n = NEXT_ADDRESS.fetch_add(1, Ordering::Relaxed) & 0x00ff_ffff;
    Ipv4Addr::from(0x0a00_0000 | n)
}

/// A browser: its cookies, and the address it connects from.
#[derive(Clone, Debug)]
pub struct Identity {
    cookies: Vec<(String, String)>,
    /// The client address told to the server (with [`Target::forwarded`]).
    pub address: Ipv4Addr,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Reply {
    /// Its status.
    pub status: StatusCode,
    /// Its body as JSON (`Null` when empty or not JSON).
    pub json: Value,
}

impl Identity {
    /// A new visitor with no cookies, from a fresh address.
    #[must_use]
    pub fn new() -> Identity {
        Identity {
            cookies: Vec::new(),
            address: fresh_address(),
        }
    }

    fn cookie_header(&self) -> Option<String> {
        (!self.cookies.is_empty()).then(|| {
            self.cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    /// `method path` with an optional JSON body, keeping the cookies the answer sets.
    ///
    /// # Errors
    /// When the request cannot be made (not when the server refuses it).
    pub async fn request(
        &mut self,
        target: &Target,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Reply> {
        let mut request = target
            .http
            .request(method, format!("{}{path}", target.base))
            .header("origin", &target.base);
        if let Some(cookies) = self.cookie_header() {
            request = request.header("cookie", cookies);
        }
        if target.forwarded {
            request = request.header("x-forwarded-for", self.address.to_string());
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.with_context(|| path.to_owned())?;
        for set in response.headers().get_all("set-cookie") {
            let Ok(set) = set.to_str() else { continue };
            let pair = set.split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.retain(|(n, _)| n != name);
                self.cookies
                    .push((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        Ok(Reply {
            status,
            json: serde_json::from_str(&text).unwrap_or(Value::Null),
        })
    }

    /// A POST with a JSON body.
    ///
    /// # Errors
    /// As [`Identity::request`].
    pub async fn post(&mut self, target: &Target, path: &str, body: Value) -> Result<Reply> {
        self.request(target, reqwest::Method::POST, path, Some(body))
            .await
    }

    /// A GET.
    ///
    /// # Errors
    /// As [`Identity::request`].
    pub async fn get(&mut self, target: &Target, path: &str) -> Result<Reply> {
        self.request(target, reqwest::Method::GET, path, None).await
    }

    /// Opens the WebSocket at `path` as a browser of this site would.
    ///
    /// # Errors
    /// When the connection or the upgrade fails.
    pub async fn socket(&self, target: &Target, path: &str) -> Result<WebSocket> {
        let mut request = format!("ws://{}{path}", target.addr).into_client_request()?;
        let headers = request.headers_mut();
        headers.insert("origin", target.base.parse()?);
        if let Some(cookies) = self.cookie_header() {
            headers.insert("cookie", cookies.parse()?);
        }
        if target.forwarded {
            headers.insert("x-forwarded-for", self.address.to_string().parse()?);
        }
        let stream = TcpStream::connect(target.addr).await?;
        stream.set_nodelay(true)?;
        let (socket, _) = tokio_tungstenite::client_async(request, MaybeTlsStream::Plain(stream))
            .await
            .with_context(|| format!("WebSocket {path}"))?;
        Ok(socket)
    }
}

impl Default for Identity {
    fn default() -> Identity {
        Identity::new()
    }
}

/// A WebSocket to the server.
pub type WebSocket = WebSocketStream<MaybeTlsStream<TcpStream>>;
/// Its sending half.
pub type Sender = SplitSink<WebSocket, Message>;

/// A message read from a game socket, with when it arrived and from which seat.
#[derive(Debug)]
pub struct Arrival {
    /// The socket's tag (a seat index).
    pub from: usize,
    /// When it was read.
    pub at: Instant,
    /// What it said (`None`: the socket closed or failed).
    pub message: Option<Incoming>,
}

/// Splits `socket`: its reading half runs in a task that timestamps every message and
/// sends it to `to` tagged `from`; the sending half is returned.
pub fn reader(socket: WebSocket, from: usize, to: mpsc::UnboundedSender<Arrival>) -> Sender {
    let (sender, mut receiver) = socket.split();
    let trace = std::env::var_os("LOADTEST_TRACE").is_some();
    tokio::spawn(async move {
        loop {
            let next = receiver.next().await;
            let at = Instant::now();
            let message = match next {
                Some(Ok(Message::Text(text))) => match proto::parse(&text) {
                    _ if trace && {
                        eprintln!("[{from}] {text}");
                        false
                    } =>
                    {
                        unreachable!()
                    }
                    Some(message) => Some(message),
                    None => continue,
                },
                Some(Ok(Message::Close(_)) | Err(_)) | None => None,
                Some(Ok(_)) => continue,
            };
            let closed = message.is_none();
            if to.send(Arrival { from, at, message }).is_err() || closed {
                return;
            }
        }
    });
    sender
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_targets_are_accepted() {
        for good in [
            "http://127.0.0.1:8080",
            "http://localhost:9/",
            "http://[::1]:80",
        ] {
            assert!(Target::new(good, false).is_ok(), "{good}");
        }
        for bad in [
            "http://10.0.0.1:8080",
            "http://example.org:80",
            "https://127.0.0.1:443",
            "http://0.0.0.0:8080",
            "127.0.0.1:8080",
        ] {
            let error = Target::new(bad, false).expect_err(bad).to_string();
            assert!(
                error.contains("refusing") || error.contains("must be"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn fresh_addresses_differ() {
        assert_ne!(fresh_address(), fresh_address());
    }
}
