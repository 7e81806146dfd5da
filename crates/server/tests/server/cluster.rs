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
use crate::live::{Reaped, Socket, friend_game, server_child_on_bus};

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use common::{Client, Database};

/// A Redis server of this test's own, on a free port, stopped when dropped.
struct Redis {
    child: std::process::Child,
    url: String,
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
    fn start_on(port: u16) -> Option<Redis> {
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
struct Process {
    name: &'static str,
    child: Option<Reaped>,
    base: String,
}

impl Process {
    fn start(database: &str, redis: &str, name: &'static str) -> Process {
        let (child, base) = server_child_on_bus(database, Some(name), Some(redis));
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
    value["legal_moves"]
        .as_array()
        .map(|moves| {
            moves
                .iter()
                .map(|m| m["text"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
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
async fn read_until(socket: &mut Socket, t: &str) -> Option<Value> {
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

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_one_redis_a_process_killed() {
    let Some(db) = Database::fresh(common::Db::Postgres).await else {
        return;
    };
    let Some(redis) = Redis::start() else {
        return;
    };
    let database = db.url.connection_string().to_owned();
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
    let mut processes = vec![
        Process::start(&database, &redis.url, "one"),
        Process::start(&database, &redis.url, "two"),
        Process::start(&database, &redis.url, "three"),
    ];

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
    let Some(db) = Database::fresh(common::Db::Postgres).await else {
        return;
    };
    let Some(redis) = Redis::start() else {
        return;
    };
    let database = db.url.connection_string().to_owned();
    let port: u16 = redis.url.rsplit(':').next().unwrap().parse().unwrap();
    let processes = [
        Process::start(&database, &redis.url, "one"),
        Process::start(&database, &redis.url, "two"),
    ];
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
