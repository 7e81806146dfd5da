//! Log output for the `kingstable serve` command: `tracing` events as lines on stderr.

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The filter used when none is given: the server's events at `info`, sqlx's only from
/// `warn` (it reports slow queries there).
pub const DEFAULT_FILTER: &str = "info,sqlx=warn";

/// Why a log filter was refused.
#[derive(Debug, thiserror::Error)]
#[error("bad log filter `{filter}` (use e.g. `info` or `info,server=debug`): {reason}")]
pub struct LogFilterError {
    filter: String,
    reason: String,
}

/// Sends log events matching `filter` (`info`, `warn,server=debug`…) to stderr. Call
/// once, from a binary.
///
/// # Errors
/// When the filter cannot be read.
pub fn init(filter: &str) -> Result<(), LogFilterError> {
    let targets: Targets =
        filter
            .parse()
            .map_err(|e: tracing_subscriber::filter::ParseError| LogFilterError {
                filter: filter.to_owned(),
                reason: e.to_string(),
            })?;
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    // A second call (as in tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(targets)
        .with(fmt)
        .try_init();
    Ok(())
}
