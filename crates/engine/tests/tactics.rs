//! The tactics suites: positions with a forced result, searched to a fixed depth (so
//! the test is deterministic and quick in the test profile), one thread, fresh table.
//! Every claim is also proved independently by brute force (`game::shortest_forced_win`),
//! so a suite position cannot be wrong in a way the engine shares.

use std::sync::atomic::AtomicBool;

use engine::{DefaultEngine, EngineGame, Limits, Score};
use game::{Game, GameKind, forced_win_within, shortest_forced_win};
use tafl::{Position, Rules, Tafl};

/// What a tactic's search must report.
#[derive(Debug)]
enum Expected {
    /// A forced win in exactly this many plies.
    WinIn(u32),
    /// No forced loss within this many plies.
    Holds(u32),
    /// A forced loss in exactly this many plies.
    LossIn(u32),
}

#[derive(Debug)]
struct Tactic {
    line: usize,
    kind: GameKind,
    position: String,
    side: String,
    depth: u32,
    moves: Vec<String>,
    expected: Expected,
    comment: String,
}

fn parse_suite(text: &str) -> Vec<Tactic> {
    let mut tactics = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 7, "line {}: expected 7 fields: {line}", i + 1);
        let result = fields[5];
        let number = |prefix: &str| -> u32 {
            result[prefix.len()..]
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("line {}: bad result {result:?}", i + 1))
        };
        let expected = if result.starts_with("win in") {
            Expected::WinIn(number("win in"))
        } else if result.starts_with("holds") {
            Expected::Holds(number("holds"))
        } else if result.starts_with("loss in") {
            Expected::LossIn(number("loss in"))
        } else {
            panic!("line {}: unknown result {result:?}", i + 1);
        };
        tactics.push(Tactic {
            line: i + 1,
            kind: fields[0].parse().expect("a game name"),
            position: fields[1].to_owned(),
            side: fields[2].to_owned(),
            depth: fields[3].parse().expect("a depth"),
            moves: fields[4].split(',').map(|m| m.trim().to_owned()).collect(),
            expected,
            comment: fields[6].to_owned(),
        });
    }
    tactics
}

fn tafl_game(tactic: &Tactic) -> Result<Tafl, String> {
    let rules = match tactic.kind {
        GameKind::Fetlar => Rules::FETLAR,
        GameKind::Copenhagen => Rules::COPENHAGEN,
        GameKind::Camelot => return Err("not a tafl game".into()),
    };
    let side = tactic
        .kind
        .parse_side(&tactic.side)
        .map_err(|e| e.to_string())?;
    let position = Position::from_opentafl(&tactic.position, side).map_err(|e| e.to_string())?;
    Ok(Tafl::from_position(rules, position))
}

fn camelot_game(tactic: &Tactic) -> Result<camelot::Camelot, String> {
    let game =
        camelot::Camelot::from_position_string(&tactic.position).map_err(|e| e.to_string())?;
    let side = tactic
        .kind
        .parse_side(&tactic.side)
        .map_err(|e| e.to_string())?;
    if game.to_move() != side {
        return Err(format!(
            "the position string has {:?} to move",
            game.to_move()
        ));
    }
    Ok(game)
}

fn solve_tafl(tactic: &Tactic) -> Result<(), String> {
    solve(&tafl_game(tactic)?, tactic)
}

fn solve_camelot(tactic: &Tactic) -> Result<(), String> {
    solve(&camelot_game(tactic)?, tactic)
}

fn prove_tafl(tactic: &Tactic) -> Result<(), String> {
    prove(&mut tafl_game(tactic)?, tactic)
}

fn prove_camelot(tactic: &Tactic) -> Result<(), String> {
    prove(&mut camelot_game(tactic)?, tactic)
}

/// Checks the claim by brute force: a win or loss in exactly N plies; for `holds N`, the
/// listed moves escape a loss within N plies and every other move loses within N.
fn prove<G: Game>(game: &mut G, tactic: &Tactic) -> Result<(), String> {
    let me = game.to_move();
    match tactic.expected {
        Expected::WinIn(n) => match shortest_forced_win(game, me, n) {
            Some(found) if found == n => Ok(()),
            found => Err(format!("the shortest forced win is {found:?}, not {n}")),
        },
        Expected::LossIn(n) => match shortest_forced_win(game, me.other(), n) {
            Some(found) if found == n => Ok(()),
            found => Err(format!("the shortest forced loss is {found:?}, not {n}")),
        },
        Expected::Holds(n) => {
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            for mv in moves {
                let text = game.format_move(mv);
                let plain = text.split('x').next().unwrap_or(&text).to_owned();
                let listed = tactic.moves.iter().any(|m| *m == text || *m == plain);
                game.play(mv);
                let loses = forced_win_within(game, me.other(), n - 1);
                game.undo();
                if listed == loses {
                    return Err(format!(
                        "{text} {} within {n} plies",
                        if loses { "loses" } else { "does not lose" }
                    ));
                }
            }
            Ok(())
        }
    }
}

fn solve<G: EngineGame>(game: &G, tactic: &Tactic) -> Result<(), String> {
    for text in tactic.moves.iter().filter(|m| *m != "*") {
        game.parse_move(text)
            .map_err(|e| format!("expected move {text} is not legal: {e}"))?;
    }
    let mut engine = DefaultEngine::<G>::default();
    engine.set_hash_mb(4);
    let result = engine.search(
        game,
        &Limits::depth(tactic.depth),
        &AtomicBool::new(false),
        |_| {},
    );
    let best = result
        .best_move
        .map(|mv| game.format_move(mv))
        .ok_or("no move")?;
    let plain = best.split('x').next().unwrap_or(&best).to_owned();
    if !tactic
        .moves
        .iter()
        .any(|m| *m == best || *m == plain || m == "*")
    {
        return Err(format!(
            "chose {best} ({}), expected {}",
            result.score,
            tactic.moves.join(" or ")
        ));
    }
    match tactic.expected {
        Expected::WinIn(n) if result.score != Score::win_in(n) => Err(format!(
            "{best} scored {}, expected win in {n}",
            result.score
        )),
        Expected::Holds(n) if result.score <= Score::loss_in(n) => Err(format!(
            "{best} scored {}, expected no loss within {n}",
            result.score
        )),
        Expected::LossIn(n) if result.score != Score::loss_in(n) => Err(format!(
            "{best} scored {}, expected loss in {n}",
            result.score
        )),
        _ => Ok(()),
    }
}

fn failures(suite: &[Tactic], solve: fn(&Tactic) -> Result<(), String>) -> Vec<String> {
    suite
        .iter()
        .filter_map(|t| {
            solve(t)
                .err()
                .map(|e| format!("line {} ({}): {e}", t.line, t.comment))
        })
        .collect()
}

#[test]
fn tafl_tactics_are_solved() {
    let suite = parse_suite(include_str!("tactics/tafl.txt"));
    assert!(suite.len() >= 10, "the suite has its positions");
    let failed = failures(&suite, solve_tafl);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn camelot_tactics_are_solved() {
    let suite = parse_suite(include_str!("tactics/camelot.txt"));
    assert!(suite.len() >= 2, "the suite has its positions");
    let failed = failures(&suite, solve_camelot);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn tafl_tactics_are_what_they_claim() {
    let suite = parse_suite(include_str!("tactics/tafl.txt"));
    let failed = failures(&suite, prove_tafl);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn camelot_tactics_are_what_they_claim() {
    let suite = parse_suite(include_str!("tactics/camelot.txt"));
    let failed = failures(&suite, prove_camelot);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn a_wrong_expectation_is_caught() {
    // The harness itself: claiming the king escapes elsewhere must fail.
    let mut suite = parse_suite(include_str!("tactics/tafl.txt"));
    let escape = &mut suite[0];
    escape.moves = vec!["c1-c5".into()];
    assert!(solve_tafl(escape).is_err());
    escape.moves = vec!["c1-a1".into()];
    escape.expected = Expected::WinIn(3);
    assert!(solve_tafl(escape).is_err());
    // And the proof: the king escapes in 1, not 3.
    assert!(prove_tafl(escape).is_err());
    escape.expected = Expected::WinIn(1);
    assert!(prove_tafl(escape).is_ok());
}
