//! A real server on 127.0.0.1 for integration tests, on a fresh SQLite file or a fresh
//! PostgreSQL schema, and a small HTTP client that keeps cookies like a browser.
//!
//! PostgreSQL tests read the database URL from `KINGSTABLE_TEST_POSTGRES` (see
//! `.ci/postgres.sh`); without it they say they skipped, unless
//! `KINGSTABLE_REQUIRE_POSTGRES=1`, which makes a missing database a failure.

#![allow(dead_code)]

pub mod ws;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::SocketAddr;

use reqwest::header::{CONTENT_TYPE, COOKIE, HeaderMap, ORIGIN, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use server::{AppState, Config, DatabaseUrl, Server};
use sqlx::Connection;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Which database a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// The machine, shared by the tests of this binary, which run in parallel: each test
/// holds a share of it for its life (through its [`Database`]); a test that measures
/// delays against the machine's whole capacity (an AI flood) holds it alone
/// ([`Database::alone`]), so that no other test's searches or clocks run beside it.
static MACHINE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// A test's hold on [`MACHINE`].
enum Hold {
    Shared(tokio::sync::RwLockReadGuard<'static, ()>),
    Alone(tokio::sync::RwLockWriteGuard<'static, ()>),
}

/// Where a test's data lives, kept across server restarts within the test.
pub struct Database {
    _hold: Hold,
    pub url: DatabaseUrl,
    _dir: Option<tempfile::TempDir>,
}

impl Database {
    /// A fresh database, or `None` (after saying so) when PostgreSQL is not configured.
    /// The test shares the machine with the others running.
    pub async fn fresh(db: Db) -> Option<Database> {
        Database::make(db, Hold::Shared(MACHINE.read().await)).await
    }

    /// As [`Database::fresh`], for a test that runs alone on the machine: it waits for
    /// the tests running to end, and the others wait for it.
    pub async fn alone(db: Db) -> Option<Database> {
        Database::make(db, Hold::Alone(MACHINE.write().await)).await
    }

    async fn make(db: Db, hold: Hold) -> Option<Database> {
        match db {
            Db::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url = DatabaseUrl::sqlite_file(&dir.path().join("kingstable.db"));
                Some(Database {
                    _hold: hold,
                    url,
                    _dir: Some(dir),
                })
            }
            Db::Postgres => {
                let Ok(base) = std::env::var("KINGSTABLE_TEST_POSTGRES") else {
                    assert!(
                        std::env::var("KINGSTABLE_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                        "KINGSTABLE_REQUIRE_POSTGRES=1 but KINGSTABLE_TEST_POSTGRES is not set"
                    );
                    // Straight to stderr, past the test harness's capture, so it is seen.
                    let _ = writeln!(
                        std::io::stderr(),
                        "skipped: KINGSTABLE_TEST_POSTGRES is not set (see .ci/postgres.sh)"
                    );
                    return None;
                };
                // Each test gets its own schema: tests run in parallel on one database.
                let schema = format!("t_{}", server::store::random_id(12).to_lowercase());
                let mut conn = sqlx::postgres::PgConnection::connect(&base)
                    .await
                    .expect("connect to KINGSTABLE_TEST_POSTGRES");
                sqlx::query(&format!("CREATE SCHEMA {schema}"))
                    .execute(&mut conn)
                    .await
                    .expect("create schema");
                conn.close().await.ok();
                let separator = if base.contains('?') { '&' } else { '?' };
                let url = format!("{base}{separator}options[search_path]={schema}")
                    .parse()
                    .expect("postgres url");
                Some(Database {
                    _hold: hold,
                    url,
                    _dir: None,
                })
            }
        }
    }
}

/// A server running in this process on 127.0.0.1.
pub struct TestServer {
    pub addr: SocketAddr,
    pub base: String,
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), server::ServerError>>>,
}

/// The configuration tests use: an ephemeral port on 127.0.0.1 and the given database.
pub fn test_config(database: &Database) -> Config {
    Config {
        addr: "127.0.0.1:0".parse().expect("addr"),
        database: database.url.clone(),
        ..Config::default()
    }
}

impl TestServer {
    pub async fn start(config: Config) -> TestServer {
        let server = Server::bind(config).await.expect("server starts");
        let addr = server.local_addr();
        let state = server.state().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        TestServer {
            addr,
            base: format!("http://{addr}"),
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the server gracefully and waits until it has closed the database.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("server task").expect("server ran");
        }
    }

    /// Signs `name` up (password `long password`) and returns the new user's id.
    pub async fn new_user(&self, name: &str) -> String {
        self.client().sign_up(name, "long password").await;
        self.state
            .store
            .user_by_name(name)
            .await
            .expect("user read")
            .expect("user stored")
            .id
    }

    /// A new client (a browser with no cookies) for this server.
    pub fn client(&self) -> Client {
        Client::new(&self.base)
    }
}

/// What came back.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.text))
    }

    /// The error code of an error reply, checking the error shape.
    pub fn error_code(&self) -> String {
        let json = self.json();
        let error = json
            .get("error")
            .unwrap_or_else(|| panic!("no error in {json}"));
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{json}"
        );
        assert_eq!(
            json.as_object().map(serde_json::Map::len),
            Some(1),
            "{json}"
        );
        error["code"].as_str().expect("code").to_owned()
    }

    /// The Set-Cookie header for `name`, if any.
    pub fn set_cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with(&format!("{name}=")))
            .map(str::to_owned)
    }
}

/// An HTTP client that keeps cookies and sends `Origin` like a browser on this site.
pub struct Client {
    http: reqwest::Client,
    pub base: String,
    /// The Origin header sent with every request (`None`: none sent).
    pub origin: Option<String>,
    pub cookies: BTreeMap<String, String>,
}

impl Client {
    /// The cookies as a `Cookie` header's value, for a socket opened outside the client
    /// (`None` when it has none).
    #[must_use]
    pub fn cookie_header(&self) -> Option<String> {
        (!self.cookies.is_empty()).then(|| {
            self.cookies
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    /// A browser-like client of the server at `base` (same-origin requests, cookies).
    pub fn new(base: &str) -> Client {
        Client {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            base: base.to_owned(),
            origin: Some(base.to_owned()),
            cookies: BTreeMap::new(),
        }
    }

    pub async fn request(
        &mut self,
        method: Method,
        path: &str,
        body: Option<(&str, Vec<u8>)>,
    ) -> Reply {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(origin) = &self.origin {
            request = request.header(ORIGIN, origin);
        }
        if !self.cookies.is_empty() {
            let cookie: Vec<String> = self
                .cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            request = request.header(COOKIE, cookie.join("; "));
        }
        if let Some((content_type, bytes)) = body {
            request = request.header(CONTENT_TYPE, content_type).body(bytes);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let headers = response.headers().clone();
        for value in headers
            .get_all(SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
        {
            let pair = value.split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                // The server deletes a cookie by setting it empty (with Max-Age=0).
                if value.is_empty() {
                    self.cookies.remove(name);
                } else {
                    self.cookies.insert(name.to_owned(), value.to_owned());
                }
            }
        }
        let text = response.text().await.expect("body");
        Reply {
            status,
            headers,
            text,
        }
    }

    pub async fn get(&mut self, path: &str) -> Reply {
        self.request(Method::GET, path, None).await
    }

    pub async fn post(&mut self, path: &str, body: Value) -> Reply {
        self.request(
            Method::POST,
            path,
            Some(("application/json", body.to_string().into_bytes())),
        )
        .await
    }

    pub async fn put(&mut self, path: &str, body: Value) -> Reply {
        self.request(
            Method::PUT,
            path,
            Some(("application/json", body.to_string().into_bytes())),
        )
        .await
    }

    pub async fn post_empty(&mut self, path: &str) -> Reply {
        self.request(Method::POST, path, None).await
    }

    pub async fn delete(&mut self, path: &str) -> Reply {
        self.request(Method::DELETE, path, None).await
    }

    pub async fn sign_up(&mut self, name: &str, password: &str) -> Reply {
        let reply = self
            .post(
                "/api/account/signup",
                serde_json::json!({ "username": name, "password": password }),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        reply
    }

    pub async fn sign_in(&mut self, name: &str, password: &str) -> Reply {
        self.post(
            "/api/account/signin",
            serde_json::json!({ "username": name, "password": password }),
        )
        .await
    }

    pub async fn whoami(&mut self) -> Value {
        let reply = self.get("/api/whoami").await;
        assert_eq!(reply.status, StatusCode::OK);
        reply.json()
    }
}

/// Runs one test case on SQLite and on PostgreSQL: `both!(name, case_fn)`.
#[macro_export]
macro_rules! both {
    ($name:ident, $case:path) => {
        mod $name {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                if let Some(db) = $crate::common::Database::fresh($crate::common::Db::Sqlite).await
                {
                    $case(db).await;
                }
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(db) =
                    $crate::common::Database::fresh($crate::common::Db::Postgres).await
                {
                    $case(db).await;
                }
            }
        }
    };
}

/// A user's rating in `kind` (`copenhagen`…) from their player page.
pub fn rating_of(profile: &Value, kind: &str) -> server::ratings::Rating {
    let entry = profile["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} rating in {profile}"));
    server::ratings::Rating {
        rating: entry["rating"].as_f64().unwrap(),
        deviation: entry["deviation"].as_f64().unwrap(),
        volatility: entry["volatility"].as_f64().unwrap(),
    }
}

/// A chat refusal (`chat_refused`, with a reason word the client translates) as
/// `REASON: MESSAGE`.
pub fn chat_refusal(answer: &Value) -> String {
    assert_eq!(answer["code"], "chat_refused", "{answer}");
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(
        server::live::chat::ChatRefusal::ALL
            .iter()
            .any(|r| r.word() == reason),
        "{answer}"
    );
    format!("{reason}: {}", answer["message"].as_str().unwrap())
}

/// The legal moves a game message lists, as `MoveInfo` objects: a `state`'s game (or
/// `GET /api/games/{id}`) gives them so (`legal_moves`); an `events` message in the
/// compact wire form (`legal`), read back here on the board its `pieces` cover.
pub fn legal_moves(message: &Value) -> Vec<Value> {
    if let Some(list) = message.get("legal_moves") {
        return list.as_array().expect("legal_moves is a list").clone();
    }
    let files = files_of(message);
    let wire: Vec<games::WireMove> =
        serde_json::from_value(message["legal"].clone()).expect("legal in the wire form");
    wire.iter()
        .map(|m| {
            serde_json::to_value(
                games::MoveInfo::from_wire(m, files).expect("squares on the board"),
            )
            .unwrap()
        })
        .collect()
}

/// The files of the board an `events` message's `pieces` cover (tafl 11 x 11, Camelot's
/// frame 12 x 16).
fn files_of(events: &Value) -> u8 {
    match events["pieces"].as_str().expect("pieces").len() {
        121 => 11,
        192 => 12,
        n => panic!("a board of {n} cells"),
    }
}

/// The texts of [`legal_moves`].
pub fn legal_texts(message: &Value) -> Vec<String> {
    legal_moves(message)
        .iter()
        .map(|m| m["text"].as_str().expect("a text").to_owned())
        .collect()
}

/// The `pieces` of a board (a `BoardView` as JSON): what an `events` message says of it.
pub fn pieces_of(board: &Value) -> String {
    serde_json::from_value::<games::BoardView>(board.clone())
        .expect("a board")
        .pieces()
}
