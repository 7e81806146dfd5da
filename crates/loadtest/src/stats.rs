//! Counters and latency samples shared by every task of a run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Latency samples, in microseconds.
#[derive(Default, Debug)]
pub struct Samples(Mutex<Vec<u64>>);

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
    /// Adds one.
    pub fn add(&self, d: Duration) {
        let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(micros);
    }

    /// Their summary.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let mut all = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        summarize(&mut all)
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
}
