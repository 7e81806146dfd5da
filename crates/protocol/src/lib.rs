//! Kingstable's engine protocols, as line-in, line-out state machines that tests drive
//! without processes, plus the standard-input loop the `kingstable engine` command runs
//! (the client side, which drives other engines, is the `arena` crate's):
//!
//! - [`ugi`]: the Universal Game Interface (UCI generalised to any game) for Fetlar,
//!   Copenhagen and Camelot, with rules queries;
//! - [`otep`]: the OpenTafl Engine Protocol for Fetlar and Copenhagen, so OpenTafl can
//!   use the engine;
//!
//! ```
//! use protocol::{LineProtocol, Output, ugi::UgiSession};
//!
//! let (out, lines) = Output::channel();
//! let mut session = UgiSession::new(out);
//! session.handle_line("setoption name Variant value copenhagen");
//! session.handle_line("position startpos moves d1-d3 e5-e2 g1-g3 f4-c4");
//! session.handle_line("go depth 2");
//! let bestmove = lines.iter().find(|l| l.starts_with("bestmove")).unwrap();
//! assert!(bestmove.starts_with("bestmove "));
//! ```
//!
//! Both protocols are documented, with real sessions, in `docs/PROTOCOL.md`.

pub mod otep;
mod output;
mod search;
mod session;
pub mod ugi;

pub use engine::{DEFAULT_HASH_MB, Level};

pub use crate::output::Output;
pub use crate::search::{EngineSettings, Found, InfoText, MAX_HASH_MB, MAX_THREADS};
pub use crate::session::{Flow, LineProtocol, run};

/// Runs a UGI session on standard input and output until `quit` or the end of input.
pub fn run_ugi_stdio(settings: EngineSettings) -> std::io::Result<()> {
    let mut session = ugi::UgiSession::with_settings(Output::stdout(), settings);
    run(&mut session, std::io::stdin().lock())
}

/// Runs an OpenTafl Engine Protocol session on standard input and output until
/// `goodbye` or the end of input.
pub fn run_otep_stdio(settings: otep::OtepSettings) -> std::io::Result<()> {
    let mut session = otep::OtepSession::new(Output::stdout(), settings);
    run(&mut session, std::io::stdin().lock())
}
