//! A client for the hnefatafl.org text protocol (the one `hnefatafl-text-protocol` from
//! the `hnefatafl-copenhagen` crate speaks on stdin/stdout), so its AI can be an opponent.
//! The program runs as a separate process; nothing of it is linked here.
//!
//! Two transports. On stdin/stdout (`htp:COMMAND`) the program plays at its fixed depth 4
//! and answers every command. In its TCP mode (`htp-host:COMMAND`, e.g.
//! `htp-host:hnefatafl-text-protocol --depth 3`) the runner listens on a loopback address
//! at port 49152, starts `COMMAND --host ADDRESS` for each game, and the program connects;
//! it then honours `--depth`, answers only `generate_move` (a bare `play <role> <from>
//! <to>` line), and instead of answering `?` it exits: with status 0 when its game is over
//! by its rules, with status 1 and `Error: …` on stderr when it refuses a move.
//!
//! Commands used: `play attacker|defender <from> <to>` (plays a move), `generate_move`
//! (the AI chooses a move, plays it, and answers `= play <role> <from> <to>`, or
//! `= play <role> resigns _`), `final_status` (`ongoing`, `attacker_wins`,
//! `defender_wins`, `draw`: asked when it refuses to move, to tell a game it holds over
//! by its own rules from a failure). Replies start with `=` (success) or `?` (refusal).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use engine::Clock;
use game::{Game, Player as Side};

use super::player::{Choice, Limit, Player, PlayerError};

/// How long the peer may think before it is declared hung: its depth-4 search takes up to
/// about a minute on an idle core here, many minutes on a loaded machine.
const REPLY_TIMEOUT: Duration = Duration::from_secs(1800);
/// How long the peer may take to start and connect (TCP mode) or to exit once it has
/// closed the connection.
const QUICK: Duration = Duration::from_secs(30);
/// The port the peer connects to in TCP mode (fixed by the program).
const PORT: u16 = 49152;

/// How the peer is spoken to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Commands on stdin, replies (`=`/`?`) on stdout; fixed depth 4.
    Stdin,
    /// The peer's `--host` mode: it connects to us over TCP.
    Tcp,
}

/// A program speaking the hnefatafl.org text protocol.
pub struct HtpPlayer {
    command: String,
    transport: Transport,
    process: Option<Process>,
    /// The last `play` line sent (TCP mode: the peer does not answer it, so a refusal shows
    /// only when it exits).
    last_play: Option<String>,
}

struct Process {
    child: Child,
    input: Box<dyn Write + Send>,
    lines: Receiver<String>,
    /// What the program wrote on stderr (TCP mode), for the reason it exited.
    stderr: Arc<Mutex<String>>,
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

/// Sends every line read from `input` into a channel, until the input ends.
pub(super) fn line_reader(input: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(input).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// `command` (split on whitespace) with `extra` arguments after its own, stdin piped.
pub(super) fn command_line(command: &str, extra: &[String]) -> Result<Command> {
    let mut words = command.split_whitespace();
    let program = words.next().context("empty command")?;
    let mut command = Command::new(program);
    command.args(words).args(extra).stdin(Stdio::piped());
    Ok(command)
}

/// Starts `command` with stdin and stdout piped (stderr discarded): the child, its
/// input, and its output as lines. `started` names the failure to start.
pub(super) fn spawn_piped(
    command: &str,
    started: impl FnOnce() -> String,
) -> Result<(Child, ChildStdin, Receiver<String>)> {
    let mut child = command_line(command, &[])?
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(started)?;
    let input = child.stdin.take().context("no stdin")?;
    let lines = line_reader(child.stdout.take().context("no stdout")?);
    Ok((child, input, lines))
}

/// A listener on the first free loopback address (`127.0.0.2` on) at the peer's port, so
/// several games can run at once.
fn listen() -> Result<(TcpListener, Ipv4Addr)> {
    for last in 2..=254 {
        let address = Ipv4Addr::new(127, 0, 0, last);
        if let Ok(listener) = TcpListener::bind((address, PORT)) {
            return Ok((listener, address));
        }
    }
    bail!("htp: no free loopback address with port {PORT}")
}

/// Waits up to `limit` for the child to exit.
fn wait_for(child: &mut Child, limit: Duration) -> Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl HtpPlayer {
    /// A player that runs `command` (split on whitespace) for each game.
    pub fn new(command: &str, transport: Transport) -> Result<Self> {
        if command.split_whitespace().next().is_none() {
            bail!("htp: empty command");
        }
        Ok(HtpPlayer {
            command: command.to_owned(),
            transport,
            process: None,
            last_play: None,
        })
    }

    fn start(&mut self) -> Result<()> {
        let program = self.command.split_whitespace().next().unwrap_or_default();
        let started = || format!("cannot start {program:?} (see bench/install-peers.sh)");
        self.last_play = None;
        let process = match self.transport {
            Transport::Stdin => {
                let (child, input, lines) = spawn_piped(&self.command, started)?;
                Process {
                    child,
                    input: Box::new(input),
                    lines,
                    stderr: Arc::default(),
                }
            }
            Transport::Tcp => {
                let (listener, address) = listen()?;
                let mut child =
                    command_line(&self.command, &["--host".to_owned(), address.to_string()])?
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .spawn()
                        .with_context(started)?;
                let stderr = Arc::new(Mutex::new(String::new()));
                let mut pipe = child.stderr.take().context("no stderr")?;
                let sink = Arc::clone(&stderr);
                std::thread::spawn(move || {
                    let mut buffer = [0u8; 4096];
                    while let Ok(n) = pipe.read(&mut buffer) {
                        if n == 0 {
                            break;
                        }
                        let mut text = sink.lock().expect("no panics hold it");
                        text.push_str(&String::from_utf8_lossy(&buffer[..n]));
                        // Keep the end: the reason for an exit comes last.
                        if text.len() > 16_384 {
                            let cut = text.len() - 8192;
                            let cut = (cut..text.len())
                                .find(|&i| text.is_char_boundary(i))
                                .unwrap_or(text.len());
                            text.drain(..cut);
                        }
                    }
                });
                listener.set_nonblocking(true)?;
                let deadline = Instant::now() + QUICK;
                let stream = loop {
                    match listener.accept() {
                        Ok((stream, _)) => break stream,
                        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(err) => return Err(err).context("htp: accepting the peer"),
                    }
                    if let Some(status) = child.try_wait()? {
                        bail!("htp: {program:?} exited ({status}) before connecting");
                    }
                    if Instant::now() >= deadline {
                        let _ = child.kill();
                        bail!("htp: {program:?} did not connect to {address}:{PORT}");
                    }
                    std::thread::sleep(Duration::from_millis(20));
                };
                stream.set_nonblocking(false)?;
                let lines = line_reader(stream.try_clone()?);
                Process {
                    child,
                    input: Box::new(stream),
                    lines,
                    stderr,
                }
            }
        };
        self.process = Some(process);
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        let process = self.process.as_mut().context("htp: not started")?;
        if writeln!(process.input, "{line}")
            .and_then(|()| process.input.flush())
            .is_err()
        {
            return Err(self.departure());
        }
        Ok(())
    }

    /// The next line from the peer; `Err` if it went away (see [`Self::departure`]).
    fn receive(&mut self, after: &str) -> Result<String, PlayerError> {
        let process = self.process.as_mut().context("htp: not started")?;
        match process.lines.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                Err(PlayerError::Failed(anyhow!("htp: no reply to {after:?}")))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.departure()),
        }
    }

    /// Why the peer went away. In TCP mode it exits instead of answering `?`: status 0
    /// when its game is over by its rules, 1 with `Error: …` when it refuses a move; both
    /// are house-rule differences, reported apart. Anything else is a failure.
    fn departure(&mut self) -> PlayerError {
        let Some(process) = self.process.as_mut() else {
            return PlayerError::Failed(anyhow!("htp: not started"));
        };
        let after = self.last_play.as_deref().unwrap_or("the opening");
        let status = match wait_for(&mut process.child, QUICK) {
            Ok(Some(status)) => status,
            Ok(None) => return PlayerError::Failed(anyhow!("htp: the peer stopped talking")),
            Err(err) => return PlayerError::Failed(err),
        };
        let said = process.stderr.lock().expect("no panics hold it").clone();
        let said = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        match (self.transport, status.code()) {
            (Transport::Tcp, Some(0)) => PlayerError::Refused(format!(
                "the peer ended the game by its rules (the last move sent: {after:?})"
            )),
            (Transport::Tcp, Some(1)) if said.starts_with("Error:") => {
                PlayerError::Refused(format!("{after}: {}", said.trim()))
            }
            _ => PlayerError::Failed(anyhow!("htp: the peer exited ({status}) {said}")),
        }
    }

    /// Sends one command and returns the reply after `=` (`Ok`) or `?` (`Err`).
    fn command(&mut self, line: &str) -> Result<std::result::Result<String, String>, PlayerError> {
        self.send(line)?;
        loop {
            let reply = self.receive(line)?;
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
        self.last_play = Some(line.clone());
        if self.transport == Transport::Tcp {
            // No answer comes; a refusal shows when the peer exits.
            return self.send(&line);
        }
        match self.command(&line)? {
            Ok(_) => Ok(()),
            Err(reason) => Err(PlayerError::Refused(format!("{line}: {reason}"))),
        }
    }

    /// `generate_move`: the reply, or why there is none.
    fn generate<G: Game>(&mut self, game: &G) -> Result<Result<String, String>, PlayerError> {
        if self.transport == Transport::Tcp {
            self.send("generate_move")?;
            return Ok(Ok(self.receive("generate_move")?));
        }
        match self.command("generate_move")? {
            Ok(reply) => Ok(Ok(reply)),
            Err(reason) => {
                // A peer that ended the game by its own rules (hnefatafl.org's draw after
                // 140 plies, its extra adjudications) says so in `final_status`.
                match self.command("final_status")? {
                    Ok(status) if status != "ongoing" => Ok(Err(format!(
                        "generate_move: the peer holds the game over by its rules \
                         ({status}) after {} plies: {reason}",
                        game.ply()
                    ))),
                    _ => Err(PlayerError::Failed(anyhow!(
                        "htp: generate_move refused: {reason}"
                    ))),
                }
            }
        }
    }
}

impl<G: Game> Player<G> for HtpPlayer {
    fn name(&self) -> String {
        let mut words = self.command.split_whitespace();
        let program = words.next().unwrap_or("htp");
        let mut name = program.rsplit('/').next().unwrap_or(program).to_owned();
        for word in words {
            name.push(' ');
            name.push_str(word);
        }
        name
    }

    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), PlayerError> {
        if start.ply() != 0 || start.to_move() != Side::First {
            return Err(PlayerError::Failed(anyhow!(
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

    fn choose(&mut self, game: &G, _clock: &Clock, _control: Limit) -> Result<Choice> {
        let reply = match self.generate(game) {
            Ok(Ok(reply)) => reply,
            Ok(Err(reason)) | Err(PlayerError::Refused(reason)) => {
                return Ok(Choice::GameOver(reason));
            }
            Err(PlayerError::Failed(err)) => return Err(err),
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
    fn games_at_once_listen_on_different_loopback_addresses() {
        let (_a, first) = listen().unwrap();
        let (_b, second) = listen().unwrap();
        assert_ne!(first, second);
        assert!(first.is_loopback() && second.is_loopback());
    }

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
