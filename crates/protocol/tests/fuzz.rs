//! The line parsers and sessions fuzzed: no input makes them panic, a refused line
//! changes nothing, and commands written by the client read back the same.

mod common;

use proptest::prelude::*;
use protocol::otep::Message;
use protocol::ugi::{Command, Go, Query};
use protocol::{LineProtocol, Output};

/// Words the protocols know, so random lines get past the first word often.
const WORDS: &[&str] = &[
    "ugi",
    "uci",
    "isready",
    "uginewgame",
    "setoption",
    "name",
    "value",
    "Variant",
    "Level",
    "Hash",
    "Threads",
    "Seed",
    "fetlar",
    "copenhagen",
    "camelot",
    "position",
    "startpos",
    "fen",
    "moves",
    "query",
    "gameover",
    "p1turn",
    "result",
    "stop",
    "d1-d3",
    "e5-e2",
    "g1-g3",
    "f4-c4",
    "g3-e3xe2",
    "E7-E8",
    "C11-E9xE7xG5",
    "attackers",
    "defenders",
    "w",
    "0",
    "1",
    "-1",
    "99999999999999999999999",
    "x",
    "/",
    "3ttttt3",
    "rules",
    "dim:11",
    "side",
    "clock",
    "play",
    "analyze",
    "finish",
    "opponent-move",
    "move",
    "error",
    "*",
    "|",
    "hello",
    "start",
    "ber:c",
    "sw:s",
    tafl::START,
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(WORDS).prop_map(str::to_owned),
        1 => "[ -~]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(word(), 0..8).prop_map(|w| w.join(" ")),
        1 => any::<String>(),
    ]
}

/// Searches are fuzzed elsewhere; here `go` lines would only make the run slow.
fn not_go(line: &str) -> bool {
    !matches!(
        line.split_whitespace().next(),
        Some("go" | "play" | "analyze")
    )
}

/// `go` with limits that keep a fuzz run short, `infinite` included (a later `stop` or
/// the end of the run ends it).
fn short_go() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..=3).prop_map(|d| format!("go depth {d}")),
        (0u64..3000).prop_map(|n| format!("go nodes {n}")),
        (0u64..30).prop_map(|t| format!("go movetime {t}")),
        (0u64..300, 0u64..300).prop_map(|(a, b)| format!("go p1time {a} p2time {b}")),
        Just("go infinite".to_owned()),
        Just("stop".to_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn ugi_sessions_with_searches_never_panic_and_refusals_change_nothing(
        lines in proptest::collection::vec(prop_oneof![2 => line(), 1 => short_go()], 1..16)
    ) {
        let (out, replies) = Output::channel();
        let mut session = protocol::ugi::UgiSession::with_settings(out, common::settings());
        for line in lines.iter() {
            if line.split_whitespace().next() == Some("go") && !short_go_line(line) {
                continue;
            }
            let before = (session.variant(), session.position_string());
            session.handle_line(line);
            if !session.is_searching() {
                let replies: Vec<String> = replies.try_iter().collect();
                let errors = replies.iter().filter(|r| r.starts_with("info string error:")).count();
                if errors > 0 && !line.starts_with("go") {
                    prop_assert_eq!((session.variant(), session.position_string()), before, "{:?}", line);
                }
            }
        }
        session.handle_line("stop");
        prop_assert!(!session.is_searching());
        let replies: Vec<String> = replies.try_iter().collect();
        if let Some(last) = replies.iter().rev().find(|r| r.starts_with("bestmove")) {
            prop_assert!(last.len() > "bestmove ".len());
        }
    }
}

/// Whether a `go` line is one [`short_go`] makes (random ones could search for long).
fn short_go_line(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["go", "infinite"] => true,
        ["go", "depth", d] => d.parse::<u32>().is_ok_and(|d| d <= 3),
        ["go", "nodes", n] => n.parse::<u64>().is_ok_and(|n| n < 3000),
        ["go", "movetime", t] => t.parse::<u64>().is_ok_and(|t| t < 30),
        ["go", "p1time", _, "p2time", _] => true,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn ugi_lines_never_panic_and_refusals_change_nothing(lines in proptest::collection::vec(line(), 1..24)) {
        let (out, replies) = Output::channel();
        let mut session = protocol::ugi::UgiSession::with_settings(out, common::settings());
        for line in lines.iter().filter(|l| not_go(l)) {
            let before = (session.variant(), session.position_string());
            session.handle_line(line);
            let replies: Vec<String> = replies.try_iter().collect();
            if replies.iter().any(|r| r.starts_with("info string error:")) {
                prop_assert_eq!(replies.len(), 1, "{:?} → {:?}", line, replies);
                prop_assert_eq!((session.variant(), session.position_string()), before, "{:?}", line);
            }
        }
    }

    #[test]
    fn otep_lines_never_panic_and_errors_change_nothing(lines in proptest::collection::vec(line(), 1..24)) {
        let (out, replies) = Output::channel();
        let mut session = protocol::otep::OtepSession::new(out, protocol::otep::OtepSettings {
            engine: common::settings(),
            move_time: std::time::Duration::from_millis(1),
        });
        session.start();
        session.handle_line(&format!("rules dim:11 start:{}", tafl::START));
        replies.try_iter().for_each(drop);
        for line in lines.iter().filter(|l| not_go(l)) {
            let before = session.position_string();
            session.handle_line(line);
            let replies: Vec<String> = replies.try_iter().collect();
            if replies.iter().any(|r| r.starts_with("error 0")) {
                prop_assert_eq!(session.position_string(), before, "{:?}", line);
            }
        }
    }

    #[test]
    fn go_lines_parse_or_fail_cleanly(words in proptest::collection::vec(word(), 0..10)) {
        let text = words.join(" ");
        let _ = format!("go {text}").parse::<Command>();
        let _ = Message::parse(&format!("analyze {text}"));
        let _ = Message::parse(&format!("clock {text}"));
    }

    #[test]
    fn go_writes_back_as_it_reads(
        p1time in proptest::option::of(any::<u64>()),
        p2time in proptest::option::of(any::<u64>()),
        p1inc in proptest::option::of(0u64..100_000),
        p2inc in proptest::option::of(0u64..100_000),
        movestogo in proptest::option::of(any::<u32>()),
        movetime in proptest::option::of(any::<u64>()),
        depth in proptest::option::of(any::<u32>()),
        nodes in proptest::option::of(any::<u64>()),
        infinite in any::<bool>(),
    ) {
        let go = Go { p1time, p2time, p1inc, p2inc, movestogo, movetime, depth, nodes, infinite };
        let cmd = Command::Go(go.clone());
        prop_assert_eq!(cmd.to_string().parse::<Command>(), Ok(cmd));
        prop_assert_eq!(go.to_string().parse::<Go>(), Ok(go));
    }

    #[test]
    fn positions_write_back_as_they_read(
        fen in proptest::option::of("[a-zA-Z0-9/]{1,20}( [a-z0-9]{1,5}){0,4}"),
        moves in proptest::collection::vec("[a-kA-K][0-9]{1,2}-[a-kA-K][0-9]{1,2}(x[a-k][0-9])?", 0..6),
    ) {
        let cmd = Command::Position { fen, moves };
        prop_assert_eq!(cmd.to_string().parse::<Command>(), Ok(cmd));
    }

    #[test]
    fn options_and_queries_write_back(
        name in "[A-Za-z]{1,8}( [A-Za-z]{1,8}){0,2}",
        value in proptest::option::of("[a-z0-9]{1,8}( [a-z0-9]{1,8}){0,2}"),
        query in proptest::sample::select(Query::ALL.to_vec()),
    ) {
        prop_assume!(!name.split(' ').any(|w| w == "value"));
        prop_assume!(!value.as_deref().unwrap_or("").split(' ').any(|w| w == "value"));
        let cmd = Command::SetOption { name, value };
        prop_assert_eq!(cmd.to_string().parse::<Command>(), Ok(cmd));
        let q = Command::Query(query);
        prop_assert_eq!(q.to_string().parse::<Command>(), Ok(q));
    }
}
