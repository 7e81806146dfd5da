//! Every connection bounded, against a real server on loopback: many idle connections
//! from one address leave `/health` answering for another, a slow header sender and an
//! idle keep-alive connection are closed, and the caps on connections and WebSockets
//! per address refuse clearly (per forwarded address behind a proxy).

use crate::common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use reqwest::StatusCode;
use server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use common::{Database, TestServer, test_config};

/// A bound on each wait, so a test that fails says so instead of hanging.
const PATIENCE: Duration = Duration::from_secs(30);

async fn server_with(configure: impl FnOnce(&mut Config)) -> (TestServer, Database) {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let mut config = test_config(&db);
    configure(&mut config);
    (TestServer::start(config).await, db)
}

/// A connection to `to` from the loopback address `from` (127.0.0.0/8 is all loopback).
async fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from, 0)).unwrap();
    socket.connect(to).await.unwrap()
}

/// Reads until the server closes the connection; what it sent.
async fn read_to_close(stream: &mut TcpStream) -> String {
    let mut text = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        let mut buf = [0_u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => text.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closes the connection");
    String::from_utf8_lossy(&text).into_owned()
}

async fn health(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = vec![0_u8; 4096];
    let n = tokio::time::timeout(PATIENCE, stream.read(&mut buf))
        .await
        .expect("an answer")
        .unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_from_one_address_leave_health_answering() {
    let (server, _db) = server_with(|_| {}).await;
    let per_address = server.state.connections.limits().per_address;
    let crowd: IpAddr = [127, 0, 0, 2].into();
    let mut idle = Vec::new();
    for _ in 0..1100 {
        idle.push(connect_from(crowd, server.addr).await);
    }
    // From another address, on a new connection: answered.
    let started = std::time::Instant::now();
    let reply = reqwest::get(format!("{}/health", server.base))
        .await
        .expect("health answers");
    assert_eq!(reply.status(), StatusCode::OK);
    println!(
        "/health beside 1,100 idle connections: {:?}",
        started.elapsed()
    );
    // Only the address's share is held; the rest were told why and closed.
    // (the refusals linger a moment; the `/health` client may keep its connection)
    tokio::time::timeout(PATIENCE, async {
        while server.state.connections.open() > per_address + 1 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("only the address's share of connections is held");
    // Those over the cap are closed: told why (a few at a time), or at once in a flood.
    let mut told = 0;
    for stream in &mut idle[per_address..] {
        let refused = read_to_close(stream).await;
        if !refused.is_empty() {
            assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
            assert!(refused.contains("too many connections"), "{refused}");
            told += 1;
        }
    }
    assert!(told > 0);
    drop(idle);
    server.stop().await;
}

#[tokio::test]
async fn a_slow_header_sender_is_closed() {
    let (server, _db) = server_with(|config| {
        config.connections.header_read_timeout = Duration::from_millis(500);
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let head = b"GET /health HTTP/1.1\r\nhost: x\r\nx-slow: ";
    let closed = tokio::time::timeout(PATIENCE, async {
        let mut sent = 0;
        // One byte at a time, slower than the whole head is allowed: the server closes
        // the connection before the head is complete.
        loop {
            let byte = head.get(sent).copied().unwrap_or(b'a');
            if stream.write_all(&[byte]).await.is_err() {
                return sent;
            }
            sent += 1;
            let mut buf = [0_u8; 256];
            match tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buf)).await {
                Ok(Ok(0) | Err(_)) => return sent,
                Ok(Ok(_)) => panic!("the server answered an unfinished head"),
                Err(_) => {}
            }
        }
    })
    .await
    .expect("the slow sender is closed");
    assert!(closed > 0);
    assert_eq!(server.state.connections.open(), 0);
    server.stop().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let (server, _db) = server_with(|config| {
        config.connections.idle_timeout = Duration::from_millis(300);
    })
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let answer = health(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Nothing more is asked: the server closes the connection.
    assert_eq!(read_to_close(&mut stream).await, "");
    server.stop().await;
}

#[tokio::test]
async fn the_connection_cap_per_address_refuses_with_429() {
    let (server, _db) = server_with(|config| {
        config.connections.per_address = 3;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        assert!(health(&mut stream).await.starts_with("HTTP/1.1 200"));
        held.push(stream);
    }
    let mut over = TcpStream::connect(server.addr).await.unwrap();
    let refused = read_to_close(&mut over).await;
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(refused.contains("rate_limited"), "{refused}");
    // Another address is not affected.
    let mut other = connect_from([127, 0, 0, 3].into(), server.addr).await;
    assert!(health(&mut other).await.starts_with("HTTP/1.1 200"));
    // A closed connection makes room.
    drop(held.pop());
    let mut again = None;
    for _ in 0..100 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let answer = health(&mut stream).await;
        if answer.starts_with("HTTP/1.1 200") {
            again = Some(stream);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(again.is_some(), "a slot came back");
    server.stop().await;
}

type LobbySocket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// Opens a lobby socket as a browser would, with `forwarded` as `X-Forwarded-For`;
/// the HTTP status of a refusal.
async fn lobby(server: &TestServer, forwarded: Option<&str>) -> Result<LobbySocket, StatusCode> {
    let mut request = format!("ws://{}/ws/lobby", server.addr)
        .into_client_request()
        .unwrap();
    let headers = request.headers_mut();
    headers.insert("origin", server.base.parse().unwrap());
    if let Some(forwarded) = forwarded {
        headers.insert("x-forwarded-for", forwarded.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((stream, _)) => Ok(stream),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(StatusCode::from_u16(response.status().as_u16()).unwrap())
        }
        Err(error) => panic!("{error}"),
    }
}

#[tokio::test]
async fn the_socket_cap_per_address_refuses_with_429() {
    let (server, _db) = server_with(|config| {
        config.connections.sockets_per_address = 2;
    })
    .await;
    let first = lobby(&server, None).await.expect("first socket");
    let _second = lobby(&server, None).await.expect("second socket");
    assert_eq!(
        lobby(&server, None).await.err(),
        Some(StatusCode::TOO_MANY_REQUESTS)
    );
    // The analysis socket counts in the same cap.
    let mut request = format!("ws://{}/ws/analysis", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", server.base.parse().unwrap());
    assert!(tokio_tungstenite::connect_async(request).await.is_err());
    drop(first);
    let mut reopened = None;
    for _ in 0..100 {
        if let Ok(socket) = lobby(&server, None).await {
            reopened = Some(socket);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(reopened.is_some(), "a closed socket makes room");
    server.stop().await;
}

#[tokio::test]
async fn behind_a_proxy_the_caps_apply_to_the_forwarded_address() {
    let (server, _db) = server_with(|config| {
        config.trust_proxy = true;
        config.connections.per_address = 2;
        config.connections.sockets_per_address = 1;
    })
    .await;
    // Every connection comes from the proxy: more than the per-address cap are served.
    let mut held = Vec::new();
    for _ in 0..5 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        assert!(health(&mut stream).await.starts_with("HTTP/1.1 200"));
        held.push(stream);
    }
    // Sockets are counted per client the proxy names.
    let _one = lobby(&server, Some("203.0.113.5"))
        .await
        .expect("first client");
    assert_eq!(
        lobby(&server, Some("203.0.113.5")).await.err(),
        Some(StatusCode::TOO_MANY_REQUESTS)
    );
    let _other = lobby(&server, Some("203.0.113.6"))
        .await
        .expect("another client behind the same proxy");
    drop(held);
    server.stop().await;
}

/// `/health`'s answer time beside 1,100 idle connections from one address: the
/// measurement in `bench/RESULTS.md`. Against the server at `KINGSTABLE_TARGET` (e.g. the
/// baseline binary started under `ulimit -n 1024`) or one started here:
/// `KINGSTABLE_TARGET=http://127.0.0.1:8080 cargo test -p server --test server -- --ignored --nocapture conn::`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check: run by hand"]
async fn measure_health_beside_idle_connections() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let (local, target) = match std::env::var("KINGSTABLE_TARGET") {
        Ok(url) => (
            None,
            url.trim_start_matches("http://")
                .trim_end_matches('/')
                .parse::<SocketAddr>()
                .unwrap(),
        ),
        Err(_) => {
            let server = TestServer::start(test_config(&db)).await;
            let addr = server.addr;
            (Some(server), addr)
        }
    };
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let health_time = || async move {
        let started = std::time::Instant::now();
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            let mut stream = TcpStream::connect(target).await.ok()?;
            Some(health(&mut stream).await)
        })
        .await;
        let ok = matches!(&answered, Ok(Some(text)) if text.starts_with("HTTP/1.1 200"));
        (started.elapsed(), ok)
    };
    let before = health_time().await;
    let mut idle = Vec::new();
    for _ in 0..1100 {
        idle.push(connect_from([127, 0, 0, 2].into(), target).await);
    }
    let mut beside = Vec::new();
    for _ in 0..5 {
        beside.push(health_time().await);
    }
    println!("/health alone: {before:?}; beside 1,100 idle connections: {beside:?}");
    drop(idle);
    if let Some(server) = local {
        server.stop().await;
    }
}
