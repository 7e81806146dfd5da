//! `kingstable perft` at the edges: depths that cannot be counted, and progress.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

mod common;
use common::kingstable;

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn a_tafl_depth_whose_count_might_not_fit_is_refused() {
    let out = kingstable(&["perft", "--game", "copenhagen", "--depth", "8"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "kingstable: depth 8 cannot be counted: here at most 7 plies are sure to fit in 64 \
         bits (a tafl piece has at most 20 moves; see --help)\n"
    );
    // With fewer pieces the bound allows more: the lone king and three attackers.
    let out = kingstable(&[
        "perft",
        "--game",
        "fetlar",
        "--position",
        "/11/11/11/t10/Kt9/t10/11/11/11/11/11/",
        "--side",
        "defenders",
        "--depth",
        "13",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("at most 12 plies"));
}

#[test]
fn the_help_explains_the_bound() {
    let out = kingstable(&["perft", "--help"]);
    let help = text(&out.stdout);
    assert!(help.contains("at most 20 moves"), "{help}");
    assert!(
        help.contains("from the start that allows 7 plies"),
        "{help}"
    );
    assert!(help.contains("--progress"), "{help}");
}

#[test]
fn progress_reports_every_first_move_on_request() {
    let out = kingstable(&["perft", "--game", "camelot", "--depth", "2", "--progress"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "10026\n");
    let stderr = text(&out.stderr);
    for k in 1..=100 {
        let prefix = format!("perft(2): {k}/100 first moves, ");
        assert!(stderr.lines().any(|l| l.starts_with(&prefix)), "{stderr}");
    }
    assert!(
        stderr.contains("\nperft(2): 100/100 first moves, 10026 leaves, "),
        "{stderr}"
    );
    assert!(stderr.lines().last().unwrap().starts_with("perft(2) in "));
}

#[test]
fn a_short_count_in_a_script_prints_no_progress() {
    let out = kingstable(&["perft", "--game", "copenhagen", "--depth", "3", "--divide"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 117);
    assert_eq!(stdout.lines().last(), Some("806344"));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("perft(3) in "));
}

#[test]
fn a_count_too_deep_to_finish_starts_at_once_and_shows_progress() {
    // Camelot has no static bound: a huge depth is not refused, and it must not stall
    // (or allocate per ply) before counting; its progress shows at once.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .args([
            "perft",
            "--game",
            "camelot",
            "--depth",
            "4000000000",
            "--progress",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        first.starts_with("perft(4000000000): 0/100 first moves, in C6-B5, "),
        "{first}"
    );
}
