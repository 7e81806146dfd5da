//! `kingstable replay`: check recorded games move by move against the rules.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use game::{EndReason, Game, GameKind};
use games::Variations;
use games::record::{GameRead, ReplayOptions};
use serde::Serialize;

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
    /// The 1-based ply of the bad move (0: the start position).
    pub ply: usize,
    /// The move as written.
    #[serde(rename = "move")]
    pub text: String,
    /// The 1-based line of the file it is on.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// One replayed game (one JSON line of `replay --json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Which game.
    pub game: Label,
    /// The 1-based number of the game in its file.
    pub index: usize,
    /// The 1-based line of the file where it starts.
    pub line: usize,
    /// The moves played (before an error).
    pub plies: usize,
    /// `ongoing`, `draw` or `<side>_win`.
    pub status: &'static str,
    /// Why the game ended.
    pub reason: Option<EndReason>,
    /// The first error, if any.
    pub error: Option<ReplayError>,
}

impl Report {
    /// The report on one game read by [`games::record::read`].
    pub fn new(kind: GameKind, read: &GameRead, game: Label) -> Report {
        let (plies, outcome, fault) = match &read.replay {
            Ok(replay) => (replay.game.ply(), replay.outcome, replay.fault.as_ref()),
            Err(fault) => (0, None, Some(fault)),
        };
        Report {
            game,
            index: read.index,
            line: read.line,
            plies,
            status: kind.status_name(outcome),
            reason: outcome.map(|o| o.reason),
            error: fault.map(|fault| ReplayError {
                ply: fault.ply,
                text: fault.text.clone(),
                line: fault.line,
                message: fault.error.to_string(),
            }),
        }
    }
}

/// How `replay` and `convert` read records: the rules' repetition as asked, captures
/// checked exactly.
#[must_use]
pub fn options(repetition: bool) -> ReplayOptions {
    ReplayOptions {
        variations: Variations {
            repetition_off: !repetition,
            repetition: None,
        },
        lenient_captures: false,
    }
}

/// The text of a record file, or of standard input for `-`.
pub fn read_input(path: &Path) -> Result<String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
    }
}

/// Reads every file (`-`: standard input; any unreadable one stops everything before
/// output), replays every game in order, a game that cannot be read or replayed
/// reported with its error and the rest read on, prints a summary or JSON Lines, and
/// returns whether any game had an error.
pub fn run(kind: GameKind, files: &[PathBuf], repetition: bool, json: bool) -> Result<bool> {
    let mut inputs = Vec::new();
    for path in files {
        let text = read_input(path)?;
        let score = game::record::is_score(&text);
        inputs.push((
            path,
            score,
            games::record::read(kind, &text, options(repetition)),
        ));
    }
    let (mut games, mut errors) = (0, 0);
    for (path, score, reads) in &inputs {
        let name = path.display().to_string();
        for read in reads {
            let label = match (*score, reads.len()) {
                (false, _) => Label::Line(read.line),
                (true, 1) => Label::Name(name.clone()),
                (true, _) => Label::Name(format!("{name}:{}", read.line)),
            };
            let report = Report::new(kind, read, label);
            games += 1;
            if report.error.is_some() {
                errors += 1;
            }
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                let several = reads.len() > 1;
                println!("{}", describe(&report, *score, several, &name));
            }
        }
    }
    if !json {
        println!("{games} games replayed, {errors} with errors");
    }
    Ok(errors > 0)
}

/// `game N`, with `line L` where the two differ.
fn game_and_line(index: usize, line: usize) -> String {
    if index == line {
        format!("game {index}")
    } else {
        format!("game {index}, line {line}")
    }
}

/// One game's line of the summary: which game (`game 2, line 3` in a move list; the
/// file, and `game 2, line 14` if it holds several), then its plies and ending or its
/// error (with the error's line where that is not the game's).
fn describe(report: &Report, score: bool, several: bool, file: &str) -> String {
    let label = match (score, several) {
        (false, _) => game_and_line(report.index, report.line),
        (true, false) => file.to_owned(),
        (true, true) => format!("{file}: {}", game_and_line(report.index, report.line)),
    };
    match &report.error {
        Some(err) => {
            let at = if err.line == report.line {
                String::new()
            } else {
                format!(", line {}", err.line)
            };
            format!(
                "{label}: ERROR at ply {} ({}){at}: {}",
                err.ply, err.text, err.message
            )
        }
        None => {
            let ending = match report.reason {
                Some(reason) => format!("{} by {}", report.status.replace('_', " "), reason),
                None => "ongoing".to_owned(),
            };
            format!("{label}: {} plies, {ending}", report.plies)
        }
    }
}
