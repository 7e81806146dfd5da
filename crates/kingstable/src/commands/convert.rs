//! `kingstable convert`: turn game records from one form into another, checking every
//! move on the way.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use game::GameKind;
use games::record::{write, write_moves};

use crate::commands::replay::options;

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
pub fn run(
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
        for read in games::record::read(kind, &text, options(repetition)) {
            let fault = match &read.replay {
                Ok(replay) => replay.fault.as_ref(),
                Err(fault) => Some(fault),
            };
            if let Some(fault) = fault {
                bail!(
                    "{}:{}: ply {} ({}): {}",
                    path.display(),
                    read.line,
                    fault.ply,
                    fault.text,
                    fault.error
                );
            }
            let replay = read
                .replay
                .as_ref()
                .ok()
                .context("a game that replays has a start")?;
            match form {
                Form::Record => {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&write(&replay.game, &read.record.tags, replay.outcome));
                }
                Form::Moves => out.push_str(&write_moves(&replay.game, replay.outcome)),
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
