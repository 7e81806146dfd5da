//! The analysis socket's several lines (multi-PV, issue 20): an analysis asked for 3
//! lines reports 3 lines that each start with another legal move, the first the best
//! line itself; a count out of bounds is refused in words; and several lines are one
//! analysis for the quotas. Against a real server on 127.0.0.1, on SQLite and on
//! PostgreSQL.

use crate::common;

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{Value, json};

use common::ws::Ws;
use common::{Database, TestServer, test_config};

/// Reads messages until an `info` with `want` lines (or the run's end, which fails).
async fn info_with_lines(engine: &mut Ws, want: usize) -> Value {
    loop {
        let message = engine.next().await;
        match message["t"].as_str() {
            Some("info") if message["lines"].as_array().is_some_and(|l| l.len() == want) => {
                return message;
            }
            Some("info") => {}
            _ => panic!("no info with {want} lines before {message}"),
        }
    }
}

async fn several_lines(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    let mut engine = Ws::open(&server, &client, "/ws/analysis").await;
    for (kind, moves) in [("copenhagen", json!(["d1-d3"])), ("camelot", json!([]))] {
        engine
            .send(
                json!({"t": "analyze", "kind": kind, "moves": moves, "time_ms": 1500, "lines": 3}),
            )
            .await;
        let info = info_with_lines(&mut engine, 3).await;
        let lines = info["lines"].as_array().unwrap();
        assert_eq!(lines[0]["pv"], info["pv"], "{info}");
        assert_eq!(lines[0]["score"], info["score"], "{info}");
        let firsts: BTreeSet<&str> = lines.iter().map(|l| l["pv"][0].as_str().unwrap()).collect();
        assert_eq!(firsts.len(), 3, "three different first moves: {info}");
        // Every line is legal from the position.
        for line in lines {
            let mut all: Vec<Value> = moves.as_array().unwrap().clone();
            all.extend(line["pv"].as_array().unwrap().iter().cloned());
            let played = client
                .post("/api/position", json!({"kind": kind, "moves": all}))
                .await;
            assert_eq!(played.status, StatusCode::OK, "{line}: {}", played.text);
            assert!(line["score"].is_object(), "{line}");
        }
        let done = engine.until("done").await;
        assert!(done["best"].is_string(), "{done}");
    }
    // One line unless asked.
    engine
        .send(json!({"t": "analyze", "kind": "fetlar", "time_ms": 200}))
        .await;
    let info = engine.until("info").await;
    assert_eq!(info["lines"].as_array().unwrap().len(), 1, "{info}");
    engine.until("done").await;
    // Out of bounds: refused, saying what may be asked.
    for lines in [0, 6, 1000] {
        engine
            .send(json!({"t": "analyze", "kind": "fetlar", "lines": lines}))
            .await;
        let error = engine.until("error").await;
        assert_eq!(error["code"], "bad_message", "{error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("lines: from 1 to 5"),
            "{error}"
        );
    }
    // Several lines are one analysis: the quota (2 queued or running) stops the third
    // socket's. (The pool runs analyses on some of its threads: the second may wait.)
    let mut running = Vec::new();
    for i in 0..2 {
        let mut socket = Ws::open(&server, &client, "/ws/analysis").await;
        socket
            .send(json!({"t": "analyze", "kind": "camelot", "time_ms": 60_000, "lines": 5}))
            .await;
        if i == 0 {
            assert_eq!(info_with_lines(&mut socket, 5).await["t"], "info");
        } else {
            // Taken (a socket's messages are answered in order) before the third asks.
            socket.send(json!({"t": "ping"})).await;
            assert_eq!(socket.until("pong").await["t"], "pong");
        }
        running.push(socket);
    }
    engine
        .send(json!({"t": "analyze", "kind": "fetlar", "time_ms": 60_000, "lines": 5}))
        .await;
    assert_eq!(engine.until("error").await["code"], "quota");
    // A stopped one gives its place back: the next is taken (and runs once the pool has
    // room).
    running[0].send(json!({"t": "stop"})).await;
    running[0].until("done").await;
    // (The pool counts it out once its thread has left the search.)
    for _ in 0..100 {
        let stats = server.state.ai.stats();
        if stats.running + stats.waiting < 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    engine
        .send(json!({"t": "analyze", "kind": "fetlar", "time_ms": 300, "lines": 2}))
        .await;
    running[1].send(json!({"t": "stop"})).await;
    assert_eq!(info_with_lines(&mut engine, 2).await["t"], "info");
    server.stop().await;
}
both!(lines, several_lines);

/// Every answer of the analysis socket carries the `id` of the request it answers (the
/// web client drops answers to an older request): once the answers to a new `analyze`
/// begin, none of the replaced one follows, and the new one's lines are of its own
/// position. The engine does not depend on the database: SQLite only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_their_request_id() {
    let Some(db) = Database::fresh(common::Db::Sqlite).await else {
        return;
    };
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    let mut engine = Ws::open(&server, &client, "/ws/analysis").await;
    engine
        .send(json!({"t": "analyze", "id": 1, "kind": "copenhagen", "time_ms": 60_000}))
        .await;
    let first = engine.until("info").await;
    assert_eq!(first["id"], 1, "{first}");
    // A move later: the same socket, another position.
    engine
        .send(json!({"t": "analyze", "id": 2, "kind": "copenhagen", "moves": ["d1-d3"], "time_ms": 60_000, "lines": 2}))
        .await;
    let mut seen_new = false;
    let mut new_infos = 0;
    while new_infos < 2 {
        let message = engine.next().await;
        assert_eq!(message["t"], "info", "{message}");
        match message["id"].as_u64() {
            Some(1) => assert!(
                !seen_new,
                "an answer to request 1 after request 2's: {message}"
            ),
            Some(2) => {
                seen_new = true;
                new_infos += 1;
                // The line is legal after d1-d3: it is this position's.
                let mut moves = vec![json!("d1-d3")];
                moves.extend(message["pv"].as_array().unwrap().iter().cloned());
                let played = client
                    .post(
                        "/api/position",
                        json!({"kind": "copenhagen", "moves": moves}),
                    )
                    .await;
                assert_eq!(played.status, StatusCode::OK, "{message}: {}", played.text);
            }
            _ => panic!("an answer without its request's id: {message}"),
        }
    }
    engine.send(json!({"t": "stop"})).await;
    let done = engine.until("done").await;
    assert_eq!(done["id"], 2, "{done}");
    // A refusal carries the id of the request refused.
    engine
        .send(json!({"t": "analyze", "id": 3, "kind": "fetlar", "lines": 9}))
        .await;
    let error = engine.until("error").await;
    assert_eq!(
        (error["code"].as_str(), error["id"].as_u64()),
        (Some("bad_message"), Some(3)),
        "{error}"
    );
    // A request without an id is answered without one.
    engine
        .send(json!({"t": "analyze", "kind": "fetlar", "time_ms": 200}))
        .await;
    let info = engine.until("info").await;
    assert!(info.get("id").is_none(), "{info}");
    server.stop().await;
}
