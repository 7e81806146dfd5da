//! `kingstable play` in line mode (stdout is a pipe here), driven as a script would:
//! moves and commands on stdin, the board, the AI's moves and the result on stdout.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    stdout: String,
    stderr: String,
    success: bool,
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Waits for the child to exit, killing it after a minute so a hang fails the test
/// instead of stalling the suite.
fn finish(mut child: Child) -> Run {
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("waiting works").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kingstable play did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output is read");
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        success: output.status.success(),
    }
}

/// Runs `kingstable play ARGS` with `input` on stdin (then end of input).
fn play(args: &[&str], input: &str) -> Run {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(input.as_bytes()).expect("input is written");
    drop(stdin);
    let run = finish(child);
    assert!(
        !run.stderr.contains("panicked"),
        "kingstable panicked:\n{}",
        run.stderr
    );
    run
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kingstable-play-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The board lines of the `n`-th board printed (rank label first).
fn board(stdout: &str, n: usize) -> Vec<String> {
    let boards: Vec<&str> = stdout.split("    a b c d e f g h i j k\n").collect();
    // Boards are framed by the file letters above and below: every second piece.
    boards[1 + 2 * n].lines().map(str::to_owned).collect()
}

fn line_after<'a>(stdout: &'a str, prefix: &str) -> Vec<&'a str> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .collect()
}

#[test]
fn line_mode_plays_the_ai_undoes_and_saves_a_record_that_replays() {
    let dir = temp_dir("ai");
    let record = dir.join("game.otg");
    let input = format!("d1-d3\nundo\nd1-d3\nsave {}\nquit\n", record.display());
    let run = play(
        &["--game", "copenhagen", "--level", "1", "--think", "200ms"],
        &input,
    );
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let out = &run.stdout;
    assert!(out.contains("you play the attackers against the AI (level 1, beginner)"));

    // The start board, then the board after d1-d3: the attacker left d1 for d3.
    let start = board(out, 0);
    let after = board(out, 1);
    assert_eq!(start[10], "  1 + . . X X X X X . . + 1");
    assert_eq!(after[10], "  1 + . . . X X X X . . + 1");
    assert_eq!(start[8], "  3 . . . . . . . . . . . 3");
    assert_eq!(after[8], "  3 . . . X . . . . . . . 3");

    // The AI answered each of the two d1-d3, undo took back the first pair.
    assert_eq!(line_after(out, "played: "), ["d1-d3", "d1-d3"]);
    let ai_moves = line_after(out, "ai: ");
    assert_eq!(ai_moves.len(), 2, "{out}");
    assert!(out.contains("undone: 2 moves"), "{out}");
    assert_eq!(
        line_after(out, "saved: "),
        [record.display().to_string().as_str()]
    );

    // The record holds the game as played and replays under the rules.
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("[attackers:human]"), "{text}");
    assert!(
        text.contains(&format!("1. d1-d3 {}", ai_moves[1])),
        "{text}"
    );
    let replay = Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .args(["replay", "--game", "copenhagen"])
        .arg(&record)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn line_mode_explains_bad_input_and_changes_nothing() {
    let run = play(
        &["--game", "fetlar", "--vs", "human"],
        "d1-d9\nhello world\nf6\nz1-z2\n7\nload\nundo\n\u{fffd}\u{0}\n\nd1-d3\n",
    );
    assert!(run.success);
    let errors = line_after(&run.stdout, "error: ");
    assert_eq!(
        errors,
        [
            "d1-d9 is illegal: the way is blocked at d6 (pieces never jump, 2a)",
            "\"hello world\" is not a move or a command (type help for the commands)",
            "no legal move starts on f6",
            "cannot read move \"z1-z2\": start square \"z1\" is not a square a1..k11",
            "7: there is no choice to make",
            "load needs a file: load FILE",
            "nothing to undo",
            "cannot read move \"\u{fffd}\\0\": expected from-to, like d1-d3",
        ]
    );
    // Only the good move changed the board.
    assert_eq!(line_after(&run.stdout, "played: "), ["d1-d3"]);
    assert_eq!(run.stdout.matches("    a b c d e f g h i j k\n").count(), 4);
}

#[test]
fn line_mode_offers_a_choice_for_a_square_and_camelot_capture_sets() {
    let run = play(&["--game", "fetlar", "--vs", "human"], "d1\n2\n");
    assert!(
        run.stdout
            .contains("choose: moves of the piece on d1 (type the number)")
    );
    assert!(run.stdout.contains("  2) d1-d3\n"), "{}", run.stdout);
    assert_eq!(line_after(&run.stdout, "played: "), ["d1-d3"]);

    let dir = temp_dir("camelot");
    let record = dir.join("start.txt");
    let fen = "2/8/10/12/7m1n2/3m2mm2n1/3nmmmmn3/7m4/8M3/3NMM6/2N1MMMMMN2/3M6M1/12/10/8/2 b 0 0 3";
    std::fs::write(&record, format!("[FEN \"{fen}\"]\n")).unwrap();
    let run = play(
        &["--game", "camelot", "--vs", "human"],
        &format!("load {}\nh9-f5\n1\n", record.display()),
    );
    assert!(run.stdout.contains("loaded: "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("choose: H9 to F5 can be played 2 ways (type the number)"),
        "{}",
        run.stdout
    );
    let played = line_after(&run.stdout, "played: ");
    assert_eq!(played.len(), 1);
    assert!(played[0].starts_with("H9xJ7x") && played[0].ends_with("xH7xF5"));
    assert!(run.stdout.contains(", captured "), "{}", run.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn line_mode_prints_the_result_and_how_it_came_about() {
    let dir = temp_dir("result");
    let record = dir.join("endgame.otg");
    // The king on c1 has an open line to the corner a1.
    std::fs::write(
        &record,
        "[rules:dim:11 atkf:n start:/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/]\n",
    )
    .unwrap();
    let path = record.display().to_string();
    let run = play(
        &[
            "--game",
            "fetlar",
            "--side",
            "defenders",
            "--level",
            "1",
            "--load",
            &path,
        ],
        "c1-a1\nd1-d3\n",
    );
    assert!(run.stdout.contains("played: c1-a1"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("result: defenders_win (corner_escape)\n")
    );
    assert!(
        run.stdout
            .contains("defenders win: the king escaped to a corner\n")
    );
    assert!(run.stdout.contains("error: the game is over"));
    assert!(
        !run.stdout.contains("ai: "),
        "the AI does not move after the end"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn line_mode_flag_fall_ends_the_game_on_time() {
    // 1.2 seconds each; nobody moves.
    let mut child = spawn(&["--game", "fetlar", "--vs", "human", "--clock", "0.02+0"]);
    std::thread::sleep(Duration::from_millis(2500));
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"d1-d3\n").unwrap();
    drop(stdin);
    let run = finish(child);
    assert!(
        run.stdout.contains("clock: attackers 0:01."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("result: defenders_win (timeout)\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("defenders win: the attackers ran out of time")
    );
    assert!(run.stdout.contains("error: the game is over"));
}

#[test]
fn line_mode_hint_and_stop_answer_with_legal_moves() {
    // The AI moves first here, searching on two threads; `stop` cuts its search short,
    // then a hint is asked for.
    let run = play(
        &[
            "--game",
            "copenhagen",
            "--side",
            "defenders",
            "--level",
            "6",
            "--think",
            "20s",
            "--threads",
            "2",
        ],
        "stop\nhint\nquit\n",
    );
    assert!(run.success);
    let ai = line_after(&run.stdout, "ai: ");
    assert_eq!(ai.len(), 1, "{}", run.stdout);
    let hint = line_after(&run.stdout, "hint: ");
    assert_eq!(hint.len(), 1, "{}", run.stdout);
    // Check both moves are legal by playing them in a game between two people.
    let check = play(
        &["--game", "copenhagen", "--vs", "human"],
        &format!("{}\n{}\n", ai[0], hint[0]),
    );
    assert_eq!(
        line_after(&check.stdout, "played: ").len(),
        2,
        "{}",
        check.stdout
    );
}

#[test]
fn bad_options_are_refused_before_the_game_starts() {
    for (args, why) in [
        (&["--game", "chess"][..], "unknown game"),
        (&["--game", "fetlar", "--side", "white"][..], "unknown side"),
        (
            &["--game", "fetlar", "--clock", "5-3"][..],
            "MINUTES+SECONDS",
        ),
        (
            &["--game", "fetlar", "--vs", "human", "--level", "2"][..],
            "--level",
        ),
        (
            &["--game", "fetlar", "--load", "/nonexistent/x.otg"][..],
            "cannot read",
        ),
        (&["--game", "camelot", "--threads", "0"][..], "--threads"),
    ] {
        let run = play(args, "");
        assert!(!run.success, "{args:?}");
        assert!(run.stderr.contains(why), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn line_mode_a_square_alone_lists_its_one_move_instead_of_playing_it() {
    // After d1-d2 e7-e9 the attacker on e11 can only go to e10.
    let run = play(
        &["--game", "copenhagen", "--vs", "human"],
        "d1-d2\ne7-e9\ne11\n1\nquit\n",
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("choose: moves of the piece on e11 (type the number)\n  1) e11-e10\n"),
        "{}",
        run.stdout
    );
    // Played only when picked.
    assert_eq!(
        line_after(&run.stdout, "played: "),
        ["d1-d2", "e7-e9", "e11-e10"]
    );
}

#[test]
fn line_mode_takes_the_session_clock_syntax_days_per_move_and_untimed() {
    let run = play(
        &["--game", "fetlar", "--vs", "human", "--clock", "3d"],
        "d1-d3\n",
    );
    assert!(run.success, "{}", run.stderr);
    assert!(run.stdout.contains(", clock 3d."), "{}", run.stdout);
    // Each turn starts with the full three days: the side not to move shows exactly
    // three days, before the first move (the defenders) and after it (the attackers,
    // whose clock went back to three days); the side to move may have lost a second to
    // a loaded machine by the time its clock is printed.
    let clocks: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("clock: "))
        .collect();
    assert!(clocks.len() >= 2, "{}", run.stdout);
    let full = "3d 0:00:00";
    let running = |t: &str| t == full || t.starts_with("2d 23:59:");
    for (i, line) in clocks.iter().take(2).enumerate() {
        let (attackers, defenders) = line
            .strip_prefix("attackers ")
            .and_then(|rest| rest.split_once(", defenders "))
            .unwrap_or_else(|| panic!("{line}"));
        let (waiting, moving) = if i == 0 {
            (defenders, attackers)
        } else {
            (attackers, defenders)
        };
        assert_eq!(waiting, full, "{line}");
        assert!(running(moving), "{line}");
    }
    let run = play(
        &["--game", "fetlar", "--vs", "human", "--clock", "untimed"],
        "d1-d3\n",
    );
    assert!(run.success, "{}", run.stderr);
    assert!(!run.stdout.contains("clock"), "{}", run.stdout);
    assert_eq!(line_after(&run.stdout, "played: "), ["d1-d3"]);
}
