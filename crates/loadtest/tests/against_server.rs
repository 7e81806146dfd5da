//! The load generator run against a real server in this process (SQLite in a temporary
//! directory, trusting `X-Forwarded-For` as `--spawn` makes it): a short run must play,
//! check every move and pass; a host other than this machine is refused.

use std::process::Command;
use std::time::Duration;

use server::{Config, DatabaseUrl, Server};

/// Starts a server on 127.0.0.1 in a thread of its own; returns its URL (it stops with
/// the test process).
fn start_server(dir: &std::path::Path) -> String {
    let config = Config {
        addr: "127.0.0.1:0".parse().expect("addr"),
        database: DatabaseUrl::sqlite_file(&dir.join("kingstable.db")),
        trust_proxy: true,
        ..Config::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        runtime.block_on(async move {
            let server = Server::bind(config).await.expect("server starts");
            tx.send(server.url()).expect("url sent");
            server
                .run(std::future::pending())
                .await
                .expect("server runs");
        });
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the server's URL")
}

fn loadtest(args: &[&str]) -> (bool, i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_kingstable-loadtest"))
        .args(args)
        .output()
        .expect("kingstable-loadtest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (
        output.status.success(),
        output.status.code().unwrap_or(-1),
        text,
    )
}

#[test]
fn a_short_run_plays_checks_every_move_and_passes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = start_server(dir.path());
    let json = dir.path().join("figures.json");
    let (ok, _, text) = loadtest(&[
        "--url",
        &url,
        "--forwarded",
        "--pairs",
        "3",
        "--spectators",
        "1",
        "--lobby",
        "5",
        "--idle-spectators",
        "4",
        "--idle-games",
        "2",
        "--duration",
        "4s",
        "--json",
        json.to_str().expect("utf-8 path"),
    ]);
    assert!(ok, "{text}");
    assert!(text.contains(": 0 mismatches"), "{text}");
    assert!(
        text.contains("lost moves: 0, errors: 0, spectator mismatches: 0"),
        "{text}"
    );
    let figures: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("figures written"))
            .expect("JSON figures");
    assert!(figures["moves"].as_u64() > Some(0), "{figures}");
    assert_eq!(figures["moves_checked"], figures["moves"], "{figures}");
    assert_eq!(figures["mismatches"], 0, "{figures}");
    assert!(figures["lobby_bytes"].as_u64() > Some(0), "{figures}");
}

#[test]
fn the_hostile_client_runs_beside_the_players() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = start_server(dir.path());
    let (ok, _, text) = loadtest(&[
        "--url",
        &url,
        "--forwarded",
        "--pairs",
        "1",
        "--hostile",
        "--slow-connections",
        "4",
        "--flood-ai-games",
        "1",
        "--rematch-chain",
        "2",
        "--flood-analyses",
        "1",
        "--calibration-moves",
        "2",
        "--duration",
        "6s",
    ]);
    // Fairness is measured, not required here (--fail-on-breach is not given): the run
    // must still play and check its moves without error.
    assert!(ok, "{text}");
    assert!(text.contains("hostile: 4 slow connections"), "{text}");
    assert!(text.contains("victim's AI move delay, calm:"), "{text}");
}

#[test]
fn other_hosts_are_refused() {
    for url in ["http://192.0.2.1:8080", "http://example.org:80"] {
        let (ok, code, text) = loadtest(&["--url", url, "--duration", "1s"]);
        assert!(!ok && code == 2, "{url}: {text}");
        assert!(text.contains("only talks to this machine"), "{url}: {text}");
    }
}

#[test]
fn settings_above_the_socket_bound_are_refused() {
    let (ok, code, text) = loadtest(&[
        "--url",
        "http://127.0.0.1:9",
        "--lobby",
        "100",
        "--max-sockets",
        "50",
    ]);
    assert!(!ok && code == 2, "{text}");
    assert!(text.contains("more than --max-sockets 50"), "{text}");
}
