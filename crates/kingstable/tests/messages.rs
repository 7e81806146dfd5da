//! Messages as a user reads them: each said once, in English, on its own line.

use arena::client::UgiClient;

mod common;
use common::{kingstable, kingstable_with_input};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn a_camelot_position_with_too_many_pieces_is_said_once() {
    let cases = [
        (
            "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMNN3/2NMMMMMMN2/12/12/10/8/2 w",
            "White has 5 knights, but a side starts with 4 and never gains pieces",
        ),
        (
            "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3MMMMMM3/2MMMMMMMM2/12/12/10/8/2 w",
            "White has 14 men, but a side starts with 10 and never gains pieces",
        ),
    ];
    for (position, reason) in cases {
        let out = kingstable(&["moves", "--game", "camelot", "--position", position]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!("kingstable: bad --position {position:?}: {reason}\n")
        );
    }
}

#[test]
fn a_refused_rules_tag_is_said_once() {
    let dir = std::env::temp_dir().join(format!("kingstable-messages-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("thirteen.otg");
    std::fs::write(&record, "[rules:dim:13 atkf:y]\n\n1. d1-d3 h6-h9\n").unwrap();
    let out = kingstable(&["replay", "--game", "copenhagen", record.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    let reason = "rules tag: unsupported rules: dim:13 (only 11x11 boards are played)";
    let line = stdout.lines().next().unwrap();
    assert!(line.ends_with(reason), "{stdout}");
    assert_eq!(line.matches("unsupported").count(), 1, "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyze_prints_the_side_to_move_on_its_own_line() {
    let out = kingstable(&["analyze", "--game", "camelot", "--depth", "1"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let board_end = lines
        .iter()
        .rposition(|l| l.trim() == "A B C D E F G H I J K L")
        .unwrap();
    assert_eq!(
        lines[board_end + 1],
        "White to move; castle moves used: White 0, Black 0; 0 plies without capture or castle entry"
    );
    assert_eq!(lines[board_end + 2], camelot::START_FEN);
    assert_eq!(
        lines[board_end + 3],
        "searching with 1 thread(s), level 6 (maximum), scores for White"
    );

    let out = kingstable(&["analyze", "--game", "fetlar", "--depth", "1"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\nattackers to move\n/3ttttt3/"),
        "{stdout}"
    );
    assert!(
        stdout.contains("level 6 (maximum), scores for the attackers\n"),
        "{stdout}"
    );
}

#[test]
fn play_says_who_moves_first_in_english() {
    for (game, sentence) in [
        ("copenhagen", "The attackers move first."),
        ("camelot", "White moves first."),
    ] {
        let out = kingstable_with_input(&["play", "--game", game, "--plain"], "quit\n");
        assert!(out.status.success());
        let stdout = text(&out.stdout);
        let intro = stdout.lines().next().unwrap();
        assert!(intro.ends_with(sentence), "{intro}");
    }
    // Defending, the AI moves first.
    let out = kingstable_with_input(
        &[
            "play",
            "--game",
            "fetlar",
            "--side",
            "defenders",
            "--level",
            "1",
            "--think",
            "100ms",
            "--plain",
        ],
        "quit\n",
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout
            .lines()
            .next()
            .unwrap()
            .ends_with("The attackers move first."),
        "{stdout}"
    );
}

#[test]
fn an_engine_that_cannot_start_is_said_once() {
    let err = UgiClient::spawn("/nonexistent/kingstable-engine", ["engine"]).unwrap_err();
    let chain = format!("{:#}", anyhow::Error::from(err));
    assert!(
        chain.starts_with("cannot start engine \"/nonexistent/kingstable-engine\": "),
        "{chain}"
    );
    let reason = &chain["cannot start engine \"/nonexistent/kingstable-engine\": ".len()..];
    assert!(!reason.is_empty());
    assert_eq!(chain.matches(reason).count(), 1, "{chain}");
}

#[test]
fn a_match_with_an_engine_that_cannot_start_fails_at_once() {
    for spec in ["ugi:/nonexistent/engine", "otep:/nonexistent/engine"] {
        let out = kingstable(&[
            "match",
            "--game",
            "fetlar",
            "--engine1",
            spec,
            "--engine2",
            "level:1",
            "--games",
            "4",
            "--movetime",
            "100ms",
        ]);
        assert_eq!(out.status.code(), Some(2), "{spec}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with("kingstable: game 1: "), "{stderr}");
        assert!(stderr.contains("failed to start"), "{stderr}");
        assert!(stderr.contains("/nonexistent/engine"), "{stderr}");
        // Said once: no "cannot start X: cannot start X".
        assert_eq!(stderr.matches("cannot start").count(), 1, "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            !text(&out.stdout).contains("final score"),
            "no games were scored"
        );
    }
}
