//! The live channels that are not a game's reach every process (issue 49): real server
//! processes on one PostgreSQL and one Redis, as in `cluster`. A player's own channel
//! (`my_game` after a move in a game owned by another process; `my_challenges` when a
//! direct challenge is made or declined through another process) and the lobby chat (a
//! line said on one process, heard on the others once and in order, and kept in their
//! history for the sockets that open later); and what a process missed while Redis was
//! away, caught up once it is back.

use crate::cluster::{Process, Redis, cluster, read_until};
use crate::live::friend_game;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{Client, legal_texts};

/// The next message of type `t` on `socket` within `wait`, skipping the others.
async fn next_of(socket: &mut crate::live::Socket, t: &str, wait: Duration) -> Option<Value> {
    tokio::time::timeout(wait, read_until(socket, t))
        .await
        .ok()
        .flatten()
}

/// A new account named `name`, signed up through `process`.
async fn account(process: &Process, name: &str) -> Client {
    let mut client = Client::new(&process.base);
    let reply = client.sign_up(name, "long password").await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    client
}

/// A move in a game owned by process one reaches its second player's own channel, a
/// lobby socket on process two, within a second; so does the game's end. The list that
/// socket gets on connecting holds the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_is_heard_on_the_players_own_channel_on_another_process() {
    let Some((_db, _redis, _, processes)) = cluster(2).await else {
        return;
    };
    let (mut a, mut b) = (
        Client::new(&processes[0].base),
        Client::new(&processes[1].base),
    );
    // Made through process one, which owns it.
    let id = friend_game(&mut a, &mut b, "copenhagen", "30+5").await;
    let mut b_me = processes[1].open(&b, "/ws/lobby?feed=me").await;
    let listed = next_of(&mut b_me, "my_games", Duration::from_secs(10))
        .await
        .expect("the list on connecting");
    // The list on connecting holds the game, though another process owns it.
    let games = listed["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{listed}");
    assert_eq!(games[0]["id"], id.as_str(), "{listed}");
    assert_eq!(games[0]["you"], "second", "{listed}");
    assert_eq!(games[0]["status"], "ongoing", "{listed}");

    let mut a_game = processes[0].open(&a, &format!("/ws/game/{id}")).await;
    a_game.send(json!({"t": "hello", "rev": 0})).await;
    let state = read_until(&mut a_game, "state").await.expect("a state");
    let legal = legal_texts(&state["game"]);
    let rev = state["game"]["rev"].as_u64().unwrap();
    let sent = Instant::now();
    a_game
        .send(json!({"t": "move", "rev": rev, "move": legal[0]}))
        .await;
    let heard = loop {
        let message = next_of(&mut b_me, "my_game", Duration::from_secs(10))
            .await
            .expect("b hears of the move on process two");
        if message["game"]["id"] == id.as_str() && message["game"]["plies"] == 1 {
            break message;
        }
    };
    let took = sent.elapsed();
    eprintln!("cluster: my_game on the other process {took:?} after the move");
    assert!(took < Duration::from_secs(1), "{took:?}: {heard}");
    assert_eq!(heard["game"]["you"], "second", "{heard}");
    assert_eq!(heard["game"]["to_move"], "second", "{heard}");
    assert_eq!(heard["game"]["status"], "ongoing", "{heard}");
    read_until(&mut a_game, "events")
        .await
        .expect("the mover's answer");

    // The game ends through process one: the last message says so on process two.
    a_game.send(json!({"t": "resign"})).await;
    loop {
        let message = next_of(&mut b_me, "my_game", Duration::from_secs(10))
            .await
            .expect("b hears the game is over");
        // Resigned before the second move: over either way.
        if ["finished", "aborted"].contains(&message["game"]["status"].as_str().unwrap()) {
            break;
        }
    }
}

/// A direct challenge made through process one reaches the account challenged on
/// process two at once, and its decline through process two reaches the challenger on
/// process one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_challenge_is_heard_on_another_process() {
    let Some((_db, _redis, _, processes)) = cluster(2).await else {
        return;
    };
    let mut alice = account(&processes[0], "alice").await;
    let bob = account(&processes[1], "bob").await;
    let mut sockets = Vec::new();
    for (process, client) in [(&processes[0], &alice), (&processes[1], &bob)] {
        let mut socket = process.open(client, "/ws/lobby?feed=me").await;
        let empty = next_of(&mut socket, "my_challenges", Duration::from_secs(10))
            .await
            .expect("the challenges on connecting");
        assert_eq!(empty["incoming"], json!([]));
        sockets.push(socket);
    }
    let [mut a_me, mut b_me] = <[_; 2]>::try_from(sockets).ok().unwrap();

    let posted = alice
        .post(
            "/api/challenges",
            json!({"kind": "fetlar", "time_control": "5+3", "side": "first", "to": "bob"}),
        )
        .await;
    assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    let id = posted.json()["id"].as_str().unwrap().to_owned();
    let to_bob = next_of(&mut b_me, "my_challenges", Duration::from_secs(5))
        .await
        .expect("bob hears of the challenge on process two");
    assert_eq!(to_bob["incoming"][0]["id"], id.as_str(), "{to_bob}");
    assert_eq!(to_bob["incoming"][0]["by"], "alice", "{to_bob}");
    let by_alice = next_of(&mut a_me, "my_challenges", Duration::from_secs(5))
        .await
        .expect("alice's own list");
    assert_eq!(by_alice["outgoing"][0]["id"], id.as_str(), "{by_alice}");

    let mut bob = bob;
    let declined = bob
        .post_empty(&format!("/api/challenges/{id}/decline"))
        .await;
    assert!(declined.status.is_success(), "{}", declined.text);
    let to_alice = next_of(&mut a_me, "my_challenges", Duration::from_secs(5))
        .await
        .expect("alice hears of the decline on process one");
    assert_eq!(to_alice["outgoing"], json!([]), "{to_alice}");
}

/// The `lobby_chat` lines `socket` gets within `wait`.
async fn lines_within(socket: &mut crate::live::Socket, wait: Duration) -> Vec<String> {
    let mut lines = Vec::new();
    let until = Instant::now() + wait;
    while let Some(line) = next_of(
        socket,
        "lobby_chat",
        until.saturating_duration_since(Instant::now()),
    )
    .await
    {
        lines.push(line["text"].as_str().unwrap().to_owned());
    }
    lines
}

/// Lines said in the lobby chat on process one reach the lobby sockets on processes two
/// and three, once each and in order, and a socket that opens later on process two gets
/// them in its history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lobby_chat_line_is_heard_on_every_process() {
    let Some((_db, _redis, _, processes)) = cluster(3).await else {
        return;
    };
    let carol = account(&processes[0], "carol").await;
    let mut listeners = Vec::new();
    for process in &processes[1..] {
        let mut socket = process
            .open(&Client::new(&process.base), "/ws/lobby?feed=lobby")
            .await;
        read_until(&mut socket, "snapshot")
            .await
            .expect("a snapshot");
        listeners.push(socket);
    }
    let mut speaker = processes[0].open(&carol, "/ws/lobby?feed=lobby").await;
    read_until(&mut speaker, "snapshot")
        .await
        .expect("a snapshot");
    let said = ["good evening from one", "who plays Fetlar?"];
    for text in said {
        speaker.send(json!({"t": "chat", "text": text})).await;
    }
    for (n, socket) in listeners.iter_mut().enumerate() {
        let mut heard = Vec::new();
        while heard.len() < said.len() {
            let line = next_of(socket, "lobby_chat", Duration::from_secs(5))
                .await
                .unwrap_or_else(|| panic!("process {} hears {heard:?} only", n + 2));
            assert_eq!(line["from"], "carol", "{line}");
            heard.push(line["text"].as_str().unwrap().to_owned());
        }
        assert_eq!(heard, said, "process {}", n + 2);
        // Once: nothing more comes.
        assert_eq!(
            lines_within(socket, Duration::from_millis(500)).await,
            Vec::<String>::new()
        );
    }

    let mut later = processes[1]
        .open(&Client::new(&processes[1].base), "/ws/lobby?feed=lobby")
        .await;
    let history = next_of(&mut later, "lobby_chat_history", Duration::from_secs(5))
        .await
        .expect("the history on process two");
    let kept: Vec<&str> = history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(kept, said, "{history}");
}

/// The next JSON message on `socket` before `until` (`None`: none came, or it closed).
async fn next_json(socket: &mut crate::live::Socket, until: Instant) -> Option<Value> {
    loop {
        let wait = until.saturating_duration_since(Instant::now());
        let frame = tokio::time::timeout(wait, socket.stream.next())
            .await
            .ok()??
            .ok()?;
        if let Message::Text(text) = frame {
            return serde_json::from_str(&text).ok();
        }
    }
}

/// What is said in the lobby chat and a direct challenge made while Redis is away reach
/// the other process once it is back: its lobby sockets are sent the chat's last lines
/// again (read back from the database), and its players' sockets their whole lists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_was_missed_while_redis_was_away_comes_once_it_is_back() {
    let Some((_db, redis, _, processes)) = cluster(2).await else {
        return;
    };
    let port: u16 = redis.url.rsplit(':').next().unwrap().parse().unwrap();
    let mut carol = account(&processes[0], "carol").await;
    let bob = account(&processes[1], "bob").await;
    let mut b_socket = processes[1].open(&bob, "/ws/lobby").await;
    next_of(&mut b_socket, "my_challenges", Duration::from_secs(10))
        .await
        .expect("bob's challenges on connecting");
    let mut speaker = processes[0].open(&carol, "/ws/lobby?feed=lobby").await;
    read_until(&mut speaker, "snapshot")
        .await
        .expect("a snapshot");

    drop(redis);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let said = "said while redis was away";
    speaker.send(json!({"t": "chat", "text": said})).await;
    let echoed = next_of(&mut speaker, "lobby_chat", Duration::from_secs(10))
        .await
        .expect("the line is said on its own process");
    assert_eq!(echoed["text"], said);
    let posted = carol
        .post(
            "/api/challenges",
            json!({"kind": "fetlar", "time_control": "3d", "side": "first", "to": "bob"}),
        )
        .await;
    assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    let id = posted.json()["id"].as_str().unwrap().to_owned();

    let _redis = Redis::start_on(port).expect("redis starts again on its port");
    let until = Instant::now() + Duration::from_secs(20);
    let (mut line, mut challenge) = (false, false);
    while !(line && challenge) {
        let message = next_json(&mut b_socket, until).await.unwrap_or_else(|| {
            panic!("bob's socket on process two: line {line}, challenge {challenge}")
        });
        match message["t"].as_str() {
            Some("lobby_chat") => line |= message["text"] == said,
            Some("lobby_chat_history") => {
                line |= message["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["text"] == said);
            }
            Some("my_challenges") => {
                challenge |= message["incoming"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["id"] == id.as_str());
            }
            _ => {}
        }
    }
}
