//! Several server processes on one PostgreSQL and one Redis (issue 23): a real Redis
//! started here, three real server processes (this test binary run again as
//! `live::server_process`), and one game of each kind whose first player, second player
//! and spectator sit on three different processes. Random legal moves are played; one
//! process is killed with SIGKILL at a random moment and started again. Afterwards every
//! move acknowledged is stored, each game has one owner among the processes alive, and
//! every client saw every move live (each socket gets each move as an event, or a whole
//! state that holds it after connecting again).
//!
//! `KINGSTABLE_CLUSTER_RUNS` (rounds of three new games, default 1),
//! `KINGSTABLE_CLUSTER_MOVES` (moves per game, default 16) and `KINGSTABLE_CLUSTER_KILLS`
//! (per run, default 1) make the long form; `KINGSTABLE_CLUSTER_SEED` repeats a run.

use crate::common;
use crate::live::{Reaped, Socket, friend_game, server_child_with};

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use common::{Client, Database, legal_texts};

/// A Redis server of this test's own, on a free port, stopped when dropped.
pub(crate) struct Redis {
    child: std::process::Child,
    pub(crate) url: String,
}

impl Redis {
    /// `None` when `redis-server` is not installed (an error when
    /// `KINGSTABLE_REQUIRE_REDIS` is set, as in CI).
    fn start() -> Option<Redis> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        Redis::start_on(port)
    }

    /// [`Redis::start`] on `port`.
    pub(crate) fn start_on(port: u16) -> Option<Redis> {
        let child = match std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
        {
            Ok(child) => child,
            Err(error) => {
                assert!(
                    std::env::var_os("KINGSTABLE_REQUIRE_REDIS").is_none(),
                    "redis-server is required here: {error}"
                );
                eprintln!("skipped: no redis-server ({error})");
                return None;
            }
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "redis starts");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Redis {
            child,
            url: format!("redis://127.0.0.1:{port}"),
        })
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One server process.
pub(crate) struct Process {
    name: &'static str,
    child: Option<Reaped>,
    pub(crate) base: String,
}

impl Process {
    fn start(database: &str, redis: &str, name: &'static str) -> Process {
        // The rate limits are shared now: the long form makes more guests and games from
        // 127.0.0.1 than one address may (the test of the limits uses its own).
        let (child, base) = server_child_with(database, Some(name), Some(redis), true);
        Process {
            name,
            child: Some(Reaped(child)),
            base,
        }
    }

    fn alive(&self) -> bool {
        self.child.is_some()
    }

    fn addr(&self) -> SocketAddr {
        self.base.trim_start_matches("http://").parse().unwrap()
    }

    /// A socket on `path` of this process, as `client`'s browser opens it.
    pub(crate) async fn open(&self, client: &Client, path: &str) -> Socket {
        Socket::try_open_path(self.addr(), &self.base, client, path)
            .await
            .unwrap()
    }
}

/// A player's or spectator's browser: its cookies, the process it prefers, its socket,
/// and the moves it has seen.
struct Seat {
    client: Client,
    at: usize,
    socket: Option<Socket>,
    seen: Vec<String>,
    status: String,
    legal: Vec<String>,
    rev: u64,
}

/// The moves of a `state`'s game.
fn moves_of(game: &Value) -> Vec<String> {
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

fn legal_of(value: &Value) -> Vec<String> {
    if value.get("legal_moves").is_none() && value.get("legal").is_none() {
        return Vec::new();
    }
    legal_texts(value)
}

impl Seat {
    /// Connects to the first live process from its own on, until a whole state comes
    /// (a game passing between processes refuses for a while).
    async fn connect(&mut self, processes: &[Process], id: &str) {
        let started = Instant::now();
        let mut at = self.at;
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(40),
                "game {id} was reachable again within 40 s"
            );
            let process = &processes[at % processes.len()];
            at += 1;
            if !process.alive() {
                continue;
            }
            let path = format!("/ws/game/{id}");
            let mut socket =
                match Socket::try_open_path(process.addr(), &process.base, &self.client, &path)
                    .await
                {
                    Ok(socket) => socket,
                    Err(error) => {
                        eprintln!("cluster: {id} on {}: {error}", process.name);
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        continue;
                    }
                };
            socket.send(json!({"t": "hello", "rev": 0})).await;
            eprintln!("cluster: {id} connected to {}", process.name);
            if let Some(state) = read_until(&mut socket, "state").await {
                let game = &state["game"];
                self.seen = moves_of(game);
                self.status = game["status"].as_str().unwrap().to_owned();
                self.legal = legal_of(game);
                self.rev = game["rev"].as_u64().unwrap();
                self.socket = Some(socket);
                return;
            }
        }
    }

    /// Reads until this seat has seen `count` moves, connecting again if its socket
    /// closes. Every move must come as an `events` message, unless the socket was lost
    /// (then the state it gets again must hold it).
    async fn catch_up(&mut self, processes: &[Process], id: &str, count: usize) {
        while self.seen.len() < count && self.status == "ongoing" {
            let Some(socket) = &mut self.socket else {
                self.connect(processes, id).await;
                continue;
            };
            let events = socket_events(socket).await;
            self.read_events(events);
        }
    }

    /// Waits for the answer to its own move (the `count`th); returns early when its
    /// socket is lost (the move may not have reached the owner: it is sent again).
    async fn acknowledged(&mut self, count: usize) {
        while self.seen.len() < count && self.status == "ongoing" {
            let Some(socket) = &mut self.socket else {
                return;
            };
            let events = socket_events(socket).await;
            self.read_events(events);
        }
    }

    fn read_events(&mut self, events: Option<Value>) {
        let Some(events) = events else {
            self.socket = None;
            return;
        };
        for event in events["events"].as_array().unwrap() {
            self.rev = event["revision"].as_u64().unwrap();
            if event["type"] == "moved" {
                self.seen
                    .push(event["move"]["text"].as_str().unwrap().to_owned());
            }
        }
        self.status = events["status"].as_str().unwrap().to_owned();
        self.legal = legal_of(&events);
    }
}

async fn socket_events(socket: &mut Socket) -> Option<Value> {
    read_until(socket, "events").await
}

/// Messages until one of type `t`; `None` when the socket closes or says nothing for
/// 20 s (its process died).
pub(crate) async fn read_until(socket: &mut Socket, t: &str) -> Option<Value> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), socket.stream.next())
            .await
            .ok()??
            .ok()?;
        match frame {
            Message::Text(text) => {
                let value: Value = serde_json::from_str(&text).unwrap();
                if value["t"] == t {
                    return Some(value);
                }
                if t == "state" {
                    eprintln!(
                        "cluster: waiting for a state: {}",
                        &text[..text.len().min(300)]
                    );
                }
            }
            Message::Close(_) => return None,
            _ => {}
        }
    }
}

/// A fresh PostgreSQL database, a Redis of the test's own, and `n` (at most three)
/// processes on both, named one, two and three; `None` where PostgreSQL or redis-server
/// is missing (an error in CI).
pub(crate) async fn cluster(n: usize) -> Option<(Database, Redis, String, Vec<Process>)> {
    let db = Database::fresh(common::Db::Postgres).await?;
    let redis = Redis::start()?;
    let database = db.url.connection_string().to_owned();
    let processes = ["one", "two", "three"][..n]
        .iter()
        .map(|name| Process::start(&database, &redis.url, name))
        .collect();
    Some((db, redis, database, processes))
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_one_redis_a_process_killed() {
    let Some((_db, redis, database, mut processes)) = cluster(3).await else {
        return;
    };
    let moves_per_game = usize::try_from(env_number("KINGSTABLE_CLUSTER_MOVES", 16)).unwrap();
    let kills = env_number("KINGSTABLE_CLUSTER_KILLS", 1);
    let seed = env_number(
        "KINGSTABLE_CLUSTER_SEED",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    );
    eprintln!("cluster: seed {seed}, {moves_per_game} moves a game, {kills} kills");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);

    let runs = env_number("KINGSTABLE_CLUSTER_RUNS", 1);
    for run in 0..runs {
        eprintln!("cluster: run {run}");
        // Game g is made on process g; its first player plays there, its second player on
        // the next process and its spectator on the one after.
        let kinds = ["fetlar", "copenhagen", "camelot"];
        let mut games = Vec::new();
        for (g, kind) in kinds.iter().enumerate() {
            let (mut a, mut b) = (
                Client::new(&processes[g].base),
                Client::new(&processes[(g + 1) % 3].base),
            );
            let id = friend_game(&mut a, &mut b, kind, "30+5").await;
            let mut seats = Vec::new();
            for (offset, client) in [a, b, Client::new(&processes[(g + 2) % 3].base)]
                .into_iter()
                .enumerate()
            {
                let mut seat = Seat {
                    client,
                    at: (g + offset) % 3,
                    socket: None,
                    seen: Vec::new(),
                    status: String::new(),
                    legal: Vec::new(),
                    rev: 0,
                };
                seat.connect(&processes, &id).await;
                seats.push(seat);
            }
            // Chat said on one process reaches the other player on the owner's.
            let said = format!("good luck from {}", processes[(g + 1) % 3].name);
            seats[1]
                .socket
                .as_mut()
                .unwrap()
                .send(json!({"t": "chat", "room": "players", "text": said}))
                .await;
            for seat in &mut seats[..2] {
                let heard = read_until(seat.socket.as_mut().unwrap(), "chat")
                    .await
                    .expect("the chat message comes");
                assert_eq!(heard["text"], said.as_str(), "{heard}");
            }
            games.push((id, seats, Vec::<String>::new()));
        }

        // The lobby is shared: every process lists the three games being played.
        for process in processes.iter().filter(|p| p.alive()) {
            let started = Instant::now();
            loop {
                let listed = Client::new(&process.base)
                    .get("/api/games?status=live&limit=100")
                    .await
                    .json();
                let ids: Vec<&str> = listed["games"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g["id"].as_str().unwrap())
                    .collect();
                if games.iter().all(|(id, _, _)| ids.contains(&id.as_str())) {
                    break;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(5),
                    "{} lists {ids:?}, not every game being played",
                    process.name
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }

        // Kill moments: after these rounds (a round is one move in each game).
        let mut kill_at: Vec<usize> = (0..kills)
            .map(|_| rng.random_range(2..moves_per_game.max(3) - 1))
            .collect();
        kill_at.sort_unstable();
        let mut restarts: Vec<(usize, Instant)> = Vec::new();
        for round in 0..moves_per_game {
            while kill_at.first() == Some(&round) {
                kill_at.remove(0);
                let victim = rng.random_range(0..processes.len());
                if let Some(mut child) = processes[victim].child.take() {
                    eprintln!(
                        "cluster: SIGKILL {} after {round} rounds",
                        processes[victim].name
                    );
                    child.0.kill().unwrap();
                    child.0.wait().unwrap();
                    restarts.push((victim, Instant::now() + Duration::from_secs(3)));
                }
            }
            // Killed processes come back a moment later, under the same name.
            for (victim, when) in std::mem::take(&mut restarts) {
                if Instant::now() >= when {
                    processes[victim] =
                        Process::start(&database, &redis.url, processes[victim].name);
                    eprintln!("cluster: {} started again", processes[victim].name);
                } else {
                    restarts.push((victim, when));
                }
            }
            for (id, seats, acknowledged) in &mut games {
                if seats[0].status != "ongoing" {
                    continue;
                }
                let mover = acknowledged.len() % 2;
                let count = acknowledged.len();
                // The mover's browser: its legal moves, from the last message it got.
                let started = Instant::now();
                loop {
                    assert!(
                        started.elapsed() < Duration::from_secs(60),
                        "game {id}: move {count} was not acknowledged within 60 s"
                    );
                    if seats[mover].socket.is_none() || seats[mover].legal.is_empty() {
                        if seats[mover].socket.is_some() {
                            eprintln!("cluster: {id}: no legal moves in {:?}", seats[mover].status);
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                        seats[mover].connect(&processes, id).await;
                    }
                    if seats[mover].seen.len() > count || seats[mover].status != "ongoing" {
                        break;
                    }
                    let legal = &seats[mover].legal;
                    let text = legal[rng.random_range(0..legal.len())].clone();
                    let rev = seats[mover].rev;
                    let socket = seats[mover].socket.as_mut().unwrap();
                    if socket
                        .stream
                        .send(Message::Text(
                            json!({"t": "move", "rev": rev, "move": text})
                                .to_string()
                                .into(),
                        ))
                        .await
                        .is_err()
                    {
                        seats[mover].socket = None;
                        continue;
                    }
                    seats[mover].acknowledged(count + 1).await;
                    if seats[mover].seen.len() > count {
                        break;
                    }
                }
                if seats[mover].seen.len() > count {
                    acknowledged.push(seats[mover].seen[count].clone());
                }
                for seat in seats.iter_mut() {
                    seat.catch_up(&processes, id, acknowledged.len()).await;
                    assert_eq!(
                        seat.seen, *acknowledged,
                        "game {id}: a client saw other moves"
                    );
                }
            }
        }
        for (victim, _) in restarts {
            processes[victim] = Process::start(&database, &redis.url, processes[victim].name);
        }

        // Everything acknowledged is stored, on every process's word; each game has one
        // owner, a process that runs.
        let pool = sqlx::PgPool::connect(&database).await.unwrap();
        for (id, seats, acknowledged) in &games {
            for process in processes.iter().filter(|p| p.alive()) {
                let stored = Client::new(&process.base)
                    .get(&format!("/api/games/{id}"))
                    .await
                    .json();
                assert_eq!(
                    moves_of(&stored),
                    *acknowledged,
                    "game {id} on {}",
                    process.name
                );
            }
            if seats[0].status != "ongoing" {
                continue;
            }
            let owner: Option<String> = sqlx::query_scalar("SELECT owner FROM games WHERE id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .unwrap();
            let owner = owner.expect("a live game has an owner");
            let lease: i64 =
                sqlx::query_scalar("SELECT lease_until FROM instances WHERE token = $1")
                    .bind(&owner)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            assert!(
                lease > server::store::now_ms(),
                "game {id} is owned by {owner}, whose lease has lapsed"
            );
        }
    }
}

/// Redis stops and comes back (issue 23): a game owned by one process, its second player
/// on the other. While Redis is gone the relay ends and the second process refuses the
/// socket (503); once Redis is back, the second player connects again through the second
/// process and the game plays on, each move seen by both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_gone_and_back() {
    let Some((_db, redis, _, processes)) = cluster(2).await else {
        return;
    };
    let port: u16 = redis.url.rsplit(':').next().unwrap().parse().unwrap();
    let (mut a, mut b) = (
        Client::new(&processes[0].base),
        Client::new(&processes[1].base),
    );
    let id = friend_game(&mut a, &mut b, "copenhagen", "30+5").await;
    let mut seats = Vec::new();
    for (at, client) in [a, b].into_iter().enumerate() {
        let mut seat = Seat {
            client,
            at: 0,
            socket: None,
            seen: Vec::new(),
            status: String::new(),
            legal: Vec::new(),
            rev: 0,
        };
        seat.connect(&processes[at..=at], &id).await;
        seats.push(seat);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let play = async |seats: &mut Vec<Seat>, rng: &mut rand::rngs::StdRng, n: usize| {
        for _ in 0..n {
            let count = seats[0].seen.len();
            let mover = count % 2;
            let started = Instant::now();
            while seats[mover].seen.len() <= count {
                assert!(started.elapsed() < Duration::from_secs(40), "move {count}");
                if seats[mover].socket.is_none() {
                    // Each player only ever on their own process.
                    seats[mover].connect(&processes[mover..=mover], &id).await;
                    continue;
                }
                let legal = &seats[mover].legal;
                let text = legal[rng.random_range(0..legal.len())].clone();
                let rev = seats[mover].rev;
                let sent = seats[mover]
                    .socket
                    .as_mut()
                    .unwrap()
                    .stream
                    .send(Message::Text(
                        json!({"t": "move", "rev": rev, "move": text})
                            .to_string()
                            .into(),
                    ))
                    .await;
                if sent.is_err() {
                    seats[mover].socket = None;
                    continue;
                }
                seats[mover].acknowledged(count + 1).await;
            }
            let acknowledged = seats[mover].seen.clone();
            for (i, seat) in seats.iter_mut().enumerate() {
                seat.catch_up(&processes[i..=i], &id, acknowledged.len())
                    .await;
                assert_eq!(seat.seen, acknowledged);
            }
        }
    };
    play(&mut seats, &mut rng, 4).await;
    drop(redis);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let redis = Redis::start_on(port).expect("redis starts again on its port");
    play(&mut seats, &mut rng, 4).await;
    assert_eq!(seats[1].seen.len(), 8);
    drop(redis);
}

/// A sign-in attempt through `client`'s process: the error code (`""` on success).
async fn sign_in_code(client: &mut Client, name: &str, password: &str) -> String {
    let reply = client.sign_in(name, password).await;
    if reply.status.is_success() {
        String::new()
    } else {
        reply.error_code()
    }
}

/// A new game against the AI, asked of `process` with `guest`'s cookies.
async fn new_ai_game(guest: &mut Client, process: &Process) -> common::Reply {
    guest.base.clone_from(&process.base);
    guest.origin = Some(process.base.clone());
    let body = json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "second", "time_control": "untimed"});
    guest.post("/api/games", body).await
}

/// Rate limits and AI quotas are the same on every process: a client that spreads its
/// requests over two processes gets no more than from one, a quota freed on one process
/// is free on the other, and without Redis each process limits alone (nobody refused for
/// Redis's absence).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_and_ai_quotas_are_shared() {
    let Some((_db, redis, _, processes)) = cluster(2).await else {
        return;
    };
    let mut on = [
        Client::new(&processes[0].base),
        Client::new(&processes[1].base),
    ];
    assert!(
        on[0]
            .sign_up("guarded", "right password")
            .await
            .status
            .is_success()
    );

    // Wrong passwords from one address, alternating between the processes: the budget
    // (10 sign-ins an address, 10 wrong guesses an account and address) is spent once.
    let mut codes = Vec::new();
    for attempt in 0..12 {
        codes.push(sign_in_code(&mut on[attempt % 2], "guarded", "wrong password").await);
    }
    assert_eq!(
        codes.iter().filter(|c| *c == "invalid_credentials").count(),
        10,
        "{codes:?}"
    );
    assert!(codes[10..].iter().all(|c| c == "rate_limited"), "{codes:?}");

    // A guest's games against the AI (4 at once), created on either process.
    let mut guest = Client::new(&processes[0].base);
    let mut games = Vec::new();
    for at in [0, 1, 0, 1] {
        let reply = new_ai_game(&mut guest, &processes[at]).await;
        assert!(reply.status.is_success(), "{}", reply.text);
        games.push((at, reply.json()["id"].as_str().unwrap().to_owned()));
    }
    for at in [0, 1] {
        let reply = new_ai_game(&mut guest, &processes[at]).await;
        assert_eq!(
            reply.error_code(),
            "rate_limited",
            "a fifth game on process {at}"
        );
    }

    // Resigning one (on the process that does not own it) frees its place everywhere.
    let (owner, id) = games[0].clone();
    let other = 1 - owner;
    let mut socket = processes[other]
        .open(&guest, &format!("/ws/game/{id}"))
        .await;
    socket.send(json!({"t": "hello", "rev": 0})).await;
    read_until(&mut socket, "state").await.expect("a state");
    socket.send(json!({"t": "resign"})).await;
    let started = Instant::now();
    loop {
        let reply = new_ai_game(&mut guest, &processes[other]).await;
        if reply.status.is_success() {
            break;
        }
        assert_eq!(reply.error_code(), "rate_limited");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the resigned game's place comes back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let metrics = on[1].get("/metrics").await.text;
    assert!(metrics.contains("kingstable_bus_connected 1"), "{metrics}");
    assert!(
        metrics.contains("kingstable_shared_limit_failures_total 0"),
        "{metrics}"
    );

    // Without Redis each process limits alone, and answers at once.
    drop(redis);
    let started = Instant::now();
    assert_eq!(
        sign_in_code(&mut on[1], "guarded", "right password").await,
        "",
        "the right password, though the shared buckets of this address are spent"
    );
    eprintln!(
        "cluster: signed in without Redis in {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // The operator sees it: the checks Redis did not answer are counted.
    let metrics = on[1].get("/metrics").await.text;
    let failures: u64 = metrics
        .lines()
        .find_map(|line| line.strip_prefix("kingstable_shared_limit_failures_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{metrics}"));
    assert!(failures >= 1, "{metrics}");
}

/// The shared buckets and holdings themselves, on a real Redis, as two processes see
/// them: one bucket whoever takes from it; `look` spends nothing, `spend` spends past
/// empty; holdings bounded across processes, given back when dropped, kept while renewed,
/// and those of a process that stopped renewing (one that died) lapse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_buckets_and_holdings_on_redis() {
    use server::shared::{Bucket, Shared};
    let Some(redis) = Redis::start() else {
        return;
    };
    let client = redis::Client::open(redis.url.as_str()).unwrap();
    let connect = || async { client.get_connection_manager().await.unwrap() };
    let hold_for = Duration::from_millis(900);
    let one = Shared::start_holding(connect().await, "one", hold_for);
    let two = Shared::start_holding(connect().await, "two", hold_for);
    let minute = Duration::from_secs(60);

    // A burst of 3 a minute, taken from either process.
    for process in [&one, &two, &one] {
        assert_eq!(
            process
                .bucket("t", "k", 3, minute, Bucket::Take)
                .await
                .unwrap(),
            None
        );
    }
    let wait = two.bucket("t", "k", 3, minute, Bucket::Take).await.unwrap();
    assert!(
        wait.is_some_and(|w| w > Duration::from_secs(55) && w <= minute),
        "{wait:?}"
    );
    assert_eq!(
        one.bucket("t", "other", 3, minute, Bucket::Take)
            .await
            .unwrap(),
        None
    );
    // Looking spends nothing; spending counts past empty; forgetting fills it again.
    for _ in 0..5 {
        assert_eq!(
            one.bucket("t", "g", 2, minute, Bucket::Look).await.unwrap(),
            None
        );
    }
    for _ in 0..3 {
        one.bucket("t", "g", 2, minute, Bucket::Spend)
            .await
            .unwrap();
    }
    let wait = two.bucket("t", "g", 2, minute, Bucket::Look).await.unwrap();
    assert!(
        wait.is_some_and(|w| w > minute),
        "three spent of two: {wait:?}"
    );
    two.forget("t", "g").await.unwrap();
    assert_eq!(
        one.bucket("t", "g", 2, minute, Bucket::Look).await.unwrap(),
        None
    );
    // A short period refills.
    let short = Duration::from_millis(200);
    assert_eq!(
        one.bucket("t", "s", 1, short, Bucket::Take).await.unwrap(),
        None
    );
    assert!(
        two.bucket("t", "s", 1, short, Bucket::Take)
            .await
            .unwrap()
            .is_some()
    );
    tokio::time::sleep(short + Duration::from_millis(50)).await;
    assert_eq!(
        two.bucket("t", "s", 1, short, Bucket::Take).await.unwrap(),
        None
    );

    // Two at once for an identity, across processes; a holding of several identities
    // is refused if any one of them is full.
    let who = ["u:alice".to_owned(), "a:192.0.2.1".to_owned()];
    let first = one.acquire("games", &who, 2).await.unwrap().expect("first");
    let second = two
        .acquire("games", &who[..1], 2)
        .await
        .unwrap()
        .expect("second");
    assert!(one.acquire("games", &who, 2).await.unwrap().is_none());
    assert!(
        two.acquire("games", &who[1..], 2)
            .await
            .unwrap()
            .is_some_and(|third| {
                drop(third);
                true
            })
    );
    assert_eq!(one.holding("games", "u:alice").await.unwrap(), 2);
    // Renewed, they outlast their time.
    tokio::time::sleep(hold_for * 2).await;
    assert_eq!(two.holding("games", "u:alice").await.unwrap(), 2);
    // Dropped, one is given back at once.
    drop(second);
    let started = Instant::now();
    while one.holding("games", "u:alice").await.unwrap() != 1 {
        assert!(started.elapsed() < Duration::from_secs(5), "given back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A holding nobody renews (its process died) lapses, and no longer counts.
    let mut raw = connect().await;
    let _: () = redis::cmd("ZADD")
        .arg("kt:ai:games:u:alice")
        .arg(1)
        .arg("dead:1")
        .query_async(&mut raw)
        .await
        .unwrap();
    let again = two
        .acquire("games", &who, 2)
        .await
        .unwrap()
        .expect("the dead one lapsed");
    assert!(one.acquire("games", &who, 2).await.unwrap().is_none());
    drop((first, again));
}

/// The ids of the open challenges `client`'s process lists.
async fn challenge_ids(client: &mut Client) -> Vec<String> {
    let listed = client.get("/api/challenges").await.json();
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Lobby sockets open on a process that dies stop counting on the others: a poster whose
/// only lobby socket was there loses their challenge after the grace period, as if they
/// had left; one whose browser connects again to another process keeps theirs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_process_lobby_sockets_stop_counting() {
    let Some((_db, _redis, _, mut processes)) = cluster(2).await else {
        return;
    };
    let mut posters = Vec::new();
    for _ in 0..2 {
        let mut poster = Client::new(&processes[0].base);
        assert!(poster.post_empty("/api/guest").await.status.is_success());
        let mut lobby = processes[0].open(&poster, "/ws/lobby").await;
        read_until(&mut lobby, "snapshot")
            .await
            .expect("a snapshot");
        let posted = poster
            .post(
                "/api/challenges",
                json!({"kind": "fetlar", "time_control": "5+3", "side": "first"}),
            )
            .await;
        assert!(posted.status.is_success(), "{}", posted.text);
        posters.push((
            poster,
            lobby,
            posted.json()["id"].as_str().unwrap().to_owned(),
        ));
    }
    let mut watcher = Client::new(&processes[1].base);
    let started = Instant::now();
    loop {
        let listed = challenge_ids(&mut watcher).await;
        if posters.iter().all(|(_, _, id)| listed.contains(id)) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{listed:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Process one dies; the second poster's browser connects again, to process two.
    processes[0].child.take();
    let (_, _, gone) = posters.remove(0);
    let (stayer, _, kept) = posters.remove(0);
    let _again = processes[1].open(&stayer, "/ws/lobby").await;
    let started = Instant::now();
    loop {
        let listed = challenge_ids(&mut watcher).await;
        assert!(
            listed.contains(&kept),
            "the poster who came back keeps theirs"
        );
        if !listed.contains(&gone) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the departed poster's challenge goes"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "cluster: withdrawn {:?} after the process died",
        started.elapsed()
    );
    // Long after the grace period, the one who came back still has theirs.
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(challenge_ids(&mut watcher).await.contains(&kept));
}
