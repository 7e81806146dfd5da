//! The client side of UGI: spawn another engine (or another `kingstable engine`), talk
//! to it line by line, and never wait on it forever. The match runner's UGI contestant
//! ([`crate::ugi`]) drives external engines with this; it starts and reads them as every
//! other driver does ([`crate::process`]).
//!
//! Every call that waits takes a timeout. Commands that UGI does not acknowledge
//! (`setoption`, `position`, `uginewgame`) are followed by `isready`, so a refusal (an
//! `info string error: …` line before `readyok`) comes back as
//! [`ClientError::Refused`] instead of going unnoticed.
//!
//! ```no_run
//! use std::time::Duration;
//! use arena::client::UgiClient;
//! use protocol::ugi::Go;
//!
//! let wait = Duration::from_secs(5);
//! let mut engine = UgiClient::spawn("kingstable", ["engine"])?;
//! engine.handshake(wait)?;
//! engine.set_option("Variant", "fetlar", wait)?;
//! engine.new_game(wait)?;
//! engine.set_position(None, &["d1-d3"], wait)?;
//! let reply = engine.go(&Go::movetime(Duration::from_millis(500)), wait)?;
//! println!("{:?}", reply.bestmove);
//! engine.quit(wait)?;
//! # Ok::<(), arena::client::ClientError>(())
//! ```

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use protocol::ugi::{Go, Query};

use crate::process::{LineError, Lines, Process, SpawnError, send_line};

/// Why talking to an engine failed. The messages name the underlying IO error
/// themselves, so it is not also given as a source (printing the chain would repeat it).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The program could not be started.
    #[error("cannot start engine {program:?}: {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        reason: io::Error,
    },
    /// Writing to the engine failed (it has probably exited).
    #[error("cannot write to the engine: {0}")]
    Write(io::Error),
    /// The engine did not answer in time.
    #[error("no {waiting_for} from the engine within {after:?}")]
    Timeout {
        /// What was awaited.
        waiting_for: String,
        /// How long we waited.
        after: Duration,
    },
    /// The engine closed its output (exited) while we waited.
    #[error("the engine closed its output while we waited for {waiting_for}")]
    Closed {
        /// What was awaited.
        waiting_for: String,
    },
    /// The engine answered a command with an error.
    #[error("the engine refused {command:?}: {message}")]
    Refused {
        /// The command sent.
        command: String,
        /// The engine's message.
        message: String,
    },
}

/// What the engine said about itself during the handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineId {
    /// `id name …`.
    pub name: Option<String>,
    /// `id author …`.
    pub author: Option<String>,
    /// The `option …` lines, as sent (without the leading `option `).
    pub options: Vec<String>,
}

/// A score as an `info` line gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UgiScore {
    /// `cp <n>`: an evaluation for the side to move.
    Cp(i32),
    /// `mate <n>`: a forced win in `n` moves (negative: a forced loss).
    Mate(i32),
}

/// The fields of an `info` line that a runner uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    /// `depth`.
    pub depth: Option<u32>,
    /// `score cp|mate`.
    pub score: Option<UgiScore>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `time` (ms).
    pub time_ms: Option<u64>,
    /// `pv` (to the end of the line).
    pub pv: Vec<String>,
}

impl InfoLine {
    /// Reads an `info` line (not `info string`); unknown fields are skipped.
    ///
    /// ```
    /// use arena::client::{InfoLine, UgiScore};
    /// let info = InfoLine::parse("info depth 3 seldepth 5 score mate -2 nodes 900 time 4 pv d1-d3 e5-e2").unwrap();
    /// assert_eq!(info.score, Some(UgiScore::Mate(-2)));
    /// assert_eq!(info.pv, ["d1-d3", "e5-e2"]);
    /// assert!(InfoLine::parse("info string hello").is_none());
    /// ```
    #[must_use]
    pub fn parse(line: &str) -> Option<InfoLine> {
        let mut words = line.split_whitespace();
        if words.next() != Some("info") {
            return None;
        }
        let mut info = InfoLine::default();
        while let Some(word) = words.next() {
            match word {
                "string" => return None,
                "depth" => info.depth = words.next().and_then(|w| w.parse().ok()),
                "nodes" => info.nodes = words.next().and_then(|w| w.parse().ok()),
                "time" => info.time_ms = words.next().and_then(|w| w.parse().ok()),
                "score" => {
                    let kind = words.next();
                    let value = words.next().and_then(|w| w.parse().ok());
                    info.score = match (kind, value) {
                        (Some("cp"), Some(v)) => Some(UgiScore::Cp(v)),
                        (Some("mate"), Some(v)) => Some(UgiScore::Mate(v)),
                        _ => None,
                    };
                }
                "pv" => {
                    info.pv = words.by_ref().map(str::to_owned).collect();
                }
                _ => {}
            }
        }
        Some(info)
    }
}

/// What a search ended with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReply {
    /// The move, or `None` for `bestmove none` (the game was over).
    pub bestmove: Option<String>,
    /// The last `info` line with search fields, if any.
    pub last_info: Option<InfoLine>,
    /// Every line before `bestmove`.
    pub lines: Vec<String>,
}

/// Lines kept for [`UgiClient::transcript`].
const TRANSCRIPT: usize = 200;

/// A running UGI engine process.
pub struct UgiClient {
    process: Process,
    stdin: ChildStdin,
    lines: Lines,
    /// Lines read but not yet used: a wait that timed out puts back what it read.
    backlog: VecDeque<String>,
    transcript: VecDeque<String>,
    id: EngineId,
}

impl std::fmt::Debug for UgiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UgiClient")
            .field("pid", &self.process.id())
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl UgiClient {
    /// Starts `program` with `args`; its standard error is discarded.
    pub fn spawn<I, S>(program: impl AsRef<OsStr>, args: I) -> Result<UgiClient, ClientError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(program);
        command.args(args).stderr(Stdio::null());
        UgiClient::from_command(command)
    }

    /// Starts `command` (its standard input and output are taken over; standard error
    /// is left as the command says).
    pub fn from_command(mut command: Command) -> Result<UgiClient, ClientError> {
        let (process, stdin, lines) = Process::piped(&mut command).map_err(|err| match err {
            SpawnError::Start { program, reason } => ClientError::Spawn { program, reason },
            SpawnError::Empty => ClientError::Spawn {
                program: String::new(),
                reason: io::Error::other("no program"),
            },
        })?;
        Ok(UgiClient {
            process,
            stdin,
            lines,
            backlog: VecDeque::new(),
            transcript: VecDeque::new(),
            id: EngineId::default(),
        })
    }

    /// What the engine said about itself (after [`UgiClient::handshake`]).
    #[must_use]
    pub fn id(&self) -> &EngineId {
        &self.id
    }

    /// The last lines exchanged, `> ` sent and `< ` received, oldest first: for error
    /// reports.
    pub fn transcript(&self) -> impl Iterator<Item = &str> {
        self.transcript.iter().map(String::as_str)
    }

    fn note(&mut self, line: String) {
        if self.transcript.len() == TRANSCRIPT {
            self.transcript.pop_front();
        }
        self.transcript.push_back(line);
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        self.note(format!("> {line}"));
        send_line(&mut self.stdin, line).map_err(ClientError::Write)
    }

    /// The next line, waiting until `deadline`.
    pub fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Result<String, ClientError> {
        if let Some(line) = self.backlog.pop_front() {
            return Ok(line);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.next_before(deadline) {
            Ok(line) => {
                self.note(format!("< {line}"));
                Ok(line)
            }
            Err(LineError::Timeout) => Err(ClientError::Timeout {
                waiting_for: waiting_for.to_owned(),
                after: left,
            }),
            Err(LineError::Closed) => Err(ClientError::Closed {
                waiting_for: waiting_for.to_owned(),
            }),
        }
    }

    /// Reads lines until one satisfies `done`, returning it and the lines before it. An
    /// `info string error` line on the way is a refusal of `command`, reported once the
    /// awaited line has come (so no answer is left behind for the next command); on a
    /// timeout the lines read are kept for the next wait.
    fn read_until(
        &mut self,
        command: &str,
        waiting_for: &str,
        timeout: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<(String, Vec<String>), ClientError> {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        let mut refusal = None;
        loop {
            let line = match self.recv(deadline, waiting_for) {
                Ok(line) => line,
                Err(err) => {
                    for line in before.into_iter().rev() {
                        self.backlog.push_front(line);
                    }
                    return Err(err);
                }
            };
            if done(&line) {
                return match refusal {
                    Some(message) => Err(ClientError::Refused {
                        command: command.to_owned(),
                        message,
                    }),
                    None => Ok((line, before)),
                };
            }
            if refusal.is_none()
                && let Some(message) = line.trim().strip_prefix("info string error:")
            {
                refusal = Some(message.trim().to_owned());
            }
            before.push(line);
        }
    }

    /// `ugi` … `ugiok`, then `isready` … `readyok`.
    pub fn handshake(&mut self, timeout: Duration) -> Result<&EngineId, ClientError> {
        self.send("ugi")?;
        let (_, lines) = self.read_until("ugi", "ugiok", timeout, |l| l.trim() == "ugiok")?;
        let mut id = EngineId::default();
        for line in lines {
            let line = line.trim();
            if let Some(name) = line.strip_prefix("id name ") {
                id.name = Some(name.trim().to_owned());
            } else if let Some(author) = line.strip_prefix("id author ") {
                id.author = Some(author.trim().to_owned());
            } else if let Some(option) = line.strip_prefix("option ") {
                id.options.push(option.trim().to_owned());
            }
        }
        self.id = id;
        self.is_ready(timeout)?;
        Ok(&self.id)
    }

    /// `isready` … `readyok`.
    pub fn is_ready(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.checked("isready", timeout)
    }

    /// Sends `line`, then `isready` unless `line` is that already, and waits for
    /// `readyok`: an error line in between is a refusal.
    fn checked(&mut self, line: &str, timeout: Duration) -> Result<(), ClientError> {
        self.send(line)?;
        if line != "isready" {
            self.send("isready")?;
        }
        self.read_until(line, "readyok", timeout, |l| l.trim() == "readyok")
            .map(|_| ())
    }

    /// `setoption name <name> value <value>`, checked.
    pub fn set_option(
        &mut self,
        name: &str,
        value: &str,
        timeout: Duration,
    ) -> Result<(), ClientError> {
        self.checked(&format!("setoption name {name} value {value}"), timeout)
    }

    /// `uginewgame`, checked.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.checked("uginewgame", timeout)
    }

    /// `position startpos|fen <fen> [moves …]`, checked.
    pub fn set_position<S: AsRef<str>>(
        &mut self,
        fen: Option<&str>,
        moves: &[S],
        timeout: Duration,
    ) -> Result<(), ClientError> {
        let mut line = match fen {
            None => "position startpos".to_owned(),
            Some(fen) => format!("position fen {fen}"),
        };
        if !moves.is_empty() {
            line.push_str(" moves");
            for mv in moves {
                line.push(' ');
                line.push_str(mv.as_ref());
            }
        }
        self.checked(&line, timeout)
    }

    /// Starts a search without waiting for it.
    pub fn start_go(&mut self, go: &Go) -> Result<(), ClientError> {
        let args = go.to_string();
        if args.is_empty() {
            self.send("go")
        } else {
            self.send(&format!("go {args}"))
        }
    }

    /// Waits for `bestmove`.
    pub fn wait_bestmove(&mut self, timeout: Duration) -> Result<SearchReply, ClientError> {
        let (line, lines) = self.read_until("go", "bestmove", timeout, |l| {
            l.split_whitespace().next() == Some("bestmove")
        })?;
        let bestmove = line
            .split_whitespace()
            .nth(1)
            .filter(|m| *m != "none" && *m != "(none)" && *m != "0000")
            .map(str::to_owned);
        let last_info = lines.iter().rev().find_map(|l| InfoLine::parse(l));
        Ok(SearchReply {
            bestmove,
            last_info,
            lines,
        })
    }

    /// `go …`, then waits for `bestmove`.
    pub fn go(&mut self, go: &Go, timeout: Duration) -> Result<SearchReply, ClientError> {
        self.start_go(go)?;
        self.wait_bestmove(timeout)
    }

    /// `stop`, then waits for `bestmove`.
    pub fn stop(&mut self, timeout: Duration) -> Result<SearchReply, ClientError> {
        self.send("stop")?;
        self.wait_bestmove(timeout)
    }

    /// `query <question>`: the answer after `response` (empty for an empty answer).
    pub fn query(&mut self, query: Query, timeout: Duration) -> Result<String, ClientError> {
        let line = format!("query {}", query.as_str());
        self.send(&line)?;
        let (answer, _) = self.read_until(&line, "response", timeout, |l| {
            l.split_whitespace().next() == Some("response")
        })?;
        Ok(answer
            .trim()
            .strip_prefix("response")
            .unwrap_or_default()
            .trim()
            .to_owned())
    }

    /// `quit`, then waits for the process to exit; kills it if it does not in time.
    pub fn quit(mut self, timeout: Duration) -> Result<ExitStatus, ClientError> {
        // An engine that has already gone cannot read it: that is fine.
        let _ = self.send("quit");
        // The end of its input too, for an engine that quits only then.
        drop(self.stdin);
        self.process
            .wait_or_kill(timeout)
            .ok_or_else(|| ClientError::Timeout {
                waiting_for: "exit after quit".into(),
                after: timeout,
            })
    }
}
