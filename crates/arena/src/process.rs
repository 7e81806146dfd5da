//! The one way the match runner starts another program and reads what it writes: a
//! command line split on whitespace, a child process that is always killed and reaped
//! (never left behind, whatever happens to the driver), and a line reader on its own
//! thread, so no wait on a program is ever longer than the caller allows.

use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Why no line came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// Nothing came before the deadline.
    #[error("no line in time")]
    Timeout,
    /// The other end closed (the program exited or closed its output).
    #[error("the output ended")]
    Closed,
}

/// The lines a program writes, read on a thread of their own: bytes that are not UTF-8
/// are replaced, line ends (`\n`, `\r\n`) removed.
#[derive(Debug)]
pub struct Lines {
    lines: Receiver<String>,
}

impl Lines {
    /// Reads `input` line by line until it ends.
    ///
    /// # Errors
    /// When the reading thread cannot be started.
    pub fn spawn(input: impl Read + Send + 'static) -> io::Result<Lines> {
        let (sender, lines) = channel();
        std::thread::Builder::new()
            .name("arena-line-reader".into())
            .spawn(move || {
                let mut reader = BufReader::new(input);
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match reader.read_until(b'\n', &mut buffer) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buffer);
                            let line = line.trim_end_matches(['\n', '\r']).to_owned();
                            if sender.send(line).is_err() {
                                return;
                            }
                        }
                    }
                }
            })?;
        Ok(Lines { lines })
    }

    /// The next line, waiting until `deadline` at most.
    ///
    /// # Errors
    /// [`LineError::Timeout`] when nothing came in time, [`LineError::Closed`] when the
    /// input ended.
    pub fn next_before(&self, deadline: Instant) -> Result<String, LineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(LineError::Timeout),
            Err(RecvTimeoutError::Disconnected) => Err(LineError::Closed),
        }
    }
}

/// Why a command line cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// No program named.
    #[error("empty command")]
    Empty,
    /// The program could not be started. The message names the IO error itself, so it
    /// is not also given as a source (printing the chain would say it twice).
    #[error("cannot start {program:?}: {reason}")]
    Start {
        /// The program.
        program: String,
        /// Why.
        reason: io::Error,
    },
}

/// `command` split on whitespace (the program, then its arguments), then `extra`
/// arguments; standard input, output and error are left for the caller to set.
///
/// # Errors
/// [`SpawnError::Empty`] when `command` names no program.
pub fn command_line<S: AsRef<OsStr>>(command: &str, extra: &[S]) -> Result<Command, SpawnError> {
    let mut words = command.split_whitespace();
    let program = words.next().ok_or(SpawnError::Empty)?;
    let mut command = Command::new(program);
    command.args(words).args(extra);
    Ok(command)
}

/// A running program, killed (if still running) and reaped when dropped.
#[derive(Debug)]
pub struct Process {
    child: Child,
    program: String,
}

impl Process {
    /// Starts `command` as it is set up.
    ///
    /// # Errors
    /// [`SpawnError::Start`] naming the program and why it did not start.
    pub fn start(command: &mut Command) -> Result<Process, SpawnError> {
        let program = command.get_program().to_string_lossy().into_owned();
        match command.spawn() {
            Ok(child) => Ok(Process { child, program }),
            Err(reason) => Err(SpawnError::Start { program, reason }),
        }
    }

    /// Starts `command` with its standard input and output piped (standard error as
    /// the command says): the process, its input, and its output as lines.
    ///
    /// # Errors
    /// [`SpawnError::Start`] when it cannot be started (or its pipes set up).
    pub fn piped(command: &mut Command) -> Result<(Process, ChildStdin, Lines), SpawnError> {
        let mut process = Process::start(command.stdin(Stdio::piped()).stdout(Stdio::piped()))?;
        let failed = |program: &str, reason| SpawnError::Start {
            program: program.to_owned(),
            reason,
        };
        let (Some(input), Some(output)) = (process.child.stdin.take(), process.child.stdout.take())
        else {
            return Err(failed(&process.program, io::Error::other("no pipes")));
        };
        let lines = Lines::spawn(output).map_err(|e| failed(&process.program, e))?;
        Ok((process, input, lines))
    }

    /// The program's name as it was started.
    #[must_use]
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The operating system's id of the process.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The child, for its pipes.
    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Its exit status if it has exited.
    ///
    /// # Errors
    /// When the status cannot be read.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    /// Waits up to `limit` for the process to exit: its status, or `None` if it is
    /// still running.
    ///
    /// # Errors
    /// When the status cannot be read.
    pub fn wait_for(&mut self, limit: Duration) -> io::Result<Option<ExitStatus>> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(Some(status));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits up to `patience` for the process to exit, then kills it; reaps it either
    /// way. Its status if it exited by itself.
    pub fn wait_or_kill(&mut self, patience: Duration) -> Option<ExitStatus> {
        match self.wait_for(patience) {
            Ok(Some(status)) => Some(status),
            _ => {
                self.kill();
                None
            }
        }
    }

    /// Kills the process if it is still running, and reaps it.
    pub fn kill(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Writes `line` and a newline, and flushes.
///
/// # Errors
/// When the other end is gone.
pub fn send_line(output: &mut (impl Write + ?Sized), line: &str) -> io::Result<()> {
    writeln!(output, "{line}")?;
    output.flush()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn lines_come_back_and_the_end_is_told() {
        let mut command = command_line("sh -c", &["printf 'one\\r\\ntwo\\nthr\\377e'"]).unwrap();
        let (mut process, _input, lines) = Process::piped(&mut command).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        assert_eq!(lines.next_before(deadline).unwrap(), "one");
        assert_eq!(lines.next_before(deadline).unwrap(), "two");
        assert_eq!(lines.next_before(deadline).unwrap(), "thr\u{fffd}e");
        assert_eq!(lines.next_before(deadline), Err(LineError::Closed));
        assert!(process.wait_for(Duration::from_secs(10)).unwrap().is_some());
    }

    #[test]
    fn a_silent_program_times_out_and_is_killed_and_reaped() {
        let mut command = command_line("sleep 30", &[] as &[&str]).unwrap();
        let (mut process, _input, lines) = Process::piped(&mut command).unwrap();
        let started = Instant::now();
        let deadline = started + Duration::from_millis(100);
        assert_eq!(lines.next_before(deadline), Err(LineError::Timeout));
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid = process.id();
        assert_eq!(process.wait_or_kill(Duration::from_millis(10)), None);
        if cfg!(target_os = "linux") {
            assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        }
    }

    #[test]
    fn a_missing_program_is_named() {
        assert!(matches!(
            command_line("  ", &[] as &[&str]),
            Err(SpawnError::Empty)
        ));
        let mut command = command_line("/nonexistent/engine --flag", &[] as &[&str]).unwrap();
        let err = Process::piped(&mut command).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot start \"/nonexistent/engine\": "),
            "{err}"
        );
    }
}
