//! What every request handler and every live game shares.

use std::ops::Deref;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::conn::Connections;
use crate::live::{AiPool, Live};
use crate::metrics::Metrics;
use crate::security::Limiters;
use crate::store::Store;

/// The server's shared state; cheap to clone.
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

/// The parts of [`AppState`].
#[derive(Debug)]
pub struct Shared {
    /// The settings it runs with.
    pub config: Config,
    /// The database.
    pub store: Store,
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// Rate limiters.
    pub limiters: Limiters,
    /// Cancelled when the server begins to shut down: long-lived tasks (game owners,
    /// sockets) watch it, finish what they are writing, and end.
    pub shutdown: CancellationToken,
    /// Long-lived tasks spawned here are waited for (after `shutdown`) before the
    /// database is closed.
    pub tasks: TaskTracker,
    /// Bounds concurrent password hashing (each takes ~19 MiB and a core for a while).
    pub hashing: Semaphore,
    /// The live games and their owners.
    pub live: Live,
    /// The AI's searches: one search thread per core, at least two.
    pub ai: AiPool,
    /// The connections and sockets open, and their bounds.
    pub connections: Arc<Connections>,
    /// Ended sign-ins, for the sockets opened under them.
    pub revocations: crate::auth::Revocations,
    /// The mail queue, when the server sends mail (`--smtp`).
    pub mailer: Option<Arc<crate::mail::Mailer>>,
    /// The bus to the other server processes, when there is one (`--redis`).
    pub bus: std::sync::OnceLock<Arc<crate::bus::Bus>>,
}

impl AppState {
    /// State for a server with this configuration and database.
    #[must_use]
    pub fn new(config: Config, store: Store) -> AppState {
        let workers = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let metrics = Metrics::new();
        let ai = AiPool::new(workers, config.ai, metrics.ai_queue.clone());
        let mailer = config
            .mail
            .clone()
            .map(|mail| Arc::new(crate::mail::Mailer::new(mail, &config.site_url())));
        AppState(Arc::new(Shared {
            mailer,
            limiters: Limiters::new(&config.limits),
            connections: Connections::new(config.connections, config.trust_proxy),
            ai,
            config,
            store,
            metrics,
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            hashing: Semaphore::new(workers.max(2)),
            live: Live::default(),
            revocations: crate::auth::Revocations::default(),
            bus: std::sync::OnceLock::new(),
        }))
    }

    /// The bus to the other server processes (`--redis`), if any.
    #[must_use]
    pub fn bus(&self) -> Option<&Arc<crate::bus::Bus>> {
        self.bus.get()
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
