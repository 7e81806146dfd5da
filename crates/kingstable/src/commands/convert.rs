//! `kingstable convert`: turn game records from one form into another, checking every
//! move on the way.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use game::record::parse_records;
use game::{EndReason, GameKind, Player};

use crate::commands::replay::{Label, replay_game};
use crate::setup::Setup;

/// The forms `convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Form {
    /// The game's own record: OpenTafl `.otg` for tafl, a WCF score with tags for Camelot.
    Record,
    /// A move list: one game per line, moves with captures (canonical paths for Camelot),
    /// ending with `timeout` or `---` when the game was lost on time or by resignation.
    Moves,
}

/// Reads every game of `files`, replays each strictly, and writes them all in `form` to
/// `output` (or stdout). If any game does not replay, nothing is written and the first
/// error is returned: bad input changes nothing.
pub fn run<G: Setup>(
    kind: GameKind,
    files: &[PathBuf],
    form: Form,
    repetition: bool,
    output: Option<&Path>,
) -> Result<()> {
    let mut out = String::new();
    for path in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let records = parse_records(&text)
            .with_context(|| format!("cannot read records in {}", path.display()))?;
        for record in &records {
            let label = Label::Name(format!("{}:{}", path.display(), record.line));
            let (game, report) = replay_game::<G>(kind, record, repetition, label);
            if let Some(err) = report.error {
                bail!(
                    "{}:{}: ply {} ({}): {}",
                    path.display(),
                    record.line,
                    err.ply,
                    err.text,
                    err.message
                );
            }
            let game: G = game.context("a game that replays has a start")?;
            match form {
                Form::Record => {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&game.write_record(&record.tags, report.outcome));
                }
                Form::Moves => {
                    let mut line = game.move_texts().join(" ");
                    let ending = match report.outcome {
                        Some(o) if o.reason == EndReason::Timeout => Some("timeout"),
                        Some(o) if o.reason == EndReason::Resignation => Some("---"),
                        _ => None,
                    };
                    if let Some(token) = ending {
                        // `timeout` and `---` say the side to move lost: true of a
                        // move list only when the loser was to move.
                        let loser = report.outcome.and_then(|o| o.winner).map(Player::other);
                        if loser == Some(game.to_move()) {
                            let _ = write!(line, " {token}");
                        }
                    }
                    out.push_str(line.trim_start());
                    out.push('\n');
                }
            }
        }
    }
    match output {
        Some(path) => {
            std::fs::write(path, out).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => print!("{out}"),
    }
    Ok(())
}
