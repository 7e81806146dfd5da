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
//! by its rules, with status 1 and `Error: …` on stderr when it refuses a move (a stack
//! backtrace follows that line when `RUST_BACKTRACE` is set).
//!
//! Commands used: `play attacker|defender <from> <to>` (plays a move), `generate_move`
//! (the AI chooses a move, plays it, and answers `= play <role> <from> <to>`, or
//! `= play <role> resigns _`), `final_status` (`ongoing`, `attacker_wins`,
//! `defender_wins`, `draw`: asked when it refuses to move, to tell a game it holds over
//! by its own rules from a failure). Replies start with `=` (success) or `?` (refusal).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::Clock;
use game::{Game, Player as Side};

use crate::contestant::{Choice, Contestant, ContestantError, Limit};
use crate::error::DriverError;
use crate::process::{LineError, Lines, Process, SpawnError, command_line, send_line};

/// How long the peer may think before it is declared hung: its depth-4 search takes up to
/// about a minute on an idle core here, many minutes on a loaded machine.
const REPLY_TIMEOUT: Duration = Duration::from_secs(1800);
/// How long the peer may take to start and connect (TCP mode) or to exit once it has
/// closed the connection.
const QUICK: Duration = Duration::from_secs(30);
/// The port the peer connects to in TCP mode (fixed by the program).
const PORT: u16 = 49152;

/// From what the peer wrote on stderr as it exited: its `Error: …` line, if any (with
/// `RUST_BACKTRACE` set, a stack backtrace follows it), and its last non-blank line.
fn what_the_peer_said(stderr: &str) -> (Option<&str>, &str) {
    let mut lines = stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    let error = lines.clone().find(|l| l.starts_with("Error:"));
    (error, lines.next_back().unwrap_or(""))
}

fn failure(message: impl Into<String>) -> DriverError {
    DriverError::protocol("htp", message)
}

/// How the peer is spoken to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Commands on stdin, replies (`=`/`?`) on stdout; fixed depth 4.
    Stdin,
    /// The peer's `--host` mode: it connects to us over TCP.
    Tcp,
}

/// A program speaking the hnefatafl.org text protocol.
pub struct HtpContestant {
    command: String,
    transport: Transport,
    peer: Option<Peer>,
    /// The last `play` line sent (TCP mode: the peer does not answer it, so a refusal shows
    /// only when it exits).
    last_play: Option<String>,
}

/// One game's peer process and the way to it.
struct Peer {
    process: Process,
    input: Box<dyn Write + Send>,
    lines: Lines,
    /// What the program wrote on stderr (TCP mode), for the reason it exited.
    stderr: Arc<Mutex<String>>,
}

/// The protocol's role name for a side.
fn role(side: Side) -> &'static str {
    match side {
        Side::First => "attacker",
        Side::Second => "defender",
    }
}

/// Our notation (`d1-d3xd2`, as `format_move` writes it) → `("d1", "d3")`.
fn squares(text: &str) -> Result<(String, String), DriverError> {
    let (from, rest) = text
        .split_once('-')
        .ok_or_else(|| failure(format!("{text:?}: a move without '-'")))?;
    let to = rest.split('x').next().unwrap_or(rest);
    Ok((from.to_ascii_lowercase(), to.to_ascii_lowercase()))
}

/// A listener on the first free loopback address (`127.0.0.2` on) at the peer's port, so
/// several games can run at once.
fn listen() -> Result<(TcpListener, Ipv4Addr), DriverError> {
    for last in 2..=254 {
        let address = Ipv4Addr::new(127, 0, 0, last);
        if let Ok(listener) = TcpListener::bind((address, PORT)) {
            return Ok((listener, address));
        }
    }
    Err(failure(format!(
        "no free loopback address with port {PORT}"
    )))
}

/// Keeps the end of what `pipe` writes in `sink` (the reason for an exit comes last).
fn keep_tail(mut pipe: impl Read + Send + 'static, sink: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut buffer) {
            if n == 0 {
                break;
            }
            let mut text = sink
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            text.push_str(&String::from_utf8_lossy(&buffer[..n]));
            if text.len() > 16_384 {
                let cut = text.len() - 8192;
                let cut = (cut..text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(text.len());
                text.drain(..cut);
            }
        }
    });
}

fn io_failure(what: &str) -> impl FnOnce(std::io::Error) -> DriverError + '_ {
    move |err| failure(format!("{what}: {err}"))
}

impl HtpContestant {
    /// A contestant that runs `command` (split on whitespace) for each game.
    #[must_use]
    pub fn new(command: &str, transport: Transport) -> Self {
        HtpContestant {
            command: command.to_owned(),
            transport,
            peer: None,
            last_play: None,
        }
    }

    fn start(&mut self) -> Result<(), DriverError> {
        let hint = |err: SpawnError| match err {
            SpawnError::Start { program, reason } => failure(format!(
                "cannot start {program:?} (see bench/install-peers.sh): {reason}"
            )),
            SpawnError::Empty => failure("empty command"),
        };
        self.last_play = None;
        let peer = match self.transport {
            Transport::Stdin => {
                let mut command = command_line(&self.command, &[] as &[&str])?;
                let (process, input, lines) =
                    Process::piped(command.stderr(Stdio::null())).map_err(hint)?;
                Peer {
                    process,
                    input: Box::new(input),
                    lines,
                    stderr: Arc::default(),
                }
            }
            Transport::Tcp => {
                let (listener, address) = listen()?;
                let mut command =
                    command_line(&self.command, &["--host".to_owned(), address.to_string()])?;
                // Its stdin stays open (and unused) for as long as it runs.
                command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped());
                let mut process = Process::start(&mut command).map_err(hint)?;
                let program = process.program().to_owned();
                let stderr = Arc::new(Mutex::new(String::new()));
                if let Some(pipe) = process.child_mut().stderr.take() {
                    keep_tail(pipe, Arc::clone(&stderr));
                }
                listener
                    .set_nonblocking(true)
                    .map_err(io_failure("listening"))?;
                let deadline = Instant::now() + QUICK;
                let stream = loop {
                    match listener.accept() {
                        Ok((stream, _)) => break stream,
                        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(err) => return Err(failure(format!("accepting the peer: {err}"))),
                    }
                    if let Ok(Some(status)) = process.try_wait() {
                        return Err(failure(format!(
                            "{program:?} exited ({status}) before connecting"
                        )));
                    }
                    if Instant::now() >= deadline {
                        return Err(failure(format!(
                            "{program:?} did not connect to {address}:{PORT}"
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                };
                stream
                    .set_nonblocking(false)
                    .map_err(io_failure("the peer's connection"))?;
                let reader = stream
                    .try_clone()
                    .map_err(io_failure("the peer's connection"))?;
                let lines = Lines::spawn(reader).map_err(io_failure("reading the peer"))?;
                Peer {
                    process,
                    input: Box::new(stream),
                    lines,
                    stderr,
                }
            }
        };
        self.peer = Some(peer);
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), ContestantError> {
        let peer = self.peer.as_mut().ok_or_else(|| failure("not started"))?;
        if send_line(&mut peer.input, line).is_err() {
            return Err(self.departure());
        }
        Ok(())
    }

    /// The next line from the peer; `Err` if it went away (see [`Self::departure`]).
    fn receive(&mut self, after: &str) -> Result<String, ContestantError> {
        let peer = self.peer.as_mut().ok_or_else(|| failure("not started"))?;
        match peer.lines.next_before(Instant::now() + REPLY_TIMEOUT) {
            Ok(line) => Ok(line),
            Err(LineError::Timeout) => Err(failure(format!("no reply to {after:?}")).into()),
            Err(LineError::Closed) => Err(self.departure()),
        }
    }

    /// Why the peer went away. In TCP mode it exits instead of answering `?`: status 0
    /// when its game is over by its rules, 1 with `Error: …` when it refuses a move; both
    /// are house-rule differences, reported apart. Anything else is a failure.
    fn departure(&mut self) -> ContestantError {
        let Some(peer) = self.peer.as_mut() else {
            return failure("not started").into();
        };
        let after = self.last_play.as_deref().unwrap_or("the opening");
        let status = match peer.process.wait_for(QUICK) {
            Ok(Some(status)) => status,
            Ok(None) => return failure("the peer stopped talking").into(),
            Err(err) => return failure(format!("the peer's status: {err}")).into(),
        };
        let said = peer
            .stderr
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let (error, last) = what_the_peer_said(&said);
        match (self.transport, status.code(), error) {
            (Transport::Tcp, Some(0), _) => ContestantError::Refused(format!(
                "the peer ended the game by its rules (the last move sent: {after:?})"
            )),
            (Transport::Tcp, Some(1), Some(error)) => {
                ContestantError::Refused(format!("{after}: {error}"))
            }
            _ => failure(format!("the peer exited ({status}) {last}")).into(),
        }
    }

    /// Sends one command and returns the reply after `=` (`Ok`) or `?` (`Err`).
    fn command(&mut self, line: &str) -> Result<Result<String, String>, ContestantError> {
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

    fn send_move<G: Game>(&mut self, before: &G, mv: G::Move) -> Result<(), ContestantError> {
        let (from, to) = squares(&before.format_move(mv))?;
        let line = format!("play {} {from} {to}", role(before.to_move()));
        self.last_play = Some(line.clone());
        if self.transport == Transport::Tcp {
            // No answer comes; a refusal shows when the peer exits.
            return self.send(&line);
        }
        match self.command(&line)? {
            Ok(_) => Ok(()),
            Err(reason) => Err(ContestantError::Refused(format!("{line}: {reason}"))),
        }
    }

    /// `generate_move`: the reply, or why there is none.
    fn generate<G: Game>(&mut self, game: &G) -> Result<Result<String, String>, ContestantError> {
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
                    _ => Err(failure(format!("generate_move refused: {reason}")).into()),
                }
            }
        }
    }
}

impl<G: Game> Contestant<G> for HtpContestant {
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

    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), ContestantError> {
        if start.ply() != 0 || start.to_move() != Side::First {
            return Err(failure("only games from the standard start are supported").into());
        }
        self.peer = None;
        self.start()?;
        let mut board = start.clone();
        for &mv in opening {
            self.send_move(&board, mv)?;
            board.play(mv);
        }
        Ok(())
    }

    fn choose(&mut self, game: &G, _clock: &Clock, _control: Limit) -> Result<Choice, DriverError> {
        let reply = match self.generate(game) {
            Ok(Ok(reply)) => reply,
            Ok(Err(reason)) | Err(ContestantError::Refused(reason)) => {
                return Ok(Choice::GameOver(reason));
            }
            Err(ContestantError::Failed(err)) => return Err(err),
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
            _ => Err(failure(format!(
                "unexpected reply to generate_move: {reply:?}"
            ))),
        }
    }

    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), ContestantError> {
        self.send_move(before, mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peers_refusal_is_found_above_its_backtrace() {
        // What it wrote refusing a repeated position with RUST_BACKTRACE=1 set (cut).
        let stderr = "Error: play: you already reached that position\n\nStack backtrace:\n   \
            0: anyhow::error::<impl core::convert::From<E> for anyhow::Error>::from\n   \
            1: hnefatafl_copenhagen::ai::AI::play\n   9: _start\n";
        assert_eq!(
            what_the_peer_said(stderr),
            (
                Some("Error: play: you already reached that position"),
                "9: _start"
            )
        );
        assert_eq!(
            what_the_peer_said("Error: play: illegal move\n"),
            (
                Some("Error: play: illegal move"),
                "Error: play: illegal move"
            )
        );
        // A crash is no refusal.
        assert_eq!(
            what_the_peer_said("thread 'main' panicked at src/ai.rs:10:5\n\n"),
            (None, "thread 'main' panicked at src/ai.rs:10:5")
        );
        assert_eq!(what_the_peer_said(""), (None, ""));
    }

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
