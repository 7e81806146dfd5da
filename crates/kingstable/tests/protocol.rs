//! `kingstable engine` end to end: the binary driven through its pipes, by the protocol
//! crate's UGI client (as the match runner will) and by an OpenTafl-shaped script.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use arena::client::{ClientError, UgiClient};
use protocol::ugi::{Go, Query};

const WAIT: Duration = Duration::from_secs(60);

fn kingstable() -> &'static str {
    env!("CARGO_BIN_EXE_kingstable")
}

fn engine() -> UgiClient {
    let mut client = UgiClient::spawn(kingstable(), ["engine", "--hash", "8"]).unwrap();
    client.handshake(WAIT).unwrap();
    client
}

#[test]
fn ugi_client_drives_the_engine_binary() {
    let mut client = engine();
    let id = client.id().clone();
    assert!(id.name.unwrap().starts_with("Kingstable "));
    assert!(
        id.options
            .iter()
            .any(|o| o.starts_with("name Variant type combo")),
        "{:?}",
        id.options
    );
    client.set_option("Variant", "fetlar", WAIT).unwrap();
    client.new_game(WAIT).unwrap();
    client.set_position(None, &["d1-d3"], WAIT).unwrap();
    assert_eq!(client.query(Query::P1Turn, WAIT).unwrap(), "false");
    let legal = client.query(Query::Moves, WAIT).unwrap();
    let reply = client.go(&Go::depth(3), WAIT).unwrap();
    let best = reply.bestmove.unwrap();
    assert!(legal.split(' ').any(|m| m == best), "{best}");
    assert_eq!(reply.last_info.unwrap().depth, Some(3));
    match client.set_position(None, &["d1-d9"], WAIT) {
        Err(ClientError::Refused { command, message }) => {
            assert_eq!(command, "position startpos moves d1-d9");
            assert!(message.contains("d1-d9"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match client.set_option("Variant", "chess", WAIT) {
        Err(ClientError::Refused { message, .. }) => assert!(message.contains("chess")),
        other => panic!("{other:?}"),
    }
    assert!(client.quit(WAIT).unwrap().success());
}

#[test]
fn waiting_has_a_limit_and_stop_ends_an_infinite_search() {
    let mut client = engine();
    client.start_go(&Go::infinite()).unwrap();
    match client.wait_bestmove(Duration::from_millis(300)) {
        Err(ClientError::Timeout { waiting_for, .. }) => assert_eq!(waiting_for, "bestmove"),
        other => panic!("{other:?}"),
    }
    let reply = client.stop(WAIT).unwrap();
    assert!(reply.bestmove.is_some());
    assert!(reply.last_info.is_some());
    assert!(client.quit(WAIT).unwrap().success());
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    match UgiClient::spawn("/nonexistent/kingstable-engine", ["engine"]) {
        Err(ClientError::Spawn { program, .. }) => assert!(program.contains("nonexistent")),
        other => panic!("{other:?}"),
    }
}

/// Two engine processes play each other, every move checked by both, as the match runner
/// will do it.
fn self_play(variant: &str, plies: usize) -> (Vec<String>, String) {
    let mut engines = [engine(), engine()];
    for e in &mut engines {
        e.set_option("Variant", variant, WAIT).unwrap();
        e.set_option("Level", "beginner", WAIT).unwrap();
        e.new_game(WAIT).unwrap();
    }
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..plies {
        let mover = &mut engines[ply % 2];
        if mover.query(Query::GameOver, WAIT).unwrap() == "true" {
            break;
        }
        let best = mover
            .go(&Go::movetime(Duration::from_millis(50)), WAIT)
            .unwrap()
            .bestmove
            .expect("a move while the game is on");
        moves.push(best);
        for e in &mut engines {
            e.set_position(None, &moves, WAIT).unwrap();
        }
    }
    let results: Vec<String> = engines
        .iter_mut()
        .map(|e| e.query(Query::Result, WAIT).unwrap())
        .collect();
    assert_eq!(results[0], results[1]);
    for e in engines {
        assert!(e.quit(WAIT).unwrap().success());
    }
    (moves, results[0].clone())
}

#[test]
fn two_engines_play_copenhagen_through_the_client() {
    let (moves, result) = self_play("copenhagen", 24);
    assert!(moves.len() >= 2, "{moves:?}");
    assert!(["none", "p1win", "p2win", "draw"].contains(&result.as_str()));
    assert!(moves.iter().all(|m| m.contains('-')));
}

#[test]
fn two_engines_play_camelot_through_the_client() {
    let (moves, _) = self_play("camelot", 16);
    assert!(moves.len() >= 2, "{moves:?}");
    assert!(
        moves[0].chars().next().unwrap().is_ascii_uppercase(),
        "{moves:?}"
    );
}

/// `kingstable engine` with `script` on its standard input, which is then closed.
fn piped_engine(script: &[u8]) -> std::process::Child {
    let mut child = Command::new(kingstable())
        .args(["engine", "--hash", "8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script).unwrap();
    child
}

#[test]
fn a_piped_script_is_answered_to_the_end() {
    let child = piped_engine(b"ugi\nisready\nsetoption name Variant value camelot\nposition startpos moves E7-E8\nquery p1turn\nnonsense\ngo depth 2\n");
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.contains(&"ugiok") && lines.contains(&"readyok"));
    assert!(lines.contains(&"response false"));
    assert!(lines.contains(&"info string error: unknown command \"nonsense\""));
    assert!(lines.last().unwrap().starts_with("bestmove "), "{text}");
}

#[test]
fn the_end_of_input_stops_a_search_without_limits() {
    let mut child = piped_engine(b"position startpos\ngo\n");
    // Standard input is closed now: the search stops, answers and the engine exits.
    let lines = lines_of(child.stdout.take().unwrap());
    let best = expect(&lines, "bestmove ");
    assert_ne!(best, "bestmove none");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > WAIT {
            let _ = child.kill();
            panic!("the engine did not exit at the end of its input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
}

/// The engine's output lines, read on a thread so waits can time out.
fn lines_of(stdout: std::process::ChildStdout) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn expect(lines: &Receiver<String>, prefix: &str) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("waiting for {prefix:?}: {e}"));
        if line.starts_with(prefix) {
            return line;
        }
    }
}

/// `kingstable <args>` (an OTEP engine), its input and its output lines, once it has said
/// `hello`.
fn otep_engine(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    Receiver<String>,
) {
    let mut child = Command::new(kingstable())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    let stdin = child.stdin.take().unwrap();
    assert_eq!(expect(&lines, ""), "hello");
    (child, stdin, lines)
}

/// The engine's exit status, which must come within [`WAIT`].
fn exit_status(child: &mut std::process::Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "the engine did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn otep_engine_binary_plays_an_opentafl_shaped_game() {
    let (mut child, mut stdin, lines) =
        otep_engine(&["engine", "--otep", "--hash", "8", "--movetime", "200"]);
    let mut send = |line: &str| writeln!(stdin, "{line}").unwrap();
    send("hello");
    send(&format!(
        "rules dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:{}",
        tafl::START
    ));
    send("side attackers");
    send("start");
    send("clock 60000 60000 10 3 3 ");
    send("play attackers");
    let first = expect(&lines, "move ");
    let mv = first.strip_prefix("move ").unwrap();
    let mut game = tafl::Tafl::new(tafl::Rules::COPENHAGEN);
    let parsed = game::Game::parse_move(&game, mv).unwrap();
    game::Game::play(&mut game, parsed);
    send(&format!("move {}", game.position().to_opentafl()));
    send("finish 0");
    send("goodbye");
    let status = exit_status(&mut child);
    assert!(status.success());
}

#[test]
fn otep_refuses_other_rules_with_a_critical_error() {
    let (mut child, mut stdin, lines) = otep_engine(&["engine", "--otep"]);
    writeln!(
        stdin,
        "rules dim:9 esc:e start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
    )
    .unwrap();
    let error = expect(&lines, "error");
    assert!(
        error.starts_with("error -1 unsupported rules: dim:9"),
        "{error}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn otep_engine_binary_stops_an_analysis_at_end_of_input() {
    let (mut child, mut stdin, lines) = otep_engine(&["engine", "--otep", "--hash", "8"]);
    for line in [
        format!("rules dim:11 name:Fetlar atkf:y start:{}", tafl::START),
        format!("position {}", tafl::START),
        "side attackers".to_owned(),
        "analyze 2 86400".to_owned(),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    drop(stdin);
    let analysis = expect(&lines, "analysis ");
    assert!(analysis.starts_with("analysis "), "{analysis}");
    let status = exit_status(&mut child);
    assert!(status.success());
    assert!(started.elapsed() < Duration::from_secs(20));
}
