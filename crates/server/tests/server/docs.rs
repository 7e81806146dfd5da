//! docs/API.md documents every endpoint and every error code, and every documented
//! endpoint is routed; each socket's messages are those documented for it, both ways.

use std::collections::BTreeSet;

use crate::common;

use reqwest::{Method, StatusCode};
use serde_json::json;
use server::ErrorCode;
use server::api::ENDPOINTS;
use server::live::{LobbyMessage, ServerMessage};

use common::ws::Ws;
use common::{Database, Db, TestServer, test_config};

fn api_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/API.md");
    std::fs::read_to_string(path).expect("docs/API.md")
}

#[test]
fn every_error_code_is_documented_with_its_status() {
    let doc = api_md();
    for code in ErrorCode::ALL {
        let row = format!("| `{}` | {} |", code.as_str(), code.status().as_u16());
        assert!(doc.contains(&row), "docs/API.md lacks the row {row}");
    }
}

#[test]
fn every_endpoint_is_documented() {
    let doc = api_md();
    for (method, path) in ENDPOINTS {
        let heading = format!("### `{method} {path}`");
        assert!(doc.contains(&heading), "docs/API.md lacks {heading}");
    }
}

/// The endpoints docs/API.md documents: its headings "### `METHOD /path`" (the web
/// client's "### `GET /` and other paths" is the router's fallback, not an endpoint).
fn documented_endpoints(doc: &str) -> BTreeSet<(String, String)> {
    doc.lines()
        .filter_map(|line| line.strip_prefix("### `")?.strip_suffix('`'))
        .filter_map(|heading| {
            let (method, path) = heading.split_once(' ')?;
            Some((method.to_owned(), path.to_owned()))
        })
        .collect()
}

#[test]
fn every_documented_endpoint_is_listed() {
    let listed: BTreeSet<(String, String)> = ENDPOINTS
        .iter()
        .map(|(method, path)| ((*method).to_owned(), (*path).to_owned()))
        .collect();
    let documented = documented_endpoints(&api_md());
    assert!(documented.len() > 40, "{documented:?}");
    for endpoint in &documented {
        assert!(
            listed.contains(endpoint),
            "docs/API.md documents {endpoint:?}, which api::ENDPOINTS lacks"
        );
    }
    assert_eq!(listed.len(), ENDPOINTS.len(), "an endpoint listed twice");
}

/// The tags (`"t"`) of the messages in the "Server → client" table of the section whose
/// heading is `heading` (up to the next `###` heading).
fn server_to_client(doc: &str, heading: &str) -> BTreeSet<String> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("{heading}")) + heading.len();
    let section = &doc[start..];
    let section = &section[..section.find("\n### ").unwrap_or(section.len())];
    let table = section
        .split_once("Server → client")
        .unwrap_or_else(|| panic!("{heading}: no Server → client table"))
        .1;
    let rows = table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'));
    let mut tags = BTreeSet::new();
    for row in rows {
        // The first cell: the message (or several, `/`-separated).
        let cell = row
            .trim_start_matches('|')
            .split(" | ")
            .next()
            .unwrap_or("");
        let mut rest = cell;
        while let Some(at) = rest.find("\"t\":\"") {
            rest = &rest[at + 5..];
            let end = rest.find('"').expect("a closed tag");
            tags.insert(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    assert!(!tags.is_empty(), "{heading}: an empty table");
    tags
}

#[test]
fn the_game_sockets_messages_are_those_documented() {
    let documented = server_to_client(&api_md(), "### `GET /ws/game/{id}`");
    let sent: BTreeSet<String> = ServerMessage::TAGS
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
    assert_eq!(
        sent, documented,
        "ServerMessage and docs/API.md's Server → client table of /ws/game/{{id}}"
    );
}

/// Every message a lobby socket sends is documented for it, and every message documented
/// is one it sends: a [`LobbyMessage`], or one seen on a real socket (the lobby chat's,
/// `my_challenges`, and the refusals and `pong` it shares with the game socket).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_sockets_messages_are_those_documented() {
    let documented = server_to_client(&api_md(), "### `GET /ws/lobby`");
    for tag in LobbyMessage::TAGS {
        assert!(
            documented.contains(*tag),
            "the lobby message {tag} is not in docs/API.md's table"
        );
    }
    let db = Database::fresh(Db::Sqlite).await.expect("sqlite");
    let server = TestServer::start(test_config(&db)).await;
    let mut astrid = server.client();
    astrid.sign_up("astrid", "a long password").await;
    let mut seen = BTreeSet::new();
    let mut socket = Ws::open(&server, &astrid, "/ws/lobby").await;
    socket
        .send(json!({"t": "chat", "text": "anyone for a game?"}))
        .await;
    socket.send(json!({"t": "no_such_message"})).await;
    socket.send(json!({"t": "ping"})).await;
    let wanted = ["snapshot", "my_challenges", "lobby_chat", "error", "pong"];
    while !wanted.iter().all(|t| seen.contains(*t)) {
        let message = socket.next().await;
        seen.insert(message["t"].as_str().expect("a tag").to_owned());
    }
    // A socket opened later is sent the chat said before it.
    let mut later = Ws::open(&server, &astrid, "/ws/lobby").await;
    later.until("lobby_chat_history").await;
    seen.insert("lobby_chat_history".to_owned());
    for tag in &seen {
        assert!(
            documented.contains(tag),
            "the lobby socket sent {tag}, which docs/API.md's table lacks"
        );
    }
    for tag in &documented {
        assert!(
            LobbyMessage::TAGS.contains(&tag.as_str()) || seen.contains(tag),
            "docs/API.md's lobby table has {tag}, which the lobby socket did not send"
        );
    }
    server.stop().await;
}

#[test]
fn every_socket_message_and_action_is_documented_with_an_example() {
    let doc = api_md();
    for tag in server::live::ServerMessage::TAGS
        .iter()
        .chain(server::live::LobbyMessage::TAGS)
    {
        let example = format!("{{\"t\":\"{tag}\"");
        let spaced = format!("{{\"t\": \"{tag}\"");
        assert!(
            doc.contains(&example) || doc.contains(&spaced),
            "docs/API.md has no example of the {tag} message"
        );
    }
    for reason in server::live::chat::ChatRefusal::ALL {
        let quoted = format!("`{}`", reason.word());
        assert!(
            doc.contains(&quoted),
            "docs/API.md does not name the chat refusal {quoted}"
        );
    }
    for action in server::live::Action::ALL {
        let name = serde_json::to_value(action).unwrap();
        let quoted = format!("`{}`", name.as_str().unwrap());
        assert!(
            doc.contains(&quoted),
            "docs/API.md does not name the action {quoted}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_listed_endpoint_is_routed() {
    let db = Database::fresh(Db::Sqlite).await.expect("sqlite");
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    for (method, path) in ENDPOINTS {
        let path = path.replace("{name}", "nobody");
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let reply = client.request(method.clone(), &path, None).await;
        assert_ne!(
            reply.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        if reply.status == StatusCode::NOT_FOUND {
            assert_ne!(
                reply.json()["error"]["message"],
                "no such endpoint",
                "{method} {path} is not routed"
            );
        }
    }
    server.stop().await;
}
