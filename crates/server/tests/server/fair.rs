//! The AI pool is fair, against a real server on loopback: while one client floods it
//! (AI games at the strongest level answered at once, a resign-and-rematch chain,
//! analyses on sockets it never reads), another player's AI move waits for at most one
//! search in flight. Counted by the pool (searches started before it, searches ended
//! while it waited), not timed.

use crate::common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use common::{Database, TestServer, test_config};

const PATIENCE: Duration = Duration::from_secs(120);

type Stream = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// A browser at one loopback address, with its guest cookie.
struct Player {
    http: reqwest::Client,
    from: IpAddr,
    server: SocketAddr,
    base: String,
    cookie: Option<String>,
}

impl Player {
    fn new(server: &TestServer, from: [u8; 4]) -> Player {
        let from = IpAddr::from(from);
        Player {
            http: reqwest::Client::builder()
                .local_address(from)
                .build()
                .unwrap(),
            from,
            server: server.addr,
            base: server.base.clone(),
            cookie: None,
        }
    }

    async fn post(&mut self, path: &str, body: Value) -> (StatusCode, Value) {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("origin", &self.base)
            .json(&body);
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", cookie);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        if let Some(set) = response
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
        {
            self.cookie = set.split(';').next().map(str::to_owned);
        }
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn socket(&self, path: &str) -> Stream {
        let tcp = TcpSocket::new_v4().unwrap();
        tcp.bind(SocketAddr::new(self.from, 0)).unwrap();
        let stream = tcp.connect(self.server).await.unwrap();
        let mut request = format!("ws://{}{path}", self.server)
            .into_client_request()
            .unwrap();
        request
            .headers_mut()
            .insert("origin", self.base.parse().unwrap());
        if let Some(cookie) = &self.cookie {
            request
                .headers_mut()
                .insert("cookie", cookie.parse().unwrap());
        }
        let mut socket = tokio_tungstenite::client_async(request, stream)
            .await
            .unwrap()
            .0;
        // A game socket sends what changes once its client has said hello.
        if path.starts_with("/ws/game/") {
            send(&mut socket, json!({"t": "hello", "rev": 0})).await;
        }
        socket
    }

    async fn new_ai_game(&mut self, level: u8, time_control: &str) -> Result<String, Value> {
        let (status, body) = self
            .post(
                "/api/games",
                json!({"kind": "copenhagen", "opponent": {"ai": level}, "side": "second", "time_control": time_control}),
            )
            .await;
        if status == StatusCode::CREATED {
            Ok(body["id"].as_str().unwrap().to_owned())
        } else {
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
            Err(body)
        }
    }
}

async fn send(stream: &mut Stream, message: Value) {
    stream
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// The next JSON message whose type is `t`.
async fn until(stream: &mut Stream, t: &str) -> Value {
    loop {
        let message = tokio::time::timeout(PATIENCE, stream.next())
            .await
            .unwrap_or_else(|_| panic!("no {t:?} message within {PATIENCE:?}"))
            .unwrap_or_else(|| panic!("the socket closed before a {t:?} message"))
            .unwrap_or_else(|e| panic!("no frame before a {t:?} message: {e}"));
        if let Message::Text(text) = message {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["t"] == t {
                return value;
            }
        }
    }
}

/// Plays the first legal move whenever it is the human's turn, until the game ends: the
/// AI of the game is never left idle.
async fn answer_at_once(mut socket: Stream) {
    loop {
        send(&mut socket, json!({"t": "hello", "rev": 0})).await;
        let state = until(&mut socket, "state").await["game"].clone();
        if state["status"] != "ongoing" {
            return;
        }
        if let Some(mv) = state["legal_moves"][0]["text"].as_str() {
            let rev = state["rev"].as_u64().unwrap();
            send(&mut socket, json!({"t": "move", "rev": rev, "move": mv})).await;
        }
        until(&mut socket, "events").await;
    }
}

async fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    tokio::time::timeout(PATIENCE, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_delays_another_players_ai_move_by_at_most_one_search() {
    // Delays are measured against the whole machine: no other test runs beside it.
    let db = Database::alone(common::Db::Sqlite).await.unwrap();
    let server = TestServer::start(test_config(&db)).await;
    let quotas = server.state.ai.quotas();
    let mut flooder = Player::new(&server, [127, 0, 0, 2]);
    // Where it stands, on the failure's output.
    let began = std::time::Instant::now();
    let phase = |what: &str| println!("{:>7.1?}  {what}", began.elapsed());

    // Many long AI games: the quota stops them.
    let mut games = Vec::new();
    let mut refused = None;
    for _ in 0..10 {
        match flooder.new_ai_game(6, "untimed").await {
            Ok(id) => games.push(id),
            Err(body) => refused = Some(body),
        }
    }
    assert_eq!(games.len(), quotas.games);
    let refused = refused.expect("a refusal");
    assert_eq!(refused["error"]["code"], "rate_limited", "{refused}");
    phase("the quota refused an AI game");
    // The flooder answers every AI move at once, so its games keep the pool busy.
    let mut bots = Vec::new();
    for id in &games[1..] {
        let socket = flooder.socket(&format!("/ws/game/{id}")).await;
        bots.push(tokio::spawn(answer_at_once(socket)));
    }

    // A resign-and-rematch chain: each rematch is a new game, within the same quota.
    let mut chained = games[0].clone();
    let mut chain_refused = false;
    for _ in 0..30 {
        let mut socket = flooder.socket(&format!("/ws/game/{chained}")).await;
        send(&mut socket, json!({"t": "resign"})).await;
        until(&mut socket, "events").await;
        let (status, body) = flooder
            .post(&format!("/api/games/{chained}/rematch"), json!(null))
            .await;
        if status != StatusCode::OK {
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
            chain_refused = true;
            break;
        }
        chained = body["id"].as_str().unwrap().to_owned();
        let stats = server.state.ai.stats();
        assert!(stats.waiting + stats.running <= quotas.games + quotas.analyses);
    }
    assert!(chain_refused, "the rematch chain meets the creation limit");
    phase("the rematch chain was refused");

    // Analyses on sockets it never reads: the quota stops the third.
    let mut analyses = Vec::new();
    for _ in 0..quotas.analyses {
        let mut socket = flooder.socket("/ws/analysis").await;
        send(
            &mut socket,
            json!({"t": "analyze", "kind": "camelot", "time_ms": 60_000}),
        )
        .await;
        // Answered in order: the analysis holds its quota before the next socket asks
        // (sockets are served side by side: without this, on a slow machine, the third
        // could be taken first). Its progress is never read after this.
        send(&mut socket, json!({"t": "ping"})).await;
        until(&mut socket, "pong").await;
        analyses.push(socket);
    }
    let mut third = flooder.socket("/ws/analysis").await;
    send(
        &mut third,
        json!({"t": "analyze", "kind": "fetlar", "time_ms": 60_000}),
    )
    .await;
    assert_eq!(until(&mut third, "error").await["code"], "quota");
    phase("the third analysis was refused");

    // Every search thread busy, and flood moves waiting.
    wait_for("the flood fills the pool", || {
        let stats = server.state.ai.stats();
        stats.running >= 2 && stats.waiting >= 1
    })
    .await;

    phase("the flood fills the pool");
    // Another player, elsewhere, starts a timed game; the AI moves first.
    let mut victim = Player::new(&server, [127, 0, 0, 3]);
    let id = victim
        .new_ai_game(1, "1+0")
        .await
        .expect("the victim's game");
    let mut socket = victim.socket(&format!("/ws/game/{id}")).await;
    loop {
        send(&mut socket, json!({"t": "hello", "rev": 0})).await;
        let state = until(&mut socket, "state").await["game"].clone();
        assert_eq!(state["status"], "ongoing", "the victim's game goes on");
        if !state["moves"].as_array().unwrap().is_empty() {
            break;
        }
        until(&mut socket, "events").await;
    }
    let wait = server
        .state
        .ai
        .move_wait(&id)
        .expect("the pool knows the game");
    phase(&format!("the victim's AI move during the flood: {wait:?}"));
    assert_eq!(wait.overtaken_by, 0, "no search started before it");
    assert!(wait.waited_for <= 1, "it waited for at most one search");

    // The flooder resigns everything and closes its sockets: its searches are cancelled
    // (the analyses had a minute left).
    for bot in &bots {
        bot.abort();
    }
    for id in games[1..].iter().chain(std::iter::once(&chained)) {
        let mut socket = flooder.socket(&format!("/ws/game/{id}")).await;
        send(&mut socket, json!({"t": "resign"})).await;
        // Answered in order: the resignation has been dealt with.
        send(&mut socket, json!({"t": "ping"})).await;
        until(&mut socket, "pong").await;
    }
    phase("the flooder resigned");
    drop(analyses);
    wait_for("the flood's searches end", || {
        let stats = server.state.ai.stats();
        stats.waiting == 0 && stats.running == 0
    })
    .await;
    server.stop().await;
}

/// A player's AI move delay (game created → the AI's first move seen), alone and then
/// while five addresses flood the pool (four level-6 AI games each, answered at once,
/// and a one-minute analysis each on a socket never read): the measurement in
/// `bench/RESULTS.md`. Against the server at `KINGSTABLE_TARGET` (e.g. the baseline
/// binary) or, without it, one started here:
/// `KINGSTABLE_TARGET=http://127.0.0.1:8080 cargo test --release -p server --test server -- --ignored fair:: --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check: run by hand"]
async fn measure_ai_move_delay_under_a_flood() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let local = match std::env::var("KINGSTABLE_TARGET") {
        Ok(_) => None,
        Err(_) => Some(TestServer::start(test_config(&db)).await),
    };
    let target: SocketAddr = match (&local, std::env::var("KINGSTABLE_TARGET")) {
        (Some(server), _) => server.addr,
        (None, Ok(url)) => url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap(),
        (None, Err(_)) => unreachable!(),
    };
    let base = format!("http://{target}");
    let player = |from: [u8; 4]| {
        let from = IpAddr::from(from);
        Player {
            http: reqwest::Client::builder()
                .local_address(from)
                .build()
                .unwrap(),
            from,
            server: target,
            base: base.clone(),
            cookie: None,
        }
    };
    // The AI's first move in a new level-1 1+0 game of a fresh victim.
    let victim_delay = |n: u8| {
        let mut victim = player([127, 0, 1, n]);
        async move {
            let started = std::time::Instant::now();
            let id = victim.new_ai_game(1, "1+0").await.unwrap();
            let mut socket = victim.socket(&format!("/ws/game/{id}")).await;
            loop {
                send(&mut socket, json!({"t": "hello", "rev": 0})).await;
                let state = until(&mut socket, "state").await["game"].clone();
                let over = state["status"] != "ongoing";
                if over || !state["moves"].as_array().unwrap().is_empty() {
                    return (started.elapsed(), over);
                }
                until(&mut socket, "events").await;
            }
        }
    };
    let mut alone = Vec::new();
    for n in 1..=3 {
        alone.push(victim_delay(n).await.0);
    }
    let mut bots = Vec::new();
    let mut analyses = Vec::new();
    for a in 2..7 {
        let mut flooder = player([127, 0, 0, a]);
        for _ in 0..4 {
            let id = flooder.new_ai_game(6, "untimed").await.unwrap();
            let socket = flooder.socket(&format!("/ws/game/{id}")).await;
            bots.push(tokio::spawn(answer_at_once(socket)));
        }
        let mut socket = flooder.socket("/ws/analysis").await;
        send(
            &mut socket,
            json!({"t": "analyze", "kind": "camelot", "time_ms": 60_000}),
        )
        .await;
        analyses.push(socket);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut flooded = Vec::new();
    let mut lost = 0;
    for n in 4..=6 {
        let (delay, over) = victim_delay(n).await;
        flooded.push(delay);
        lost += usize::from(over);
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        (v[v.len() / 2], v[v.len() - 1])
    };
    let (alone_median, alone_max) = median(alone);
    let (flood_median, flood_max) = median(flooded);
    println!(
        "AI move delay alone: median {alone_median:?}, max {alone_max:?}; under the flood: \
         median {flood_median:?}, max {flood_max:?} ({:.1}x the median alone); games over \
         before the AI moved: {lost}",
        flood_median.as_secs_f64() / alone_median.as_secs_f64()
    );
    for bot in bots {
        bot.abort();
    }
    drop(analyses);
    if let Some(server) = local {
        server.stop().await;
    }
}
