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
    if let Some(sprt) = &config.sprt {
        println!("{}", sprt_line(sprt, summary));
    }
}

/// The test's state: `sprt: LLR 1.23 (-2.94, 2.94) [0, 10], 12 pairs: continue`.
fn sprt_line(sprt: &arena::Sprt, summary: &Summary) -> String {
    let status = summary.sprt_status(sprt);
    let unit = match sprt.model {
        arena::sprt::Model::Pentanomial => "pairs",
        arena::sprt::Model::Trinomial => "games",
    };
    let mut line = format!(
        "sprt: LLR {:.2} ({:.2}, {:.2}) [{}, {}], {} {unit}: {}",
        status.llr,
        status.lower,
        status.upper,
        sprt.elo0,
        sprt.elo1,
        status.samples,
        status.decision.as_str()
    );
    if let Some((decision, games)) = summary.sprt_decided
        && decision != status.decision
    {
        let _ = write!(line, " (decided {} after {games} games)", decision.as_str());
    }
    line
}

/// The test's result and the model's Elo estimate: `SPRT (…): H1 accepted after 40
/// games; LLR 2.95 (-2.94, 2.94); Elo +25 (95%: +3 .. +48), pentanomial, 20 pairs`.
fn sprt_summary(sprt: &arena::Sprt, summary: &Summary) -> String {
    let status = summary.sprt_status(sprt);
    let verdict = match summary.sprt_decided {
        Some((decision, games)) => format!("{} after {games} games", decision.as_str()),
        None => format!(
            "no decision after {} games (the --games bound)",
            summary.tally.games()
        ),
    };
    let mut line = format!(
        "SPRT ({sprt}): {verdict}; LLR {:.2} ({:.2}, {:.2})",
        status.llr, status.lower, status.upper
    );
    if let Some((elo, low, high)) = status.elo {
        let unit = match sprt.model {
            arena::sprt::Model::Pentanomial => "pairs",
            arena::sprt::Model::Trinomial => "games",
        };
        let _ = write!(
            line,
            "; Elo {} (95%: {} .. {}), {}, {} {unit}",
            signed(elo),
            signed(low),
            signed(high),
            sprt.model.as_str(),
            status.samples
        );
    }
    line
}

fn signed(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_owned()
    } else {
        format!("{elo:+.1}")
    }
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
    let [first, second, draws] = summary.by_side();
    if first + second + draws > 0 {
        println!(
            "by side: {} won {first}, {} won {second}, drawn {draws}",
            config.kind.side_name(game::Player::First),
            config.kind.side_name(game::Player::Second),
        );
    }
    if let Some(sprt) = &config.sprt {
        println!("{}", sprt_summary(sprt, summary));
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

    #[test]
    fn sprt_lines_give_the_llr_bounds_decision_and_elo() {
        let sprt: arena::Sprt = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
        let game = |index: usize, outcome| GameReport {
            index,
            a_first: index.is_multiple_of(2),
            outcome: Some(outcome),
            note: String::new(),
            plies: 10,
            refusal: None,
            failure: None,
            record: String::new(),
        };
        let mut summary = Summary::default();
        // Two pairs: A wins both games of the first, splits the second.
        summary.add(game(
            0,
            Outcome::win(Player::First, EndReason::CornerEscape),
        ));
        summary.add(game(
            1,
            Outcome::win(Player::Second, EndReason::CornerEscape),
        ));
        summary.add(game(
            2,
            Outcome::win(Player::First, EndReason::CornerEscape),
        ));
        summary.add(game(
            3,
            Outcome::win(Player::First, EndReason::CornerEscape),
        ));
        let line = sprt_line(&sprt, &summary);
        assert!(line.starts_with("sprt: LLR "), "{line}");
        assert!(
            line.ends_with("(-2.94, 2.94) [0, 10], 2 pairs: continue"),
            "{line}"
        );
        let total = sprt_summary(&sprt, &summary);
        assert!(
            total.starts_with(
                "SPRT (elo0=0,elo1=10,alpha=0.05,beta=0.05,model=pentanomial): \
                 no decision after 4 games (the --games bound); LLR "
            ),
            "{total}"
        );
        // Pairs scoring 1 and ½: a mean of ¾, +191 Elo.
        assert!(total.contains("Elo +190.8 (95%: -67.9 .. +inf)"), "{total}");
        assert!(total.ends_with("pentanomial, 2 pairs"), "{total}");
        summary.sprt_decided = Some((arena::sprt::Decision::AcceptH1, 4));
        assert!(sprt_summary(&sprt, &summary).contains("H1 accepted after 4 games"));
        assert!(
            sprt_line(&sprt, &summary).ends_with("continue (decided H1 accepted after 4 games)")
        );
    }
}
