//! What the pool's tests share: a small pool, askers by name, and jobs that run until
//! released.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use prometheus::IntGauge;

use super::{AiPool, AiStats, Asker};
use crate::config::AiQuotas;
use crate::live::Ident;

/// A pool of `threads` threads whose quotas are two AI games, two analyses and one review.
pub(super) fn pool(threads: usize) -> AiPool {
    AiPool::new(
        threads,
        AiQuotas {
            games: 2,
            analyses: 2,
            reviews: 1,
        },
        IntGauge::new("test_queue", "test").unwrap(),
    )
}

/// The guest `name`, address unknown.
pub(super) fn asker(name: &str) -> Asker {
    Asker::new(
        &Ident {
            user: None,
            guest: Some(name.to_owned()),
        },
        None,
    )
}

/// A job that says when it starts and runs until released (or stopped).
pub(super) fn held_job(
    label: &'static str,
    started: &std_mpsc::Sender<&'static str>,
) -> (
    impl FnOnce(&AtomicBool) + Send + 'static,
    std_mpsc::Sender<()>,
) {
    let (release, released) = std_mpsc::channel::<()>();
    let started = started.clone();
    let job = move |stop: &AtomicBool| {
        let _ = started.send(label);
        while !stop.load(Ordering::SeqCst)
            && released.recv_timeout(Duration::from_millis(5)).is_err()
        {}
    };
    (job, release)
}

/// Waits until the pool's figures satisfy `done`.
pub(super) fn wait_until(pool: &AiPool, done: impl Fn(&AiStats) -> bool) {
    while !done(&pool.stats()) {
        std::thread::sleep(Duration::from_millis(1));
    }
}
