//! External tafl engines speaking the OpenTafl Engine Protocol (`otep:COMMAND`), driven
//! the way OpenTafl's `ExternalEngineHost` drives them: `hello`, `rules`, `side`, `start`,
//! then `clock` and `play <side>` for each of its moves (answered by `move <from>-<to>`),
//! `move <board>` once its move went through and `opponent-move <move> <board>` for the
//! other side's. A fresh process plays each game; `finish` and `goodbye` end it.
//!
//! OTEP has no move-time command: a fixed time per move is sent as a clock in overtime
//! with that much left in the period; clocks are sent as main time (OTEP clocks have no
//! increment). A fixed depth cannot be asked for.

use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use engine::Clock;
use game::Player as Side;

use super::htp::spawn_piped;
use super::player::{Choice, Limit, Player, PlayerError};
use games::Board;

/// How long the greeting and the rules may take.
const QUICK: Duration = Duration::from_secs(30);
/// Extra time an engine may take beyond its time before it is declared hung.
const GRACE: Duration = Duration::from_secs(60);

/// A program speaking the OpenTafl Engine Protocol.
pub struct OtepPlayer {
    command: String,
    process: Option<Process>,
    /// The side this engine plays in the current game, known from its first `play`
    /// (any move seen before that is the other side's).
    side: Option<Side>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "finish 0");
        let _ = writeln!(self.stdin, "goodbye");
        let _ = self.stdin.flush();
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn side_word(side: Side) -> &'static str {
    match side {
        Side::First => "attackers",
        Side::Second => "defenders",
    }
}

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

impl OtepPlayer {
    /// A player that runs `command` (split on whitespace) for each game.
    pub fn new(command: &str) -> Result<Self> {
        if command.split_whitespace().next().is_none() {
            bail!("otep: empty command");
        }
        Ok(OtepPlayer {
            command: command.to_owned(),
            process: None,
            side: None,
        })
    }

    fn send(&mut self, line: &str) -> Result<()> {
        let process = self.process.as_mut().context("otep: not started")?;
        writeln!(process.stdin, "{line}").context("otep: the engine closed its input")?;
        process.stdin.flush()?;
        Ok(())
    }

    /// The next line the engine writes that starts with one of `words`, within `limit`
    /// (other lines, such as `status`, are skipped).
    fn expect(&mut self, words: &[&str], limit: Duration) -> Result<String> {
        let process = self.process.as_mut().context("otep: not started")?;
        let deadline = std::time::Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = match process.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    bail!("otep: no {} from the engine in time", words.join("/"))
                }
                Err(RecvTimeoutError::Disconnected) => bail!("otep: the engine exited"),
            };
            let line = line.trim();
            if words
                .iter()
                .any(|w| line.split_whitespace().next() == Some(*w))
            {
                return Ok(line.to_owned());
            }
        }
    }

    fn start<G: Board>(&mut self, start: &G) -> Result<(), PlayerError> {
        let (rules, _) = start
            .to_any()
            .opentafl()
            .context("otep: OpenTafl engines play tafl only")?;
        let program = self.command.split_whitespace().next().unwrap_or_default();
        let (child, stdin, lines) =
            spawn_piped(&self.command, || format!("cannot start {program:?}"))?;
        self.process = Some(Process {
            child,
            stdin,
            lines,
        });
        self.expect(&["hello"], QUICK)?;
        self.send("hello")?;
        self.send(&format!("rules {rules}"))?;
        let reply = self.expect(&["status", "error"], QUICK)?;
        if reply.starts_with("error") {
            return Err(PlayerError::Failed(anyhow!(
                "otep: the engine refused the rules: {reply}"
            )));
        }
        Ok(())
    }

    fn board<G: Board>(game: &G) -> Result<String> {
        Ok(game.to_any().opentafl().context("otep: not a tafl game")?.1)
    }
}

impl<G: Board> Player<G> for OtepPlayer {
    fn name(&self) -> String {
        let program = self.command.split_whitespace().next().unwrap_or("otep");
        program.rsplit('/').next().unwrap_or(program).to_owned()
    }

    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), PlayerError> {
        self.process = None;
        self.side = None;
        self.start(start)?;
        if !opening.is_empty() {
            // The opening as a position (OpenTafl sends the same when a game starts from
            // a set position), with the side to move after it.
            let mut board = start.clone();
            for &mv in opening {
                board.play(mv);
            }
            let position = Self::board(&board)?;
            self.send(&format!(
                "position {position} {}",
                side_word(board.to_move())
            ))?;
        }
        self.send("start")?;
        Ok(())
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice> {
        let side = game.to_move();
        self.side = Some(side);
        let (clock_line, limit) = match control {
            Limit::MoveTime(time) => (
                format!(
                    "clock {ms}* {ms}* {s} 1 1 ",
                    ms = millis(time),
                    s = time.as_secs().max(1)
                ),
                time,
            ),
            Limit::Clock(_) => (
                format!(
                    "clock {} {} 0 0 0 ",
                    millis(clock.remaining[0]),
                    millis(clock.remaining[1])
                ),
                clock.remaining[side.index()],
            ),
            Limit::Depth(_) => {
                bail!("otep: the protocol cannot ask for a depth; use --movetime or --tc")
            }
        };
        self.send(&format!("side {}", side_word(side)))?;
        self.send(&clock_line)?;
        self.send(&format!("play {}", side_word(side)))?;
        let reply = self.expect(&["move", "error"], limit + GRACE)?;
        let mut words = reply.split_whitespace();
        match (words.next(), words.next()) {
            (Some("move"), Some(mv)) => Ok(Choice::Move(mv.to_owned())),
            _ => bail!("otep: the engine answered {reply:?}"),
        }
    }

    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), PlayerError> {
        let mut after = before.clone();
        after.play(mv);
        let board = Self::board(&after)?;
        if self.side == Some(before.to_move()) {
            // Its own move went through.
            self.send(&format!("move {board}"))?;
        } else {
            let text = before.format_move(mv);
            self.send(&format!("opponent-move {text} {board}"))?;
        }
        Ok(())
    }
}
