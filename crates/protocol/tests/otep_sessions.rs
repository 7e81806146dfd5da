//! OpenTafl Engine Protocol sessions shaped like OpenTafl's: what its
//! `ExternalEngineHost` sends, in its order, with its formats.

mod common;

use std::time::{Duration, Instant};

use common::{Peer, otep, otep_with};
use game::Game;
use protocol::Flow;
use protocol::otep::OtepSession;
use tafl::{Rules, Tafl};

const START: &str = tafl::START;

fn copenhagen_rules() -> String {
    format!("rules dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:{START}")
}

fn fetlar_rules() -> String {
    format!("rules dim:11 name:Fetlar atkf:y tfr:d start:{START}")
}

/// The board after `moves` from the start, as OpenTafl writes positions.
fn board_after(rules: Rules, moves: &[&str]) -> String {
    game_after(rules, moves).position().to_opentafl()
}

fn game_after(rules: Rules, moves: &[&str]) -> Tafl {
    let mut game = Tafl::new(rules);
    for text in moves {
        let mv = game.parse_move(text).unwrap();
        game.play(mv);
    }
    game
}

/// Waits for the engine's `move`; returns it and everything before it.
fn engine_move(peer: &mut Peer<OtepSession>, sent: Vec<String>) -> (String, Vec<String>) {
    let mut lines = sent;
    if !lines.iter().any(|l| l.starts_with("move ")) {
        lines.extend(peer.until(|l| l.starts_with("move ")));
    }
    let mv = lines
        .iter()
        .find_map(|l| l.strip_prefix("move "))
        .unwrap()
        .to_owned();
    (mv, lines)
}

#[test]
fn hello_first() {
    let mut peer = otep();
    assert_eq!(peer.drain(), ["hello"]);
    // OpenTafl answers with its own hello: answering again would loop forever.
    assert_eq!(peer.send("hello"), Vec::<String>::new());
}

#[test]
fn a_game_as_attackers_keeps_the_history_in_step() {
    let mut peer = otep();
    peer.drain();
    assert_eq!(
        peer.send(&copenhagen_rules()),
        ["status playing copenhagen"]
    );
    peer.send("side attackers");
    peer.send("start");
    peer.send("clock 4000 4000 1 3 3 ");
    let sent = peer.send("play attackers");
    let (first, lines) = engine_move(&mut peer, sent);
    assert!(
        lines.iter().any(|l| l.starts_with("status depth ")),
        "{lines:?}"
    );
    assert!(!first.contains('x'), "simple notation: {first}");
    let after_first = board_after(Rules::COPENHAGEN, &[&first]);
    assert_eq!(
        peer.send(&format!("move {after_first}")),
        Vec::<String>::new()
    );
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{after_first} defenders")
    );
    // The defenders answer; OpenTafl sends the move and the board, then the clock and
    // the next play.
    let reply = game_after(Rules::COPENHAGEN, &[&first]);
    let mut moves = Vec::new();
    reply.legal_moves(&mut moves);
    let reply_text = reply.format_move(moves[0]);
    let after_reply = board_after(Rules::COPENHAGEN, &[&first, &reply_text]);
    assert_eq!(
        peer.send(&format!("opponent-move {reply_text} {after_reply}")),
        Vec::<String>::new()
    );
    assert_eq!(peer.session.move_texts().len(), 2, "history kept");
    peer.send("clock 3500 3900 1 3 3 ");
    let sent = peer.send("play attackers");
    let (second, _) = engine_move(&mut peer, sent);
    let after_second = board_after(Rules::COPENHAGEN, &[&first, &reply_text, &second]);
    assert_eq!(
        peer.send(&format!("move {after_second}")),
        Vec::<String>::new()
    );
    assert_eq!(peer.session.move_texts().len(), 3);
    assert_eq!(peer.send("finish 2"), Vec::<String>::new());
    assert_eq!(peer.send_flow("goodbye").0, Flow::Quit);
}

#[test]
fn a_refused_move_is_forgotten_and_the_game_resumes_from_opentafls_position() {
    let mut peer = otep();
    peer.drain();
    peer.send(&fetlar_rules());
    peer.send("side defenders");
    peer.send("start");
    let after_d1d3 = board_after(Rules::FETLAR, &["d1-d3"]);
    peer.send(&format!("opponent-move d1-d3 {after_d1d3}"));
    let sent = peer.send("play defenders");
    engine_move(&mut peer, sent);
    // OpenTafl refuses it: error, the prior move again with the right board, play.
    assert_eq!(peer.send("error 2"), Vec::<String>::new());
    peer.send(&format!("opponent-move d1-d3 {after_d1d3}"));
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{after_d1d3} defenders")
    );
    let sent = peer.send("play defenders");
    let (mv, _) = engine_move(&mut peer, sent);
    let game = game_after(Rules::FETLAR, &["d1-d3"]);
    assert!(game.parse_move(&mv).is_ok(), "{mv}");
}

#[test]
fn opponent_moves_may_carry_captures_and_marks() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    let opening = ["d1-d3", "e5-e2", "g1-g3", "f4-c4"];
    peer.send(&format!(
        "position {}",
        board_after(Rules::COPENHAGEN, &opening)
    ));
    // After a position OpenTafl names the side to move (its `positionChanged`).
    peer.send("side attackers");
    let after = board_after(
        Rules::COPENHAGEN,
        &["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"],
    );
    let out = peer.send(&format!("opponent-move g3-e3xe2+ {after}"));
    assert_eq!(out, Vec::<String>::new(), "no re-synchronisation");
    assert_eq!(peer.session.move_texts(), ["g3-e3xe2"]);
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{after} defenders")
    );
}

#[test]
fn a_move_out_of_step_is_resolved_by_opentafls_board() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    // The engine's game is at the start; OpenTafl says e5-e2 was played after d1-d3.
    let board = board_after(Rules::COPENHAGEN, &["d1-d3", "e5-e2"]);
    let out = peer.send(&format!("opponent-move e5-e2 {board}"));
    assert_eq!(out, ["status re-synchronised from OpenTafl's position"]);
    // A defender stands on e2, so the attackers are to move.
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{board} attackers")
    );
}

#[test]
fn other_rules_are_refused_as_critical_errors() {
    let mut peer = otep();
    peer.drain();
    for (rules, why) in [
        (
            "dim:7 ks:n cenhe: cenh: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
            "dim:7",
        ),
        (&format!("dim:11 esc:e start:{START}"), "esc:e"),
        (&format!("dim:11 ka:n start:{START}"), "ka:n"),
        (&format!("dim:11 atkf:n ber:c start:{START}"), "ber:c"),
        (
            "dim:11 surf:n atkf:n kj:r ber:c start:/3ttttt3/5c5/11/t4T4t/t3NTT3t/tc1TTKTT1ct/t3TTT3t/t4T4t/11/5c5/3ttttt3/",
            "surf:n",
        ),
        ("dim:11 start:/3ttttt3/", "bad start position"),
    ] {
        let out = peer.send(&format!("rules {rules}"));
        assert_eq!(out.len(), 1, "{rules}: {out:?}");
        assert!(
            out[0].starts_with("error -1 unsupported rules: "),
            "{out:?}"
        );
        assert!(out[0].contains(why), "{rules}: {out:?}");
    }
    assert_eq!(
        peer.send("play attackers"),
        ["error 0 play before rules; ignored"]
    );
    assert_eq!(peer.session.position_string(), None);
    // Defenders first is a start-position setting, not another game.
    let out = peer.send(&format!("rules dim:11 atkf:n start:{START}"));
    assert_eq!(out, ["status playing fetlar"]);
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{START} defenders")
    );
}

fn parse_analysis(line: &str) -> Vec<(Vec<String>, i32)> {
    let words: Vec<&str> = line.split(' ').collect();
    assert_eq!(words[0], "analysis");
    let count: usize = words[1].parse().unwrap();
    assert_eq!(words.len(), 2 + 2 * count, "{line}");
    words[2..]
        .chunks(2)
        .map(|pair| {
            let moves = pair[0].split('|').map(str::to_owned).collect();
            (moves, pair[1].parse().unwrap())
        })
        .collect()
}

#[test]
fn analysis_reports_distinct_lines_with_attacker_positive_evaluations() {
    let mut peer = otep();
    peer.drain();
    // As OpenTafl's analysis engine: rules, position, side, clock, analyze.
    peer.send(&copenhagen_rules());
    peer.send(&format!("position {START}"));
    peer.send("side attackers");
    let started = Instant::now();
    let out = peer.send_until("analyze 3 1", |l| l.starts_with("analysis"));
    assert!(started.elapsed() < Duration::from_secs(10));
    let lines = parse_analysis(out.last().unwrap());
    assert_eq!(lines.len(), 3);
    let mut firsts: Vec<&String> = lines.iter().map(|(m, _)| &m[0]).collect();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{lines:?}");
    for (moves, _) in &lines {
        let mut game = Tafl::new(Rules::COPENHAGEN);
        for text in moves {
            assert!(!text.contains('x'), "simple notation: {text}");
            let mv = game
                .parse_move(text)
                .unwrap_or_else(|e| panic!("{moves:?}: {e}"));
            game.play(mv);
        }
    }
    let evals: Vec<i32> = lines.iter().map(|l| l.1).collect();
    assert!(evals.windows(2).all(|w| w[0] >= w[1]), "{evals:?}");

    // The defenders with a corner in reach: a win in one, scored for the attackers.
    peer.send(&fetlar_rules());
    peer.send("position /2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/");
    peer.send("side defenders");
    // The answer may come before `send` returns: a win in one is found at once.
    let out = peer.send_until("analyze 2 1", |l| l.starts_with("analysis"));
    let lines = parse_analysis(out.last().unwrap());
    assert_eq!(lines[0], (vec!["c1-a1".to_owned()], -5049));
    assert!(lines[1].1 >= lines[0].1, "{lines:?}");
}

#[test]
fn side_after_a_position_is_the_side_to_move() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    let board = board_after(Rules::COPENHAGEN, &["d1-d3"]);
    peer.send(&format!("position {board}"));
    peer.send("side defenders");
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{board} defenders")
    );
    // Once moves are played, `side` no longer changes the game.
    let after = board_after(Rules::COPENHAGEN, &["d1-d3", "e5-e2"]);
    peer.send(&format!("opponent-move e5-e2 {after}"));
    peer.send("side defenders");
    assert_eq!(
        peer.session.position_string().unwrap(),
        format!("{after} attackers")
    );
}

#[test]
fn unknown_lines_are_ignored() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    for line in [
        "",
        "simple-moves on",
        "status thinking",
        "analysis 1 d1-d3 5",
        "frobnicate 1 2 3",
        "\u{fffd}\u{0}",
    ] {
        assert_eq!(peer.send(line), Vec::<String>::new(), "{line:?}");
    }
}

#[test]
fn malformed_known_lines_get_a_non_critical_error_and_change_nothing() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    let before = peer.session.position_string();
    for line in [
        "clock abc 100 1 1 1",
        "clock 100",
        "side sideways",
        "play",
        "play everybody",
        "analyze x y",
        "analyze 3 -1",
        "rules",
        "position /3t/",
        "opponent-move a1-a2|b3-b4",
    ] {
        let out = peer.send(line);
        assert_eq!(out.len(), 1, "{line}: {out:?}");
        assert!(out[0].starts_with("error 0 "), "{line}: {out:?}");
        assert_eq!(peer.session.position_string(), before, "{line}");
    }
}

#[test]
fn the_clock_sets_the_pace() {
    // Untimed moves would take a minute; the clock says the defenders are in overtime
    // with 400 ms periods.
    let mut peer = otep_with(Duration::from_secs(60));
    peer.drain();
    peer.send(&copenhagen_rules());
    peer.send(&format!(
        "opponent-move d1-d3 {}",
        board_after(Rules::COPENHAGEN, &["d1-d3"])
    ));
    peer.send("clock 250000 400* 1 3 2 ");
    let started = Instant::now();
    let sent = peer.send("play defenders");
    engine_move(&mut peer, sent);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn goodbye_or_finish_during_a_search_sends_no_move() {
    for last in ["finish 0", "goodbye"] {
        let mut peer = otep_with(Duration::from_secs(30));
        peer.drain();
        peer.send(&copenhagen_rules());
        peer.send("play attackers");
        std::thread::sleep(Duration::from_millis(100));
        let (flow, out) = peer.send_flow(last);
        assert_eq!(flow == Flow::Quit, last == "goodbye");
        assert!(!out.iter().any(|l| l.starts_with("move")), "{out:?}");
        assert!(peer.within(Duration::from_millis(200)).is_empty());
    }
}

#[test]
fn play_after_the_end_says_the_game_is_over() {
    let mut peer = otep();
    peer.drain();
    peer.send(&fetlar_rules());
    peer.send("position /2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders");
    let out = peer.send("opponent-move c1-a1 /K7t2/11/11/11/11/4T6/11/11/11/3t7/11/");
    assert_eq!(out, Vec::<String>::new());
    let out = peer.send("play attackers");
    assert_eq!(
        out,
        ["error 0 the game is over: defenders_win (corner_escape)"]
    );
}

#[test]
fn the_move_is_sent_even_if_opentafl_closes_its_end() {
    use protocol::LineProtocol;
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    let mut out = peer.send("play attackers");
    peer.session.end_of_input();
    out.extend(peer.drain());
    assert!(out.last().unwrap().starts_with("move "), "{out:?}");
}

// ---- Conversations recorded with the real OpenTafl 0.4.8 (tests/data/opentafl) ----

const TFR_W_LOG: &str = include_str!("data/opentafl/engine-copenhagen-tfr-w.log");
const OVERTIME_LOG: &str = include_str!("data/opentafl/engine-overtime-clock.log");

fn sent_by_host(log: &str) -> Vec<String> {
    common::recorded(log)[0]
        .iter()
        .filter(|m| m.dir == '>')
        .map(|m| m.text.clone())
        .collect()
}

/// The game of a recorded conversation in which Kingstable played the attackers: its own
/// `move`s and OpenTafl's `opponent-move`s, in order.
fn recorded_game(log: &str) -> Vec<String> {
    common::recorded(log)[0]
        .iter()
        .filter_map(|m| match m.dir {
            '<' => m.text.strip_prefix("move ").map(str::to_owned),
            '>' => m
                .text
                .strip_prefix("opponent-move ")
                .map(|rest| rest.split(' ').next().unwrap().to_owned()),
            _ => None,
        })
        .collect()
}

/// What the engine plays with the recorded game's history up to ply 158 (attackers to
/// move, one move from the third occurrence of a position), after `rules`: its `status`
/// and its move.
fn move_before_the_third_repetition(rules: &str) -> (String, String) {
    let moves = recorded_game(TFR_W_LOG);
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    let before = board_after(Rules::COPENHAGEN.with_repetition(false), &texts[..150]);
    let after = board_after(Rules::COPENHAGEN.with_repetition(false), &texts[..158]);
    let mut peer = otep_with(Duration::from_millis(500));
    peer.drain();
    assert_eq!(peer.send(rules), ["status playing copenhagen"]);
    peer.send(&format!("position {before}"));
    peer.send("side attackers");
    // The eight plies that make the history, as one list (oldest first).
    let out = peer.send(&format!(
        "opponent-move {} {after}",
        texts[150..158].join("|")
    ));
    assert_eq!(out, Vec::<String>::new(), "in step");
    assert_eq!(peer.session.move_texts().len(), 8);
    let sent = peer.send("play attackers");
    let (mv, lines) = engine_move(&mut peer, sent);
    let status = lines
        .iter()
        .find(|l| l.starts_with("status depth"))
        .unwrap()
        .clone();
    (mv, status)
}

#[test]
fn recorded_tfr_w_game_the_engine_now_avoids_the_losing_repetition() {
    let rules = &sent_by_host(TFR_W_LOG)[0];
    assert!(rules.contains(" tfr:w "), "{rules}");
    // The record of that game: the attackers' e8-f8 made the third occurrence and lost.
    let moves = recorded_game(TFR_W_LOG);
    assert_eq!(moves.len(), 159);
    assert_eq!(moves[158], "e8-f8");
    let rules_w = Rules::COPENHAGEN.with_repetition_rule(tafl::Repetition::MoverLoses);
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    assert_eq!(
        game_after(rules_w, &texts).outcome(),
        Some(game::Outcome::win(
            tafl::DEFENDERS,
            game::EndReason::Repetition
        ))
    );
    // Playing by OpenTafl's rules string, the engine does not make it.
    let (mv, status) = move_before_the_third_repetition(rules);
    assert_ne!(mv, "e8-f8", "{status}");
    assert!(!status.contains("eval 5049"), "{status}");
    // Told TAFL.md's Copenhagen (no tfr), the repetition wins for the attackers: the
    // engine takes it, as it did in the recorded game.
    let ours = rules.replace(" tfr:w", "");
    let (mv, status) = move_before_the_third_repetition(&ours);
    assert_eq!(mv, "e8-f8");
    assert!(status.contains("eval 5049"), "{status}");
}

#[test]
fn recorded_overtime_clock_the_engine_thinks_with_periods_left() {
    let sent = sent_by_host(OVERTIME_LOG);
    let rules = &sent[0];
    // The last turn as OpenTafl sent it: opponent-move, clock, play.
    let n = sent.len();
    let (opponent_move, clock, play) = (&sent[n - 5], &sent[n - 4], &sent[n - 3]);
    assert_eq!(clock, "clock 54 1213* 5 3 3 ");
    assert_eq!(play, "play attackers");
    let mut peer = otep_with(Duration::from_secs(60));
    peer.drain();
    peer.send(rules);
    peer.send(opponent_move);
    peer.send(clock);
    let started = Instant::now();
    let sent = peer.send(play);
    let (_, lines) = engine_move(&mut peer, sent);
    let took = started.elapsed();
    let status = lines
        .iter()
        .find(|l| l.starts_with("status depth"))
        .unwrap();
    let depth: u32 = status.split(' ').nth(2).unwrap().parse().unwrap();
    assert!(depth >= 3, "{status}");
    // Most of a 5 s period would be risky; a millisecond is what it did before.
    assert!(
        took > Duration::from_millis(500) && took < Duration::from_millis(4500),
        "{took:?}"
    );
}

#[test]
fn unknown_or_unparsable_rules_are_critical_and_leave_no_game() {
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    for rules in [
        "rules nonsense",
        "rules atkf:y sw:s efe:y",
        "rules dim:11 tfr:x",
        "rules dim:11 name:Copenhagen sw:w efe:y",
    ] {
        let out = peer.send(rules);
        assert_eq!(out.len(), 1, "{rules}: {out:?}");
        assert!(
            out[0].starts_with("error -1 unsupported rules: "),
            "{rules}: {out:?}"
        );
        assert_eq!(peer.session.position_string(), None, "{rules}");
        assert_eq!(
            peer.send("play attackers"),
            ["error 0 play before rules; ignored"]
        );
    }
}

#[test]
fn play_after_finish_plays_no_move() {
    let mut peer = otep();
    peer.drain();
    peer.send(&fetlar_rules());
    let sent = peer.send("play attackers");
    let (mv, _) = engine_move(&mut peer, sent);
    peer.send(&format!("move {}", board_after(Rules::FETLAR, &[&mv])));
    // The game ends outside the rules (a resignation, a flag): OpenTafl says so.
    peer.send("finish 3");
    let out = peer.send("play defenders");
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].starts_with("error 0 the game is finished"),
        "{out:?}"
    );
    assert!(peer.within(Duration::from_millis(700)).is_empty());
    // A new game may follow.
    peer.send(&fetlar_rules());
    let sent = peer.send("play attackers");
    engine_move(&mut peer, sent);
}

#[test]
fn end_of_input_stops_an_analysis_given_hours() {
    use protocol::LineProtocol;
    let mut peer = otep();
    peer.drain();
    peer.send(&copenhagen_rules());
    peer.send(&format!("position {START}"));
    peer.send("side attackers");
    peer.send("analyze 3 86400");
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    peer.session.end_of_input();
    assert!(started.elapsed() < Duration::from_secs(10));
    let out = peer.drain();
    let analysis = out.iter().find(|l| l.starts_with("analysis ")).unwrap();
    assert!(!parse_analysis(analysis).is_empty(), "{analysis}");
}
