//! A WebSocket as a browser opens one (same origin, with the client's cookies), reading
//! JSON messages.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::{Client, TestServer};

/// A client WebSocket.
pub type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The upgrade request for `path` on `server` as a browser of `client` sends it: same
/// origin, its cookies.
pub fn request(
    server: &TestServer,
    client: &Client,
    path: &str,
) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    let mut request = format!("ws://{}{path}", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", server.base.parse().unwrap());
    if let Some(cookies) = client.cookie_header() {
        request
            .headers_mut()
            .insert("cookie", cookies.parse().unwrap());
    }
    request
}

/// Whether the server closes `socket` within 10 s (reading past what it sends).
pub async fn closes(socket: &mut Stream) -> bool {
    let closed = async {
        loop {
            match socket.next().await {
                None | Some(Err(_)) => return,
                Some(Ok(message)) if message.is_close() => return,
                Some(Ok(_)) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), closed)
        .await
        .is_ok()
}

/// Opens `path` on `server` as a browser of `client` would: same origin, its cookies.
pub async fn connect(server: &TestServer, client: &Client, path: &str) -> Stream {
    tokio_tungstenite::connect_async(request(server, client, path))
        .await
        .unwrap()
        .0
}

/// An open socket.
pub struct Ws {
    stream: Stream,
}

impl Ws {
    /// Opens `path` (`/ws/game/{id}`, `/ws/analysis`) on `server` as `client`.
    pub async fn open(server: &TestServer, client: &Client, path: &str) -> Ws {
        Ws {
            stream: connect(server, client, path).await,
        }
    }

    /// Sends a JSON message.
    pub async fn send(&mut self, message: Value) {
        self.stream
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
    }

    /// The next JSON message, or `None` if none comes within `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        loop {
            let message = tokio::time::timeout(wait, self.stream.next())
                .await
                .ok()?
                .expect("the socket is open")
                .expect("a frame");
            if let Message::Text(text) = message {
                return Some(serde_json::from_str(&text).unwrap());
            }
        }
    }

    /// The next JSON message (within 30 s).
    pub async fn next(&mut self) -> Value {
        self.next_within(Duration::from_secs(30))
            .await
            .expect("a message within 30 s")
    }

    /// Skips messages until one of type `t`.
    pub async fn until(&mut self, t: &str) -> Value {
        loop {
            let message = self.next().await;
            if message["t"] == t {
                return message;
            }
        }
    }

    /// A game socket's whole state (it says hello first).
    pub async fn state(&mut self) -> Value {
        self.send(json!({"t": "hello", "rev": 0})).await;
        self.until("state").await["game"].clone()
    }
}
