//! The `kingstable` binary driven as a user or script would.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{kingstable, kingstable_with_input};

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn data(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "tafl",
        "tests",
        "data",
        name,
    ]
    .iter()
    .collect();
    path.to_string_lossy().into_owned()
}

/// A file in a temporary directory of its own, removed with it when dropped; it reads
/// as its path.
struct TempFile {
    path: String,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TempFile {
    type Target = str;

    fn deref(&self) -> &str {
        &self.path
    }
}

fn temp_file(name: &str, contents: &str) -> TempFile {
    let dir = tempfile::Builder::new()
        .prefix("kingstable-cli-")
        .tempdir()
        .unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    TempFile {
        path: path.to_string_lossy().into_owned(),
        _dir: dir,
    }
}

/// A fresh temporary directory, removed when dropped.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("kingstable-{name}-"))
        .tempdir()
        .unwrap()
}

/// Runs `kingstable match …`, which must succeed; its stdout.
fn successful_match(args: &[&str]) -> String {
    let out = kingstable(&[&["match"], args].concat());
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Every named record in `dir` replays by our rules without an error.
fn records_replay(game: &str, dir: &std::path::Path, names: &[&str]) {
    for name in names {
        let path = dir.join(name);
        let record = std::fs::read_to_string(&path).unwrap();
        let replay = kingstable(&["replay", "--game", game, "--json", &path.to_string_lossy()]);
        let report: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
        assert_eq!(report["error"], serde_json::Value::Null, "{record}");
        assert!(report["plies"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn perft_prints_the_count_last() {
    let out = kingstable(&["perft", "--game", "copenhagen", "--depth", "2"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out).lines().last(), Some("6788"));
}

#[test]
fn perft_divide_lists_moves_then_the_total() {
    let out = kingstable(&["perft", "--game", "fetlar", "--depth", "2", "--divide"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 117);
    assert_eq!(lines[116], "6788");
    let sum: u64 = lines[..116]
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 6788);
}

#[test]
fn perft_from_a_position_and_moves() {
    let out = kingstable(&[
        "perft",
        "--game",
        "copenhagen",
        "--depth",
        "1",
        "--position",
        "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
        "--side",
        "defenders",
    ]);
    assert_eq!(stdout(&out).lines().last(), Some("60"));
    let out = kingstable(&[
        "perft",
        "--game",
        "copenhagen",
        "--depth",
        "1",
        "--moves",
        "d1-d3",
    ]);
    assert_eq!(stdout(&out).lines().last(), Some("58"));
}

#[test]
fn moves_lists_captures_and_json() {
    let out = kingstable(&[
        "moves",
        "--game",
        "copenhagen",
        "--moves",
        "d1-d3 e5-e2 g1-g3 f4-c4",
    ]);
    let text = stdout(&out);
    assert!(text.lines().any(|l| l == "g3-e3xe2"), "{text}");
    let out = kingstable(&["moves", "--game", "fetlar", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 116);
    assert_eq!(list[0]["captures"], 0);
}

#[test]
fn bad_input_gets_a_clear_error_and_status_2() {
    for (args, expected) in [
        (vec!["moves", "--game", "chess"], "unknown game"),
        (
            vec!["moves", "--game", "fetlar", "--moves", "d1-d3 d3-d9"],
            "move 2",
        ),
        // A malformed position is reported as what is wrong with it, with or without
        // --side.
        (
            vec!["moves", "--game", "fetlar", "--position", "/11/"],
            "11 ranks",
        ),
        (
            vec![
                "moves",
                "--game",
                "fetlar",
                "--position",
                "/11/",
                "--side",
                "attackers",
            ],
            "11 ranks",
        ),
        (
            vec!["replay", "--game", "fetlar", "/no/such/file"],
            "cannot read",
        ),
        (
            vec!["analyze", "--game", "fetlar", "--hash", "99999999"],
            "from 1 to 65536",
        ),
        (vec!["engine", "--hash", "0"], "from 1 to 65536"),
    ] {
        let out = kingstable(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

#[test]
fn position_errors_say_what_is_wrong_and_refuse_conflicts() {
    const TAFL_START: &str =
        "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";
    const CAMELOT_BOARD: &str =
        "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2";
    let attackers = format!("{TAFL_START} attackers");
    let white = format!("{CAMELOT_BOARD} w 0 0 0");
    for (args, expected) in [
        // Malformed, no --side: what is wrong with the board, not a missing side.
        (
            vec!["moves", "--game", "camelot", "--position", "2/8/10"],
            "expected 16",
        ),
        (
            vec![
                "moves",
                "--game",
                "copenhagen",
                "--position",
                "/3ttttt3/5x5/",
            ],
            "expected 11 ranks",
        ),
        // A sound board without a side asks for one.
        (
            vec!["moves", "--game", "fetlar", "--position", TAFL_START],
            "or give --side attackers|defenders",
        ),
        (
            vec!["moves", "--game", "camelot", "--position", CAMELOT_BOARD],
            "or give --side white|black",
        ),
        // A side in the string and a different --side conflict.
        (
            vec![
                "moves",
                "--game",
                "fetlar",
                "--position",
                &attackers,
                "--side",
                "defenders",
            ],
            "--position and --side disagree: the position has the attackers to move",
        ),
        (
            vec![
                "moves",
                "--game",
                "camelot",
                "--position",
                &white,
                "--side",
                "black",
            ],
            "--position and --side disagree: the position has the white to move",
        ),
        (
            vec!["moves", "--game", "fetlar", "--side", "defenders"],
            "--side needs --position",
        ),
    ] {
        let out = kingstable(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("needs --side"), "{args:?}: {err}");
    }
    // The same side both ways is fine.
    for (game, position, side, count) in [
        ("copenhagen", attackers.as_str(), "attackers", "116"),
        ("camelot", white.as_str(), "white", "100"),
    ] {
        let out = kingstable(&[
            "perft",
            "--game",
            game,
            "--depth",
            "1",
            "--position",
            position,
            "--side",
            side,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout(&out).lines().last(), Some(count));
    }
}

#[test]
fn replay_goes_on_past_a_game_with_a_move_after_its_end() {
    let moves = temp_file(
        "after-the-end.txt",
        "d1-d3 e5-e2\n\nd1-d3 --- e5-e2\nd1-d3 h6-h9 timeout\n",
    );
    let record = data("millar_vs_schachus_2015.otg");
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &moves, &record]);
    assert_eq!(out.status.code(), Some(1), "one game has an error");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "every game of both files is reported");
    let bad = &lines[1];
    assert_eq!(
        (bad["game"].clone(), bad["index"].clone()),
        (3.into(), 2.into())
    );
    assert_eq!(bad["line"], 3);
    assert_eq!(bad["plies"], 1);
    assert_eq!(bad["error"]["ply"], 2);
    assert_eq!(bad["error"]["move"], "e5-e2");
    assert_eq!(bad["error"]["line"], 3);
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("after the end of the game"),
        "{bad}"
    );
    assert_eq!(lines[2]["reason"], "timeout");
    assert_eq!(lines[3]["plies"], 68);
    assert_eq!(lines[3]["error"], serde_json::Value::Null);

    let out = kingstable(&["replay", "--game", "copenhagen", &moves, &record]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.starts_with("game 1: 2 plies, ongoing\n"), "{text}");
    assert!(
        text.contains("game 2, line 3: ERROR at ply 2 (e5-e2): \"e5-e2\" after the end"),
        "{text}"
    );
    assert!(
        text.contains("game 3, line 4: 2 plies, defenders win by timeout"),
        "{text}"
    );
    assert!(
        text.ends_with("4 games replayed, 1 with errors\n"),
        "{text}"
    );
}

#[test]
fn replay_reads_standard_input_and_names_game_and_line() {
    let score = "[Round 1]\n\n1. d1-d3 h6-h9\n2. d3-d9\n[Round 2]\n\n1. d1-d3\n";
    let out = kingstable_with_input(&["replay", "--game", "fetlar", "-"], score);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("-: game 1: ERROR at ply 3 (d3-d9), line 4: "),
        "{text}"
    );
    assert!(
        text.contains("-: game 2, line 5: 1 plies, ongoing"),
        "{text}"
    );
    let out = kingstable_with_input(&["replay", "--game", "fetlar", "--json", "-"], score);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(first["game"], "-:1");
    assert_eq!(first["error"]["line"], 4);
    // convert reads standard input too.
    let out = kingstable_with_input(
        &["convert", "--game", "fetlar", "--to", "moves", "-"],
        "d1-d3 h6-h9 ---\n",
    );
    assert!(out.status.success());
    assert_eq!(stdout(&out), "d1-d3 h6-h9 ---\n");
}

#[test]
fn replay_json_lines_for_a_move_list() {
    let file = temp_file(
        "games.txt",
        "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2\n\nh1-h3 f8-i8 timeout\nd1-d3 e5-e2 ---\nd1-d3 d3-d4\n",
    );
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &file]);
    assert_eq!(out.status.code(), Some(1), "one game has an error");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["game"], 1);
    assert_eq!(lines[0]["plies"], 5);
    assert_eq!(lines[0]["status"], "ongoing");
    assert_eq!(lines[0]["reason"], serde_json::Value::Null);
    assert_eq!(lines[1]["game"], 3);
    assert_eq!(
        lines[1]["status"], "defenders_win",
        "attackers to move lost on time"
    );
    assert_eq!(lines[1]["reason"], "timeout");
    assert_eq!(
        lines[2]["status"], "defenders_win",
        "attackers to move resigned"
    );
    assert_eq!(lines[2]["reason"], "resignation");
    assert_eq!(lines[3]["error"]["ply"], 2);
    assert_eq!(lines[3]["error"]["move"], "d3-d4");
    assert_eq!(lines[3]["plies"], 1);
}

#[test]
fn replay_reports_the_fetlar_final_error_and_the_otg_result() {
    let fetlar = data("fetlar_english_national_championship_2014_final.txt");
    let out = kingstable(&["replay", "--game", "fetlar", "--json", &fetlar]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["error"]["ply"], 23);
    assert_eq!(report["error"]["move"], "i11-i3xi2");

    let otg = data("millar_vs_schachus_2015.otg");
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &otg]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["plies"], 68);
    assert_eq!(report["error"], serde_json::Value::Null);
    assert_eq!(report["status"], "defenders_win");
    assert_eq!(report["reason"], "resignation");
    assert!(report["game"].as_str().unwrap().ends_with(".otg"));
}

#[test]
fn replay_reads_the_records_opentafl_writes() {
    for (game, file, plies, status, reason) in [
        (
            "copenhagen",
            "opentafl-written-untimed.otg",
            159,
            "defenders_win",
            "repetition",
        ),
        (
            "copenhagen",
            "opentafl-written-timed.otg",
            131,
            "defenders_win",
            "repetition",
        ),
        (
            "fetlar",
            "opentafl-written-fetlar-king-captured.otg",
            109,
            "attackers_win",
            "king_captured",
        ),
    ] {
        let out = kingstable(&["replay", "--game", game, "--json", &data(file)]);
        assert!(out.status.success(), "{file}: {}", stdout(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["plies"], plies, "{file}");
        assert_eq!(report["status"], status, "{file}");
        assert_eq!(report["reason"], reason, "{file}");
    }
}

#[test]
fn replay_takes_a_match_records_stated_ending_outside_the_rules() {
    // A match record ends with the reason the runner gave; an ending outside the rules
    // (an adjudicated draw) is reported as stated, an ending by the rules that the moves
    // do not reach is not believed.
    let record = |reason: &str, result: &str| {
        format!(
            "[Event:Kingstable match]\n[Reason:{reason}]\n[result:{result}]\n\n1. d1-d3 h6-h9\n"
        )
    };
    let adjudicated = temp_file("adjudicated.otg", &record("adjudication", "0"));
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &adjudicated]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "draw");
    assert_eq!(report["reason"], "adjudication");

    let claimed = temp_file("claimed.otg", &record("corner_escape", "-1"));
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &claimed]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "defenders_win");
    assert_eq!(report["reason"], "resignation");
}

#[test]
fn replay_of_the_archive_is_clean_with_repetition_off() {
    let csv = std::fs::read_to_string(data("aagenielsen_archive_part1.csv")).unwrap();
    let moves: String = csv
        .lines()
        .skip(1)
        .map(|l| format!("{}\n", l.split(',').nth(1).unwrap()))
        .collect();
    let file = temp_file("archive.txt", &moves);
    let out = kingstable(&[
        "replay",
        "--game",
        "copenhagen",
        "--repetition",
        "off",
        &file,
    ]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with("900 games replayed, 0 with errors\n"));
}

#[test]
fn every_command_has_help() {
    for command in ["perft", "moves", "replay"] {
        let out = kingstable(&[command, "--help"]);
        assert!(out.status.success());
        assert!(stdout(&out).contains("--game"));
    }
}

#[test]
fn convert_between_record_forms_round_trips() {
    let otg = data("millar_vs_schachus_2015.otg");
    let out = kingstable(&["convert", "--game", "copenhagen", "--to", "moves", &otg]);
    assert!(out.status.success());
    let line = stdout(&out);
    assert!(
        line.ends_with("h9-i9 ---\n"),
        "the attackers, to move, resigned"
    );
    let moves_file = temp_file("millar.txt", &line);
    let out = kingstable(&[
        "convert",
        "--game",
        "copenhagen",
        "--to",
        "record",
        &moves_file,
    ]);
    let record = stdout(&out);
    assert!(record.contains("[result:-1]"));
    assert!(record.contains("[termination:resignation]"));
    assert!(record.contains("4. e11-c11 g7-g10xf10\n"));
    let record_file = temp_file("millar.otg", &record);
    let out = kingstable(&["replay", "--game", "copenhagen", "--json", &record_file]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["plies"], 68);
    assert_eq!(report["status"], "defenders_win");
}

#[test]
fn convert_writes_nothing_when_a_game_does_not_replay() {
    let fetlar = data("fetlar_english_national_championship_2014_final.txt");
    let target = temp_file("should-stay.txt", "untouched");
    let out = kingstable(&[
        "convert", "--game", "fetlar", "--to", "record", "-o", &target, &fetlar,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ply 23"));
    assert_eq!(std::fs::read_to_string(&*target).unwrap(), "untouched");
}

#[test]
fn convert_camelot_scores_and_move_lists() {
    let warren: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "camelot",
        "tests",
        "data",
        "warren_1930_openings.txt",
    ]
    .iter()
    .collect();
    let warren = warren.to_string_lossy().into_owned();
    let out = kingstable(&["convert", "--game", "camelot", "--to", "moves", &warren]);
    let lines = stdout(&out);
    assert_eq!(lines.lines().count(), 2);
    assert!(lines.starts_with("F7-F8 F11-F9 D7-F7 E11-E9 C6-D7 G10-E8 F8xD8 E9xC7xE5\n"));
    let out = kingstable(&["convert", "--game", "camelot", "--to", "record", &warren]);
    let score = stdout(&out);
    assert!(score.contains("[Opening \"B\"]"));
    assert!(score.contains("2. D7-F5-H7 J11-H11"));
}

#[test]
fn match_stops_when_the_sprt_decides_and_prints_the_llr() {
    // Full strength against a one-ply player at depth 2 (deterministic): the test
    // accepts H1 well before the 40 games (the arena test counts the same match).
    let text = successful_match(&[
        "--game",
        "fetlar",
        "--engine1",
        "level:maximum",
        "--engine2",
        "greedy",
        "--depth",
        "2",
        "--draw-after",
        "60",
        "--games",
        "40",
        "--sprt",
        "elo0=0,elo1=100,alpha=0.1,beta=0.1",
    ]);
    assert!(text.contains("sprt: LLR "), "{text}");
    assert!(text.contains("(-2.20, 2.20) [0, 100]"), "{text}");
    let last = text
        .lines()
        .rfind(|l| l.starts_with("SPRT ("))
        .expect(&text);
    assert!(last.contains(": H1 accepted after "), "{last}");
    assert!(last.contains("; Elo +"), "{last}");
    assert!(!text.contains("game 40/40"), "{text}");
    let out = kingstable(&[
        "match",
        "--game",
        "fetlar",
        "--engine1",
        "greedy",
        "--engine2",
        "greedy",
        "--sprt",
        "elo0=5,elo1=0,alpha=0.05,beta=0.05",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("elo0 must be below elo1"));
}

#[test]
fn match_runs_an_external_ugi_engine_and_saves_records() {
    let out = temp_dir("match");
    let out_dir = out.path();
    let ugi = format!("ugi:{} engine", env!("CARGO_BIN_EXE_kingstable"));
    let dir = out_dir.to_string_lossy().into_owned();
    let text = successful_match(&[
        "--game",
        "camelot",
        "--engine1",
        "level:1",
        "--engine2",
        &ugi,
        "--games",
        "2",
        "--depth",
        "1",
        "--draw-after",
        "40",
        "--out",
        &dir,
    ]);
    assert!(text.contains("final score of level:1 vs ugi:"), "{text}");
    assert!(!text.contains("failure"), "{text}");
    records_replay("camelot", out_dir, &["game-001.txt", "game-002.txt"]);
}

/// Our own OpenTafl Engine Protocol engine as `--engine2`.
fn our_otep_engine() -> String {
    format!("otep:{} engine --otep", env!("CARGO_BIN_EXE_kingstable"))
}

/// Two games of `game` between `engine1` and our OTEP engine, with `extra` options, saved
/// in a fresh directory named after `name`; the output and the directory.
fn otep_match(
    name: &str,
    game: &str,
    engine1: &str,
    extra: &[&str],
) -> (String, tempfile::TempDir) {
    let out_dir = temp_dir(name);
    let dir = out_dir.path().to_string_lossy().into_owned();
    let otep = our_otep_engine();
    let mut args = vec![
        "--game",
        game,
        "--engine1",
        engine1,
        "--engine2",
        &otep,
        "--games",
        "2",
        "--out",
        &dir,
    ];
    args.extend_from_slice(extra);
    (successful_match(&args), out_dir)
}

#[test]
fn match_runs_an_external_otep_engine() {
    // Our own OpenTafl Engine Protocol engine, driven as OpenTafl drives it.
    let (text, out_dir) = otep_match(
        "otep",
        "fetlar",
        "level:1",
        &["--movetime", "150ms", "--draw-after", "60"],
    );
    let otep = our_otep_engine();
    assert!(text.contains("final score of level:1 vs otep:"), "{text}");
    assert!(
        !text.contains("failure") && !text.contains("not scored"),
        "{text}"
    );
    records_replay("fetlar", out_dir.path(), &["game-001.otg", "game-002.otg"]);
    // A fixed depth cannot be asked of an OTEP engine, and Camelot is not OpenTafl's.
    let out = kingstable(&[
        "match",
        "--game",
        "fetlar",
        "--engine1",
        "greedy",
        "--engine2",
        &otep,
        "--depth",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot ask for a depth"));
    let out = kingstable(&[
        "match",
        "--game",
        "camelot",
        "--engine1",
        "greedy",
        "--engine2",
        &otep,
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn match_tells_an_otep_engine_the_repetition_rule_it_referees_by() {
    let (text, out_dir) = otep_match(
        "otep-tfr",
        "copenhagen",
        "greedy",
        &[
            "--movetime",
            "100ms",
            "--draw-after",
            "16",
            "--repetition",
            "mover-loses",
        ],
    );
    assert!(!text.contains("failure"), "{text}");
    let record = std::fs::read_to_string(out_dir.path().join("game-001.otg")).unwrap();
    assert!(
        record.contains("[rules:dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:"),
        "{record}"
    );
    records_replay(
        "copenhagen",
        out_dir.path(),
        &["game-001.otg", "game-002.otg"],
    );
    let out = kingstable(&[
        "match",
        "--game",
        "camelot",
        "--engine1",
        "greedy",
        "--engine2",
        "greedy",
        "--repetition",
        "draw",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tafl"));
}

#[test]
fn match_refuses_unknown_engines_and_bad_time_controls() {
    let out = kingstable(&[
        "match",
        "--game",
        "fetlar",
        "--engine1",
        "level:9",
        "--engine2",
        "greedy",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = kingstable(&[
        "match",
        "--game",
        "fetlar",
        "--engine1",
        "greedy",
        "--engine2",
        "greedy",
        "--tc",
        "x+1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tc"));
    // Days per move and no clock are for people, not engines.
    for tc in ["3d", "untimed"] {
        let out = kingstable(&[
            "match",
            "--game",
            "fetlar",
            "--engine1",
            "greedy",
            "--engine2",
            "greedy",
            "--tc",
            tc,
        ]);
        assert_eq!(out.status.code(), Some(2), "{tc}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("MINUTES+SECONDS"), "{tc}: {stderr}");
    }
}

#[test]
fn match_clocks_read_minutes_plus_seconds_like_play() {
    // 0.05+0.1: three seconds each and a tenth of a second per move, as `play --clock`
    // reads it (in seconds, as the match runner once read it, this would be 50 ms).
    let out = kingstable(&[
        "match",
        "--game",
        "copenhagen",
        "--engine1",
        "level:1",
        "--engine2",
        "greedy",
        "--games",
        "2",
        "--tc",
        "0.05+0.1",
        "--draw-after",
        "40",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("final score"), "{stdout}");
    assert!(
        !stdout.contains("on time"),
        "nobody runs out of 3 s: {stdout}"
    );
}

#[test]
fn a_match_cut_short_resumes_where_it_stopped() {
    let out = temp_dir("resume");
    let out_dir = out.path();
    let dir = out_dir.to_string_lossy().into_owned();
    let run = |games: &str, engine2: &str, resume: bool| {
        let mut args = vec![
            "match",
            "--game",
            "fetlar",
            "--engine1",
            "level:1",
            "--engine2",
            engine2,
            "--games",
            games,
            "--depth",
            "1",
            "--draw-after",
            "30",
            "--out",
            &dir,
        ];
        if resume {
            args.push("--resume");
        }
        kingstable(&args)
    };
    let first = run("2", "greedy", false);
    assert!(first.status.success());
    let first_text = stdout(&first);
    let saved: Vec<String> = ["game-001.otg", "game-002.otg"]
        .iter()
        .map(|name| std::fs::read_to_string(out_dir.join(name)).unwrap())
        .collect();

    // The whole match is four games: the two saved ones are kept as they are, two played.
    let second = run("4", "greedy", true);
    let text = stdout(&second);
    assert!(second.status.success(), "{text}");
    assert_eq!(text.matches("(saved earlier)").count(), 2, "{text}");
    assert!(
        text.contains("game 3/4") && text.contains("game 4/4"),
        "{text}"
    );
    for (name, before) in ["game-001.otg", "game-002.otg"].iter().zip(&saved) {
        assert_eq!(
            &std::fs::read_to_string(out_dir.join(name)).unwrap(),
            before
        );
    }
    assert!(out_dir.join("game-004.otg").exists());
    // Both runs agree on the first two games' results.
    let first_score = first_text
        .lines()
        .find(|l| l.starts_with("game 2/2"))
        .unwrap();
    let resumed = text.lines().find(|l| l.starts_with("game 2/4")).unwrap();
    assert_eq!(
        first_score.split(": ").nth(1),
        resumed
            .split(": ")
            .nth(1)
            .map(|r| r.trim_end_matches(" (saved earlier)"))
    );
    assert!(text.contains("4 games"), "{text}");

    // Resuming with another engine is refused before anything is played.
    let other = run("4", "level:2", true);
    assert_eq!(other.status.code(), Some(2));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("cannot resume") && err.contains("Engine2"),
        "{err}"
    );
    // --resume needs --out.
    let no_out = kingstable(&[
        "match",
        "--game",
        "fetlar",
        "--engine1",
        "greedy",
        "--engine2",
        "greedy",
        "--resume",
    ]);
    assert_eq!(no_out.status.code(), Some(2));
}

#[test]
fn bench_prints_the_signature_and_with_threads_the_speedup() {
    let one = kingstable(&["bench", "--depth", "2"]);
    assert!(one.status.success());
    let one = stdout(&one);
    let signature = one.lines().last().unwrap();
    assert!(signature.parse::<u64>().unwrap() > 0, "{one}");
    assert!(!one.contains("speedup"));

    let two = kingstable(&["bench", "--depth", "2", "--threads", "2"]);
    assert!(two.status.success());
    let two = stdout(&two);
    assert_eq!(
        two.lines().last().unwrap(),
        signature,
        "the one-thread count"
    );
    assert!(two.lines().next().unwrap().contains("time@2"));
    assert_eq!(two.matches("on 2 threads the same depths").count(), 3);

    let zero = kingstable(&["bench", "--threads", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--threads"));
}

#[test]
fn levels_rates_a_ladder_from_the_greedy_player_and_saves_each_match() {
    // Levels 1 and 2 only (they stop at one and two plies): four games a match.
    let dir = temp_dir("levels");
    let out = kingstable(&[
        "levels",
        "--game",
        "fetlar",
        "--games",
        "4",
        "--top",
        "2",
        "--draw-after",
        "80",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("== fetlar: level 1 against the greedy player"),
        "{text}"
    );
    assert!(
        text.contains("== fetlar: level 2 against level 1"),
        "{text}"
    );
    assert!(
        text.contains("fetlar: ratings on one scale, the greedy player at 1000"),
        "{text}"
    );
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("player "))
        .collect();
    assert!(table[0].contains("as attackers") && table[0].contains("as defenders"));
    assert!(table[1].starts_with("greedy") && table[1].contains("1000 (anchor)"));
    for (row, level) in table[2..4].iter().zip(["level 1", "level 2"]) {
        assert!(row.starts_with(level), "{row}");
        // A rating, its interval and the score of four games.
        assert!(row.contains(" ± ") && row.contains('%'), "{row}");
    }
    records_replay(
        "fetlar",
        &dir.path().join("level2"),
        &["game-001.otg", "game-004.otg"],
    );
    // A rung past 6 is refused.
    let out = kingstable(&["levels", "--game", "fetlar", "--top", "7"]);
    assert_eq!(out.status.code(), Some(2));
}
