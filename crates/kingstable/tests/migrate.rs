//! `kingstable migrate-db`: a SQLite site, made by playing on a real server, copied into
//! PostgreSQL; the copy refuses a source a server is using and a target that holds data
//! (changing nothing), reads the source without changing it, counts every table, and a
//! server started on the copy serves the same accounts and games, and goes on with the
//! game that was being played.
//!
//! PostgreSQL comes from `KINGSTABLE_TEST_POSTGRES` (`.ci/postgres.sh`); without it the
//! tests that need it say they skipped, unless `KINGSTABLE_REQUIRE_POSTGRES=1`.

mod common;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use common::{block_on, kingstable};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use server::store::backup::inspect_sqlite_file;
use server::{Config, DatabaseUrl, Server, Store};
use sqlx::Connection;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// Copenhagen game 60 of the aagenielsen.dk archive (crates/tafl/tests/data).
const COPENHAGEN_60: [&str; 10] = [
    "k8-g8",
    "h6-h8xg8",
    "j6-j11",
    "g6-j6",
    "k7-k10",
    "f6-i6",
    "k5-i5",
    "i6-i11xj11",
    "k10-i10",
    "i11-k11",
];

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh schema of its own on the test PostgreSQL, as a database URL; `None` (after
/// saying so) without one.
async fn postgres_schema() -> Option<DatabaseUrl> {
    let Ok(base) = std::env::var("KINGSTABLE_TEST_POSTGRES") else {
        assert!(
            std::env::var("KINGSTABLE_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "KINGSTABLE_REQUIRE_POSTGRES=1 but KINGSTABLE_TEST_POSTGRES is not set"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: KINGSTABLE_TEST_POSTGRES is not set (see .ci/postgres.sh)"
        );
        return None;
    };
    let schema = format!("m_{}", server::store::random_id(12).to_lowercase());
    let mut conn = sqlx::postgres::PgConnection::connect(&base)
        .await
        .expect("connect to KINGSTABLE_TEST_POSTGRES");
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&mut conn)
        .await
        .expect("create schema");
    conn.close().await.ok();
    let separator = if base.contains('?') { '&' } else { '?' };
    Some(
        format!("{base}{separator}options[search_path]={schema}")
            .parse()
            .expect("postgres url"),
    )
}

/// A server in this process on 127.0.0.1.
struct Running {
    base: String,
    addr: std::net::SocketAddr,
    store: Store,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), server::ServerError>>,
}

impl Running {
    async fn start(database: DatabaseUrl) -> Running {
        let server = Server::bind(Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            database,
            ..Config::default()
        })
        .await
        .expect("server starts");
        let addr = server.local_addr();
        let store = server.state().store.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async move {
            let _ = stopped.await;
        }));
        Running {
            base: format!("http://{addr}"),
            addr,
            store,
            stop,
            task,
        }
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        self.task.await.unwrap().unwrap();
    }

    fn client(&self) -> Client {
        Client {
            http: reqwest::Client::new(),
            base: self.base.clone(),
            cookies: BTreeMap::new(),
        }
    }
}

/// A browser: same-origin requests, cookies kept.
struct Client {
    http: reqwest::Client,
    base: String,
    cookies: BTreeMap<String, String>,
}

impl Client {
    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn call(
        &mut self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("origin", &self.base)
            .header("cookie", self.cookie_header());
        if let Some(body) = body {
            request = request.json(&body);
        }
        let reply = request.send().await.unwrap();
        for cookie in reply.headers().get_all("set-cookie") {
            let pair = cookie.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        let status = reply.status().as_u16();
        let text = reply.text().await.unwrap();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    async fn get(&mut self, path: &str) -> (u16, Value) {
        self.call(reqwest::Method::GET, path, None).await
    }

    async fn post(&mut self, path: &str, body: Value) -> (u16, Value) {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }

    async fn sign_up(&mut self, name: &str) {
        let (status, body) = self
            .post(
                "/api/account/signup",
                json!({"username": name, "password": "long password"}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
    }

    /// A friend game of Copenhagen made by `self` (first), joined by `other`.
    async fn friend_game(&mut self, other: &mut Client, rated: bool) -> String {
        let (status, body) = self
            .post(
                "/api/games",
                json!({"kind": "copenhagen", "opponent": "friend", "side": "first",
                       "time_control": "untimed", "rated": rated}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let id = body["id"].as_str().unwrap().to_owned();
        let (status, body) = other
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await;
        assert_eq!(status, 200, "{body}");
        id
    }
}

type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game socket as the browser of `client` opens it.
async fn socket(server: &Running, client: &Client, id: &str) -> Stream {
    let mut request = format!("ws://{}/ws/game/{id}", server.addr)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("origin", server.base.parse().unwrap());
    request
        .headers_mut()
        .insert("cookie", client.cookie_header().parse().unwrap());
    tokio_tungstenite::connect_async(request).await.unwrap().0
}

async fn send(socket: &mut Stream, message: Value) {
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
}

/// Skips messages until one of type `t`.
async fn until(socket: &mut Stream, t: &str) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(30), socket.next())
            .await
            .expect("a message within 30 s")
            .expect("the socket is open")
            .expect("a frame");
        if let Message::Text(text) = frame {
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["t"] == t {
                return value;
            }
        }
    }
}

/// Plays `moves` from the two players' sockets in turn, from the start, each seen as an
/// event by both.
async fn play(sockets: &mut [Stream; 2], moves: &[&str]) {
    for (i, text) in moves.iter().enumerate() {
        send(&mut sockets[i % 2], json!({"t": "move", "move": text})).await;
        for socket in sockets.iter_mut() {
            let events = until(socket, "events").await;
            assert_eq!(events["events"][0]["type"], "moved", "{events}");
        }
    }
}

/// The players' sockets on game `id`, each past its first state.
async fn seated(server: &Running, a: &Client, b: &Client, id: &str) -> [Stream; 2] {
    let mut sockets = [socket(server, a, id).await, socket(server, b, id).await];
    for s in &mut sockets {
        send(s, json!({"t": "hello", "rev": 0})).await;
        until(s, "state").await;
    }
    sockets
}

/// Plays on a real server on the SQLite file at `db`: two accounts and a guest; a rated
/// game resigned after four moves (ratings), a game still going after six moves with a
/// chat message, a direct correspondence challenge. Returns (the game going on, the
/// game over).
async fn make_site(db: &Path) -> (String, String) {
    let server = Running::start(DatabaseUrl::sqlite_file(db)).await;
    let (mut ragnar, mut sigrid, mut guest) = (server.client(), server.client(), server.client());
    ragnar.sign_up("ragnar").await;
    sigrid.sign_up("sigrid").await;
    let (status, body) = guest.post("/api/guest", json!({})).await;
    assert!(status == 200 || status == 201, "{status} {body}");

    let over = ragnar.friend_game(&mut sigrid, true).await;
    let mut sockets = seated(&server, &ragnar, &sigrid, &over).await;
    play(&mut sockets, &COPENHAGEN_60[..4]).await;
    send(&mut sockets[0], json!({"t": "resign"})).await;
    let ended = until(&mut sockets[0], "events").await;
    assert_eq!(ended["events"][0]["type"], "ended", "{ended}");

    let going = ragnar.friend_game(&mut sigrid, false).await;
    let mut sockets = seated(&server, &ragnar, &sigrid, &going).await;
    play(&mut sockets, &COPENHAGEN_60[..6]).await;
    send(
        &mut sockets[1],
        json!({"t": "chat", "room": "players", "text": "well played so far"}),
    )
    .await;
    until(&mut sockets[0], "chat").await;

    let (status, body) = sigrid
        .post(
            "/api/challenges",
            json!({"kind": "fetlar", "time_control": "3d", "side": "first", "to": "ragnar"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    drop(sockets);
    server.stop().await;
    (going, over)
}

/// The rows of each table in a `migrate-db` table printout.
fn printed_counts(stdout: &str) -> BTreeMap<String, (i64, i64)> {
    stdout
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                [table, source, target] => Some((
                    table.to_owned(),
                    (source.parse().ok()?, target.parse().ok()?),
                )),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn migrate_db_copies_a_played_site_into_postgres_and_the_server_goes_on_there() {
    block_on(async {
        let Some(target) = postgres_schema().await else {
            return;
        };
        let Some(occupied) = postgres_schema().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("kingstable.db");
        let (going, over) = make_site(&db).await;
        let from = format!("sqlite:{}", db.display());
        let to = target.connection_string().to_owned();

        // The server stopped a moment ago: its last heartbeat says it may still run.
        let refused = kingstable(&["migrate-db", "--from", &from, "--to", &to]);
        assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stdout));
        let said = text(&refused.stderr);
        assert!(
            said.contains("heartbeat") && said.contains("stop it first"),
            "{said}"
        );
        // Time passes (the heartbeat is set back 20 s, as if the server stopped then).
        let store = Store::open(&DatabaseUrl::sqlite_existing(&db), 1)
            .await
            .unwrap();
        let last = store.last_heartbeat().await.unwrap().unwrap();
        store.beat(last - 20_000).await.unwrap();
        store.close().await;
        let report = inspect_sqlite_file(&db).await.unwrap();
        // The file and its write-ahead log (which may hold most of the data: SQLite
        // merges it into the file when it sees fit).
        let wal = dir.path().join("kingstable.db-wal");
        let files = || (std::fs::read(&db).unwrap(), std::fs::read(&wal).ok());
        let before = files();

        // A target that holds an account is refused, and left as it was.
        let other = Store::open(&occupied, 2).await.unwrap();
        let hash = server::auth::hash_password_blocking(&server::auth::Password::new("a password"))
            .unwrap();
        other.create_user("astrid", &hash, None, 1).await.unwrap();
        let refused = kingstable(&[
            "migrate-db",
            "--from",
            &from,
            "--to",
            occupied.connection_string(),
        ]);
        assert_eq!(refused.status.code(), Some(2));
        let said = text(&refused.stderr);
        assert!(said.contains("already holds data (users 1)"), "{said}");
        assert!(said.contains("nothing changed"), "{said}");
        assert!(other.user_by_name("ragnar").await.unwrap().is_none());
        assert!(other.game(&going).await.unwrap().is_none());
        other.close().await;

        // The copy: every table counted on both sides, and equal.
        let copied = kingstable(&["migrate-db", "--from", &from, "--to", &to]);
        let out = text(&copied.stdout);
        assert!(copied.status.success(), "{out}\n{}", text(&copied.stderr));
        assert!(out.contains("every count matches"), "{out}");
        let printed = printed_counts(&out);
        assert_eq!(printed.len(), report.rows.len(), "{out}");
        for (table, rows) in &report.rows {
            assert_eq!(printed[*table], (*rows, *rows), "{table} in\n{out}");
        }
        for (table, least) in [
            ("users", 2),
            ("sessions", 2),
            ("guests", 1),
            ("games", 2),
            ("moves", 10),
            ("ratings", 2),
            ("rating_history", 2),
            ("chat_messages", 1),
            ("challenges", 1),
            ("heartbeat", 1),
        ] {
            assert!(printed[table].1 >= least, "{table}: {out}");
        }
        // Read only: the file and its log are byte for byte what they were.
        assert!(files() == before, "the source changed");
        // Again into the same database: refused, it holds data now.
        let again = kingstable(&["migrate-db", "--from", &from, "--to", &to]);
        assert_eq!(again.status.code(), Some(2));
        assert!(text(&again.stderr).contains("already holds data"));

        // A server on PostgreSQL serves the copy: the accounts sign in with their
        // passwords, the games are there with their moves, and the game being played
        // goes on from where it was.
        let server = Running::start(target.clone()).await;
        let mut ragnar = server.client();
        let (status, body) = ragnar
            .post(
                "/api/account/signin",
                json!({"username": "ragnar", "password": "long password"}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let mut sigrid = server.client();
        let (status, _) = sigrid
            .post(
                "/api/account/signin",
                json!({"username": "sigrid", "password": "long password"}),
            )
            .await;
        assert_eq!(status, 200);
        let (status, game) = ragnar.get(&format!("/api/games/{over}")).await;
        assert_eq!(status, 200, "{game}");
        assert_eq!(game["status"], "finished", "{game}");
        assert_eq!(server.store.moves(&over).await.unwrap().len(), 4);
        let (_, profile) = ragnar.get("/api/players/sigrid").await;
        assert!(
            profile["ratings"].as_array().is_some_and(|r| !r.is_empty()),
            "{profile}"
        );
        let (_, challenges) = ragnar.get("/api/me/challenges").await;
        assert!(challenges.to_string().contains("fetlar"), "{challenges}");
        let mut sockets = seated(&server, &ragnar, &sigrid, &going).await;
        send(&mut sockets[0], json!({"t": "hello", "rev": 0})).await;
        let state = until(&mut sockets[0], "state").await;
        assert_eq!(state["game"]["status"], "ongoing", "{state}");
        assert_eq!(state["game"]["moves"].as_array().unwrap().len(), 6);
        let rev = state["game"]["rev"].as_u64().unwrap();
        send(
            &mut sockets[0],
            json!({"t": "move", "rev": rev, "move": COPENHAGEN_60[6]}),
        )
        .await;
        let moved = until(&mut sockets[1], "events").await;
        assert_eq!(moved["events"][0]["type"], "moved", "{moved}");
        let moved = until(&mut sockets[0], "events").await;
        assert_eq!(moved["events"][0]["type"], "moved", "{moved}");
        assert_eq!(server.store.moves(&going).await.unwrap().len(), 7);
        drop(sockets);
        server.stop().await;
    });
}

/// The sequences behind serial columns are set past the copied ids (Kingstable's
/// tables have none today; a table made here has one).
#[test]
fn sequences_are_set_past_the_largest_id() {
    block_on(async {
        let Some(url) = postgres_schema().await else {
            return;
        };
        let store = Store::open(&url, 2).await.unwrap();
        assert!(
            store
                .reset_sequences(&server::store::backup::TABLES)
                .await
                .unwrap()
                .is_empty(),
            "a Kingstable table has a sequence: check migrate-db copies it right"
        );
        let mut conn = sqlx::postgres::PgConnection::connect(url.connection_string())
            .await
            .unwrap();
        for sql in [
            "CREATE TABLE probe (id BIGSERIAL PRIMARY KEY, note TEXT)",
            "INSERT INTO probe (id, note) VALUES (7, 'a'), (41, 'b')",
        ] {
            sqlx::query(sql).execute(&mut conn).await.unwrap();
        }
        assert_eq!(
            store.reset_sequences(&["probe"]).await.unwrap(),
            ["probe.id"]
        );
        let next: i64 = sqlx::query_scalar("INSERT INTO probe (note) VALUES ('c') RETURNING id")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(next, 42);
        conn.close().await.ok();
        store.close().await;
    });
}

#[test]
fn migrate_db_refuses_what_it_cannot_copy() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let not_sqlite = dir.path().join("text.db");
    std::fs::write(&not_sqlite, "not a database").unwrap();
    let pg = "postgres://kt:secret@127.0.0.1:1/kt";
    for (args, expected) in [
        (
            vec!["--from", pg, "--to", pg],
            "--from must be a SQLite database",
        ),
        (
            vec!["--from", "sqlite:x.db", "--to", "sqlite:y.db"],
            "--to must be a PostgreSQL database",
        ),
        (
            vec!["--from", missing.to_str().unwrap(), "--to", pg],
            "no database file",
        ),
        (
            vec!["--from", not_sqlite.to_str().unwrap(), "--to", pg],
            "nothing changed",
        ),
    ] {
        let mut all = vec!["migrate-db"];
        all.extend(args);
        let output = kingstable(&all);
        assert_eq!(output.status.code(), Some(2), "{all:?}");
        let said = text(&output.stderr);
        assert!(said.contains(expected), "{all:?}: {said}");
        assert!(
            !said.contains("secret"),
            "the password is never printed: {said}"
        );
    }
    assert!(!missing.exists(), "a missing source is not created");
}
