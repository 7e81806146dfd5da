//! What every socket of a game, and every lobby socket, shares (issue 19, items 1-3),
//! against a real server on 127.0.0.1: one serialisation per change for all spectators,
//! coalesced watcher counts, catch-up from the recent history or the whole state, a
//! socket that stops reading dropped without holding anyone up, and the lobby's
//! coalesced changes and challenges (newest first, capped per poster, gone with their
//! poster, the poster taken into the accepted game).

use crate::common;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

use common::{Client, Database, Db, TestServer, legal_texts, test_config};

use common::ws::Stream;

/// A server on a fresh SQLite file whose sockets take messages as fast as tests send.
async fn start() -> (TestServer, Database) {
    let db = Database::fresh(Db::Sqlite).await.expect("sqlite");
    let mut config = test_config(&db);
    config.limits.socket_messages = server::RateLimit::new(100_000, Duration::from_micros(10));
    config.limits.challenge = server::RateLimit::new(100, Duration::from_millis(10));
    // Every socket of these tests comes from 127.0.0.1: lift the caps per address.
    config.connections.per_address = 10_000;
    config.connections.sockets_per_address = 10_000;
    (TestServer::start(config).await, db)
}

async fn open(server: &TestServer, client: &Client, path: &str) -> Stream {
    common::ws::connect(server, client, path).await
}

async fn send(stream: &mut Stream, message: Value) {
    stream
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// The next text message, raw, within 30 s.
async fn next_text(stream: &mut Stream) -> String {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), stream.next())
            .await
            .expect("a message within 30 s")
            .expect("the socket is open")
            .expect("a frame");
        if let Message::Text(text) = message {
            return text.to_string();
        }
    }
}

async fn next(stream: &mut Stream) -> Value {
    serde_json::from_str(&next_text(stream).await).unwrap()
}

/// Skips messages until one of type `t`; returns it and the raw text.
async fn until(stream: &mut Stream, t: &str) -> (Value, String) {
    loop {
        let text = next_text(stream).await;
        let value: Value = serde_json::from_str(&text).unwrap();
        if value["t"] == t {
            return (value, text);
        }
    }
}

/// The messages that arrive within `quiet` of each other.
async fn drain(stream: &mut Stream, quiet: Duration) -> Vec<Value> {
    let mut seen = Vec::new();
    while let Ok(Some(Ok(message))) = tokio::time::timeout(quiet, stream.next()).await {
        if let Message::Text(text) = message {
            seen.push(serde_json::from_str(&text).unwrap());
        }
    }
    seen
}

/// A friend game between two new guests (`a` first); its id.
async fn friend_game(a: &mut Client, b: &mut Client, time_control: &str) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": time_control}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    id
}

/// The first legal move listed in a `state` or `events` message.
fn first_legal(message: &Value) -> String {
    let game = if message["t"] == "state" {
        &message["game"]
    } else {
        message
    };
    legal_texts(game).swap_remove(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_spectator_gets_the_same_text_once_per_change() {
    let (server, _db) = start().await;
    let (mut a, mut b) = (server.client(), server.client());
    // A correspondence game: the spectators' arrival takes longer than a live game's
    // first move may wait before the game is called off.
    let id = friend_game(&mut a, &mut b, "3d").await;
    let path = format!("/ws/game/{id}");
    let mut first = open(&server, &a, &path).await;
    let mut second = open(&server, &b, &path).await;
    send(&mut first, json!({"t": "hello", "rev": 0})).await;
    send(&mut second, json!({"t": "hello", "rev": 0})).await;
    let (state, _) = until(&mut first, "state").await;
    assert_eq!(state["game"]["you"], "first");
    assert_eq!(
        state["game"]["actions"]["first"],
        json!(["resign", "abort", "draw_offer", "give_time"]),
        "{state}"
    );
    until(&mut second, "state").await;

    // Forty spectators arrive at once.
    const N: usize = 40;
    let mut spectators = Vec::new();
    for _ in 0..N {
        let mut socket = open(&server, &server.client(), &path).await;
        send(&mut socket, json!({"t": "hello", "rev": 0})).await;
        spectators.push(socket);
    }
    for socket in &mut spectators {
        let (state, _) = until(socket, "state").await;
        assert_eq!(state["game"]["you"], Value::Null);
        assert!(state["game"]["legal_moves"].as_array().unwrap().is_empty());
    }
    // Watcher counts are coalesced: each socket hears a few, not one per arrival.
    let mut counts = 0;
    let mut last = 0;
    for socket in &mut spectators {
        for message in drain(socket, Duration::from_millis(1500)).await {
            if message["t"] == "watchers" {
                counts += 1;
                last = message["count"].as_u64().unwrap();
            }
        }
    }
    assert_eq!(
        last,
        N as u64 - 1,
        "the last count is every spectator but the receiver"
    );
    assert!(
        counts <= N * 8,
        "{counts} watcher messages to {N} spectators: one per arrival would be ~{}",
        N * N / 2
    );
    drain(&mut first, Duration::from_millis(200)).await;
    drain(&mut second, Duration::from_millis(200)).await;

    // One move: every spectator and the player not to move get the same text; the
    // player to move gets it with their legal moves.
    let text = first_legal(&state);
    send(&mut first, json!({"t": "move", "rev": 0, "move": text})).await;
    let (to_second, to_second_text) = until(&mut second, "events").await;
    let (to_first, to_first_text) = until(&mut first, "events").await;
    assert_eq!(to_second["rev"], 1);
    assert_eq!(to_second["events"][0]["type"], "moved");
    assert!(!legal_texts(&to_second).is_empty());
    assert!(legal_texts(&to_first).is_empty());
    assert_eq!(to_first["status"], "ongoing");
    // After both have... only the first has moved: the second may still abort.
    assert_eq!(
        to_first["actions"]["second"],
        json!(["resign", "abort", "draw_offer", "give_time"])
    );
    for socket in &mut spectators {
        let (_, text) = until(socket, "events").await;
        assert_eq!(text, to_first_text, "one serialisation for everyone");
        let after = drain(socket, Duration::from_millis(100)).await;
        assert!(
            after.iter().all(|m| m["t"] == "watchers"),
            "nothing else per change: {after:?}"
        );
    }
    assert_ne!(to_second_text, to_first_text);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnecting_client_gets_what_it_missed_or_the_whole_state() {
    let (server, _db) = start().await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "untimed").await;
    let path = format!("/ws/game/{id}");
    let mut first = open(&server, &a, &path).await;
    let mut second = open(&server, &b, &path).await;
    send(&mut first, json!({"t": "hello", "rev": 0})).await;
    let (state, _) = until(&mut first, "state").await;
    send(&mut second, json!({"t": "hello", "rev": 0})).await;
    until(&mut second, "state").await;

    // Revisions 1-3: a move, a draw offered, a draw declined.
    send(
        &mut first,
        json!({"t": "move", "rev": 0, "move": first_legal(&state)}),
    )
    .await;
    until(&mut second, "events").await;
    send(&mut first, json!({"t": "draw_offer"})).await;
    let (offered, _) = until(&mut second, "events").await;
    assert_eq!(offered["draw_offer"], "first");
    assert_eq!(
        offered["actions"]["second"],
        json!(["resign", "abort", "draw_accept", "draw_decline"])
    );
    send(&mut second, json!({"t": "draw_decline"})).await;
    let (declined, _) = until(&mut second, "events").await;
    assert_eq!(declined["rev"], 3);
    assert_eq!(declined["draw_offer"], Value::Null);

    // A spectator who saw revision 1 gets revisions 2 and 3, chained.
    let mut late = open(&server, &server.client(), &path).await;
    send(&mut late, json!({"t": "hello", "rev": 1})).await;
    let (two, _) = until(&mut late, "events").await;
    let (three, _) = until(&mut late, "events").await;
    assert_eq!(
        (two["from_rev"].as_u64(), two["rev"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(
        (three["from_rev"].as_u64(), three["rev"].as_u64()),
        (Some(2), Some(3))
    );

    // Forty more changes: revision 3 is out of the recent history; the whole state.
    for _ in 0..20 {
        send(&mut first, json!({"t": "draw_offer"})).await;
        until(&mut second, "events").await;
        send(&mut second, json!({"t": "draw_decline"})).await;
        until(&mut second, "events").await;
    }
    let mut behind = open(&server, &server.client(), &path).await;
    send(&mut behind, json!({"t": "hello", "rev": 3})).await;
    let state = loop {
        let message = next(&mut behind).await;
        match message["t"].as_str() {
            Some("watchers") => {}
            Some("state") => break message,
            _ => panic!("the whole state, not {message}"),
        }
    };
    assert_eq!(state["game"]["rev"], 43);
    // A revision the game never had: the whole state too.
    send(&mut behind, json!({"t": "hello", "rev": 999})).await;
    assert_eq!(until(&mut behind, "state").await.0["game"]["rev"], 43);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_stops_reading_is_dropped_and_holds_nobody_up() {
    let (server, _db) = start().await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "untimed").await;
    let path = format!("/ws/game/{id}");

    // A spectator that asks for the whole state thousands of times and reads nothing
    // (its receive buffer small, as a slow phone's would be: the kernel would otherwise
    // take megabytes for it on loopback). Written by hand on a plain TCP stream, so that
    // no WebSocket library reads on its behalf.
    let tcp = tokio::net::TcpSocket::new_v4().unwrap();
    tcp.set_recv_buffer_size(4096).unwrap();
    let mut tcp = tcp.connect(server.addr).await.unwrap();
    let handshake = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nOrigin: {}\r\nUpgrade: websocket\r\n\
         Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         Sec-WebSocket-Version: 13\r\n\r\n",
        server.addr, server.base
    );
    tcp.write_all(handshake.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        tcp.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    let (mut stuck_rx, mut stuck_tx) = tcp.into_split();
    let flood = tokio::spawn(async move {
        // One masked text frame (a client's frames are masked; a zero mask keeps it plain).
        let text = br#"{"t":"hello","rev":0}"#;
        let mut frame = vec![0x81, 0x80 | u8::try_from(text.len()).unwrap(), 0, 0, 0, 0];
        frame.extend_from_slice(text);
        for _ in 0..4000 {
            if stuck_tx.write_all(&frame).await.is_err() {
                break;
            }
        }
        stuck_tx
    });

    // The players play on meanwhile: every move reaches both at once.
    let mut first = open(&server, &a, &path).await;
    let mut second = open(&server, &b, &path).await;
    send(&mut first, json!({"t": "hello", "rev": 0})).await;
    let (mut last, _) = until(&mut first, "state").await;
    send(&mut second, json!({"t": "hello", "rev": 0})).await;
    until(&mut second, "state").await;
    let mut players = [first, second];
    for ply in 0..16u64 {
        let mover = usize::try_from(ply % 2).unwrap();
        let text = first_legal(&last);
        send(
            &mut players[mover],
            json!({"t": "move", "rev": ply, "move": text}),
        )
        .await;
        let (seen, _) = until(&mut players[1 - mover], "events").await;
        assert_eq!(seen["rev"], ply + 1);
        until(&mut players[mover], "events").await;
        last = seen;
    }

    // The stuck socket is closed by the server once a message has waited more than
    // SEND_TIMEOUT for it: then what it buffered drains, and it ends (before, reading
    // would have let the server go on answering).
    tokio::time::sleep(Duration::from_secs(15)).await;
    let ended = tokio::time::timeout(Duration::from_secs(90), async {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match stuck_rx.read(&mut buffer).await {
                Ok(0) | Err(_) => return true,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert_eq!(ended, Ok(true), "the socket that did not read was closed");
    drop(flood.await);
    server.stop().await;
}

/// The lobby's messages until `quiet` passes without one.
async fn lobby_messages(lobby: &mut Stream, quiet: Duration) -> Vec<Value> {
    drain(lobby, quiet).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_sends_coalesced_changes_not_lists() {
    let (server, _db) = start().await;
    let mut watcher = server.client();
    let mut lobby = open(&server, &watcher, "/ws/lobby").await;
    let snapshot = next(&mut lobby).await;
    assert_eq!(snapshot["t"], "snapshot", "{snapshot}");
    assert_eq!(snapshot["live"], 0);
    let version = snapshot["v"].as_u64().unwrap();

    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "untimed").await;
    let path = format!("/ws/game/{id}");
    let mut players = [
        open(&server, &a, &path).await,
        open(&server, &b, &path).await,
    ];
    send(&mut players[0], json!({"t": "hello", "rev": 0})).await;
    let (mut last, _) = until(&mut players[0], "state").await;
    send(&mut players[1], json!({"t": "hello", "rev": 0})).await;
    until(&mut players[1], "state").await;
    const MOVES: u64 = 30;
    let started = std::time::Instant::now();
    for ply in 0..MOVES {
        let mover = usize::try_from(ply % 2).unwrap();
        let text = first_legal(&last);
        send(
            &mut players[mover],
            json!({"t": "move", "rev": ply, "move": text}),
        )
        .await;
        last = until(&mut players[1 - mover], "events").await.0;
        until(&mut players[mover], "events").await;
    }
    let messages = lobby_messages(&mut lobby, Duration::from_millis(1000)).await;
    assert!(!messages.is_empty());
    // At most one message a quarter of a second, however fast the moves come.
    let most = started.elapsed().as_secs_f64() * 4.0 + 2.0;
    assert!(
        messages.len() as f64 <= most,
        "{} lobby messages for {MOVES} moves in {:?}",
        messages.len(),
        started.elapsed()
    );
    let mut v = version;
    for message in &messages {
        assert_eq!(message["t"], "changes", "{message}");
        assert!(message.get("games").is_none(), "changes, not lists");
        v += 1;
        assert_eq!(message["v"], v, "versions follow each other");
    }
    assert_eq!(messages[0]["games_added"][0]["id"], id.as_str());
    // A change carries what changed, not the board: applied one after the other to the
    // board first sent, the changes give the board now.
    let mut board = messages[0]["games_added"][0]["board"].clone();
    for message in &messages[1..] {
        for change in message["games_changed"].as_array().unwrap() {
            assert_eq!(change["id"], id.as_str());
            assert!(change.get("board").is_none(), "{change}");
            let cells = change["cells"].as_array().unwrap();
            assert!(
                !cells.is_empty() && cells.len() < 121 / 4,
                "the cells that changed, not the board: {change}"
            );
            for cell in cells {
                let i = usize::try_from(cell[0].as_u64().unwrap()).unwrap();
                board["cells"][i] = cell[1].clone();
            }
            board["to_move"] = change["to_move"].clone();
        }
    }
    // The game's own last `events` message says the board as its pieces.
    assert_eq!(
        common::pieces_of(&board),
        last["pieces"].as_str().unwrap(),
        "the changes give the board now"
    );
    assert_eq!(board["to_move"], last["to_move"]);
    // A socket that connects now gets the same board in its snapshot.
    let mut late = open(&server, &watcher, "/ws/lobby").await;
    let snapshot = next(&mut late).await;
    assert_eq!(snapshot["games"][0]["board"], board, "{snapshot}");
    assert_eq!(messages.last().unwrap()["live"], 1);

    // The live list is paged.
    let page = watcher
        .get("/api/games?status=live&limit=1&page=1")
        .await
        .json();
    assert_eq!(page["total"], 1);
    assert_eq!(page["games"][0]["id"], id.as_str());
    let mut c = server.client();
    assert_eq!(
        c.get("/api/games?status=live&limit=1000").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        c.get("/api/games?page=2&limit=1").await.json()["games"],
        json!([])
    );

    // A resignation ends it: removed from the lobby.
    players[0]
        .send(Message::Text(json!({"t": "resign"}).to_string().into()))
        .await
        .unwrap();
    let (removed, _) = until(&mut lobby, "changes").await;
    assert_eq!(removed["games_removed"], json!([id]));
    assert_eq!(removed["live"], 0);
    server.stop().await;
}

/// Posts a challenge; the reply.
async fn post_challenge(client: &mut Client, time_control: &str) -> common::Reply {
    client
        .post(
            "/api/challenges",
            json!({"kind": "fetlar", "time_control": time_control, "side": "first"}),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_newest_first_capped_taken_into_the_game_and_gone_with_the_poster() {
    let (server, _db) = start().await;
    let mut poster = server.client();
    poster.post_empty("/api/guest").await;
    let mut poster_lobby = open(&server, &poster, "/ws/lobby").await;
    assert_eq!(next(&mut poster_lobby).await["t"], "snapshot");
    let mut other = server.client();
    let mut other_lobby = open(&server, &other, "/ws/lobby").await;
    assert_eq!(next(&mut other_lobby).await["t"], "snapshot");

    let mut ids = Vec::new();
    for control in ["5+3", "untimed", "3d"] {
        let posted = post_challenge(&mut poster, control).await;
        assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
        ids.push(posted.json()["id"].as_str().unwrap().to_owned());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let refused = post_challenge(&mut poster, "5+3").await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "at most 3 each");
    assert_eq!(
        refused.json()["error"]["reason"],
        "too_many_challenges",
        "{}",
        refused.text
    );
    let listed = other.get("/api/challenges").await.json();
    let listed: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [&ids[2], &ids[1], &ids[0]], "newest first");
    let (added, _) = until(&mut other_lobby, "changes").await;
    let mut seen: Vec<String> = added["challenges_added"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    while seen.len() < 3 {
        let (more, _) = until(&mut other_lobby, "changes").await;
        for c in more["challenges_added"].as_array().unwrap() {
            seen.push(c["id"].as_str().unwrap().to_owned());
        }
    }

    // Accepted: the poster's lobby socket names the game, at once; the poster plays it.
    let accepted = other
        .post_empty(&format!("/api/challenges/{}/accept", ids[0]))
        .await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.text);
    let game = accepted.json()["game_id"].as_str().unwrap().to_owned();
    let (told, _) = until(&mut poster_lobby, "challenge_accepted").await;
    assert_eq!(told["game"], game.as_str());
    assert_eq!(told["challenge"], ids[0].as_str());
    let view = poster.get(&format!("/api/games/{game}")).await.json();
    assert_eq!(view["you"], "first");
    assert_eq!(view["status"], "ongoing");
    // The one who accepted is not told (it is not their challenge).
    let others = drain(&mut other_lobby, Duration::from_millis(600)).await;
    assert!(
        others.iter().all(|m| m["t"] != "challenge_accepted"),
        "{others:?}"
    );

    // The poster leaves the lobby: their live challenge goes (after the grace for a
    // reload); the correspondence one stays.
    drop(poster_lobby);
    let gone = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let (changes, _) = until(&mut other_lobby, "changes").await;
            if changes["challenges_removed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|id| id == ids[1].as_str())
            {
                return changes;
            }
        }
    })
    .await
    .expect("the departed poster's challenge is removed");
    assert!(
        !gone["challenges_removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|id| id == ids[2].as_str())
    );
    let listed = other.get("/api/challenges").await.json();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], ids[2].as_str());
    server.stop().await;
}
