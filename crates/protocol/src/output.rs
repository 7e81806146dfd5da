//! Where a session writes its lines.

use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};

/// The line sink a session writes to: standard output for the real command, a channel in
/// tests. Cloned into search threads, so every line is written whole (lines from the
/// input loop and from a search never interleave within a line).
///
/// ```
/// use protocol::Output;
/// let (out, lines) = Output::channel();
/// out.line("readyok");
/// assert_eq!(lines.recv().unwrap(), "readyok");
/// ```
#[derive(Clone)]
pub struct Output(Arc<dyn Fn(&str) + Send + Sync>);

impl Output {
    /// A sink that hands each line (without its newline) to `write`.
    pub fn new(write: impl Fn(&str) + Send + Sync + 'static) -> Output {
        Output(Arc::new(write))
    }

    /// Standard output, flushed after every line. Write errors (a closed pipe) are
    /// ignored: the peer has gone, and the input loop ends when its side closes.
    #[must_use]
    pub fn stdout() -> Output {
        Output::new(|line| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        })
    }

    /// A sink whose lines arrive on the returned channel.
    #[must_use]
    pub fn channel() -> (Output, Receiver<String>) {
        let (tx, rx) = channel();
        let out = Output::new(move |line| {
            // A dropped receiver means nobody is listening any more: nothing to do.
            let _ = tx.send(line.to_owned());
        });
        (out, rx)
    }

    /// Writes one line.
    pub fn line(&self, text: impl AsRef<str>) {
        (self.0)(text.as_ref());
    }
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Output")
    }
}
