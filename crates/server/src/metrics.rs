//! Prometheus metrics (`GET /metrics`, text format). The live layer updates the gauges
//! and counters; the HTTP middleware and the game socket time what they handle; this
//! module keeps them and writes them out.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use prometheus::{
    Encoder, Gauge, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, Opts,
    Registry, TextEncoder,
};

/// Seconds over which `kingstable_moves_per_second` is averaged.
pub const MOVE_RATE_WINDOW_SECS: u64 = 60;

/// The class of an HTTP response's status: the label `class` of
/// `kingstable_http_responses_total`, every value shown from the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
pub enum HttpClass {
    /// 100–199.
    #[strum(serialize = "1xx")]
    Informational,
    /// 200–299.
    #[strum(serialize = "2xx")]
    Success,
    /// 300–399.
    #[strum(serialize = "3xx")]
    Redirection,
    /// 400–499.
    #[strum(serialize = "4xx")]
    ClientError,
    /// 500 and above.
    #[strum(serialize = "5xx")]
    ServerError,
}

impl HttpClass {
    /// Every class.
    pub const ALL: &'static [HttpClass] = <HttpClass as strum::VariantArray>::VARIANTS;

    /// The class of `status`.
    #[must_use]
    pub fn of(status: StatusCode) -> HttpClass {
        match status.as_u16() {
            100..=199 => HttpClass::Informational,
            200..=299 => HttpClass::Success,
            300..=399 => HttpClass::Redirection,
            400..=499 => HttpClass::ClientError,
            _ => HttpClass::ServerError,
        }
    }

    /// The label value (`2xx`…).
    #[must_use]
    pub fn label(self) -> &'static str {
        self.into()
    }
}

/// A request's method: the label `method` of `kingstable_http_request_duration_seconds`.
/// Methods outside the standard ones (any token is valid HTTP) share one value, so that
/// clients cannot grow the label set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "UPPERCASE")]
pub enum MethodLabel {
    /// `GET`.
    Get,
    /// `HEAD`.
    Head,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `DELETE`.
    Delete,
    /// `PATCH`.
    Patch,
    /// `OPTIONS`.
    Options,
    /// Any other method.
    #[strum(serialize = "other")]
    Other,
}

impl MethodLabel {
    /// Every value.
    pub const ALL: &'static [MethodLabel] = <MethodLabel as strum::VariantArray>::VARIANTS;

    /// The label of `method`.
    #[must_use]
    pub fn of(method: &Method) -> MethodLabel {
        match *method {
            Method::GET => MethodLabel::Get,
            Method::HEAD => MethodLabel::Head,
            Method::POST => MethodLabel::Post,
            Method::PUT => MethodLabel::Put,
            Method::DELETE => MethodLabel::Delete,
            Method::PATCH => MethodLabel::Patch,
            Method::OPTIONS => MethodLabel::Options,
            _ => MethodLabel::Other,
        }
    }

    /// The label value (`GET`…, `other`).
    #[must_use]
    pub fn label(self) -> &'static str {
        self.into()
    }
}

/// The buckets of `kingstable_http_request_duration_seconds`, in seconds: from a cached
/// page (well under a millisecond) to a sign-in (argon2, ~50 ms) and a slow database.
const HTTP_BUCKETS: [f64; 14] = [
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The buckets of `kingstable_game_message_duration_seconds`: a move is a few hundred
/// microseconds of rules and a stored row; a `hello` far behind sends a whole state.
const MESSAGE_BUCKETS: [f64; 13] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5,
];

/// The `route` label of a request that matched no route (the web client's files, and
/// every unknown path): one value, so that scanners cannot grow the label set.
pub const UNMATCHED_ROUTE: &str = "(web)";

/// The server's metrics, in their own registry (so several servers in one process, as in
/// tests, do not share counts).
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Games being played now (`kingstable_live_games`).
    pub live_games: IntGauge,
    /// Open WebSocket connections (`kingstable_sockets`).
    pub sockets: IntGauge,
    /// Moves played since start (`kingstable_moves_total`); use [`Metrics::move_played`].
    pub moves: IntCounter,
    /// AI searches waiting for a worker (`kingstable_ai_queue_length`).
    pub ai_queue: IntGauge,
    moves_per_second: Gauge,
    http_responses: IntCounterVec,
    http_duration: HistogramVec,
    message_duration: HistogramVec,
    bus_connected: IntGauge,
    bus_dropped: IntCounter,
    relays: IntGauge,
    shared_failures: IntCounter,
    started: Instant,
    window: Mutex<MoveWindow>,
}

impl Metrics {
    /// Fresh metrics, all zero.
    ///
    /// # Panics
    /// Never: the metric names are fixed and valid.
    #[must_use]
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let live_games = IntGauge::new("kingstable_live_games", "Games being played now.")
            .expect("valid metric");
        let sockets = IntGauge::new("kingstable_sockets", "Open WebSocket connections.")
            .expect("valid metric");
        let moves = IntCounter::new(
            "kingstable_moves_total",
            "Moves played since the server started.",
        )
        .expect("valid metric");
        let ai_queue = IntGauge::new(
            "kingstable_ai_queue_length",
            "AI searches waiting for a worker thread.",
        )
        .expect("valid metric");
        let bus_connected = IntGauge::new(
            "kingstable_bus_connected",
            "1 while this process's connection to Redis (--redis) holds, else 0.",
        )
        .expect("valid metric");
        let bus_dropped = IntCounter::new(
            "kingstable_bus_dropped_total",
            "Messages for the other processes dropped because the outbox to Redis was full.",
        )
        .expect("valid metric");
        let relays = IntGauge::new(
            "kingstable_relays",
            "Games owned by another process that sockets here follow through Redis.",
        )
        .expect("valid metric");
        let shared_failures = IntCounter::new(
            "kingstable_shared_limit_failures_total",
            "Rate-limit and AI-quota checks Redis did not answer in time (this process \
             then decided alone).",
        )
        .expect("valid metric");
        let moves_per_second = Gauge::new(
            "kingstable_moves_per_second",
            "Moves per second, averaged over the last minute.",
        )
        .expect("valid metric");
        let http_responses = IntCounterVec::new(
            Opts::new(
                "kingstable_http_responses_total",
                "HTTP responses by status class.",
            ),
            &["class"],
        )
        .expect("valid metric");
        let http_duration = HistogramVec::new(
            HistogramOpts::new(
                "kingstable_http_request_duration_seconds",
                "Time from a request's head to its response's head, by method and route \
                 (the route's pattern, e.g. /api/games/{id}; (web) for the web client's \
                 files and unknown paths). A socket's request is its upgrade only.",
            )
            .buckets(HTTP_BUCKETS.to_vec()),
            &["method", "route"],
        )
        .expect("valid metric");
        let message_duration = HistogramVec::new(
            HistogramOpts::new(
                "kingstable_game_message_duration_seconds",
                "Time a game socket takes to handle one client message, by its type \
                 (move, hello, chat…; invalid for one that could not be read): from \
                 reading it to the game owner's answer (for hello, to its catch-up \
                 written).",
            )
            .buckets(MESSAGE_BUCKETS.to_vec()),
            &["type"],
        )
        .expect("valid metric");
        for metric in [
            Box::new(live_games.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(sockets.clone()),
            Box::new(moves.clone()),
            Box::new(ai_queue.clone()),
            Box::new(moves_per_second.clone()),
            Box::new(http_responses.clone()),
            Box::new(http_duration.clone()),
            Box::new(message_duration.clone()),
            Box::new(bus_connected.clone()),
            Box::new(bus_dropped.clone()),
            Box::new(relays.clone()),
            Box::new(shared_failures.clone()),
        ] {
            registry
                .register(metric)
                .expect("metric names are distinct");
        }
        // Every class from the start, so a scrape shows zeros rather than nothing.
        for class in HttpClass::ALL {
            http_responses.with_label_values(&[class.label()]);
        }
        // Every game-socket message type (its `t`, and `invalid`), from the message enum.
        for kind in crate::live::MessageKind::all() {
            message_duration.with_label_values(&[kind.label()]);
        }
        Metrics {
            registry,
            live_games,
            sockets,
            moves,
            ai_queue,
            moves_per_second,
            http_responses,
            http_duration,
            message_duration,
            bus_connected,
            bus_dropped,
            relays,
            shared_failures,
            started: Instant::now(),
            window: Mutex::new(MoveWindow::default()),
        }
    }

    /// Counts one move played now.
    pub fn move_played(&self) {
        self.moves.inc();
        let second = self.started.elapsed().as_secs();
        self.window
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .record(second);
    }

    /// Counts one HTTP response.
    pub fn http_response(&self, status: StatusCode) {
        self.http_responses
            .with_label_values(&[HttpClass::of(status).label()])
            .inc();
    }

    /// Records how long one HTTP request took. `route` is the pattern of the route it
    /// matched (axum's `MatchedPath`, never the raw path: the label set stays bounded),
    /// or [`UNMATCHED_ROUTE`].
    pub fn http_request(&self, method: &Method, route: &str, took: Duration) {
        self.http_duration
            .with_label_values(&[MethodLabel::of(method).label(), route])
            .observe(took.as_secs_f64());
    }

    /// Records how long a game socket took to handle one client message of type
    /// `kind` (its `t`: `move`, `hello`…, or `invalid`).
    pub fn game_message(&self, kind: crate::live::MessageKind, took: Duration) {
        self.message_duration
            .with_label_values(&[kind.label()])
            .observe(took.as_secs_f64());
    }

    /// What the bus to the other processes says, as of now: whether it is connected,
    /// the messages it has dropped, the relays here, and the shared-limit checks Redis
    /// failed to answer (the last two counted since start).
    pub fn bus(&self, connected: bool, dropped: u64, relays: usize, shared_failures: u64) {
        self.bus_connected.set(i64::from(connected));
        self.bus_dropped
            .inc_by(dropped.saturating_sub(self.bus_dropped.get()));
        self.relays.set(i64::try_from(relays).unwrap_or(i64::MAX));
        self.shared_failures
            .inc_by(shared_failures.saturating_sub(self.shared_failures.get()));
    }

    /// The metrics in Prometheus' text format.
    #[must_use]
    pub fn render(&self) -> String {
        let second = self.started.elapsed().as_secs();
        let rate = self
            .window
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .rate(second);
        self.moves_per_second.set(rate);
        let mut out = Vec::new();
        // Encoding into a Vec only fails on a malformed metric family, which the fixed
        // registry cannot produce.
        if let Err(error) = TextEncoder::new().encode(&self.registry.gather(), &mut out) {
            tracing::error!(%error, "encoding metrics");
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// Moves counted per second over the last [`MOVE_RATE_WINDOW_SECS`] seconds, in a ring
/// of buckets (time passed in, so it is testable).
#[derive(Debug)]
struct MoveWindow {
    /// (second, moves in it), indexed by second modulo the window.
    buckets: [(u64, u64); MOVE_RATE_WINDOW_SECS as usize],
}

impl Default for MoveWindow {
    fn default() -> MoveWindow {
        MoveWindow {
            buckets: [(0, 0); MOVE_RATE_WINDOW_SECS as usize],
        }
    }
}

impl MoveWindow {
    fn record(&mut self, second: u64) {
        let bucket = &mut self.buckets[(second % MOVE_RATE_WINDOW_SECS) as usize];
        if bucket.0 == second {
            bucket.1 += 1;
        } else {
            *bucket = (second, 1);
        }
    }

    /// Average moves per second over the window ending with `now` (inclusive).
    #[allow(clippy::cast_precision_loss)]
    fn rate(&self, now: u64) -> f64 {
        let oldest = now.saturating_sub(MOVE_RATE_WINDOW_SECS - 1);
        let moves: u64 = self
            .buckets
            .iter()
            .filter(|(second, count)| *count > 0 && (oldest..=now).contains(second))
            .map(|(_, count)| count)
            .sum();
        moves as f64 / MOVE_RATE_WINDOW_SECS as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_rate_averages_over_the_last_minute() {
        let mut window = MoveWindow::default();
        for second in 0..60 {
            window.record(second);
            window.record(second);
        }
        assert!((window.rate(59) - 2.0).abs() < 1e-9);
        // Thirty seconds later half of those moves are out of the window.
        assert!((window.rate(89) - 1.0).abs() < 1e-9);
        assert!(window.rate(200).abs() < 1e-9);
        window.record(200);
        assert!((window.rate(200) - 1.0 / 60.0).abs() < 1e-9);
    }

    #[test]
    fn every_label_value_is_its_own_and_every_class_is_shown_at_zero() {
        let labels: Vec<&str> = HttpClass::ALL.iter().map(|c| c.label()).collect();
        assert_eq!(labels, ["1xx", "2xx", "3xx", "4xx", "5xx"]);
        for (status, class) in [
            (101, "1xx"),
            (204, "2xx"),
            (304, "3xx"),
            (429, "4xx"),
            (503, "5xx"),
        ] {
            let status = StatusCode::from_u16(status).unwrap();
            assert_eq!(HttpClass::of(status).label(), class);
        }
        let methods: Vec<&str> = MethodLabel::ALL.iter().map(|m| m.label()).collect();
        assert_eq!(
            methods,
            [
                "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"
            ]
        );
        for &label in MethodLabel::ALL {
            if label != MethodLabel::Other {
                let method = Method::from_bytes(label.label().as_bytes()).unwrap();
                assert_eq!(MethodLabel::of(&method), label);
            }
        }
        let text = Metrics::new().render();
        for class in HttpClass::ALL {
            let line = format!(
                "kingstable_http_responses_total{{class=\"{}\"}} 0",
                class.label()
            );
            assert!(text.contains(&line), "missing {line} in\n{text}");
        }
    }

    #[test]
    fn render_lists_every_metric() {
        let metrics = Metrics::new();
        metrics.live_games.set(3);
        metrics.move_played();
        metrics.http_response(StatusCode::OK);
        let text = metrics.render();
        for line in [
            "kingstable_live_games 3",
            "kingstable_sockets 0",
            "kingstable_moves_total 1",
            "kingstable_ai_queue_length 0",
            "kingstable_http_responses_total{class=\"2xx\"} 1",
            "kingstable_bus_connected 0",
            "kingstable_bus_dropped_total 0",
            "kingstable_relays 0",
            "kingstable_shared_limit_failures_total 0",
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        assert!(text.contains("# TYPE kingstable_moves_per_second gauge"));
    }

    #[test]
    fn durations_are_histograms_by_route_and_message_type() {
        let metrics = Metrics::new();
        let route = "/api/games/{id}";
        metrics.http_request(&Method::GET, route, Duration::from_micros(700));
        metrics.http_request(&Method::GET, route, Duration::from_millis(30));
        metrics.http_request(&Method::from_bytes(b"BREW").unwrap(), route, Duration::ZERO);
        metrics.game_message(
            crate::live::MessageKind::Act(crate::live::Action::Move),
            Duration::from_micros(300),
        );
        let text = metrics.render();
        for line in [
            "# TYPE kingstable_http_request_duration_seconds histogram",
            // 0.7 ms is above the 0.5 ms bucket and within the 1 ms one; 30 ms within 50.
            "kingstable_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/games/{id}\",le=\"0.0005\"} 0",
            "kingstable_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/games/{id}\",le=\"0.001\"} 1",
            "kingstable_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/games/{id}\",le=\"0.05\"} 2",
            "kingstable_http_request_duration_seconds_count{method=\"GET\",route=\"/api/games/{id}\"} 2",
            "kingstable_http_request_duration_seconds_count{method=\"other\",route=\"/api/games/{id}\"} 1",
            "# TYPE kingstable_game_message_duration_seconds histogram",
            "kingstable_game_message_duration_seconds_bucket{type=\"move\",le=\"0.00025\"} 0",
            "kingstable_game_message_duration_seconds_bucket{type=\"move\",le=\"0.0005\"} 1",
            "kingstable_game_message_duration_seconds_count{type=\"move\"} 1",
            "kingstable_game_message_duration_seconds_count{type=\"resign\"} 0",
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }
}
