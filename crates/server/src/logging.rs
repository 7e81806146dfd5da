//! Log output for the `kingstable serve` command: `tracing` events on stderr, as lines of
//! text for a person or as one JSON object a line for a log collector
//! (`--log-format json`).

use std::fmt;
use std::str::FromStr;

use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
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

/// How each event is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// A line of text: time, level, the spans (the request's method and path), the
    /// message and its fields.
    #[default]
    Text,
    /// One JSON object a line: `timestamp`, `level`, `target`, `message` and the event's
    /// fields at the top level, `span` (the innermost: `name`, and `method`, `uri`… for a
    /// request) and `spans` (all of them, outermost first).
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<LogFormat, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            _ => Err(format!("unknown log format `{text}` (text or json)")),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        })
    }
}

/// Reads a filter (`info`, `warn,server=debug`…).
///
/// # Errors
/// When it cannot be read.
pub fn parse_filter(filter: &str) -> Result<Targets, LogFilterError> {
    filter
        .parse()
        .map_err(|e: tracing_subscriber::filter::ParseError| LogFilterError {
            filter: filter.to_owned(),
            reason: e.to_string(),
        })
}

/// The layer that writes events in `format` to `writer` (ANSI colours only for text on a
/// terminal).
pub fn layer<S, W>(format: LogFormat, writer: W, ansi: bool) -> Box<dyn Layer<S> + Send + Sync>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fmt = tracing_subscriber::fmt::layer().with_writer(writer);
    match format {
        LogFormat::Text => fmt.with_ansi(ansi).boxed(),
        LogFormat::Json => fmt
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(true)
            .boxed(),
    }
}

/// Sends log events matching `filter` (`info`, `warn,server=debug`…) to stderr in
/// `format`. Call once, from a binary.
///
/// # Errors
/// When the filter cannot be read.
pub fn init(filter: &str, format: LogFormat) -> Result<(), LogFilterError> {
    let targets = parse_filter(filter)?;
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    // A second call (as in tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(layer(format, std::io::stderr, ansi).with_filter(targets))
        .try_init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What the layer wrote, shared with the test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for Captured {
        type Writer = Captured;
        fn make_writer(&'w self) -> Captured {
            self.clone()
        }
    }

    fn logged(format: LogFormat, filter: &str) -> String {
        let captured = Captured::default();
        let subscriber = tracing_subscriber::registry().with(
            layer(format, captured.clone(), false).with_filter(parse_filter(filter).unwrap()),
        );
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("request", method = "GET", uri = "/api/games/x");
            let _entered = span.enter();
            tracing::info!(game = "x", moves = 3, "game stored");
            tracing::debug!("not at info");
        });
        String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn json_logs_are_one_object_a_line_with_fields_and_span() {
        let text = logged(LogFormat::Json, "info");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "the debug event is filtered out: {text}");
        let event: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(event["level"], "INFO", "{event}");
        assert_eq!(event["message"], "game stored", "{event}");
        assert_eq!(event["game"], "x", "{event}");
        assert_eq!(event["moves"], 3, "{event}");
        assert_eq!(event["target"], module_path!(), "{event}");
        assert_eq!(event["span"]["name"], "request", "{event}");
        assert_eq!(event["span"]["uri"], "/api/games/x", "{event}");
        assert_eq!(event["spans"][0]["method"], "GET", "{event}");
        assert!(
            event["timestamp"].as_str().is_some_and(|t| t.contains('T')),
            "{event}"
        );
    }

    #[test]
    fn text_logs_are_lines_for_people() {
        let text = logged(LogFormat::Text, "debug");
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(
            text.contains("INFO") && text.contains("game stored") && text.contains("moves=3"),
            "{text}"
        );
        assert!(serde_json::from_str::<serde_json::Value>(text.lines().next().unwrap()).is_err());
    }

    #[test]
    fn formats_are_read_by_name() {
        assert_eq!("json".parse(), Ok(LogFormat::Json));
        assert_eq!("Text".parse(), Ok(LogFormat::Text));
        assert!(
            "yaml"
                .parse::<LogFormat>()
                .unwrap_err()
                .contains("text or json")
        );
        assert_eq!(LogFormat::Json.to_string(), "json");
        assert!(parse_filter("info,server=loud").is_err());
    }
}
