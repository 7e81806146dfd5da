//! `kingstable serve`: the game server (the `server` crate) with its options.

use std::net::SocketAddr;

use anyhow::{Context, Result};
use clap::Args;
use std::time::Duration;

use server::{AiQuotas, Config, ConnectionLimits, DatabaseUrl};

use crate::duration::parse_duration;

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
    /// When a SQLite write counts as stored: `full` waits for the disk at every commit
    /// (a power cut loses nothing acknowledged); `normal` waits for the operating system
    /// only (a crash of the server loses nothing either way; a power cut may lose the
    /// last moments of play), for much less work per move.
    #[arg(long, env = "KINGSTABLE_SQLITE_SYNC", default_value = "full")]
    pub sqlite_sync: server::SqliteSync,
    /// This process's name among several sharing one database: each live game is owned
    /// by one process, under its name (default: HOST:PORT). A process restarted under
    /// the same name takes its games back at once; another takes them over once their
    /// lease lapses (10 s). Never give two running processes the same name.
    #[arg(long, env = "KINGSTABLE_INSTANCE")]
    pub instance: Option<String>,
    /// Redis (redis://HOST:PORT), the bus between server processes sharing one
    /// database: a player or spectator on any process reaches every live game, whichever
    /// process owns it. Without it a process works alone.
    #[arg(long, env = "KINGSTABLE_REDIS")]
    pub redis: Option<String>,
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
    /// Most connections open at once in all (lowered at start to fit the open-descriptor
    /// limit, which is first raised to its hard value).
    #[arg(long, env = "KINGSTABLE_MAX_CONNECTIONS", default_value_t = ConnectionLimits::default().max_connections, value_parser = positive)]
    pub max_connections: usize,
    /// Most connections open at once from one client address (behind --trust-proxy:
    /// requests in flight per forwarded address); the next is answered 429.
    #[arg(long, env = "KINGSTABLE_CONNECTIONS_PER_ADDRESS", default_value_t = ConnectionLimits::default().per_address, value_parser = positive)]
    pub connections_per_address: usize,
    /// Most WebSockets (game, lobby, analysis) open at once from one client address.
    #[arg(long, env = "KINGSTABLE_SOCKETS_PER_ADDRESS", default_value_t = ConnectionLimits::default().sockets_per_address, value_parser = positive)]
    pub sockets_per_address: usize,
    /// How long a connection may take to send a request's head (10s, 500ms).
    #[arg(long, env = "KINGSTABLE_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// How long a keep-alive connection may stay without a request.
    #[arg(long, env = "KINGSTABLE_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Games against the AI one player (account, guest or address) may play at once.
    #[arg(long, env = "KINGSTABLE_AI_GAMES_PER_PLAYER", default_value_t = AiQuotas::default().games, value_parser = positive)]
    pub ai_games_per_player: usize,
    /// Analyses one player may have queued or running at once.
    #[arg(long, env = "KINGSTABLE_ANALYSES_PER_PLAYER", default_value_t = AiQuotas::default().analyses, value_parser = positive)]
    pub analyses_per_player: usize,
    /// Game reviews one player may have queued or running at once.
    #[arg(long, env = "KINGSTABLE_REVIEWS_PER_PLAYER", default_value_t = AiQuotas::default().reviews, value_parser = positive)]
    pub reviews_per_player: usize,
    /// Send mail through this SMTP server: smtp://HOST:PORT (plain, e.g. a mail server on
    /// this machine), smtp://HOST:PORT?tls=required (STARTTLS), smtps://HOST:PORT (TLS);
    /// a user and password may be written smtp://USER:PASSWORD@HOST. Without it the site
    /// sends no mail and says so. Needs --mail-from. See docs/OPERATIONS.md.
    #[arg(long, env = "KINGSTABLE_SMTP", hide_env_values = true, value_parser = checked::<server::mail::SmtpUrl>)]
    pub smtp: Option<String>,
    /// The SMTP user, if the server wants one (instead of writing it in --smtp).
    #[arg(long, env = "KINGSTABLE_SMTP_USER", requires = "smtp")]
    pub smtp_user: Option<String>,
    /// The SMTP password (better given by the environment variable than on the command
    /// line, where other users of the machine can read it).
    #[arg(
        long,
        env = "KINGSTABLE_SMTP_PASSWORD",
        hide_env_values = true,
        requires = "smtp"
    )]
    pub smtp_password: Option<String>,
    /// The sender of the site's mail: an address, optionally with a name
    /// ("Kingstable <noreply@tafl.example.org>").
    #[arg(long, env = "KINGSTABLE_MAIL_FROM", requires = "smtp", value_parser = checked::<server::mail::Mailbox>)]
    pub mail_from: Option<String>,
    /// How often to look for correspondence games to remind players of (1s to 1h): a
    /// clock warning goes out at most this late.
    #[arg(long, env = "KINGSTABLE_MAIL_REMINDER_INTERVAL", default_value = "10m", value_parser = parse_duration)]
    pub mail_reminder_interval: Duration,
    /// What to log to stderr: a level (error, warn, info, debug, trace), optionally with
    /// per-module levels (info,server=debug).
    #[arg(long, env = "KINGSTABLE_LOG", default_value = server::logging::DEFAULT_FILTER)]
    pub log: String,
    /// How log lines are written: `text` (for people) or `json` (one object a line, for
    /// a log collector: journald, Loki, Elasticsearch…).
    #[arg(long, env = "KINGSTABLE_LOG_FORMAT", default_value = "text")]
    pub log_format: server::logging::LogFormat,
}

/// Serves until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<()> {
    return_big_allocations();
    server::logging::init(&args.log, args.log_format)?;
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
    let mail = match (args.smtp, args.mail_from) {
        (None, _) => None,
        (Some(_), None) => {
            anyhow::bail!("--smtp needs --mail-from (the address the site's mail comes from)")
        }
        (Some(smtp), Some(from)) => {
            let from: server::mail::Mailbox = from
                .parse()
                .map_err(|e| anyhow::anyhow!("--mail-from: {e}"))?;
            let smtp = smtp
                .parse::<server::mail::SmtpUrl>()
                .map_err(|e| anyhow::anyhow!("--smtp: {e}"))?
                .with_credentials(args.smtp_user, args.smtp_password)
                .context("--smtp-user and --smtp-password")?;
            let (low, high) = server::mail::reminders::INTERVAL_BOUNDS;
            if !(low..=high).contains(&args.mail_reminder_interval) {
                anyhow::bail!("--mail-reminder-interval must be between 1s and 1h");
            }
            let mut mail = server::mail::MailConfig::new(smtp, from);
            mail.reminder_interval = args.mail_reminder_interval;
            Some(mail)
        }
    };
    let mail_line = mail.as_ref().map_or_else(
        || "e-mail off".to_owned(),
        |mail| format!("mail through {}", mail.smtp),
    );
    let config = Config {
        addr: args.addr,
        database: args.database,
        max_connections: args.db_connections,
        sqlite_sync: args.sqlite_sync,
        instance: args.instance,
        redis: args.redis,
        secure_cookies: args.secure_cookies,
        public_origin,
        trust_proxy: args.trust_proxy,
        body_limit: args.body_limit,
        connections: ConnectionLimits {
            max_connections: args.max_connections,
            per_address: args.connections_per_address,
            sockets_per_address: args.sockets_per_address,
            header_read_timeout: args.header_timeout,
            idle_timeout: args.idle_timeout,
        },
        ai: AiQuotas {
            games: args.ai_games_per_player,
            analyses: args.analyses_per_player,
            reviews: args.reviews_per_player,
        },
        mail,
        ..Config::default()
    };
    server::run_blocking(config, |url| {
        println!(
            "Kingstable is serving at {url} (database: {database}; {mail_line}); Ctrl-C stops it."
        );
    })
    .context("kingstable serve")
}

/// Text that parses as `T` (kept as text: the parsed values are large), for clap.
fn checked<T: std::str::FromStr>(text: &str) -> Result<String, String>
where
    T::Err: std::fmt::Display,
{
    text.parse::<T>()
        .map(|_| text.to_owned())
        .map_err(|e| e.to_string())
}

/// A count of at least 1.
fn positive(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{text:?} is not a whole number of at least 1")),
    }
}

/// Makes glibc's allocator give every allocation of 4 MiB or more its own mapping,
/// returned to the system when freed. By default the threshold rises to the size of the
/// last large block freed, and large blocks then come from the heap, where argon2's
/// 19 MiB password blocks (64-byte aligned) never fitted the hole the previous one left:
/// each sign-in or sign-up kept ~19.5 MiB, 20 sign-ups took the server from 13 to 325 MiB.
/// With the threshold fixed, 20 sign-ups leave it at 13 MiB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // the workspace's other place with `unsafe`: a call into glibc
fn return_big_allocations() {
    // SAFETY: mallopt only sets a parameter of glibc's malloc, which takes it at any
    // time (it locks its arenas); it is called here once, before the server's threads.
    let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20) };
    if set != 1 {
        eprintln!("note: could not set the allocator's mmap threshold");
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn return_big_allocations() {}
