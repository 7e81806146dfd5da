//! Game chat with moderation (issue 21, item 5), against a real server on 127.0.0.1,
//! each case on SQLite and on PostgreSQL: the players' room, the spectators' room that
//! the players cannot read until the end, chat off against the AI, the per-author rate
//! limit, the language filter, control characters, a ban from another process taking
//! hold on an open socket, and the chat stored and shown after the end.

use crate::common;

use reqwest::StatusCode;
use serde_json::{Value, json};

use common::ws::Ws;
use common::{Client, Database, TestServer, test_config};
use server::admin::{self, ChatAction};
use server::live::chat::{BURST, MAX_CHARS};
use server::store::{Store, now_ms};

async fn start(db: &Database) -> TestServer {
    TestServer::start(test_config(db)).await
}

/// `a` makes a friend game (first side), `b` joins.
async fn friend_game(a: &mut Client, b: &mut Client) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    id
}

/// A socket on game `id` past its first `state`.
async fn open(server: &TestServer, client: &Client, id: &str) -> Ws {
    let mut socket = Ws::open(server, client, &format!("/ws/game/{id}")).await;
    socket.state().await;
    socket
}

async fn say(socket: &mut Ws, room: &str, text: &str) {
    socket
        .send(json!({"t": "chat", "room": room, "text": text}))
        .await;
}

/// The next `chat` or `error` message (skipping the others).
async fn next_chat_or_error(socket: &mut Ws) -> Value {
    loop {
        let message = socket.next().await;
        if message["t"] == "chat" || message["t"] == "error" {
            return message;
        }
    }
}

/// Says `text` and expects the refusal: returns `REASON: MESSAGE`.
async fn refused(socket: &mut Ws, room: &str, text: &str) -> String {
    say(socket, room, text).await;
    let answer = next_chat_or_error(socket).await;
    assert_eq!(answer["t"], "error", "{text:?} was said: {answer}");
    common::chat_refusal(&answer)
}

/// Says `text` and expects to hear it back.
async fn said(socket: &mut Ws, room: &str, text: &str) -> Value {
    say(socket, room, text).await;
    let heard = next_chat_or_error(socket).await;
    assert_eq!(heard["t"], "chat", "{heard}");
    assert_eq!(heard["text"], text);
    assert_eq!(heard["room"], room);
    heard
}

async fn the_spectators_room_is_closed_to_the_players_until_the_end(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b).await;
    let mut watcher = server.client();
    assert_eq!(
        watcher.sign_up("watcher", "a long password").await.status,
        StatusCode::CREATED
    );
    let mut pa = open(&server, &a, &id).await;
    let mut pb = open(&server, &b, &id).await;
    let mut sw = open(&server, &watcher, &id).await;

    // Each writes only in their own room.
    let refusal = refused(&mut sw, "players", "hello players").await;
    assert!(refusal.contains("players"), "{refusal}");
    refused(&mut pa, "spectators", "hello spectators").await;
    // A guest watching may not write in the spectators' room.
    let mut sg = open(&server, &server.client(), &id).await;
    let mut guest = server.client();
    guest.post_empty("/api/guest").await;
    let mut sg2 = open(&server, &guest, &id).await;
    let refusal = refused(&mut sg2, "spectators", "hi").await;
    assert!(refusal.contains("sign in"), "{refusal}");

    // The spectator's message reaches the spectators, not the players: the players hear
    // the players' message said after it, and nothing before.
    let spectators = said(&mut sw, "spectators", "what a game").await;
    assert_eq!(spectators["from"], "watcher");
    assert_eq!(next_chat_or_error(&mut sg).await["text"], "what a game");
    let players = said(&mut pa, "players", "good luck").await;
    assert_eq!(next_chat_or_error(&mut pb).await, players);
    // The spectators do not hear the players' room either.
    say(&mut sw, "spectators", "second").await;
    assert_eq!(next_chat_or_error(&mut sw).await["text"], "second");

    // Nor does HTTP tell them.
    // Sorted: two messages said within the same millisecond may be listed either way.
    let seen = |reply: common::Reply| -> Vec<String> {
        let mut texts: Vec<String> = reply.json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_owned())
            .collect();
        texts.sort();
        texts
    };
    assert_eq!(
        seen(a.get(&format!("/api/games/{id}/chat")).await),
        ["good luck"]
    );
    assert_eq!(
        seen(watcher.get(&format!("/api/games/{id}/chat")).await),
        ["second", "what a game"]
    );
    // A spectator cannot report what they cannot read; a player can, once.
    let report = format!("/api/chat/{}/report", players["id"].as_str().unwrap());
    let reply = watcher.post(&report, json!({"reason": "rude"})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text);
    assert_eq!(
        b.post(&report, json!({"reason": "rude"})).await.status,
        StatusCode::CREATED
    );
    assert_eq!(b.post(&report, json!({})).await.status, StatusCode::OK);
    assert_eq!(
        server
            .state
            .store
            .chat_reports(players["id"].as_str().unwrap())
            .await
            .unwrap(),
        1
    );

    // The game ends: the players get the spectators' room, the spectators the players'.
    pa.send(json!({"t": "resign"})).await;
    let first = next_chat_or_error(&mut pa).await;
    assert_eq!(first["text"], "what a game", "{first}");
    assert_eq!(next_chat_or_error(&mut pa).await["text"], "second");
    assert_eq!(next_chat_or_error(&mut sw).await["text"], "good luck");
    // Both rooms are read by everyone now, over HTTP and on a new socket.
    let all = ["good luck", "second", "what a game"];
    assert_eq!(
        seen(server.client().get(&format!("/api/games/{id}/chat")).await),
        all
    );
    let mut late = open(&server, &server.client(), &id).await;
    let mut heard = Vec::new();
    for _ in 0..3 {
        heard.push(
            next_chat_or_error(&mut late).await["text"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    heard.sort();
    assert_eq!(heard, all);
    server.stop().await;

    // Stored with the game: read back by a new server.
    let server = start(&db).await;
    assert_eq!(
        seen(server.client().get(&format!("/api/games/{id}/chat")).await),
        all
    );
    server.stop().await;
}
both!(
    rooms,
    the_spectators_room_is_closed_to_the_players_until_the_end
);

async fn chat_is_off_against_the_ai(db: Database) {
    let server = start(&db).await;
    let mut a = server.client();
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "second", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut socket = open(&server, &a, &id).await;
    let refusal = refused(&mut socket, "players", "hello computer").await;
    assert!(refusal.contains("AI"), "{refusal}");
    let listed = a.get(&format!("/api/games/{id}/chat")).await.json();
    assert_eq!(listed["messages"], json!([]));
    server.stop().await;
}
both!(ai_game, chat_is_off_against_the_ai);

async fn bad_messages_are_refused_and_change_nothing(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b).await;
    let mut pa = open(&server, &a, &id).await;
    let long = "x".repeat(MAX_CHARS + 1);
    for (text, reason, why) in [
        ("fuck you", "language", "language filter"),
        ("abc\u{202E}fed", "not_one_line", "U+202E"),
        ("two\nlines", "not_one_line", "U+000A"),
        ("   ", "empty", "empty"),
        (long.as_str(), "too_long", "at most"),
    ] {
        let refusal = refused(&mut pa, "players", text).await;
        assert!(
            refusal.starts_with(&format!("{reason}: ")) && refusal.contains(why),
            "{text:?}: {refusal}"
        );
    }
    // Not a room.
    pa.send(json!({"t": "chat", "room": "everyone", "text": "hi"}))
        .await;
    assert_eq!(next_chat_or_error(&mut pa).await["code"], "bad_message");
    // Nothing was stored.
    assert_eq!(
        a.get(&format!("/api/games/{id}/chat")).await.json()["messages"],
        json!([])
    );

    // The rate limit: a burst, then a clear refusal.
    for i in 0..BURST {
        said(&mut pa, "players", &format!("message {i}")).await;
    }
    let refusal = refused(&mut pa, "players", "one too many").await;
    assert!(refusal.contains("too many"), "{refusal}");
    let stored = a.get(&format!("/api/games/{id}/chat")).await.json()["messages"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(stored, BURST as usize);
    server.stop().await;
}
both!(bad_messages, bad_messages_are_refused_and_change_nothing);

async fn a_ban_from_another_process_holds_on_an_open_socket(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    assert_eq!(
        a.sign_up("alice", "a long password").await.status,
        StatusCode::CREATED
    );
    assert_eq!(
        b.sign_up("bob", "a long password").await.status,
        StatusCode::CREATED
    );
    let id = friend_game(&mut a, &mut b).await;
    let mut pa = open(&server, &a, &id).await;
    said(&mut pa, "players", "hello").await;

    // The admin command's process: its own connection to the same database.
    let admin = Store::open(&db.url, 1).await.unwrap();
    let alice = admin.user_by_name("alice").await.unwrap().unwrap().id;
    let done = admin::run(&admin, &ChatAction::Ban("ALICE".into()))
        .await
        .unwrap();
    assert!(done.contains("alice is banned"), "{done}");
    let refusal = refused(&mut pa, "players", "still here").await;
    assert!(refusal.contains("banned"), "{refusal}");
    admin::run(&admin, &ChatAction::Unban("alice".into()))
        .await
        .unwrap();
    said(&mut pa, "players", "back").await;
    admin::run(&admin, &ChatAction::Mute("alice".into(), 5))
        .await
        .unwrap();
    let refusal = refused(&mut pa, "players", "quiet?").await;
    assert!(refusal.contains("muted"), "{refusal}");
    // A mute that has run out bars nothing.
    admin
        .mute_chat(&alice, now_ms() - 1, now_ms())
        .await
        .unwrap();
    // Five messages, refused ones too: the rate limit's burst.
    let message = said(&mut pa, "players", "free").await;
    // Bad commands change nothing.
    for bad in [
        ChatAction::Ban("nobody".into()),
        ChatAction::Mute("alice".into(), 0),
        ChatAction::Mute("alice".into(), admin::MAX_MUTE_MINUTES + 1),
    ] {
        assert!(admin::run(&admin, &bad).await.is_err(), "{bad:?}");
    }
    // A moderator reads the reports.
    let report = format!("/api/chat/{}/report", message["id"].as_str().unwrap());
    let reply = b.post(&report, json!({"reason": "spam"})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let listed = admin::run(&admin, &ChatAction::Reports(10)).await.unwrap();
    assert!(
        listed.contains("alice: \"free\"") && listed.contains("\"spam\""),
        "{listed}"
    );
    admin.close().await;
    server.stop().await;
}
both!(ban, a_ban_from_another_process_holds_on_an_open_socket);

async fn a_restarted_server_sends_the_chat_said_before(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b).await;
    let mut pa = open(&server, &a, &id).await;
    said(&mut pa, "players", "before the restart").await;
    drop(pa);
    server.stop().await;

    // The game resumes with its chat: a socket opened now gets it after its state.
    let server = start(&db).await;
    let mut pb = open(&server, &b, &id).await;
    let heard = next_chat_or_error(&mut pb).await;
    assert_eq!(heard["text"], "before the restart", "{heard}");
    assert_eq!(heard["room"], "players");
    // A spectator is not sent the players' room: its history (written right after
    // `state`, before the next message is read) is empty.
    let mut spectator = open(&server, &server.client(), &id).await;
    spectator.send(json!({"t": "ping"})).await;
    assert_eq!(
        next_chat_or_error_or_pong(&mut spectator).await["t"],
        "pong"
    );
    server.stop().await;
}
both!(restart, a_restarted_server_sends_the_chat_said_before);

/// The next `chat`, `error` or `pong` message.
async fn next_chat_or_error_or_pong(socket: &mut Ws) -> Value {
    loop {
        let message = socket.next().await;
        if matches!(message["t"].as_str(), Some("chat" | "error" | "pong")) {
            return message;
        }
    }
}
