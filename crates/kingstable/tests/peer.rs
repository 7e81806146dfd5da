//! `kingstable match` against the real hnefatafl.org program (`hnefatafl-text-protocol`,
//! from the AGPL crate `hnefatafl-copenhagen`, installed by `bench/install-peers.sh` and
//! run only as a separate process), over both of its transports.
//!
//! These tests need the program on `PATH`. Without it they say so and pass, unless
//! `KINGSTABLE_REQUIRE_PEER` is set, as `.ci/run` does after installing it: then a missing
//! program fails them.

use std::path::{Path, PathBuf};

const PEER: &str = "hnefatafl-text-protocol";

fn peer_available() -> bool {
    let found = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(PEER).is_file()));
    if !found {
        assert!(
            std::env::var_os("KINGSTABLE_REQUIRE_PEER").is_none(),
            "{PEER} is not on PATH but KINGSTABLE_REQUIRE_PEER is set (bench/install-peers.sh)"
        );
        eprintln!("{PEER} is not installed (bench/install-peers.sh): skipped");
    }
    found
}

mod common;
use common::kingstable;

/// A fresh directory for a match's records, removed when dropped.
fn out_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("kingstable-peer-{name}-"))
        .tempdir()
        .unwrap()
}

/// The first 142 plies of archive game 78, legal by both programs' rules: the
/// hnefatafl.org program holds its games drawn after 140 turns, ours go on.
fn long_opening(dir: &Path) -> PathBuf {
    let archive: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "tafl",
        "tests",
        "data",
        "aagenielsen_archive_part1.csv",
    ]
    .iter()
    .collect();
    let text = std::fs::read_to_string(archive).unwrap();
    let line = text.lines().find(|l| l.starts_with("78,")).unwrap();
    let moves: Vec<&str> = line.split(',').nth(1).unwrap().split_whitespace().collect();
    assert!(moves.len() > 142);
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("openings.txt");
    std::fs::write(&path, moves[..142].join(" ")).unwrap();
    path
}

fn run_match(engine2: &str, extra: &[&str], dir: &Path) -> String {
    let dir = dir.to_string_lossy();
    let mut args = vec![
        "match",
        "--game",
        "copenhagen",
        "--engine1",
        "level:2",
        "--engine2",
        engine2,
        "--games",
        "2",
        "--movetime",
        "100ms",
        "--out",
        &dir,
    ];
    args.extend_from_slice(extra);
    let out = kingstable(&args);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn games_the_peer_holds_drawn_after_140_turns_are_not_scored() {
    if !peer_available() {
        return;
    }
    for (name, engine2) in [
        ("stdin", format!("htp:{PEER}")),
        ("tcp", format!("htp-host:{PEER} --depth 1")),
    ] {
        let out = out_dir(&format!("long-{name}"));
        let dir = out.path();
        let openings = long_opening(dir);
        let text = run_match(
            &engine2,
            &["--openings", &openings.to_string_lossy()],
            &dir.join("games"),
        );
        // Game 1: our attackers move at ply 143, which the peer refuses; game 2: the peer
        // is asked to move at ply 143 and holds the game over.
        assert!(
            text.contains("final score of level:2 vs htp") && text.contains(": 0 - 0 - 0"),
            "{name}: {text}"
        );
        assert!(text.contains("2 game(s) not scored"), "{name}: {text}");
        for game in ["game-001.otg", "game-002.otg"] {
            let record = std::fs::read_to_string(dir.join("games").join(game)).unwrap();
            assert!(record.contains("[Refusal:"), "{name}: {record}");
            assert!(record.contains("[result:?]"), "{name}: {record}");
        }
    }
}

#[test]
fn a_short_match_against_the_peer_in_tcp_mode_is_refereed_and_recorded() {
    if !peer_available() {
        return;
    }
    let out = out_dir("tcp");
    let dir = out.path();
    let engine2 = format!("htp-host:{PEER} --depth 1");
    let text = run_match(&engine2, &["--draw-after", "120"], dir);
    // Both games are played out (scored, or reported apart if the peer's house rules
    // refused one of our moves) and neither player failed.
    assert!(
        text.contains("game 1/2") && text.contains("game 2/2"),
        "{text}"
    );
    assert!(
        text.contains("final score of level:2 vs htp-host:"),
        "{text}"
    );
    assert!(!text.contains("failure"), "{text}");
    for game in ["game-001.otg", "game-002.otg"] {
        let path = dir.join(game);
        let record = std::fs::read_to_string(&path).unwrap();
        assert!(
            record.contains("hnefatafl-text-protocol --depth 1"),
            "{record}"
        );
        let replay = kingstable(&[
            "replay",
            "--game",
            "copenhagen",
            "--json",
            &path.to_string_lossy(),
        ]);
        let report: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
        assert_eq!(report["error"], serde_json::Value::Null, "{record}");
    }
}
