//! `kingstable replay`: check recorded games move by move against the rules.

use std::path::PathBuf;

use anyhow::{Context, Result};
use game::record::{Record, RecordEnding, parse_records};
use game::{EndReason, GameKind, Outcome};
use serde::Serialize;

use crate::setup::Setup;

/// Where a game came from: its line in a move-list file, or its file (and line, when the
/// file holds several games).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Label {
    /// 1-based line of a move-list file.
    Line(usize),
    /// A record file, or `file:line` for one of several games in it.
    Name(String),
}

/// The first thing wrong in a game.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ReplayError {
    /// The 1-based ply of the bad move.
    pub ply: usize,
    /// The move as written.
    #[serde(rename = "move")]
    pub text: String,
    /// What is wrong with it.
    pub message: String,
}

/// One replayed game (one JSON line of `replay --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Which game.
    pub game: Label,
    /// The moves played (before an error).
    pub plies: usize,
    /// `ongoing`, `draw` or `<side>_win`.
    pub status: &'static str,
    /// Why the game ended.
    pub reason: Option<EndReason>,
    /// The first error, if any.
    pub error: Option<ReplayError>,
    /// The outcome behind `status` and `reason`.
    #[serde(skip)]
    pub outcome: Option<Outcome>,
}

/// Replays one record under `kind`'s rules.
pub fn replay_record<G: Setup>(
    kind: GameKind,
    record: &Record,
    repetition: bool,
    game_label: Label,
) -> Report {
    replay_game::<G>(kind, record, repetition, game_label).1
}

/// Replays one record under `kind`'s rules: the game as far as it replayed (`None` if its
/// start could not be set up), with the report. The report's outcome includes endings
/// the rules do not decide (time, resignation, a stated result).
pub fn replay_game<G: Setup>(
    kind: GameKind,
    record: &Record,
    repetition: bool,
    game_label: Label,
) -> (Option<G>, Report) {
    let mut report = Report {
        game: game_label,
        plies: 0,
        status: "ongoing",
        reason: None,
        error: None,
        outcome: None,
    };
    let mut game = match G::from_record(kind, record, repetition) {
        Ok(game) => game,
        Err(err) => {
            report.error = Some(ReplayError {
                ply: 0,
                text: String::new(),
                message: format!("{err:#}"),
            });
            return (None, report);
        }
    };
    for (i, text) in record.moves.iter().enumerate() {
        let error = |message: String| ReplayError {
            ply: i + 1,
            text: text.clone(),
            message,
        };
        if let Some(outcome) = game.outcome() {
            report.error = Some(error(format!(
                "a move after the end of the game ({}, {})",
                kind.status_name(Some(outcome)),
                outcome.reason
            )));
            break;
        }
        match game.parse_recorded_move(text) {
            Ok(mv) => {
                game.play(mv);
                report.plies += 1;
            }
            Err(err) => {
                report.error = Some(error(err.to_string()));
                break;
            }
        }
    }
    let mut outcome = game.outcome();
    if report.error.is_none() {
        let ending = record.ending.map(|ending| match ending {
            RecordEnding::Timeout => ("timeout", EndReason::Timeout),
            RecordEnding::Resignation => ("---", EndReason::Resignation),
        });
        match (outcome, ending) {
            (Some(done), Some((token, _))) => {
                report.error = Some(ReplayError {
                    ply: report.plies + 1,
                    text: token.to_owned(),
                    message: format!(
                        "the game was already over ({}, {})",
                        kind.status_name(Some(done)),
                        done.reason
                    ),
                });
            }
            (None, Some((_, reason))) => outcome = Some(Outcome::loss(game.to_move(), reason)),
            (None, None) => {
                // An ending outside the rules that the record names (Kingstable's match
                // records do) is taken as stated; otherwise a stated win is a
                // resignation and a stated draw was agreed.
                let stated = record
                    .tag("Reason")
                    .and_then(|name| name.parse::<EndReason>().ok())
                    .filter(|reason| {
                        matches!(
                            reason,
                            EndReason::Resignation
                                | EndReason::Timeout
                                | EndReason::Agreement
                                | EndReason::Adjudication
                        )
                    });
                outcome = record.stated_result().map(|winner| match winner {
                    Some(player) => Outcome::win(player, stated.unwrap_or(EndReason::Resignation)),
                    None => Outcome::draw(stated.unwrap_or(EndReason::Agreement)),
                });
            }
            (Some(_), None) => {}
        }
    }
    report.status = kind.status_name(outcome);
    report.reason = outcome.map(|o| o.reason);
    report.outcome = outcome;
    (Some(game), report)
}

/// Reads every file (any unreadable one stops everything before output), replays every
/// game in order, prints a summary or JSON Lines, and returns whether any game had an
/// error.
pub fn run<G: Setup>(
    kind: GameKind,
    files: &[PathBuf],
    repetition: bool,
    json: bool,
) -> Result<bool> {
    let mut inputs = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let records = parse_records(&text)
            .with_context(|| format!("cannot read records in {}", path.display()))?;
        let score = game::record::is_score(&text);
        inputs.push((path, score, records));
    }
    let (mut games, mut errors) = (0, 0);
    for (path, score, records) in &inputs {
        let name = path.display().to_string();
        for record in records {
            let label = match (*score, records.len()) {
                (false, _) => Label::Line(record.line),
                (true, 1) => Label::Name(name.clone()),
                (true, _) => Label::Name(format!("{name}:{}", record.line)),
            };
            let report = replay_record::<G>(kind, record, repetition, label);
            games += 1;
            if report.error.is_some() {
                errors += 1;
            }
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                println!("{}", describe(&report, kind));
            }
        }
    }
    if !json {
        println!("{games} games replayed, {errors} with errors");
    }
    Ok(errors > 0)
}

fn describe(report: &Report, kind: GameKind) -> String {
    let label = match &report.game {
        Label::Line(n) => format!("line {n}"),
        Label::Name(name) => name.clone(),
    };
    match &report.error {
        Some(err) => format!(
            "{label}: ERROR at ply {} ({}): {}",
            err.ply, err.text, err.message
        ),
        None => {
            let ending = match report.reason {
                Some(reason) => format!("{} by {}", report.status.replace('_', " "), reason),
                None => "ongoing".to_owned(),
            };
            let _ = kind;
            format!("{label}: {} plies, {ending}", report.plies)
        }
    }
}
