//! Counters and latency samples shared by every task of a run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Latency samples, in microseconds, each with the moment it was taken.
#[derive(Default, Debug)]
pub struct Samples(Mutex<Vec<(Instant, u64)>>);

/// p50, p99 and max of some samples, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// How many.
    pub count: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

impl Samples {
    /// Adds one, taken now.
    pub fn add(&self, d: Duration) {
        let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((Instant::now(), micros));
    }

    /// Their summary.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let mut all: Vec<u64> = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|&(_, micros)| micros)
            .collect();
        summarize(&mut all)
    }

    /// The summary of each `step` of the run from `start`, by when the samples were
    /// taken: where in a run the slow ones fell (a start-up burst, a stall, the end).
    #[must_use]
    pub fn timeline(&self, start: Instant, step: Duration) -> Vec<Summary> {
        let step = step.as_micros().max(1);
        let mut buckets: Vec<Vec<u64>> = Vec::new();
        for &(at, micros) in self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            let i = usize::try_from(at.saturating_duration_since(start).as_micros() / step)
                .unwrap_or(usize::MAX);
            if i >= buckets.len() {
                // A sample past a day of buckets is a clock fault, not a run.
                if i > 100_000 {
                    continue;
                }
                buckets.resize_with(i + 1, Vec::new);
            }
            buckets[i].push(micros);
        }
        buckets.iter_mut().map(|b| summarize(b)).collect()
    }
}

/// The summary of `micros` (sorted in place); zeros when empty.
#[must_use]
pub fn summarize(micros: &mut [u64]) -> Summary {
    if micros.is_empty() {
        return Summary::default();
    }
    micros.sort_unstable();
    let at = |q: f64| {
        // Nearest rank.
        let rank = (q * micros.len() as f64).ceil() as usize;
        micros[rank.clamp(1, micros.len()) - 1] as f64 / 1000.0
    };
    Summary {
        count: micros.len(),
        p50: at(0.50),
        p99: at(0.99),
        max: micros[micros.len() - 1] as f64 / 1000.0,
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
            self.p50, self.p99, self.max, self.count
        )
    }
}

/// A counter.
#[derive(Default, Debug)]
pub struct Count(AtomicU64);

impl Count {
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds one.
    pub fn inc(&self) {
        self.add(1);
    }

    /// The count.
    #[must_use]
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Everything a run counts.
#[derive(Default, Debug)]
pub struct Stats {
    /// Moves acknowledged to their mover.
    pub moves: Count,
    /// Move sent → the mover's own acknowledgement.
    pub round_trip: Samples,
    /// Move sent → the opponent sees it.
    pub delivery: Samples,
    /// Games finished by the rules, on time, or resigned.
    pub games: Count,
    /// Moves sent and never acknowledged.
    pub lost: Count,
    /// Failures: refused requests, sockets closed under a player, unexpected errors.
    pub errors: Count,
    /// Messages the server refused as `rate_limited` (resent after a pause).
    pub rate_limited: Count,
    /// Spectators' moves that differ from the players' (missing, extra, out of order).
    pub spectator_mismatches: Count,
    /// Lobby messages and bytes received.
    pub lobby_messages: Count,
    /// Lobby bytes received.
    pub lobby_bytes: Count,
    /// Messages received by idle spectators.
    pub idle_messages: Count,
    /// Lobby chat lines said by the chatters.
    pub chat_sent: Count,
    /// Lobby chat lines refused (`error` on the chatter's socket).
    pub chat_refused: Count,
    /// A chatter's line sent → heard back on its own lobby socket.
    pub chat_echo: Samples,
    /// Lobby chat lines heard by the listening lobby sockets.
    pub chat_heard: Count,
    /// The first few error descriptions.
    pub first_errors: Mutex<Vec<String>>,
}

impl Stats {
    /// Counts an error and keeps its description if it is among the first ten.
    pub fn error(&self, what: impl Into<String>) {
        self.errors.inc();
        let mut first = self
            .first_errors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if first.len() < 10 {
            first.push(what.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut micros: Vec<u64> = (1..=100).map(|ms| ms * 1000).collect();
        micros.reverse();
        let s = summarize(&mut micros);
        assert_eq!((s.count, s.p50, s.p99, s.max), (100, 50.0, 99.0, 100.0));
        assert_eq!(summarize(&mut []), Summary::default());
        let s = summarize(&mut [7000]);
        assert_eq!((s.p50, s.p99, s.max), (7.0, 7.0, 7.0));
    }

    #[test]
    fn a_timeline_puts_each_sample_in_its_step() {
        let start = Instant::now();
        let samples = Samples::default();
        samples.add(Duration::from_millis(3));
        samples.add(Duration::from_millis(5));
        // Taken "later": pushed with a moment two steps on.
        samples
            .0
            .lock()
            .unwrap()
            .push((start + Duration::from_secs(11), 9000));
        let line = samples.timeline(start, Duration::from_secs(5));
        assert_eq!(line.len(), 3);
        assert_eq!((line[0].count, line[0].max), (2, 5.0));
        assert_eq!(line[1], Summary::default());
        assert_eq!((line[2].count, line[2].p50), (1, 9.0));
    }
}
