//! A client for the hnefatafl.org text protocol (the one `hnefatafl-text-protocol` from
//! the `hnefatafl-copenhagen` crate speaks on stdin/stdout), so its AI can be an opponent.
//! The program runs as a separate process; nothing of it is linked here.
//!
//! Commands used: `play attacker|defender <from> <to>` (plays a move), `generate_move`
//! (the AI chooses a move, plays it, and answers `= play <role> <from> <to>`, or
//! `= play <role> resigns _`), `final_status` (`ongoing`, `attacker_wins`,
//! `defender_wins`, `draw`: asked when it refuses to move, to tell a game it holds over
//! by its own rules from a failure). Replies start with `=` (success) or `?` (refusal).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use engine::Clock;
use game::{Game, Player as Side};

use super::player::{Choice, Player, PlayerError, TimeControl};

/// How long the peer may think before it is declared hung: its depth-4 search takes up to
/// about a minute on an idle core here, many minutes on a loaded machine.
const REPLY_TIMEOUT: Duration = Duration::from_secs(1800);

/// A program speaking the hnefatafl.org text protocol.
pub struct HtpPlayer {
    command: String,
    process: Option<Process>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The protocol's role name for a side.
fn role(side: Side) -> &'static str {
    match side {
        Side::First => "attacker",
        Side::Second => "defender",
    }
}

/// Our notation (`d1-d3xd2`, as `format_move` writes it) → `("d1", "d3")`.
fn squares(text: &str) -> Result<(String, String)> {
    let (from, rest) = text.split_once('-').context("move without '-'")?;
    let to = rest.split('x').next().unwrap_or(rest);
    Ok((from.to_ascii_lowercase(), to.to_ascii_lowercase()))
}

impl HtpPlayer {
    /// A player that runs `command` (split on whitespace) for each game.
    pub fn new(command: &str) -> Result<Self> {
        if command.split_whitespace().next().is_none() {
            bail!("htp: empty command");
        }
        Ok(HtpPlayer {
            command: command.to_owned(),
            process: None,
        })
    }

    fn start(&mut self) -> Result<()> {
        let mut words = self.command.split_whitespace();
        let program = words.next().context("htp: empty command")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {program:?} (see bench/install-peers.sh)"))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        self.process = Some(Process {
            child,
            stdin,
            lines,
        });
        Ok(())
    }

    /// Sends one command and returns the reply after `=` (`Ok`) or `?` (`Err`).
    fn command(&mut self, line: &str) -> Result<std::result::Result<String, String>> {
        let process = self.process.as_mut().context("htp: not started")?;
        writeln!(process.stdin, "{line}").context("htp: the peer closed its input")?;
        process.stdin.flush()?;
        loop {
            let reply = match process.lines.recv_timeout(REPLY_TIMEOUT) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => bail!("htp: no reply to {line:?}"),
                Err(RecvTimeoutError::Disconnected) => bail!("htp: the peer exited"),
            };
            let reply = reply.trim();
            if let Some(rest) = reply.strip_prefix('=') {
                return Ok(Ok(rest.trim().to_owned()));
            }
            if let Some(rest) = reply.strip_prefix('?') {
                return Ok(Err(rest.trim().to_owned()));
            }
            // Blank lines and anything else between replies are skipped.
        }
    }

    fn send_move<G: Game>(&mut self, before: &G, mv: G::Move) -> Result<(), PlayerError> {
        let (from, to) = squares(&before.format_move(mv))?;
        let line = format!("play {} {from} {to}", role(before.to_move()));
        match self.command(&line)? {
            Ok(_) => Ok(()),
            Err(reason) => Err(PlayerError::Refused(format!("{line}: {reason}"))),
        }
    }
}

impl<G: Game> Player<G> for HtpPlayer {
    fn name(&self) -> String {
        let program = self.command.split_whitespace().next().unwrap_or("htp");
        program.rsplit('/').next().unwrap_or(program).to_owned()
    }

    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), PlayerError> {
        if start.ply() != 0 || start.to_move() != Side::First {
            return Err(PlayerError::Failed(anyhow::anyhow!(
                "htp: only games from the standard start are supported"
            )));
        }
        self.process = None;
        self.start()?;
        let mut board = start.clone();
        for &mv in opening {
            self.send_move(&board, mv)?;
            board.play(mv);
        }
        Ok(())
    }

    fn choose(&mut self, game: &G, _clock: &Clock, _control: TimeControl) -> Result<Choice> {
        let reply = match self.command("generate_move")? {
            Ok(reply) => reply,
            Err(reason) => {
                // A peer that ended the game by its own rules (hnefatafl.org's draw after
                // 140 plies, its extra adjudications) says so in `final_status`.
                return match self.command("final_status")? {
                    Ok(status) if status != "ongoing" => Ok(Choice::GameOver(format!(
                        "generate_move: the peer holds the game over by its rules \
                         ({status}) after {} plies: {reason}",
                        game.ply()
                    ))),
                    _ => bail!("htp: generate_move refused: {reason}"),
                };
            }
        };
        // `play attacker d1 d3` or `play defender resigns _`, possibly followed by
        // `, score: …, delay milliseconds: …`.
        let head = reply.split(',').next().unwrap_or("");
        let words: Vec<&str> = head.split_whitespace().collect();
        match words.as_slice() {
            ["play", side, "resigns", ..] if *side == role(game.to_move()) => Ok(Choice::Resign),
            ["play", side, from, to] if *side == role(game.to_move()) => {
                Ok(Choice::Move(format!("{from}-{to}")))
            }
            _ => bail!("htp: unexpected reply to generate_move: {reply:?}"),
        }
    }

    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), PlayerError> {
        self.send_move(before, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_are_taken_from_our_notation() {
        assert_eq!(
            squares("g3-e3xe2").unwrap(),
            ("g3".to_owned(), "e3".to_owned())
        );
        assert_eq!(
            squares("k4-i4").unwrap(),
            ("k4".to_owned(), "i4".to_owned())
        );
        assert!(squares("nonsense").is_err());
    }
}
