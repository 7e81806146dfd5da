//! Drives a session as a peer would: send a line, collect what comes back.

#![allow(dead_code)] // each test file uses its own part

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use protocol::otep::{OtepSession, OtepSettings};
use protocol::ugi::UgiSession;
use protocol::{EngineSettings, Flow, LineProtocol, Output};

/// Long enough for any search the tests start, short enough to fail a hang quickly.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Small and single-threaded: the test machine is shared.
pub fn settings() -> EngineSettings {
    EngineSettings {
        hash_mb: 4,
        threads: 1,
        ..EngineSettings::default()
    }
}

pub struct Peer<S: LineProtocol> {
    pub session: S,
    lines: Receiver<String>,
}

pub fn ugi() -> Peer<UgiSession> {
    let (out, lines) = Output::channel();
    Peer {
        session: UgiSession::with_settings(out, settings()),
        lines,
    }
}

pub fn otep() -> Peer<OtepSession> {
    otep_with(Duration::from_millis(300))
}

pub fn otep_with(move_time: Duration) -> Peer<OtepSession> {
    let (out, lines) = Output::channel();
    let mut peer = Peer {
        session: OtepSession::new(
            out,
            OtepSettings {
                engine: settings(),
                move_time,
            },
        ),
        lines,
    };
    peer.session.start();
    peer
}

impl<S: LineProtocol> Peer<S> {
    /// Sends a line; returns what the session wrote while handling it (a search started
    /// by it may write more later: see [`Peer::until`]).
    pub fn send(&mut self, line: &str) -> Vec<String> {
        self.send_flow(line).1
    }

    pub fn send_flow(&mut self, line: &str) -> (Flow, Vec<String>) {
        let flow = self.session.handle_line(line);
        (flow, self.drain())
    }

    /// Sends a line and collects what follows, up to and including the first line that
    /// satisfies `done`, whether the session wrote it at once or a search wrote it later.
    pub fn send_until(&mut self, line: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = self.send(line);
        if !seen.iter().any(|l| done(l)) {
            seen.extend(self.until(done));
        }
        seen
    }

    /// Everything written so far and not yet read.
    pub fn drain(&mut self) -> Vec<String> {
        self.lines.try_iter().collect()
    }

    /// Lines up to and including the first that satisfies `done`.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let stop = done(&line);
                    seen.push(line);
                    if stop {
                        return seen;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("timed out; got {seen:#?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("output closed; got {seen:#?}"),
            }
        }
    }

    /// Lines that arrive within `wait` (for checking that nothing comes).
    pub fn within(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            seen.push(line);
        }
        seen
    }
}

impl Peer<UgiSession> {
    /// The one `response …` answer to a query, without the word `response`.
    pub fn query(&mut self, what: &str) -> String {
        let out = self.send(&format!("query {what}"));
        let responses: Vec<&String> = out.iter().filter(|l| l.starts_with("response")).collect();
        assert_eq!(responses.len(), 1, "query {what}: {out:?}");
        responses[0]
            .strip_prefix("response")
            .unwrap()
            .trim()
            .to_owned()
    }

    /// `go …` and the lines up to `bestmove`; returns them and the move.
    pub fn go(&mut self, args: &str) -> (Vec<String>, String) {
        let mut lines = self.send(&format!("go {args}"));
        if !lines.iter().any(|l| l.starts_with("bestmove")) {
            lines.extend(self.until(|l| l.starts_with("bestmove")));
        }
        let best = lines
            .iter()
            .find_map(|l| l.strip_prefix("bestmove "))
            .expect("a bestmove line")
            .to_owned();
        (lines, best)
    }

    /// Sends a line that must be refused: exactly one `info string error:` line, and the
    /// position and variant unchanged.
    pub fn refused(&mut self, line: &str) -> String {
        let before = self.query("position");
        let out = self.send(line);
        assert_eq!(out.len(), 1, "{line:?} → {out:?}");
        let message = out[0]
            .strip_prefix("info string error: ")
            .unwrap_or_else(|| panic!("{line:?} → {out:?}"))
            .to_owned();
        assert_eq!(
            self.query("position"),
            before,
            "{line:?} changed the position"
        );
        message
    }
}

/// One message of a recorded OpenTafl conversation (`tests/data/opentafl/*.log`).
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// Seconds since the start.
    pub time: f64,
    /// `>` sent by the host to the engine, `<` written by the engine, `#` a note.
    pub dir: char,
    /// The line, as sent.
    pub text: String,
}

/// Reads a recorded conversation: `seconds dir text` per line; a log holding several
/// conversations is split where the time starts again at 0.
pub fn recorded(log: &str) -> Vec<Vec<Recorded>> {
    let mut conversations: Vec<Vec<Recorded>> = Vec::new();
    for line in log.lines() {
        let trimmed = line.trim_start();
        let (time, rest) = trimmed.split_once(' ').expect("time first");
        let time: f64 = time.parse().expect("a time in seconds");
        let dir = rest.chars().next().expect("a direction");
        let text = rest.get(2..).unwrap_or_default().to_owned();
        if time == 0.0 || conversations.is_empty() {
            conversations.push(Vec::new());
        }
        conversations
            .last_mut()
            .unwrap()
            .push(Recorded { time, dir, text });
    }
    conversations
}
