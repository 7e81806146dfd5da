//! The referee: one game between two contestants, by our rules. It plays the opening,
//! asks each side for its move on the clock, checks every move, ends the game by the
//! rules, by resignation, a flag fall, a failure or an adjudication, and writes the
//! record. A saved record reads back as the same report (`--resume`).

use engine::Clock;
use game::{EndReason, Game, GameKind, Outcome, Player as Side};
use games::Board;
use games::record::ReplayOptions;
use session::{ClockStart, Clocks, Options, Session, Takebacks, TimeControl, Timestamp};

use crate::contestant::{Choice, Contestant, ContestantError, Limit};
use crate::error::{Error, ResumeError};
use crate::runner::{Event, MatchConfig};

/// How one game went.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 0-based game number.
    pub index: usize,
    /// Whether the first contestant (`config.players[0]`) had the first side.
    pub a_first: bool,
    /// The outcome (`None`: aborted, not scored).
    pub outcome: Option<Outcome>,
    /// Why the game ended, in words (the record's `Termination` tag).
    pub note: String,
    /// Plies played.
    pub plies: usize,
    /// The peer refused a move our rules allow (the game is not scored).
    pub refusal: Option<String>,
    /// A contestant failed (crashed, hung, broke the protocol) and lost the game for it.
    pub failure: Option<String>,
    /// The record, as written.
    pub record: String,
}

impl GameReport {
    /// Points for contestant A (`config.players[0]`): 1, ½ or 0; `None` if not scored.
    #[must_use]
    pub fn points_for_a(&self) -> Option<f64> {
        let outcome = self.outcome?;
        let a_side = if self.a_first {
            Side::First
        } else {
            Side::Second
        };
        Some(match outcome.winner {
            None => 0.5,
            Some(winner) if winner == a_side => 1.0,
            Some(_) => 0.0,
        })
    }
}

/// The engine's view of `clocks` at `now`: both players' time left and increments
/// (`None` when untimed).
#[must_use]
pub fn engine_clock(clocks: &Clocks, now: Timestamp) -> Option<Clock> {
    Some(Clock {
        remaining: clocks.both(now)?,
        increment: [clocks.control().increment(); 2],
        moves_to_go: None,
    })
}

fn side_name(kind: GameKind, side: Side) -> String {
    let name = kind.side_name(side);
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Plays game `index` (0-based) between `first` (moves first) and `second`, from `start`
/// after `opening`; every move is reported to `observer` as [`Event::Move`].
///
/// A contestant's failure during the game loses it (listed in the report); a refusal
/// of a move our rules allow aborts it unscored.
///
/// # Errors
/// When a contestant cannot start the game ([`Error::Start`]: no game it would lose by
/// default is worth scoring), an opening move does not play, or the repetition rule
/// cannot be set.
pub fn play_game<G: Board>(
    config: &MatchConfig,
    start: &G,
    index: usize,
    opening: &[String],
    first: &mut dyn Contestant<G>,
    second: &mut dyn Contestant<G>,
    observer: &(dyn Fn(Event<'_>) + Sync),
) -> Result<GameReport, Error> {
    let kind = config.kind;
    let start = match config.repetition {
        Some(rule) => G::from_any(start.to_any().with_repetition_rule(rule)?)
            .ok_or_else(|| Error::Unsupported("the game changed kind".into()))?,
        None => start.clone(),
    };
    let mut game = start.clone();
    let mut opening_moves = Vec::new();
    for text in opening {
        let mv = game.parse_move(text).map_err(|err| Error::OpeningMove {
            game: index + 1,
            text: text.clone(),
            message: err.to_string(),
        })?;
        opening_moves.push(mv);
        game.play(mv);
    }
    let names = [first.name(), second.name()];
    let mut report = GameReport {
        index,
        a_first: index.is_multiple_of(2),
        outcome: None,
        note: String::new(),
        plies: 0,
        refusal: None,
        failure: None,
        record: String::new(),
    };
    let mut players: [&mut dyn Contestant<G>; 2] = [first, second];
    for (i, player) in players.iter_mut().enumerate() {
        match player.new_game(&start, &opening_moves) {
            Ok(()) => {}
            Err(ContestantError::Refused(reason)) => report.refusal = Some(reason),
            Err(ContestantError::Failed(error)) => {
                return Err(Error::Start {
                    game: index + 1,
                    player: names[i].clone(),
                    error,
                });
            }
        }
    }
    // The table: the game after the opening, on the clocks if the match is played on
    // them (the first side's starts now). It checks every move and ends the game.
    let control = match config.control {
        Limit::Clock(control) => control,
        Limit::MoveTime(_) | Limit::Depth(_) => TimeControl::Untimed,
    };
    let options = Options {
        control,
        takebacks: Takebacks::Never,
        // An engine's clock counts from its first turn.
        clock_start: ClockStart::AtOnce,
    };
    let mut table = Session::new(game.to_any(), options, Timestamp::now());
    while report.refusal.is_none() {
        if let Some(o) = table.outcome() {
            if report.note.is_empty() {
                report.note = o.reason.to_string();
            }
            break;
        }
        if config.draw_after.is_some_and(|limit| game.ply() >= limit) {
            let drawn = Outcome::draw(EndReason::Adjudication);
            rule(&mut table, drawn);
            report.note = format!("draw adjudicated after {} plies", game.ply());
            continue;
        }
        let side = table.to_move();
        let me = side.index();
        let started = Timestamp::now();
        let clock = engine_clock(table.clocks(), started).unwrap_or_default();
        let b_to_move = (me == 0) != report.a_first;
        let limit = match config.movetime_b {
            Some(time) if b_to_move => Limit::MoveTime(time),
            _ => config.control,
        };
        let choice = players[me].choose(&game, &clock, limit);
        let now = Timestamp::now();
        let spent = now.saturating_duration_since(started);
        if let Some(lost) = table.check_flag(now) {
            report.note = match lost.winner {
                Some(_) => format!("{} lost on time", names[me]),
                None => format!(
                    "{} ran out of time; the opponent cannot win: draw",
                    names[me]
                ),
            };
            continue;
        }
        let text = match choice {
            Ok(Choice::Move(text)) => text,
            Ok(Choice::Resign) => {
                let _ = table.resign(side, now);
                report.note = format!("{} resigned", names[me]);
                continue;
            }
            Ok(Choice::GameOver(reason)) => {
                report.refusal = Some(reason);
                continue;
            }
            Err(err) => {
                rule(&mut table, Outcome::loss(side, EndReason::Resignation));
                report.note = format!("{} failed: {err}", names[me]);
                report.failure = Some(report.note.clone());
                continue;
            }
        };
        let info = match table.play(side, &text, now) {
            Ok(info) => info,
            Err(err) => {
                rule(&mut table, Outcome::loss(side, EndReason::Resignation));
                report.note = format!("{} played an illegal move: {err}", names[me]);
                continue;
            }
        };
        observer(Event::Move {
            game: index,
            ply: game.ply() + 1,
            player: &names[me],
            text: &info.text,
            spent,
        });
        let mv = table
            .game()
            .moves()
            .last()
            .copied()
            .and_then(G::move_from_any)
            .ok_or_else(|| Error::Unsupported("the game changed kind".into()))?;
        let observed = players[1 - me].observe(&game, mv);
        game.play(mv);
        match observed {
            Ok(()) => {}
            Err(ContestantError::Refused(reason)) => report.refusal = Some(reason),
            // A move that ended the game by the rules stands, whatever the other side
            // makes of it; otherwise a side that cannot follow the game loses it.
            Err(ContestantError::Failed(err)) if table.outcome().is_none() => {
                rule(
                    &mut table,
                    Outcome::loss(side.other(), EndReason::Resignation),
                );
                report.note = format!("{} failed: {err}", names[1 - me]);
                report.failure = Some(report.note.clone());
            }
            Err(ContestantError::Failed(_)) => {}
        }
    }
    let mut outcome = table.outcome();
    if let Some(reason) = &report.refusal {
        report.note = format!("aborted: the peer's house rules differ from ours ({reason})");
        outcome = None;
    }
    for player in players.iter_mut() {
        player.finish(outcome);
    }
    report.outcome = outcome;
    report.plies = game.ply();
    let mut tags = vec![
        ("Event".to_owned(), "Kingstable match".to_owned()),
        ("Round".to_owned(), (index + 1).to_string()),
        (side_name(kind, Side::First), names[0].clone()),
        (side_name(kind, Side::Second), names[1].clone()),
        ("Engine1".to_owned(), config.players[0].clone()),
        ("Engine2".to_owned(), config.players[1].clone()),
        ("Opening".to_owned(), opening.join(" ")),
        ("Termination".to_owned(), report.note.clone()),
    ];
    if let Some(o) = outcome {
        tags.push(("Reason".to_owned(), o.reason.as_str().to_owned()));
    }
    if let Some(failure) = &report.failure {
        tags.push(("Failure".to_owned(), failure.clone()));
    }
    if let Some(refusal) = &report.refusal {
        tags.push(("Refusal".to_owned(), refusal.clone()));
    }
    report.record = games::record::write(table.game(), &tags, outcome);
    Ok(report)
}

/// Ends the game on the table with `outcome`, ruled by the referee (an adjudication, or
/// a forfeit for an illegal move or a failure, recorded as a resignation).
fn rule(table: &mut Session, outcome: Outcome) {
    // Refused only when the game is already over, which the loop has checked.
    let _ = table.adjudicate(outcome, Timestamp::now());
}

/// Reads back game `index` as an earlier run of this match saved it (`--resume`), after
/// checking that it is the game this match would play there: same round, opening and
/// engines (records that predate the `Engine1`/`Engine2` tags are checked by round and
/// opening). The moves are replayed by our rules; the outcome is the rules' if they ended
/// the game, else the one the record states (resignation, time, adjudication, failure).
///
/// # Errors
/// Why the record is not this match's game, or does not replay.
pub fn report_from_record(
    config: &MatchConfig,
    index: usize,
    text: &str,
) -> Result<GameReport, ResumeError> {
    let games = games::record::read(config.kind, text, ReplayOptions::default());
    let [read] = games.as_slice() else {
        return Err(ResumeError::GameCount(games.len()));
    };
    let record = &read.record;
    let opening = &config.openings[(index / 2) % config.openings.len()];
    let mut expected = vec![
        ("Round", (index + 1).to_string()),
        ("Opening", opening.join(" ")),
    ];
    for (key, spec) in ["Engine1", "Engine2"].into_iter().zip(&config.players) {
        if record.tag(key).is_some() {
            expected.push((key, spec.clone()));
        }
    }
    for (key, want) in expected {
        match record.tag(key) {
            Some(found) if found == want => {}
            Some(found) => {
                return Err(ResumeError::Tag {
                    key,
                    found: found.to_owned(),
                    want,
                });
            }
            None => return Err(ResumeError::MissingTag(key)),
        }
    }
    let replay = read.replay.clone()?;
    if let Some(fault) = replay.fault {
        return Err(fault.into());
    }
    let refusal = record.tag("Refusal").map(str::to_owned);
    let outcome = match (&refusal, replay.outcome) {
        (Some(_), _) => None,
        (None, Some(outcome)) => Some(outcome),
        (None, None) => return Err(ResumeError::Unfinished),
    };
    Ok(GameReport {
        index,
        a_first: index.is_multiple_of(2),
        outcome,
        note: record.tag("Termination").unwrap_or_default().to_owned(),
        plies: replay.game.ply(),
        refusal,
        failure: record.tag("Failure").map(str::to_owned),
        record: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use session::TimeControl;

    use super::*;

    #[test]
    fn the_engine_sees_both_clocks_and_the_increment() {
        let t0 = Timestamp::from_millis(1_000_000);
        let mut clocks = Clocks::new(TimeControl::fischer(2, 1));
        clocks.start(Side::First, t0);
        let clock = engine_clock(&clocks, t0 + Duration::from_secs(20)).unwrap();
        assert_eq!(
            clock.remaining,
            [Duration::from_secs(100), Duration::from_secs(120)]
        );
        assert_eq!(clock.increment, [Duration::from_secs(1); 2]);
        assert!(engine_clock(&Clocks::new(TimeControl::Untimed), t0).is_none());
    }
}
