//! The lobby chat on the home page (issue 21, item 5), against a real server on
//! 127.0.0.1, each case on SQLite and on PostgreSQL: accounts talk over `/ws/lobby` and
//! every lobby socket hears them (visitors too), visitors and guests may not write, bad
//! messages change nothing, a ban or mute from another process holds on an open socket,
//! a report reaches the moderators, and the last messages come again to a socket opened
//! later, after a restart too, bounded in number.

use crate::common;

use reqwest::StatusCode;
use serde_json::{Value, json};

use common::ws::Ws;
use common::{Client, Database, TestServer, test_config};
use server::admin::{self, ChatAction};
use server::live::chat::{BURST, MAX_CHARS};
use server::live::lobby_chat::HISTORY;
use server::store::Store;

async fn start(db: &Database) -> TestServer {
    TestServer::start(test_config(db)).await
}

/// A lobby socket past its snapshot: returns it with the chat history it was sent
/// (none is sent while the chat is empty: a ping's answer comes first then).
async fn open(server: &TestServer, client: &Client) -> (Ws, Vec<Value>) {
    let mut socket = Ws::open(server, client, "/ws/lobby?feed=lobby").await;
    let first = socket.next().await;
    assert_eq!(first["t"], "snapshot", "{first}");
    socket.send(json!({"t": "ping"})).await;
    let next = socket.next().await;
    if next["t"] == "pong" {
        return (socket, Vec::new());
    }
    assert_eq!(next["t"], "lobby_chat_history", "{next}");
    let lines = next["messages"].as_array().unwrap().clone();
    assert!(!lines.is_empty());
    assert_eq!(socket.next().await["t"], "pong");
    (socket, lines)
}

async fn signed_up(server: &TestServer, name: &str) -> Client {
    let mut client = server.client();
    let reply = client.sign_up(name, "a long password").await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    client
}

/// The next `lobby_chat` or `error` message (skipping lobby changes).
async fn next_chat_or_error(socket: &mut Ws) -> Value {
    loop {
        let message = socket.next().await;
        if message["t"] == "lobby_chat" || message["t"] == "error" {
            return message;
        }
    }
}

async fn say(socket: &mut Ws, text: &str) {
    socket.send(json!({"t": "chat", "text": text})).await;
}

/// Says `text` and expects to hear it back.
async fn said(socket: &mut Ws, text: &str) -> Value {
    say(socket, text).await;
    let heard = next_chat_or_error(socket).await;
    assert_eq!(heard["t"], "lobby_chat", "{heard}");
    assert_eq!(heard["text"], text);
    heard
}

/// Says `text` and expects the refusal: returns `REASON: MESSAGE`.
async fn refused(socket: &mut Ws, text: &str) -> String {
    say(socket, text).await;
    let answer = next_chat_or_error(socket).await;
    assert_eq!(answer["t"], "error", "{text:?} was said: {answer}");
    common::chat_refusal(&answer)
}

async fn accounts_talk_and_everyone_in_the_lobby_hears(db: Database) {
    let server = start(&db).await;
    let alice = signed_up(&server, "alice").await;
    let bob = signed_up(&server, "bob").await;
    let (mut sa, history) = open(&server, &alice).await;
    assert!(history.is_empty(), "{history:?}");
    let (mut sb, _) = open(&server, &bob).await;
    let (mut visitor, _) = open(&server, &server.client()).await;

    say(&mut sa, "  hello lobby  ").await;
    let heard = next_chat_or_error(&mut sa).await;
    assert_eq!(heard["from"], "alice");
    assert_eq!(heard["text"], "hello lobby", "trimmed");
    assert!(heard["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(next_chat_or_error(&mut sb).await, heard);
    assert_eq!(next_chat_or_error(&mut visitor).await, heard);
    let answer = said(&mut sb, "hi alice").await;
    assert_eq!(next_chat_or_error(&mut sa).await, answer);
    assert_eq!(next_chat_or_error(&mut visitor).await, answer);

    // A visitor and a guest read but may not write.
    let refusal = refused(&mut visitor, "me too").await;
    assert!(refusal.starts_with("sign_in: sign in"), "{refusal}");
    let mut guest = server.client();
    guest.post_empty("/api/guest").await;
    let (mut sg, history) = open(&server, &guest).await;
    assert_eq!(history.len(), 2, "the guest reads: {history:?}");
    let refusal = refused(&mut sg, "a guest").await;
    assert!(refusal.contains("sign in"), "{refusal}");

    // A personal socket (feed=me) carries no lobby chat and takes none.
    let mut me = Ws::open(&server, &alice, "/ws/lobby?feed=me").await;
    assert_eq!(me.next().await["t"], "my_games");
    assert_eq!(me.next().await["t"], "my_challenges");
    say(&mut me, "from the header socket").await;
    let answer = me.next().await;
    assert_eq!(answer["code"], "chat_refused", "{answer}");

    // Nothing refused was said: the others heard nothing more.
    sb.send(json!({"t": "ping"})).await;
    let next = sb.next().await;
    assert_eq!(next["t"], "pong", "{next}");
    server.stop().await;
}
both!(talk, accounts_talk_and_everyone_in_the_lobby_hears);

async fn bad_messages_are_refused_and_change_nothing(db: Database) {
    let server = start(&db).await;
    let alice = signed_up(&server, "alice").await;
    let (mut sa, _) = open(&server, &alice).await;
    for bad in [
        String::new(),
        "   ".to_owned(),
        "x".repeat(MAX_CHARS + 1),
        "two\nlines".to_owned(),
        "right\u{202E}to left".to_owned(),
        "fuck you".to_owned(),
    ] {
        refused(&mut sa, &bad).await;
    }
    // Not a message of this socket: a clear error, and the socket goes on.
    for bad in [
        json!({"t": "chat"}),
        json!({"t": "chat", "text": "hi", "room": "players"}),
        json!({"t": "move", "mv": "d1-d3"}),
        json!("text"),
    ] {
        sa.send(bad.clone()).await;
        let answer = sa.next().await;
        assert_eq!(answer["code"], "bad_message", "{bad}: {answer}");
    }
    // The rate limit: a burst of BURST, then refused (the refusals above count too, so
    // a fresh account).
    let bob = signed_up(&server, "bob").await;
    let (mut sb, _) = open(&server, &bob).await;
    for i in 0..BURST {
        said(&mut sb, &format!("message {i}")).await;
    }
    let refusal = refused(&mut sb, "one too many").await;
    assert!(refusal.starts_with("too_many: too many"), "{refusal}");
    // None of the refused messages was stored.
    let (_, history) = open(&server, &server.client()).await;
    let texts: Vec<&str> = history
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..BURST).map(|i| format!("message {i}")).collect();
    assert_eq!(texts, expected);
    server.stop().await;
}
both!(bad_messages, bad_messages_are_refused_and_change_nothing);

async fn a_ban_from_another_process_holds_on_an_open_socket_and_reports_reach_moderators(
    db: Database,
) {
    let server = start(&db).await;
    let alice = signed_up(&server, "alice").await;
    let mut bob = signed_up(&server, "bob").await;
    let (mut sa, _) = open(&server, &alice).await;
    let message = said(&mut sa, "buy cheap gold").await;

    // The admin command's process: its own connection to the same database.
    let admin = Store::open(&db.url, 1).await.unwrap();
    admin::run(&admin, &ChatAction::Ban("alice".into()))
        .await
        .unwrap();
    let refusal = refused(&mut sa, "still here").await;
    assert!(refusal.starts_with("banned: "), "{refusal}");
    admin::run(&admin, &ChatAction::Unban("alice".into()))
        .await
        .unwrap();
    said(&mut sa, "sorry").await;
    admin::run(&admin, &ChatAction::Mute("alice".into(), 5))
        .await
        .unwrap();
    let refusal = refused(&mut sa, "quiet?").await;
    assert!(refusal.starts_with("muted: "), "{refusal}");

    // Bob reports the first message; a moderator reads it among the reports.
    let report = format!("/api/chat/{}/report", message["id"].as_str().unwrap());
    let reply = bob.post(&report, json!({"reason": "spam"})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let again = bob.post(&report, json!({"reason": "spam"})).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    let listed = admin::run(&admin, &ChatAction::Reports(10)).await.unwrap();
    assert!(
        listed.contains("lobby  alice: \"buy cheap gold\"") && listed.contains("\"spam\""),
        "{listed}"
    );
    // An unknown message cannot be reported; a visitor with no cookie cannot report.
    let reply = bob.post("/api/chat/nosuchmessage/report", json!({})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text);
    let mut visitor = server.client();
    let reply = visitor.post(&report, json!({})).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text);
    admin.close().await;
    server.stop().await;
}
both!(
    ban,
    a_ban_from_another_process_holds_on_an_open_socket_and_reports_reach_moderators
);

async fn the_last_messages_come_again_after_a_restart_bounded(db: Database) {
    let server = start(&db).await;
    let alice = signed_up(&server, "alice").await;
    let (mut sa, _) = open(&server, &alice).await;
    let mut said_texts = Vec::new();
    for i in 0..3 {
        let text = format!("said {i}");
        said(&mut sa, &text).await;
        said_texts.push(text);
    }
    // A socket opened now gets them, oldest first.
    let (_, history) = open(&server, &server.client()).await;
    let texts: Vec<&str> = history
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, said_texts);
    drop(sa);
    server.stop().await;

    // More than the history holds, stored while the server is down.
    let store = Store::open(&db.url, 1).await.unwrap();
    let user = store.user_by_name("alice").await.unwrap().unwrap().id;
    let start_at = server::store::now_ms() + 1_000;
    for i in 0..HISTORY {
        let text = format!("stored {i}");
        store
            .add_lobby_chat(&user, "alice", &text, start_at + i64::try_from(i).unwrap())
            .await
            .unwrap();
        said_texts.push(text);
    }
    store.close().await;

    let server = start(&db).await;
    let (_, history) = open(&server, &server.client()).await;
    let texts: Vec<&str> = history
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        said_texts[said_texts.len() - HISTORY..],
        "the last {HISTORY}, oldest first"
    );
    server.stop().await;
}
both!(
    restart,
    the_last_messages_come_again_after_a_restart_bounded
);

async fn moderators_read_the_reports_and_sanction_from_the_site(db: Database) {
    let server = start(&db).await;
    let alice = signed_up(&server, "alice").await;
    let mut bob = signed_up(&server, "bob").await;
    let mut carol = signed_up(&server, "carol").await;
    let (mut sa, _) = open(&server, &alice).await;
    let message = said(&mut sa, "buy cheap gold").await;
    let report = format!("/api/chat/{}/report", message["id"].as_str().unwrap());
    let reply = bob.post(&report, json!({"reason": "spam"})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);

    // Not a moderator: no reports, no sanctions; a visitor is asked to sign in.
    let reply = carol.get("/api/mod/reports").await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text);
    let ban = json!({"user": "alice", "action": "ban"});
    let reply = carol.post("/api/mod/sanction", ban.clone()).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text);
    let reply = server.client().get("/api/mod/reports").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text);
    assert!(carol.whoami().await.get("moderator").is_none());
    said(&mut sa, "still free").await;

    // Carol is made a moderator (`kingstable admin grant moderator carol`).
    let admin = Store::open(&db.url, 1).await.unwrap();
    let carol_id = admin.user_by_name("carol").await.unwrap().unwrap().id;
    assert!(admin.set_moderator(&carol_id, true).await.unwrap());
    assert_eq!(carol.whoami().await["moderator"], true);
    let reply = carol.get("/api/mod/reports").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let reports = reply.json()["reports"].clone();
    assert_eq!(reports.as_array().unwrap().len(), 1, "{reports}");
    let first = &reports[0];
    assert_eq!(first["message_id"], message["id"]);
    assert_eq!(first["room"], "lobby");
    assert!(first.get("game_id").is_none(), "{first}");
    assert_eq!(first["author"], "alice");
    assert_eq!(first["author_is_account"], true);
    assert_eq!(first["body"], "buy cheap gold");
    assert_eq!(first["reporter"], "bob");
    assert_eq!(first["reason"], "spam");

    // A ban from the site holds on alice's open socket at her next message.
    let reply = carol.post("/api/mod/sanction", ban.clone()).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(reply.json()["user"], "alice");
    assert!(refused(&mut sa, "hello?").await.starts_with("banned: "));
    let unban = json!({"user": "ALICE", "action": "unban"});
    let reply = carol.post("/api/mod/sanction", unban).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    said(&mut sa, "sorry").await;
    let mute = json!({"user": "alice", "action": "mute", "minutes": 60});
    let reply = carol.post("/api/mod/sanction", mute).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert!(refused(&mut sa, "quiet?").await.starts_with("muted: "));

    // Bad requests change nothing; a moderator cannot be sanctioned from the site.
    for (body, status) in [
        (
            json!({"user": "nobody", "action": "ban"}),
            StatusCode::NOT_FOUND,
        ),
        (
            json!({"user": "bob", "action": "kick"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "bob", "action": "mute"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "bob", "action": "mute", "minutes": 0}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "bob", "action": "mute", "minutes": 600_000}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "bob", "action": "ban", "minutes": 5}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "bob", "action": "ban", "why": "x"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"user": "carol", "action": "ban"}),
            StatusCode::FORBIDDEN,
        ),
    ] {
        let reply = carol.post("/api/mod/sanction", body.clone()).await;
        assert_eq!(reply.status, status, "{body}: {}", reply.text);
    }
    let (mut sb, _) = open(&server, &bob).await;
    said(&mut sb, "bob still talks").await;
    for query in ["?limit=0", "?limit=201", "?limit=x", "?other=1"] {
        let reply = carol.get(&format!("/api/mod/reports{query}")).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{query}: {}",
            reply.text
        );
    }
    admin.close().await;
    server.stop().await;
}
both!(
    moderators,
    moderators_read_the_reports_and_sanction_from_the_site
);
