//! The server's settings: where it listens, which database it uses, and its limits.

use std::fmt;
use std::net::SocketAddr;
use std::str::FromStr;
use std::time::Duration;

/// Everything `kingstable serve` can be told. [`Config::default`] is what it runs with
/// when given no options.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address and port to listen on.
    pub addr: SocketAddr,
    /// The database: a SQLite file (created if missing) or a PostgreSQL server.
    pub database: DatabaseUrl,
    /// Most database connections to hold open (PostgreSQL; SQLite always uses one
    /// writer, see [`crate::store`]).
    pub max_connections: u32,
    /// When a SQLite write counts as stored ([`SqliteSync`]).
    pub sqlite_sync: SqliteSync,
    /// This server process's name among those sharing the database: it owns live games
    /// under it (see `store/leases.rs`). `None`: the machine's host name and the port of
    /// `addr` ([`Config::instance_name`]). A process restarted under the same name takes
    /// its games back at once; two processes must never share one.
    pub instance: Option<String>,
    /// Redis (`redis://HOST:PORT`), the bus between server processes that share one
    /// database ([`crate::bus`]). `None`: this process works alone.
    pub redis: Option<String>,
    /// Mark cookies `Secure` (send them over HTTPS only): set it when the site is served
    /// over HTTPS, as it must be anywhere but on one's own machine.
    pub secure_cookies: bool,
    /// The origin players open (`https://tafl.example.org`) when it is not the address
    /// the server listens on, e.g. behind a reverse proxy. State-changing requests and
    /// sockets are accepted from this origin and from the listen address (see
    /// [`crate::security::own_authorities`]), never on the word of the `Host` header.
    pub public_origin: Option<String>,
    /// Take the client's address from the last `X-Forwarded-For` entry (set only behind
    /// a reverse proxy that writes it), for rate limits and logs.
    pub trust_proxy: bool,
    /// Largest request body accepted, in bytes.
    pub body_limit: usize,
    /// How long a sign-in lasts.
    pub session_lifetime: Duration,
    /// Rate limits.
    pub limits: RateLimits,
    /// Bounds on connections and sockets ([`crate::conn`]).
    pub connections: ConnectionLimits,
    /// Quotas on the AI's work per identity ([`crate::live::AiPool`]).
    pub ai: AiQuotas,
    /// How to send mail; `None` (the default): the server sends none ([`crate::mail`]).
    pub mail: Option<crate::mail::MailConfig>,
}

impl Config {
    /// The name this process owns live games under: [`Config::instance`], else
    /// `HOST:PORT` (the machine's host name, the port of `addr`).
    #[must_use]
    pub fn instance_name(&self) -> String {
        if let Some(name) = self
            .instance
            .as_deref()
            .filter(|name| !name.trim().is_empty())
        {
            return name.trim().to_owned();
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|host| host.trim().to_owned())
            .filter(|host| !host.is_empty())
            .unwrap_or_else(|| "localhost".to_owned());
        format!("{host}:{}", self.addr.port())
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            database: DatabaseUrl::default(),
            max_connections: 10,
            sqlite_sync: SqliteSync::default(),
            instance: None,
            redis: None,
            secure_cookies: false,
            public_origin: None,
            trust_proxy: false,
            body_limit: 64 * 1024,
            session_lifetime: Duration::from_secs(30 * 24 * 3600),
            limits: RateLimits::default(),
            connections: ConnectionLimits::default(),
            ai: AiQuotas::default(),
            mail: None,
        }
    }
}

impl Config {
    /// The site's address as players open it, without a trailing slash: the public
    /// origin if configured, else the listen address (`127.0.0.1` for an address that
    /// listens on every interface). Links in mail start with it.
    #[must_use]
    pub fn site_url(&self) -> String {
        if let Some(origin) = &self.public_origin {
            return origin.trim_end_matches('/').to_owned();
        }
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(if addr.is_ipv4() {
                std::net::Ipv4Addr::LOCALHOST.into()
            } else {
                std::net::Ipv6Addr::LOCALHOST.into()
            });
        }
        format!("http://{addr}")
    }
}

/// When a SQLite write counts as stored (SQLite's `synchronous` setting, in its WAL
/// mode). Either way a crash or `kill -9` of the server loses nothing that was
/// acknowledged: the difference is what a crash of the whole machine may lose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SqliteSync {
    /// Every commit waits for the disk (`synchronous = FULL`): a power cut loses nothing
    /// acknowledged. The default.
    #[default]
    Full,
    /// Commits wait for the operating system, not the disk (`synchronous = NORMAL`;
    /// the log reaches the disk at checkpoints): the last moments of play before a power
    /// cut or a kernel crash may be lost, never the file's consistency. Much less work
    /// per move.
    Normal,
}

impl SqliteSync {
    /// The `PRAGMA synchronous` value.
    #[must_use]
    pub const fn pragma(self) -> &'static str {
        match self {
            SqliteSync::Full => "FULL",
            SqliteSync::Normal => "NORMAL",
        }
    }
}

impl FromStr for SqliteSync {
    type Err = String;

    fn from_str(text: &str) -> Result<SqliteSync, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(SqliteSync::Full),
            "normal" => Ok(SqliteSync::Normal),
            _ => Err(format!("{text:?}: say `full` or `normal`")),
        }
    }
}

/// Bounds on the connections one server holds (see [`crate::conn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Most connections open at once, from everyone; lowered at start to the descriptor
    /// limit less [`crate::conn::DESCRIPTOR_RESERVE`], so the server never runs out of
    /// descriptors for its database, its files and `/health`.
    pub max_connections: usize,
    /// Most connections open at once from one client address; behind `trust_proxy`
    /// (where every connection comes from the proxy), most requests in flight from one
    /// forwarded address.
    pub per_address: usize,
    /// Most WebSockets (game, lobby and analysis sockets together) open at once from one
    /// client address (the forwarded one behind `trust_proxy`).
    pub sockets_per_address: usize,
    /// A connection that has not sent a whole request head this long after it opened
    /// (or after its previous response) is closed.
    pub header_read_timeout: Duration,
    /// A keep-alive connection with no request for this long is closed. (hyper counts
    /// the wait for the next request's head against `header_read_timeout` too: an idle
    /// connection is closed after the shorter of the two.)
    pub idle_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 16_384,
            per_address: 64,
            sockets_per_address: 32,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// How much of the AI one identity (an account, a guest, a client address) may use at
/// once; each counts for every identity the request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiQuotas {
    /// Games against the AI being played at once.
    pub games: usize,
    /// Analyses queued or running at once.
    pub analyses: usize,
    /// Game reviews queued or running at once.
    pub reviews: usize,
}

impl Default for AiQuotas {
    fn default() -> AiQuotas {
        AiQuotas {
            games: 4,
            analyses: 2,
            reviews: 1,
        }
    }
}

/// One rate limit: `burst` requests at once, then one more each `period` (a token
/// bucket, per client address unless said otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed in a burst.
    pub burst: u32,
    /// Time for one more request to be allowed.
    pub period: Duration,
}

impl RateLimit {
    /// `burst` at once, then one each `period`.
    #[must_use]
    pub const fn new(burst: u32, period: Duration) -> RateLimit {
        RateLimit { burst, period }
    }
}

/// The rate limits of the endpoints that invite abuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    /// Sign-in attempts per client address, right or wrong (bounds the password hashing
    /// one address causes).
    pub sign_in: RateLimit,
    /// Wrong passwords for one account from one client address. Only wrong guesses
    /// count, so the owner signing in from another address is never refused.
    pub sign_in_account: RateLimit,
    /// Accounts created per client address.
    pub sign_up: RateLimit,
    /// Guest identities created per client address.
    pub guest: RateLimit,
    /// Challenges created per client address.
    pub challenge: RateLimit,
    /// Records imported per client address.
    pub import: RateLimit,
    /// Messages per WebSocket connection.
    pub socket_messages: RateLimit,
    /// Password-reset requests and address changes per client address (each may send a
    /// message).
    pub mail_requests: RateLimit,
    /// Messages sent on request (confirmation, password reset) to one account, whoever
    /// asks: nobody can fill a player's mailbox.
    pub mail_per_account: RateLimit,
}

impl Default for RateLimits {
    fn default() -> RateLimits {
        RateLimits {
            sign_in: RateLimit::new(10, Duration::from_secs(6)),
            sign_in_account: RateLimit::new(10, Duration::from_secs(30)),
            sign_up: RateLimit::new(10, Duration::from_secs(360)),
            guest: RateLimit::new(30, Duration::from_secs(20)),
            challenge: RateLimit::new(20, Duration::from_secs(3)),
            import: RateLimit::new(20, Duration::from_secs(30)),
            socket_messages: RateLimit::new(60, Duration::from_millis(50)),
            mail_requests: RateLimit::new(5, Duration::from_secs(60)),
            mail_per_account: RateLimit::new(3, Duration::from_secs(1200)),
        }
    }
}

/// Which database program a [`DatabaseUrl`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file, the default: nothing else to run.
    Sqlite,
    /// A PostgreSQL server: for more than one server process.
    Postgres,
}

impl Backend {
    /// `sqlite` or `postgres`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// A database address: `postgres://user:password@host/db`, `sqlite:path/file.db`, or a
/// plain file path (SQLite). A SQLite file is created when missing.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    backend: Backend,
    url: String,
}

/// The reason a database address was not understood.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DatabaseUrlError {
    /// Nothing was given.
    #[error("the database address is empty")]
    Empty,
    /// A scheme other than `sqlite:` and `postgres://`.
    #[error(
        "unsupported database `{0}:` (use a SQLite file path, `sqlite:FILE` or `postgres://…`)"
    )]
    UnsupportedScheme(String),
}

impl DatabaseUrl {
    /// The SQLite file at `path` (created when missing).
    #[must_use]
    pub fn sqlite_file(path: &std::path::Path) -> DatabaseUrl {
        DatabaseUrl {
            backend: Backend::Sqlite,
            url: format!("sqlite://{}?mode=rwc", path.display()),
        }
    }

    /// The SQLite file at `path`, which must exist (a tool that works on the server's
    /// database never creates an empty one by a mistyped path).
    #[must_use]
    pub fn sqlite_existing(path: &std::path::Path) -> DatabaseUrl {
        DatabaseUrl {
            backend: Backend::Sqlite,
            url: format!("sqlite://{}?mode=rw", path.display()),
        }
    }

    /// The database program.
    #[must_use]
    pub const fn backend(&self) -> Backend {
        self.backend
    }

    /// The SQLite file it names (`None` for PostgreSQL).
    #[must_use]
    pub fn sqlite_path(&self) -> Option<std::path::PathBuf> {
        if self.backend != Backend::Sqlite {
            return None;
        }
        let bare = self.url.split('?').next().unwrap_or(&self.url);
        let path = bare
            .strip_prefix("sqlite://")
            .or_else(|| bare.strip_prefix("sqlite:"))
            .unwrap_or(bare);
        Some(std::path::PathBuf::from(path))
    }

    /// The full address, password included: for connecting, never for printing.
    #[must_use]
    pub fn connection_string(&self) -> &str {
        &self.url
    }
}

impl Default for DatabaseUrl {
    /// `kingstable.db` in the working directory.
    fn default() -> DatabaseUrl {
        DatabaseUrl::sqlite_file(std::path::Path::new("kingstable.db"))
    }
}

impl FromStr for DatabaseUrl {
    type Err = DatabaseUrlError;

    fn from_str(text: &str) -> Result<DatabaseUrl, DatabaseUrlError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(DatabaseUrlError::Empty);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(DatabaseUrl {
                backend: Backend::Postgres,
                url: text.to_owned(),
            });
        }
        if let Some(rest) = text.strip_prefix("sqlite:") {
            let mut url = format!("sqlite:{rest}");
            if !rest.contains("mode=") {
                url.push(if rest.contains('?') { '&' } else { '?' });
                url.push_str("mode=rwc");
            }
            return Ok(DatabaseUrl {
                backend: Backend::Sqlite,
                url,
            });
        }
        // A scheme such as `mysql://` is refused; anything else is a file path (which on
        // Windows may itself contain `C:`).
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(DatabaseUrlError::UnsupportedScheme(scheme.to_owned()));
        }
        Ok(DatabaseUrl::sqlite_file(std::path::Path::new(text)))
    }
}

/// Shown with any password replaced by `***`, so addresses can be logged.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.backend {
            Backend::Sqlite => {
                let shown = self.url.split('?').next().unwrap_or(&self.url);
                f.write_str(shown)
            }
            Backend::Postgres => f.write_str(&redact_password(&self.url)),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`; also hides a
/// `password=` query parameter.
fn redact_password(url: &str) -> String {
    let mut out = url.to_owned();
    if let Some(scheme_end) = out.find("://") {
        let authority_start = scheme_end + 3;
        let authority_end = out[authority_start..]
            .find(['/', '?'])
            .map_or(out.len(), |i| authority_start + i);
        if let Some(at) = out[authority_start..authority_end].rfind('@') {
            let userinfo = &out[authority_start..authority_start + at];
            if let Some(colon) = userinfo.find(':') {
                let from = authority_start + colon + 1;
                out.replace_range(from..authority_start + at, "***");
            }
        }
    }
    if let Some(query_start) = out.find('?') {
        let (head, query) = out.split_at(query_start + 1);
        let query: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        out = format!("{head}{}", query.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_url_forms() {
        let plain: DatabaseUrl = "games.db".parse().unwrap();
        assert_eq!(plain.backend(), Backend::Sqlite);
        assert_eq!(plain.connection_string(), "sqlite://games.db?mode=rwc");
        let sqlite: DatabaseUrl = "sqlite:/tmp/x.db?mode=ro".parse().unwrap();
        assert_eq!(sqlite.connection_string(), "sqlite:/tmp/x.db?mode=ro");
        let pg: DatabaseUrl = "postgresql://u:pw@h:5432/db".parse().unwrap();
        assert_eq!(pg.backend(), Backend::Postgres);
        assert_eq!(
            "mysql://x".parse::<DatabaseUrl>(),
            Err(DatabaseUrlError::UnsupportedScheme("mysql".into()))
        );
        assert_eq!("  ".parse::<DatabaseUrl>(), Err(DatabaseUrlError::Empty));
    }

    #[test]
    fn database_url_display_hides_passwords() {
        let pg: DatabaseUrl = "postgres://kt:s3cret@db.local:5432/kt?password=two&sslmode=disable"
            .parse()
            .unwrap();
        let shown = pg.to_string();
        assert!(
            !shown.contains("s3cret") && !shown.contains("two"),
            "{shown}"
        );
        assert_eq!(
            shown,
            "postgres://kt:***@db.local:5432/kt?password=***&sslmode=disable"
        );
        assert!(!format!("{pg:?}").contains("s3cret"));
        let no_password: DatabaseUrl = "postgres://kt@localhost/kt".parse().unwrap();
        assert_eq!(no_password.to_string(), "postgres://kt@localhost/kt");
    }
}
