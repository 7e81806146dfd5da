//! The line mode: the game as plain text on stdout, moves and commands read line by line
//! from stdin. Used when stdout is not a terminal, so scripts and tests can play.
//!
//! Lines that arrive while the AI is searching wait until it has moved, so a script may
//! send everything at once; only `stop` (move now) acts at once. At the end of input the
//! AI still makes the move it owes, then the program ends.
//!
//! Output lines a script can rely on: `played: <move>`, `ai: <move>`, `hint: <move>`,
//! `error: <why>`, `saved: <file>`, `loaded: <file> (<n> moves)`, `undone: <n> moves`,
//! and at the end of a game `result: <status> (<reason>)` (`defenders_win
//! (corner_escape)`) followed by the same in words.

use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;
use game::Outcome;
use session::Timestamp;

use super::ai::{AiEvent, AiSetup, AiWorker};
use super::board::PlayGame;
use super::input::{self, COMMANDS, Input};
use super::session::{AiUpdate, Submitted, TerminalGame, describe_outcome, result_text};
use super::text::{board_text, status_text};

enum Event {
    Line(String),
    Eof,
    Ai(AiEvent),
}

/// Whether to keep going after a line.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

struct LineMode<G: PlayGame, W: Write> {
    session: TerminalGame,
    worker: AiWorker<G>,
    out: W,
    flipped: bool,
    announced: Option<Outcome>,
    prompt: bool,
}

/// Plays `session` in line mode until `quit` or the end of input.
pub fn run<G: PlayGame>(session: TerminalGame, ai: AiSetup, intro: &str) -> Result<()> {
    let (tx, rx) = mpsc::channel::<Event>();
    let ai_tx = tx.clone();
    let worker = AiWorker::<G>::spawn(ai, move |event| {
        let _ = ai_tx.send(Event::Ai(event));
    });
    // The reader thread blocks on stdin; it is left behind at exit.
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match lock.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Event::Eof);
                    return;
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let mut mode = LineMode {
        session,
        worker,
        out: std::io::stdout(),
        flipped: false,
        announced: None,
        prompt: std::io::stdin().is_terminal(),
    };
    let result = mode.main_loop(&rx, intro);
    mode.session.cancel_thinking();
    result
}

impl<G: PlayGame, W: Write> LineMode<G, W> {
    fn main_loop(&mut self, rx: &mpsc::Receiver<Event>, intro: &str) -> Result<()> {
        writeln!(self.out, "{intro}")?;
        self.show_board()?;
        self.announce()?;
        let mut queue: VecDeque<String> = VecDeque::new();
        let mut eof = false;
        loop {
            let now = Timestamp::now();
            if self.session.tick(now).is_some() {
                self.announce()?;
            }
            loop {
                if let Some(request) = self.session.next_ai_request(Timestamp::now()) {
                    self.worker.submit(request);
                }
                if self.session.thinking().is_some() {
                    break;
                }
                let Some(line) = queue.pop_front() else {
                    break;
                };
                if self.handle_line(&line)? == Flow::Quit {
                    return Ok(());
                }
                self.announce()?;
                self.show_prompt()?;
            }
            if eof && queue.is_empty() && self.session.thinking().is_none() {
                return Ok(());
            }
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Event::Line(line)) => {
                    let urgent = matches!(input::parse(&line), Ok(Input::Stop));
                    if urgent && self.session.thinking().is_some() {
                        self.handle_line(&line)?;
                    } else {
                        queue.push_back(line);
                    }
                }
                Ok(Event::Eof) => eof = true,
                Ok(Event::Ai(event)) => {
                    match self.session.on_ai_event(event, Timestamp::now()) {
                        AiUpdate::Played(text) => {
                            writeln!(self.out, "ai: {text}")?;
                            self.show_board()?;
                        }
                        AiUpdate::Hint(text) => writeln!(self.out, "hint: {text}")?,
                        AiUpdate::Progress | AiUpdate::Ignored => continue,
                    }
                    self.announce()?;
                    self.show_prompt()?;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => eof = true,
            }
        }
    }

    fn handle_line(&mut self, line: &str) -> Result<Flow> {
        let now = Timestamp::now();
        let input = match input::parse(line) {
            Ok(input) => input,
            Err(why) => {
                writeln!(self.out, "error: {why}")?;
                return Ok(Flow::Continue);
            }
        };
        match input {
            Input::Empty => {}
            Input::Move(text) => match self.session.submit(&text, now) {
                Ok(Submitted::Played(text)) => {
                    writeln!(self.out, "played: {text}")?;
                    self.show_board()?;
                }
                Ok(Submitted::Choose) => self.show_choice()?,
                Err(why) => writeln!(self.out, "error: {why}")?,
            },
            Input::Pick(n) => match self.session.pick(n, now) {
                Ok(text) => {
                    writeln!(self.out, "played: {text}")?;
                    self.show_board()?;
                }
                Err(why) => writeln!(self.out, "error: {why}")?,
            },
            Input::Undo => match self.session.undo(now) {
                Ok(n) => {
                    let s = if n == 1 { "" } else { "s" };
                    writeln!(self.out, "undone: {n} move{s}")?;
                    self.show_board()?;
                }
                Err(why) => writeln!(self.out, "error: {why}")?,
            },
            Input::Hint => match self.session.request_hint(now) {
                Ok(request) => self.worker.submit(request),
                Err(why) => writeln!(self.out, "error: {why}")?,
            },
            Input::Flip => {
                self.flipped = !self.flipped;
                self.show_board()?;
            }
            Input::Save(path) => match self.session.save(path.as_deref(), now) {
                Ok(path) => writeln!(self.out, "saved: {}", path.display())?,
                Err(why) => writeln!(self.out, "error: {why:#}")?,
            },
            Input::Load(path) => match self.session.load(&path, now) {
                Ok(n) => {
                    writeln!(self.out, "loaded: {} ({n} moves)", path.display())?;
                    self.show_board()?;
                }
                Err(why) => writeln!(self.out, "error: {why:#}")?,
            },
            Input::Stop => {
                if !self.session.stop_thinking() {
                    writeln!(self.out, "error: the AI is not thinking")?;
                }
            }
            Input::Resign => {
                if let Err(why) = self.session.resign(now) {
                    writeln!(self.out, "error: {why}")?;
                }
            }
            Input::Board => self.show_board()?,
            Input::Help => {
                for (command, what) in COMMANDS {
                    writeln!(self.out, "  {command:<12} {what}")?;
                }
            }
            Input::Quit => {
                self.session.cancel_thinking();
                return Ok(Flow::Quit);
            }
        }
        Ok(Flow::Continue)
    }

    fn show_board(&mut self) -> Result<()> {
        let board = board_text(self.session.game(), self.flipped);
        let status = status_text(&self.session, Timestamp::now());
        write!(self.out, "{board}{status}")?;
        self.out.flush()?;
        Ok(())
    }

    fn show_choice(&mut self) -> Result<()> {
        if let Some(choice) = self.session.choice() {
            writeln!(self.out, "choose: {} (type the number)", choice.prompt)?;
            for (i, (_, text)) in choice.options.iter().enumerate() {
                writeln!(self.out, "  {}) {text}", i + 1)?;
            }
        }
        Ok(())
    }

    /// Prints the result once when the game ends (and again if it ends anew after an
    /// undo).
    fn announce(&mut self) -> Result<()> {
        let outcome = self.session.outcome();
        if outcome != self.announced {
            self.announced = outcome;
            if let Some(outcome) = outcome {
                let kind = self.session.kind();
                writeln!(self.out, "result: {}", result_text(kind, outcome))?;
                writeln!(
                    self.out,
                    "{}",
                    describe_outcome(kind, outcome, self.session.to_move())
                )?;
            }
        }
        Ok(())
    }

    fn show_prompt(&mut self) -> Result<()> {
        if self.prompt && self.session.thinking().is_none() {
            write!(self.out, "> ")?;
        }
        self.out.flush()?;
        Ok(())
    }
}
