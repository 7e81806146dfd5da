//! Kingstable's game server: `kingstable serve`.
//!
//! An axum application on tokio over one storage interface for SQLite (the default: a
//! file in the working directory) and PostgreSQL ([`store`]). It holds accounts and
//! guests ([`auth`]), Glicko-2 ratings ([`ratings`]), the JSON API ([`api`], documented in
//! `docs/API.md`), CSRF checks and rate limits ([`security`]), Prometheus metrics
//! ([`metrics`]) and the embedded web client.
//!
//! ```no_run
//! # async fn demo() -> Result<(), server::ServerError> {
//! let config = server::Config {
//!     addr: "127.0.0.1:0".parse().unwrap(),
//!     database: "sqlite:/tmp/kingstable-demo.db".parse().unwrap(),
//!     ..server::Config::default()
//! };
//! let server = server::Server::bind(config).await?;
//! println!("open {}", server.url());
//! server.run(server::shutdown_signal()).await?;
//! # Ok(()) }
//! ```

pub mod admin;
pub mod api;
pub mod auth;
pub mod bus;
pub mod config;
pub mod conn;
pub mod error;
pub mod live;
pub mod logging;
pub mod mail;
pub mod metrics;
pub mod ratings;
pub mod seat;
pub mod security;
pub mod shared;
mod state;
pub mod store;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use config::{
    AiQuotas, Backend, Config, ConnectionLimits, DatabaseUrl, RateLimit, RateLimits, SqliteSync,
};
pub use error::{ApiError, ErrorCode, ServerError};
pub use state::{AppState, Shared};
pub use store::Store;

/// How long shutdown waits for long-lived tasks (game owners, sockets) to finish.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// How often expired sign-ins and idle rate-limit keys are cleared away.
const MAINTENANCE_PERIOD: Duration = Duration::from_secs(60);
/// How often the server reads the sign-ins ended by other processes.
const REVOCATION_POLL: Duration = Duration::from_secs(2);
/// How far back each read of the revocations looks again (a row written by another
/// process just before the last read, with a slightly later clock, is not missed).
const REVOCATION_OVERLAP_MS: i64 = 5_000;
/// How long a revocation is kept.
const REVOCATION_KEEP_MS: i64 = 60 * 60 * 1000;

/// A server with its database open and its address bound, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: tokio::net::TcpListener,
    state: AppState,
    local_addr: SocketAddr,
    /// What other processes ask of this one over the bus, until it serves.
    requests: Option<bus::Requests>,
}

impl Server {
    /// Opens (and migrates) the database and binds the address.
    ///
    /// # Errors
    /// When the database cannot be opened or migrated, or the address cannot be bound.
    pub async fn bind(mut config: Config) -> Result<Server, ServerError> {
        let descriptors = conn::raise_descriptor_limit();
        config.connections = conn::fit_to_descriptors(config.connections, descriptors);
        let owner = store::Owner::new(&config.instance_name());
        let store = Store::open_as(
            &config.database,
            config.max_connections,
            config.sqlite_sync,
            owner,
        )
        .await?;
        tracing::info!(
            database = %config.database,
            instance = store.owner().instance(),
            "database ready"
        );
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServerError::Bind {
                addr: config.addr,
                source,
            })?;
        let local_addr = listener.local_addr()?;
        // The address bound (the port chosen for 0): the Origin check accepts it.
        let mut config = config;
        config.addr = local_addr;
        let bus = match &config.redis {
            Some(url) => {
                let (bus, requests) = bus::Bus::connect(url, store.owner().token()).await?;
                tracing::info!(redis = %url, "bus ready");
                Some((bus, requests))
            }
            None => None,
        };
        let state = AppState::new(config, store);
        let requests = bus.map(|(bus, requests)| {
            state
                .limiters
                .share(shared::Shared::start(bus.connection(), bus.token()));
            let _ = state.bus.set(bus);
            requests
        });
        Ok(Server {
            listener,
            state,
            local_addr,
            requests,
        })
    }

    /// The address actually bound (the port chosen when the configuration said 0).
    #[must_use]
    pub const fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL to open in a browser: the public origin if configured, else this
    /// address (`127.0.0.1` for an address that listens on every interface).
    #[must_use]
    pub fn url(&self) -> String {
        format!("{}/", self.state.config.site_url())
    }

    /// The shared state (the live layer registers its parts here).
    #[must_use]
    pub const fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `shutdown` completes, then shuts down gracefully: stops accepting,
    /// lets requests in flight finish, cancels [`Shared::shutdown`] and waits (up to
    /// [`SHUTDOWN_GRACE`]) for the tasks in [`Shared::tasks`], and closes the database.
    ///
    /// # Errors
    /// When serving fails.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let state = self.state;
        if let (Some(bus), Some(requests)) = (state.bus(), self.requests) {
            live::remote::spawn_answering(&state, Arc::clone(bus), requests);
            live::hub::share_all(&state, bus).await?;
        }
        let resumed = live::resume_all(&state).await?;
        if resumed > 0 {
            tracing::info!(games = resumed, "live games resumed");
        }
        spawn_maintenance(&state);
        spawn_revocation_reader(&state);
        // The web client's files compressed once, off the request path.
        tokio::task::spawn_blocking(web::precompress);
        if let Some(mailer) = &state.mailer {
            mailer.spawn_worker(&state.tasks, state.shutdown.clone());
            mail::reminders::spawn(&state);
        }
        let app = api::router(state.clone());
        let token = state.shutdown.clone();
        let served = conn::serve(
            self.listener,
            app,
            Arc::clone(&state.connections),
            async move {
                tokio::select! {
                    () = shutdown => tracing::info!("shutting down"),
                    () = token.cancelled() => {}
                }
                token.cancel();
            },
        )
        .await;
        state.shutdown.cancel();
        state.tasks.close();
        if tokio::time::timeout(SHUTDOWN_GRACE, state.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                tasks = state.tasks.len(),
                "tasks still running after the grace period"
            );
        }
        state.store.close().await;
        tracing::info!("stopped");
        served.map_err(ServerError::from)
    }
}

/// Clears expired sign-ins and idle rate-limit keys every minute until shutdown, and
/// expires unjoined and abandoned games and unused guests ([`live::expire_stale`]); writes
/// the server's heartbeat every few seconds and once more at shutdown, so that a
/// restarted server gives the time it was down back to the clocks.
fn spawn_maintenance(state: &AppState) {
    let state_for_task = state.clone();
    state.tasks.spawn(async move {
        let state = state_for_task;
        let mut tick = tokio::time::interval(MAINTENANCE_PERIOD);
        let mut heartbeat = tokio::time::interval(live::lifecycle::HEARTBEAT_PERIOD);
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => break,
                _ = heartbeat.tick() => beat(&state).await,
                _ = tick.tick() => {
                    state.limiters.forget_idle();
                    if let Err(error) = state.store.delete_expired_sessions(store::now_ms()).await {
                        tracing::warn!(error = %error::error_chain(&error), "clearing expired sign-ins");
                    }
                    if let Err(error) = state.store.delete_expired_mail_tokens(store::now_ms()).await {
                        tracing::warn!(error = %error::error_chain(&error), "clearing expired mail links");
                    }
                    match live::expire_stale(&state, store::now_ms()).await {
                        Ok(report) if report != live::ExpiryReport::default() => {
                            tracing::info!(games = report.games, guests = report.guests, "expired");
                        }
                        Ok(_) => {}
                        Err(error) => tracing::warn!(error = %error::error_chain(&error), "expiring games and guests"),
                    }
                }
            }
        }
        // The last sign of life: the downtime that follows is given back.
        beat(&state).await;
    });
}

/// Reads every [`REVOCATION_POLL`] the sign-ins ended since the last read — by this
/// process, another server process, or `kingstable admin reset-password` — and tells the
/// sockets of those accounts, which check their own sign-in and close when it has ended.
/// A revocation is told once per process (a set of the last window's rows).
fn spawn_revocation_reader(state: &AppState) {
    let state = state.clone();
    let tasks = state.tasks.clone();
    tasks.spawn(async move {
        let mut tick = tokio::time::interval(REVOCATION_POLL);
        let mut since = store::now_ms();
        let mut told: std::collections::HashSet<(String, i64)> = std::collections::HashSet::new();
        let mut polls: u32 = 0;
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => break,
                _ = tick.tick() => {}
            }
            let window = since - REVOCATION_OVERLAP_MS;
            match state.store.revocations_since(window).await {
                Ok(rows) => {
                    told.retain(|(_, at)| *at > window);
                    for (user, at) in rows {
                        since = since.max(at);
                        if told.insert((user.clone(), at)) {
                            state.revocations.revoke(&user);
                        }
                    }
                }
                Err(error) => {
                    tracing::warn!(error = %error::error_chain(&error), "reading ended sign-ins");
                }
            }
            // Every ten minutes or so, the old ones go.
            polls = polls.wrapping_add(1);
            if polls % 300 == 1
                && let Err(error) = state
                    .store
                    .prune_revocations(store::now_ms() - REVOCATION_KEEP_MS)
                    .await
            {
                tracing::warn!(error = %error::error_chain(&error), "forgetting old revocations");
            }
        }
    });
}

async fn beat(state: &AppState) {
    if let Err(error) = state.store.beat(store::now_ms()).await {
        tracing::warn!(error = %error::error_chain(&error), "writing the heartbeat");
    }
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// Runs the server on a new multi-threaded runtime until Ctrl-C or SIGTERM; `on_ready`
/// gets the URL to open once the database is ready and the address bound. For the
/// `kingstable serve` command.
///
/// # Errors
/// When the runtime cannot start, or as [`Server::bind`] and [`Server::run`].
pub fn run_blocking(config: Config, on_ready: impl FnOnce(&str)) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("kingstable-server")
        .build()?;
    runtime.block_on(async {
        let server = Server::bind(config).await?;
        on_ready(&server.url());
        server.run(shutdown_signal()).await
    })
}
