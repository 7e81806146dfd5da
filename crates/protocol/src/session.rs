//! The line loop shared by both protocols: a session is fed lines and writes lines, and
//! [`run`] feeds it from any reader (standard input for the real command).

use std::io::{self, BufRead};

/// Whether to keep reading after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// The peer said goodbye: stop reading.
    Quit,
}

/// A protocol's state machine: lines in, lines out (to its [`crate::Output`]).
pub trait LineProtocol {
    /// Called once before the first line (OTEP says `hello` here).
    fn start(&mut self) {}

    /// Handles one input line. Never panics, whatever the line.
    fn handle_line(&mut self, line: &str) -> Flow;

    /// The input has ended without a goodbye: finish up (a running timed search still
    /// reports its move; one that would wait for `stop` is stopped).
    fn end_of_input(&mut self);
}

/// Feeds `input` to `session` line by line until it quits or the input ends. Bytes that
/// are not UTF-8 are replaced, not fatal; only a failing reader ends the loop early.
pub fn run<S: LineProtocol + ?Sized>(session: &mut S, mut input: impl BufRead) -> io::Result<()> {
    session.start();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => {
                session.end_of_input();
                return Ok(());
            }
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if session.handle_line(&line) == Flow::Quit {
                    return Ok(());
                }
            }
            Err(err) => {
                session.end_of_input();
                return Err(err);
            }
        }
    }
}
