//! docs/API.md documents every endpoint and every error code, and every documented
//! endpoint is routed.

use crate::common;

use reqwest::{Method, StatusCode};
use server::ErrorCode;
use server::api::ENDPOINTS;

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

#[test]
fn every_socket_message_and_action_is_documented_with_an_example() {
    let doc = api_md();
    for tag in server::live::ServerMessage::TAGS
        .into_iter()
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
