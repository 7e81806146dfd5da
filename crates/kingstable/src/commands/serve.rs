//! `kingstable serve`: the game server (the `server` crate) with its options.

use std::net::SocketAddr;

use anyhow::{Context, Result};
use clap::Args;
use server::{Config, DatabaseUrl};

/// Options of `kingstable serve`; each can also be set by the environment variable
/// shown in `--help`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on (0.0.0.0:8080 to accept other machines).
    #[arg(long, env = "KINGSTABLE_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Database: a SQLite file path or `sqlite:FILE` (created when missing), or
    /// `postgres://USER:PASSWORD@HOST/DB`. Default: kingstable.db in the working directory.
    #[arg(
        long,
        env = "KINGSTABLE_DATABASE",
        default_value = "kingstable.db",
        hide_env_values = true
    )]
    pub database: DatabaseUrl,
    /// Most PostgreSQL connections to hold open (SQLite uses one).
    #[arg(long, env = "KINGSTABLE_DB_CONNECTIONS", default_value_t = 10)]
    pub db_connections: u32,
    /// Mark cookies Secure (sent over HTTPS only): set it whenever players reach the
    /// site over HTTPS.
    #[arg(long, env = "KINGSTABLE_SECURE_COOKIES")]
    pub secure_cookies: bool,
    /// The origin players open when it differs from --addr, e.g. behind a reverse proxy
    /// (https://tafl.example.org): printed as the URL, and trusted as a request origin.
    #[arg(long, env = "KINGSTABLE_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Behind a reverse proxy: take the client's address from the last X-Forwarded-For
    /// entry (for rate limits and logs). Never set it without such a proxy.
    #[arg(long, env = "KINGSTABLE_TRUST_PROXY")]
    pub trust_proxy: bool,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "KINGSTABLE_BODY_LIMIT", default_value_t = Config::default().body_limit)]
    pub body_limit: usize,
    /// What to log to stderr: a level (error, warn, info, debug, trace), optionally with
    /// per-module levels (info,server=debug).
    #[arg(long, env = "KINGSTABLE_LOG", default_value = server::logging::DEFAULT_FILTER)]
    pub log: String,
}

/// Serves until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<()> {
    server::logging::init(&args.log)?;
    let public_origin = args
        .public_url
        .map(|url| url.trim_end_matches('/').to_owned())
        .filter(|url| !url.is_empty());
    if let Some(origin) = &public_origin
        && !(origin.starts_with("http://") || origin.starts_with("https://"))
    {
        anyhow::bail!("--public-url must start with http:// or https:// (got {origin})");
    }
    let database = args.database.to_string();
    let config = Config {
        addr: args.addr,
        database: args.database,
        max_connections: args.db_connections,
        secure_cookies: args.secure_cookies,
        public_origin,
        trust_proxy: args.trust_proxy,
        body_limit: args.body_limit,
        ..Config::default()
    };
    server::run_blocking(config, |url| {
        println!("Kingstable is serving at {url} (database: {database}); Ctrl-C stops it.");
    })
    .context("kingstable serve")
}
