//! Play as a player finds it (issue 20), against a real server on 127.0.0.1, each case
//! on SQLite and on PostgreSQL: the engine kept out of games being played, imported games
//! with their players and date, the AI answering a draw offer at once, results that say
//! who resigned, watcher counts that leave out the receiver, and a review made once and
//! served from storage.

use crate::common;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use common::ws::Ws;
use common::{Client, Database, TestServer, test_config};
use server::store::StoredReview;

/// Copenhagen game 60 of the aagenielsen.dk archive (crates/tafl/tests/data).
const COPENHAGEN_60: &str =
    "k8-g8 h6-h8xg8 j6-j11 g6-j6 k7-k10 f6-i6 k5-i5 i6-i11xj11 k10-i10 i11-k11";

/// Millar v Schachus, 2015: a Copenhagen record with its players and date.
const MILLAR: &str = include_str!("../../../tafl/tests/data/millar_vs_schachus_2015.otg");

async fn start(db: &Database) -> TestServer {
    TestServer::start(test_config(db)).await
}

/// Both players' sockets on game `id`, each past its first `state`.
async fn seated(server: &TestServer, a: &Client, b: &Client, id: &str) -> [Ws; 2] {
    let path = format!("/ws/game/{id}");
    let mut players = [
        Ws::open(server, a, &path).await,
        Ws::open(server, b, &path).await,
    ];
    for socket in &mut players {
        socket.state().await;
    }
    players
}

/// Two guests: `a` makes a friend game of `kind` (taking the first side), `b` joins.
async fn friend_game(a: &mut Client, b: &mut Client, kind: &str) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": kind, "opponent": "friend", "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    id
}

/// Plays `moves` alternately from the two players' sockets, each seen by both.
async fn play(players: &mut [Ws; 2], moves: &[&str]) {
    for (i, text) in moves.iter().enumerate() {
        players[i % 2]
            .send(json!({"t": "move", "move": text}))
            .await;
        for socket in players.iter_mut() {
            let events = socket.until("events").await;
            assert_eq!(events["events"][0]["type"], "moved", "{events}");
        }
    }
}

/// The analysis socket's answer to `request` (a short run): the error code it is refused
/// with, or `None` when the engine ran it to its end.
async fn refusal(engine: &mut Ws, request: Value) -> Option<String> {
    engine.send(request).await;
    loop {
        let message = engine.next().await;
        match message["t"].as_str() {
            Some("error") => return Some(message["code"].as_str().unwrap().to_owned()),
            // The run goes on to its end (a short one), which the next request waits for.
            Some("done" | "review_done") => return None,
            _ => {}
        }
    }
}

async fn analysis_is_refused_while_the_game_is_played(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen").await;
    let mut players = seated(&server, &a, &b, &id).await;
    let moves: Vec<&str> = COPENHAGEN_60.split(' ').take(6).collect();
    play(&mut players, &moves).await;
    let position = a.get(&format!("/api/archive/{id}")).await.json()["position"]
        .as_str()
        .unwrap()
        .to_owned();
    let state = players[0].state().await;
    let candidate = state["legal_moves"][0]["text"].as_str().unwrap().to_owned();
    let after = a
        .post(
            "/api/position",
            json!({"kind": "copenhagen", "position": position, "moves": [candidate]}),
        )
        .await
        .json()["position"]
        .as_str()
        .unwrap()
        .to_owned();

    // Everyone is refused, players and spectators alike: the game by its id, its line,
    // its position typed in, a candidate move played from it, the position after it.
    let spectator = server.client();
    for asker in [&a, &spectator] {
        let mut engine = Ws::open(&server, asker, "/ws/analysis").await;
        let refused = [
            json!({"t": "review", "game": id, "time_ms_per_ply": 20}),
            json!({"t": "analyze", "kind": "copenhagen", "moves": moves, "time_ms": 200}),
            json!({"t": "analyze", "kind": "copenhagen", "position": position, "time_ms": 200}),
            json!({"t": "analyze", "kind": "copenhagen", "position": position, "moves": [candidate], "time_ms": 200}),
            json!({"t": "analyze", "kind": "copenhagen", "position": after, "time_ms": 200}),
        ];
        for request in refused {
            assert_eq!(
                refusal(&mut engine, request.clone()).await.as_deref(),
                Some("game_in_progress"),
                "{request}"
            );
        }
        // Nor under the rules of the other game on the same board.
        assert_eq!(
            refusal(
                &mut engine,
                json!({"t": "analyze", "kind": "fetlar", "moves": moves, "time_ms": 200})
            )
            .await
            .as_deref(),
            Some("game_in_progress")
        );
        // The opening is not guarded (its positions are every game's), nor is another
        // position.
        for request in [
            json!({"t": "analyze", "kind": "copenhagen", "moves": &moves[..3], "time_ms": 200}),
            json!({"t": "analyze", "kind": "copenhagen", "moves": &moves[..4], "time_ms": 200}),
            json!({"t": "analyze", "kind": "camelot", "time_ms": 200}),
        ] {
            assert_eq!(
                refusal(&mut engine, request.clone()).await,
                None,
                "{request}"
            );
        }
    }

    // Once the game has ended, the engine may look at all of it.
    players[1].send(json!({"t": "resign"})).await;
    players[0].until("events").await;
    let mut engine = Ws::open(&server, &spectator, "/ws/analysis").await;
    for request in [
        json!({"t": "analyze", "kind": "copenhagen", "moves": moves, "time_ms": 200}),
        json!({"t": "analyze", "kind": "copenhagen", "position": after, "time_ms": 200}),
        json!({"t": "review", "game": id, "time_ms_per_ply": 20}),
    ] {
        assert_eq!(
            refusal(&mut engine, request.clone()).await,
            None,
            "{request}"
        );
    }
    server.stop().await;
}
both!(
    no_analysis_while_played,
    analysis_is_refused_while_the_game_is_played
);

async fn an_imported_game_keeps_its_players_and_date(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    let reply = client
        .post(
            "/api/import",
            json!({"kind": "copenhagen", "record": MILLAR}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let id = reply.json()["id"].as_str().unwrap().to_owned();
    // Its game page, over HTTP and on its socket: the record's names and day.
    let page = client.get(&format!("/api/games/{id}")).await.json();
    let mut socket = Ws::open(&server, &client, &format!("/ws/game/{id}")).await;
    let state = socket.state().await;
    for view in [&page, &state] {
        let names: Vec<&str> = view["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Tim Millar", "Schachus"], "{view}");
        assert_eq!(view["played_at"], json!(1_420_588_800_000_i64));
        // The record says the defenders won by resignation: the attackers resigned.
        assert_eq!(view["ended_by"], "first", "{view}");
    }
    server.stop().await;
}
both!(imported_names, an_imported_game_keeps_its_players_and_date);

async fn the_ai_answers_a_draw_offer_at_once(db: Database) {
    let server = start(&db).await;
    let mut human = server.client();
    let created = human
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "second", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut me = Ws::open(&server, &human, &format!("/ws/game/{id}")).await;
    let mut state = me.state().await;
    while state["moves"].as_array().unwrap().is_empty() {
        me.until("events").await;
        state = me.state().await;
    }
    // Even at the start the AI can win and stands no worse: it declines, at once.
    me.send(json!({"t": "draw_offer"})).await;
    let mut seen = Vec::new();
    while !seen.contains(&"draw_declined".to_owned()) {
        let events = me
            .next_within(Duration::from_secs(5))
            .await
            .expect("the AI answers within 5 s");
        if events["t"] != "events" {
            continue;
        }
        for event in events["events"].as_array().unwrap() {
            seen.push(event["type"].as_str().unwrap().to_owned());
            if event["type"] == "draw_declined" {
                assert_eq!(event["by"], "first", "{events}");
            }
        }
    }
    assert_eq!(seen, ["draw_offered", "draw_declined"]);
    let state = me.state().await;
    assert_eq!(state["draw_offer"], Value::Null);
    assert_eq!(state["status"], "ongoing");
    assert!(
        state["actions"]["second"]
            .as_array()
            .unwrap()
            .contains(&json!("draw_offer")),
        "the human may offer again: {state}"
    );
    server.stop().await;
}
both!(ai_draw, the_ai_answers_a_draw_offer_at_once);

async fn a_result_says_who_resigned(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen").await;
    let mut players = seated(&server, &a, &b, &id).await;
    play(&mut players, &["k8-g8", "h6-h8xg8"]).await;
    players[1].send(json!({"t": "resign"})).await;
    let events = players[0].until("events").await;
    let ended = &events["events"][0];
    assert_eq!(ended["type"], "ended", "{events}");
    assert_eq!(ended["by"], "second", "{events}");
    // The game page, the archive's list and its view, and the players' game lists.
    let page = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(page["ended_by"], "second", "{page}");
    assert_eq!(
        page["result"],
        json!({"winner": "first", "reason": "resignation"})
    );
    let listed = a.get("/api/archive").await.json();
    let entry = listed["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .expect("listed")
        .clone();
    assert_eq!(entry["ended_by"], "second", "{entry}");
    let viewed = a.get(&format!("/api/archive/{id}")).await.json();
    assert_eq!(viewed["ended_by"], "second", "{viewed}");
    // A game the rules ended names nobody.
    let (mut c, mut d) = (server.client(), server.client());
    let other = friend_game(&mut c, &mut d, "copenhagen").await;
    let mut players = [
        Ws::open(&server, &c, &format!("/ws/game/{other}")).await,
        Ws::open(&server, &d, &format!("/ws/game/{other}")).await,
    ];
    for socket in &mut players {
        socket.state().await;
    }
    let moves: Vec<&str> = COPENHAGEN_60.split(' ').collect();
    play(&mut players, &moves).await;
    let page = c.get(&format!("/api/games/{other}")).await.json();
    assert_eq!(page["result"]["reason"], "corner_escape", "{page}");
    assert_eq!(page["ended_by"], Value::Null, "{page}");
    server.stop().await;
}
both!(ended_by, a_result_says_who_resigned);

/// The last watcher count `socket` hears within `wait`.
async fn last_count(socket: &mut Ws, wait: Duration) -> Option<u64> {
    let mut last = None;
    let until = tokio::time::Instant::now() + wait;
    while let Some(message) = socket
        .next_within(until.saturating_duration_since(tokio::time::Instant::now()))
        .await
    {
        if message["t"] == "watchers" {
            last = message["count"].as_u64();
        }
    }
    last
}

async fn a_watcher_count_is_of_spectators_and_leaves_out_the_receiver(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "fetlar").await;
    let watcher = server.client();
    let path = format!("/ws/game/{id}");
    let mut sockets = [
        Ws::open(&server, &a, &path).await,
        Ws::open(&server, &b, &path).await,
        Ws::open(&server, &watcher, &path).await,
    ];
    for socket in &mut sockets {
        socket.state().await;
    }
    // Two players and one spectator: the players hear of one watcher (the opponent
    // plays, not watches), the spectator of none but itself.
    for (socket, count) in sockets.iter_mut().zip([1, 1, 0]) {
        assert_eq!(
            last_count(socket, Duration::from_millis(1500)).await,
            Some(count)
        );
    }
    // A second spectator: it hears of the first, and everyone of it; a player's
    // second socket (another tab) changes no count.
    let late = server.client();
    let mut fourth = Ws::open(&server, &late, &path).await;
    fourth.state().await;
    let mut tab = Ws::open(&server, &a, &path).await;
    tab.state().await;
    assert_eq!(
        last_count(&mut fourth, Duration::from_millis(1500)).await,
        Some(1)
    );
    assert_eq!(
        last_count(&mut sockets[0], Duration::from_millis(100)).await,
        Some(2)
    );
    assert_eq!(
        last_count(&mut sockets[2], Duration::from_millis(100)).await,
        Some(1)
    );
    assert_eq!(
        last_count(&mut tab, Duration::from_millis(100)).await,
        Some(2)
    );
    // The spectator leaves: the players hear of one again.
    drop(fourth);
    assert_eq!(
        last_count(&mut sockets[1], Duration::from_millis(1500)).await,
        Some(1)
    );
    server.stop().await;
}
both!(
    watchers,
    a_watcher_count_is_of_spectators_and_leaves_out_the_receiver
);

/// A visitor watching a game by link who takes its open seat plays from then: they
/// leave the watcher count, and count as here for claims.
async fn one_who_takes_the_seat_stops_watching(db: Database) {
    let server = start(&db).await;
    let mut a = server.client();
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let path = format!("/ws/game/{id}");
    let mut host = Ws::open(&server, &a, &path).await;
    host.state().await;
    // A visitor with a guest cookie (the web app makes one on the first visit).
    let mut b = server.client();
    assert_eq!(b.post_empty("/api/guest").await.status, StatusCode::CREATED);
    let mut guest = Ws::open(&server, &b, &path).await;
    guest.state().await;
    assert_eq!(
        last_count(&mut host, Duration::from_millis(1500)).await,
        Some(1)
    );
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    assert_eq!(
        last_count(&mut host, Duration::from_millis(1500)).await,
        Some(0)
    );
    let state = guest.state().await;
    assert_eq!(state["you"], "second");
    assert_eq!(state["watchers"], 0);
    server.stop().await;
}
both!(joining, one_who_takes_the_seat_stops_watching);

/// Every `review_ply` of a review of `id`, up to `review_done`.
async fn review_of(engine: &mut Ws, id: &str) -> Vec<Value> {
    engine.send(json!({"t": "review", "game": id})).await;
    let mut plies = Vec::new();
    loop {
        let message = engine.next().await;
        match message["t"].as_str() {
            Some("review_ply") => plies.push(message),
            Some("review_done") => return plies,
            Some("error") => panic!("the review was refused: {message}"),
            _ => {}
        }
    }
}

async fn a_review_is_made_once_and_served_from_storage(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen").await;
    let mut players = seated(&server, &a, &b, &id).await;
    let moves: Vec<&str> = COPENHAGEN_60.split(' ').collect();
    play(&mut players, &moves).await;
    assert!(server.state.store.review(&id).await.unwrap().is_none());
    let mut engine = Ws::open(&server, &server.client(), "/ws/analysis").await;
    let first = review_of(&mut engine, &id).await;
    assert_eq!(first.len(), moves.len());
    // Kept (it is written just after the last move is sent).
    let mut stored = None;
    for _ in 0..100 {
        stored = server.state.store.review(&id).await.unwrap();
        if stored.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let stored = stored.expect("the review is stored");
    assert_eq!(
        serde_json::from_str::<Value>(&stored.plies).unwrap()[0]["text"],
        moves[0]
    );
    // Asked again, by anyone: the same review.
    let mut other = Ws::open(&server, &server.client(), "/ws/analysis").await;
    assert_eq!(review_of(&mut other, &id).await, first);
    // It comes from storage: a stored review altered by hand is what is served.
    let mut altered: Value = serde_json::from_str(&stored.plies).unwrap();
    altered[0]["score"] = json!({"cp": 12345});
    let store = &server.state.store;
    let now = server::store::now_ms();
    let other_budget = StoredReview {
        nodes: stored.nodes + 1,
        plies: stored.plies.clone(),
    };
    store.save_review(&id, &other_budget, now).await.unwrap();
    let altered = StoredReview {
        nodes: stored.nodes,
        plies: altered.to_string(),
    };
    store.save_review(&id, &altered, now).await.unwrap();
    let served = review_of(&mut other, &id).await;
    assert_eq!(served[0]["score"], json!({"cp": 12345}));
    assert_eq!(served[1..], first[1..]);
    server.stop().await;
}
both!(review_stored, a_review_is_made_once_and_served_from_storage);
