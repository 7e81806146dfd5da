//! `kingstable match`: the `arena` crate runs it; this prints its progress (a line per
//! finished game with the running score, every move with `--verbose`) and the summary.

use std::fmt::Write as _;

use anyhow::Result;
use arena::{Event, GameReport, MatchConfig, Summary};
use game::GameKind;
use games::{AnyGame, with_game};

/// Runs the match and prints it; the summary, for the exit status.
pub fn run(config: &MatchConfig, verbose: bool) -> Result<Summary> {
    let observer = |event: Event<'_>| match event {
        Event::Note(text) => eprintln!("note: {text}"),
        Event::Move {
            game,
            ply,
            player,
            text,
            spent,
        } => {
            if verbose {
                eprintln!(
                    "game {} ply {ply}: {player} {text} ({:.1} s)",
                    game + 1,
                    spent.as_secs_f64()
                );
            }
        }
        Event::Game {
            report,
            summary,
            resumed,
        } => print_game(config, report, summary, resumed),
    };
    let summary =
        with_game!(AnyGame::start(config.kind), start => arena::run(config, &start, &observer))?;
    print_summary(config, &summary);
    Ok(summary)
}

fn describe_result(kind: GameKind, report: &GameReport) -> String {
    match report.outcome {
        None => "aborted".into(),
        Some(o) => format!("{} ({})", kind.status_name(Some(o)), report.note),
    }
}

/// A finished game's line and the running score.
fn print_game(config: &MatchConfig, report: &GameReport, summary: &Summary, resumed: bool) {
    let names = &config.players;
    let (p1, p2) = if report.a_first {
        (&names[0], &names[1])
    } else {
        (&names[1], &names[0])
    };
    println!(
        "game {}/{} ({p1} vs {p2}): {} in {} plies{}",
        report.index + 1,
        config.games,
        describe_result(config.kind, report),
        report.plies,
        if resumed { " (saved earlier)" } else { "" }
    );
    println!("score of {} vs {}: {}", names[0], names[1], summary.tally);
}

/// How player A's scored games ended, by result and reason: `won 3 (repetition 2,
/// resignation 1), lost 1 (corner_escape 1)`; `None` if no game was scored.
fn endings(summary: &Summary) -> Option<String> {
    let parts: Vec<String> = summary
        .endings()
        .iter()
        .map(|e| {
            let word = match e.points {
                1.0 => "won",
                0.5 => "drew",
                _ => "lost",
            };
            let mut text = format!("{word} {} (", e.total);
            for (i, (reason, n)) in e.reasons.iter().enumerate() {
                let comma = if i > 0 { ", " } else { "" };
                let _ = write!(text, "{comma}{} {n}", reason.as_str());
            }
            text.push(')');
            text
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

fn print_summary(config: &MatchConfig, summary: &Summary) {
    println!();
    println!(
        "final score of {} vs {}: {}",
        config.players[0], config.players[1], summary.tally
    );
    if let Some(line) = endings(summary) {
        println!("{} {line}", config.players[0]);
    }
    if !summary.refusals.is_empty() {
        println!(
            "{} game(s) not scored: the peer refused a move our rules allow or held the game over by its own rules:",
            summary.refusals.len()
        );
        for (game, reason) in &summary.refusals {
            println!("  game {game}: {reason}");
        }
    }
    if !summary.failures.is_empty() {
        println!(
            "{} game(s) lost by a player's failure (scored, but not won over the board):",
            summary.failures.len()
        );
        for (game, reason) in &summary.failures {
            println!("  game {game}: {reason}");
        }
    }
}

#[cfg(test)]
mod tests {
    use game::{EndReason, Outcome, Player};

    use super::*;

    #[test]
    fn endings_read_by_result_and_reason() {
        let game = |index: usize, outcome: Option<Outcome>| GameReport {
            index,
            a_first: index.is_multiple_of(2),
            outcome,
            note: String::new(),
            plies: 10,
            refusal: None,
            failure: None,
            record: String::new(),
        };
        let first = |reason| Some(Outcome::win(Player::First, reason));
        let second = |reason| Some(Outcome::win(Player::Second, reason));
        let mut summary = Summary::default();
        for report in [
            game(0, first(EndReason::Repetition)),
            game(1, second(EndReason::Resignation)),
            game(2, first(EndReason::Repetition)),
            game(3, Some(Outcome::draw(EndReason::Adjudication))),
            game(4, None),
        ] {
            summary.add(report);
        }
        assert_eq!(
            endings(&summary).unwrap(),
            "won 3 (repetition 2, resignation 1), drew 1 (adjudication 1)"
        );
        assert_eq!(endings(&Summary::default()), None);
    }
}
