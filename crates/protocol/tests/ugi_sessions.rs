//! UGI sessions as scripts: lines in, checked lines out.

mod common;

use std::time::{Duration, Instant};

use common::{Peer, ugi};
use protocol::Flow;
use protocol::ugi::UgiSession;
use tafl::{Bitboard, Position, Square};

const SHUFFLE: &str = "d1-d2 d6-d7 d2-d1 d7-d6 d1-d2 d6-d7 d2-d1 d7-d6";

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn squares(names: &[&str]) -> Bitboard {
    names.iter().fold(Bitboard::EMPTY, |b, n| b.with(sq(n)))
}

/// Defenders to move; the king on c1 reaches the corner a1 at once.
const KING_ESCAPES: &str = "/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders";

/// Attackers to move; c8-c4 closes the fourth side round the king on c3.
fn king_captured_next() -> String {
    Position::from_pieces(
        squares(&["b3", "d3", "c2", "c8", "j11"]),
        squares(&["j10"]),
        sq("c3"),
        tafl::ATTACKERS,
    )
    .unwrap()
    .to_string_with_side()
}

fn variant(peer: &mut Peer<UgiSession>, name: &str) {
    assert_eq!(
        peer.send(&format!("setoption name Variant value {name}")),
        Vec::<String>::new()
    );
}

#[test]
fn handshake_names_the_engine_and_its_options() {
    let mut peer = ugi();
    let out = peer.send("ugi");
    assert!(out[0].starts_with("id name Kingstable "), "{out:?}");
    assert!(out[1].starts_with("id author "));
    let options = &out[2..out.len() - 1];
    for expected in [
        "option name Variant type combo default copenhagen var fetlar var copenhagen var camelot",
        "option name Level type spin default 6 min 1 max 6",
        "option name Threads type spin default 1 min 1",
        "option name Hash type spin default 4 min 1",
    ] {
        assert!(
            options.iter().any(|o| o.starts_with(expected)),
            "{expected} not in {options:?}"
        );
    }
    assert_eq!(out.last().unwrap(), "ugiok");
    assert_eq!(peer.send("isready"), ["readyok"]);
    assert_eq!(peer.send("uci").last().unwrap(), "uciok");
}

#[test]
fn rules_oracle_answers_about_the_start_positions() {
    let mut peer = ugi();
    assert_eq!(peer.query("p1turn"), "true");
    assert_eq!(peer.query("gameover"), "false");
    assert_eq!(peer.query("result"), "none");
    assert_eq!(peer.query("reason"), "none");
    assert_eq!(peer.query("moves").split(' ').count(), 116);
    assert_eq!(peer.query("position"), format!("{} attackers", tafl::START));
    variant(&mut peer, "camelot");
    assert_eq!(peer.query("moves").split(' ').count(), 100);
    assert_eq!(peer.query("position"), camelot::START_FEN);
    assert_eq!(peer.query("p1turn"), "true");
}

#[test]
fn moves_are_accepted_with_or_without_their_captures() {
    let mut peer = ugi();
    peer.send("position startpos moves d1-d3 e5-e2 g1-g3 f4-c4 g3-e3");
    let without = peer.query("position");
    assert_eq!(peer.query("p1turn"), "false");
    peer.send("position startpos moves d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2");
    assert_eq!(peer.query("position"), without);
    // A capture that does not happen is a wrong claim.
    let message = peer.refused("position startpos moves d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe4");
    assert!(message.contains("move 5 (g3-e3xe4)"), "{message}");
}

#[test]
fn camelot_moves_take_any_valid_path_and_report_the_canonical_one() {
    let mut peer = ugi();
    variant(&mut peer, "camelot");
    peer.send("position startpos moves e7-e8 C11-E9xE7xG5");
    assert_eq!(peer.query("p1turn"), "true");
    // White must now capture (S4): every legal move is a jump.
    let moves = peer.query("moves");
    assert!(moves.split(' ').all(|m| m.contains('x')), "{moves}");
    let fen = peer.query("position");
    peer.send(&format!("position fen {} moves E7-E8", camelot::START_FEN));
    peer.send("position fen 2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2 w 0 0 0 moves E7-E8 C11-E9xE7xG5");
    assert_eq!(peer.query("position"), fen);
}

#[test]
fn game_endings_are_reported_by_the_oracle() {
    let mut peer = ugi();
    // Copenhagen: a third repetition wins for the attackers.
    peer.send(&format!("position startpos moves {SHUFFLE}"));
    assert_eq!(peer.query("gameover"), "true");
    assert_eq!(peer.query("result"), "p1win");
    assert_eq!(peer.query("reason"), "repetition");
    assert_eq!(peer.query("moves"), "");
    // Fetlar: a draw.
    variant(&mut peer, "fetlar");
    peer.send(&format!("position startpos moves {SHUFFLE}"));
    assert_eq!(peer.query("result"), "draw");
    peer.send(&format!("position fen {KING_ESCAPES} moves c1-a1"));
    assert_eq!(peer.query("result"), "p2win");
    assert_eq!(peer.query("reason"), "corner_escape");
    peer.send(&format!(
        "position fen {} moves c8-c4",
        king_captured_next()
    ));
    assert_eq!(peer.query("result"), "p1win");
    assert_eq!(peer.query("reason"), "king_captured");
}

#[test]
fn moves_after_the_game_is_over_are_refused() {
    let mut peer = ugi();
    variant(&mut peer, "fetlar");
    peer.send(&format!("position fen {KING_ESCAPES} moves c1-a1"));
    let message = peer.refused(&format!("position fen {KING_ESCAPES} moves c1-a1 j1-j2"));
    assert!(message.contains("move 2 (j1-j2)"), "{message}");
    assert!(message.contains("over"), "{message}");
    assert_eq!(peer.query("result"), "p2win");
    // Asked to move anyway: it says why and answers bestmove none.
    let (lines, best) = peer.go("depth 3");
    assert_eq!(best, "none");
    assert!(lines[0].starts_with("info string the game is over: defenders_win"));
}

#[test]
fn search_reports_progress_then_a_legal_best_move() {
    let mut peer = ugi();
    peer.send("position startpos moves d1-d3");
    let legal = peer.query("moves");
    let (lines, best) = peer.go("depth 3");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 3, "{lines:?}");
    for (i, info) in infos.iter().enumerate() {
        let words: Vec<&str> = info.split(' ').collect();
        assert_eq!(words[2], (i + 1).to_string());
        for field in [
            "seldepth", "score", "nodes", "nps", "time", "hashfull", "pv",
        ] {
            assert!(words.contains(&field), "{field} missing in {info}");
        }
        assert!(
            info.contains(" score cp ") || info.contains(" score mate "),
            "{info}"
        );
    }
    assert!(legal.split(' ').any(|m| m == best), "{best} not in {legal}");
    // The search did not move the session's position.
    assert_eq!(peer.query("p1turn"), "false");
}

#[test]
fn forced_wins_are_scored_as_mate() {
    let mut peer = ugi();
    variant(&mut peer, "fetlar");
    peer.send(&format!("position fen {KING_ESCAPES}"));
    let (lines, best) = peer.go("depth 4");
    assert_eq!(best, "c1-a1");
    assert!(
        lines.iter().any(|l| l.contains(" score mate 1 ")),
        "{lines:?}"
    );
    peer.send(&format!("position fen {}", king_captured_next()));
    let (_, best) = peer.go("depth 2");
    assert_eq!(best, "c8-c4");
}

#[test]
fn go_before_position_searches_the_start_of_the_variant() {
    let mut peer = ugi();
    variant(&mut peer, "camelot");
    let (_, best) = peer.go("depth 1");
    let legal = peer.query("moves");
    assert!(legal.split(' ').any(|m| m == best), "{best}");
}

#[test]
fn every_limit_ends_the_search() {
    let mut peer = ugi();
    for args in [
        "nodes 2000",
        "movetime 100",
        "p1time 2000 p2time 2000 p1inc 10 p2inc 10",
        "wtime 500 btime 500 movestogo 10",
        "movetime 0",
        "depth 2 nodes 100000 movetime 10000",
    ] {
        let started = Instant::now();
        let (_, best) = peer.go(args);
        assert_ne!(best, "none", "go {args}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "go {args} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn stop_ends_an_infinite_search_and_only_then_it_answers() {
    let mut peer = ugi();
    let started = peer.send_until("go infinite", |l| l.starts_with("info depth 2"));
    assert!(!started.iter().any(|l| l.starts_with("bestmove")));
    // isready is answered at once while it searches; queries too.
    assert!(peer.send("isready").contains(&"readyok".to_owned()));
    assert_eq!(peer.query("p1turn"), "true");
    let waited = peer.within(Duration::from_millis(300));
    assert!(
        !waited.iter().any(|l| l.starts_with("bestmove")),
        "{waited:?}"
    );
    let out = peer.send("stop");
    let best = out
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap();
    assert!(peer.query("moves").split(' ').any(|m| m == best));
    // Stopping again, with nothing running, does nothing.
    assert_eq!(peer.send("stop"), Vec::<String>::new());
}

#[test]
fn an_infinite_search_that_runs_out_of_work_still_waits_for_stop() {
    let mut peer = ugi();
    variant(&mut peer, "fetlar");
    peer.send(&format!("position fen {KING_ESCAPES}"));
    let mut waited = peer.send_until("go infinite", |l| l.contains("score mate 1"));
    // The search has proved the win and has nothing left to do, yet it waits.
    waited.extend(peer.within(Duration::from_millis(300)));
    assert!(
        !waited.iter().any(|l| l.starts_with("bestmove")),
        "{waited:?}"
    );
    assert!(peer.send("stop").contains(&"bestmove c1-a1".to_owned()));
}

#[test]
fn commands_that_change_the_game_wait_for_the_search() {
    let mut peer = ugi();
    peer.send("go infinite");
    for line in [
        "position startpos moves d1-d3",
        "setoption name Variant value camelot",
        "uginewgame",
        "go depth 1",
    ] {
        let out: Vec<String> = peer
            .send(line)
            .into_iter()
            .filter(|l| !l.starts_with("info depth"))
            .collect();
        assert_eq!(out.len(), 1, "{line}: {out:?}");
        assert!(out[0].contains("a search is running"), "{line}: {out:?}");
    }
    peer.send("stop");
    assert_eq!(peer.query("position"), format!("{} attackers", tafl::START));
}

#[test]
fn quit_during_a_search_reports_the_move_then_quits() {
    let mut peer = ugi();
    peer.send_until("go infinite", |l| l.starts_with("info depth 1"));
    let (flow, out) = peer.send_flow("quit");
    assert_eq!(flow, Flow::Quit);
    assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
}

#[test]
fn malformed_lines_get_an_error_and_change_nothing() {
    let mut peer = ugi();
    peer.send("position startpos moves d1-d3");
    for line in [
        "xyzzy",
        "go depth",
        "go depth -3",
        "go sideways 4",
        "go ponder",
        "isready now",
        "setoption name Variant value chess",
        "setoption name Variant",
        "setoption name Level value 9",
        "setoption name Hash value 0",
        "setoption name Threads value many",
        "setoption name Contempt value 10",
        "setoption Variant fetlar",
        "position",
        "position fen",
        "position fen garbage attackers",
        "position fen /3ttttt3/ attackers",
        &format!("position fen {}", tafl::START),
        "position startpos moves d1-d3 d3-d1",
        "position startpos moves zz",
        "position middlegame",
        "query",
        "query everything",
        "\u{0}\u{7f}\u{fffd}",
    ] {
        peer.refused(line);
    }
    for blank in ["", "   ", "\t", "\r\n"] {
        assert_eq!(peer.send(blank), Vec::<String>::new());
    }
    assert_eq!(peer.query("p1turn"), "false");
}

#[test]
fn unknown_variants_leave_the_game_alone() {
    let mut peer = ugi();
    variant(&mut peer, "fetlar");
    peer.send("position startpos moves d1-d3");
    let message = peer.refused("setoption name Variant value brandub");
    assert!(message.contains("brandub"), "{message}");
    // Still Fetlar: a Camelot move is not a move here.
    peer.refused("position startpos moves E7-E8");
    assert_eq!(peer.session.variant(), game::GameKind::Fetlar);
}

#[test]
fn options_set_level_and_engine_size() {
    let mut peer = ugi();
    for line in [
        "setoption name Level value beginner",
        "setoption name level value 3",
        "setoption name Hash value 2",
        "setoption name THREADS value 1",
        "setoption name Seed value 7",
    ] {
        assert_eq!(peer.send(line), Vec::<String>::new(), "{line}");
    }
    let settings = peer.session.settings();
    assert_eq!(settings.level, protocol::Level::Club);
    assert_eq!(
        (settings.hash_mb, settings.threads, settings.seed),
        (2, 1, 7)
    );
    let (_, best) = peer.go("depth 5");
    assert_ne!(best, "none");
}

#[test]
fn new_game_and_variant_changes_go_back_to_the_start() {
    let mut peer = ugi();
    peer.send("position startpos moves d1-d3");
    peer.send("uginewgame");
    assert_eq!(peer.query("p1turn"), "true");
    assert_eq!(peer.query("moves").split(' ').count(), 116);
    peer.send("position startpos moves d1-d3");
    variant(&mut peer, "copenhagen");
    assert_eq!(peer.query("p1turn"), "true");
}

#[test]
fn end_of_input_lets_a_timed_search_finish() {
    use protocol::LineProtocol;
    let mut peer = ugi();
    let mut out = peer.send("go depth 4");
    peer.session.end_of_input();
    out.extend(peer.drain());
    assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
}

#[test]
fn the_run_loop_reads_a_script_to_the_end() {
    let (out, lines) = protocol::Output::channel();
    let mut session = UgiSession::with_settings(out, common::settings());
    let script = b"ugi\nisready\nsetoption name Variant value fetlar\n\xff\xfe garbage\nposition startpos moves d1-d3\ngo depth 1\n";
    protocol::run(&mut session, &script[..]).unwrap();
    let lines: Vec<String> = lines.try_iter().collect();
    assert_eq!(lines.iter().filter(|l| *l == "readyok").count(), 1);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: unknown command"))
    );
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    // quit ends the loop before the lines after it.
    let (out, lines) = protocol::Output::channel();
    let mut session = UgiSession::with_settings(out, common::settings());
    protocol::run(&mut session, &b"quit\nisready\n"[..]).unwrap();
    assert_eq!(lines.try_iter().count(), 0);
}

#[test]
fn end_of_input_stops_a_search_without_limits() {
    use protocol::LineProtocol;
    for go in ["go", "go infinite"] {
        let mut peer = ugi();
        let mut out = peer.send_until(go, |l| l.starts_with("info depth 1"));
        let ended = Instant::now();
        peer.session.end_of_input();
        assert!(ended.elapsed() < Duration::from_secs(5), "{go}");
        out.extend(peer.drain());
        let best = out.last().unwrap().strip_prefix("bestmove ").unwrap();
        assert!(peer.query("moves").split(' ').any(|m| m == best), "{go}");
    }
}

/// A table size this machine cannot give (more than its memory and swap, where the
/// kernel refuses such requests), if there is one within the option's range.
fn more_memory_than_the_machine_has() -> Option<usize> {
    let overcommit = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").ok()?;
    if overcommit.trim() == "1" {
        return None;
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = |key: &str| -> Option<usize> {
        let line = meminfo.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let machine_mb = (kb("MemTotal:")? + kb("SwapTotal:")?) / 1024;
    (machine_mb + 1024 < protocol::MAX_HASH_MB).then_some(protocol::MAX_HASH_MB)
}

#[test]
fn a_table_too_big_for_the_machine_is_refused_and_the_old_one_kept() {
    let Some(huge) = more_memory_than_the_machine_has() else {
        eprintln!(
            "this machine could give {} MB: not tried",
            protocol::MAX_HASH_MB
        );
        return;
    };
    for variant_name in ["copenhagen", "camelot"] {
        let mut peer = ugi();
        variant(&mut peer, variant_name);
        // Before the engine is made, and after.
        for ready in [false, true] {
            if ready {
                assert_eq!(peer.send("isready"), ["readyok"]);
            }
            let message = peer.refused(&format!("setoption name Hash value {huge}"));
            assert!(
                message.starts_with(&format!(
                    "setoption Hash: cannot allocate a transposition table of {huge} MB"
                )),
                "{message}"
            );
            assert!(message.ends_with("keeping the 4 MB table"), "{message}");
            assert_eq!(peer.session.settings().hash_mb, 4);
            let (_, best) = peer.go("depth 2");
            assert_ne!(best, "none");
        }
    }
}
