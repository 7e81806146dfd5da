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
    pub metrics: Arc<Metrics>,
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
    pub live: Arc<Live>,
    /// The AI's searches: one search thread per core, at least two.
    pub ai: Arc<AiPool>,
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
        let ai = Arc::new(AiPool::new(workers, config.ai, metrics.ai_queue.clone()));
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
            metrics: Arc::new(metrics),
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            hashing: Semaphore::new(workers.max(2)),
            live: Arc::new(Live::default()),
            revocations: crate::auth::Revocations::default(),
            bus: std::sync::OnceLock::new(),
        }))
    }

    /// The bus to the other server processes (`--redis`), if any.
    #[must_use]
    pub fn bus(&self) -> Option<&Arc<crate::bus::Bus>> {
        self.bus.get()
    }

    /// What a game's owner needs of the server, and nothing more.
    pub(crate) fn game_deps(&self) -> crate::live::game::Deps {
        crate::live::game::Deps {
            store: self.store.clone(),
            ai: Arc::clone(&self.ai),
            live: Arc::clone(&self.live),
            metrics: Arc::clone(&self.metrics),
            shutdown: self.shutdown.clone(),
            tasks: self.tasks.clone(),
            new_games: Arc::new(self.clone()),
        }
    }
}

impl crate::live::game::NewGames for AppState {
    fn rematch_slot<'a>(
        &'a self,
        record: &'a crate::store::GameRecord,
    ) -> crate::live::game::Pending<'a, Result<Option<crate::live::GameSlot>, crate::live::Refusal>>
    {
        Box::pin(crate::live::ai::rematch_slot(self, record))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
