//! A move costs the database one short row, whatever the game's length, and what is
//! stored (an occasional snapshot and the moves after it) gives back the session exactly,
//! clocks, revision and events included — on SQLite and on PostgreSQL, for all three
//! games. The bytes a move writes are measured by `bytes_written_per_move` (ignored:
//! a measurement, see `bench/RESULTS.md`).

use crate::common;

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use game::{GameKind, Player};
use games::{AnyGame, Game};
use server::live::session_json;
use server::live::stored::{last_move_row, load};
use server::store::{NewGame, Seat, Store};
use session::{Options, Session, Takebacks, Timestamp};

use common::Database;

const T0: u64 = 1_700_000_000_000;

/// A stored game between two AIs (no accounts needed), with its new session at `T0`.
async fn new_game(store: &Store, kind: GameKind) -> (String, Session) {
    let start = AnyGame::start(kind);
    let control = "10+5".parse().unwrap();
    let record = store
        .create_game(
            &NewGame {
                kind,
                first: Seat::Ai(1),
                second: Seat::Ai(2),
                time_control: "10+5".into(),
                rated: false,
                start_position: start.start_position_string(),
                session_state: None,
            },
            i64::try_from(T0).unwrap(),
        )
        .await
        .unwrap();
    let options = Options {
        control,
        takebacks: Takebacks::Never,
        clock_start: session::ClockStart::FirstMove,
    };
    let session = Session::new(start, options, Timestamp::from_millis(T0));
    store
        .save_session_state(&record.id, &session_json(&session), T0 as i64)
        .await
        .unwrap();
    (record.id, session)
}

/// The next move: a fixed pick among the legal moves that do not end the game (so games
/// run long), played at an uneven time after the last.
fn next_move(session: &mut Session) -> bool {
    let ply = session.moves().len() + 1;
    let legal = session.legal_any_moves();
    if legal.is_empty() {
        return false;
    }
    let now = session
        .moves()
        .last()
        .and_then(|m| m.at)
        .map_or(T0, Timestamp::as_millis)
        + 150
        + (ply as u64 * 7919) % 3000;
    let keeps_going = (0..legal.len())
        .map(|i| legal[(ply * 31 + i) % legal.len()])
        .find(|&mv| {
            let mut game = session.game().clone();
            game.play(mv);
            game.outcome().is_none()
        });
    let Some(mv) = keeps_going else { return false };
    let player = session.to_move();
    session
        .play_move(player, mv, Timestamp::from_millis(now))
        .unwrap();
    true
}

/// What a game's owner knows of its snapshots: how many it wrote after a move, and how
/// many moves the last one stored holds.
#[derive(Default)]
struct Snapshots {
    written: AtomicUsize,
    ply: AtomicU32,
}

impl Snapshots {
    /// The session was stored whole (a change that is not a move, a takeback) at `ply`.
    fn stored_whole(&self, ply: usize) {
        self.ply
            .store(u32::try_from(ply).unwrap(), Ordering::Relaxed);
    }

    fn load(&self) -> usize {
        self.written.load(Ordering::Relaxed)
    }
}

/// Stores the session's last move as the game's owner does; returns whether a snapshot
/// was written.
async fn store_move(store: &Store, id: &str, session: &Session, snapshots: &Snapshots) -> bool {
    let row = last_move_row(session).unwrap();
    let ply = row.ply;
    let written = store
        .append_move(id, &row, snapshots.ply.load(Ordering::Relaxed), || {
            snapshots.written.fetch_add(1, Ordering::Relaxed);
            session_json(session)
        })
        .await
        .unwrap();
    if written {
        snapshots.ply.store(ply, Ordering::Relaxed);
    }
    written
}

async fn a_rebuilt_session_equals_the_played_one(db: Database) {
    let store = Store::open(&db.url, 4).await.unwrap();
    for kind in [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot] {
        let (id, mut session) = new_game(&store, kind).await;
        let snapshots = Snapshots::default();
        let mut plies = 0;
        while plies < 140 && next_move(&mut session) {
            plies += 1;
            store_move(&store, &id, &session, &snapshots).await;
            if plies == 40 {
                // A change that is not a move stores the session whole.
                let at = Timestamp::from_millis(session.moves()[39].at.unwrap().as_millis() + 5);
                session.offer_draw(Player::First, at).unwrap();
                store
                    .save_session_state(&id, &session_json(&session), at.as_millis() as i64)
                    .await
                    .unwrap();
                snapshots.stored_whole(plies);
            }
            if [1, 10, 31, 32, 33, 41, 63, 64, 65, 100, 127, 128, 129, 140].contains(&plies) {
                let rebuilt = load(&store, &id).await.unwrap().unwrap();
                assert_eq!(rebuilt, session, "{kind:?} at ply {plies}");
                assert_eq!(rebuilt.clocks(), session.clocks());
                assert_eq!(rebuilt.revision(), session.revision());
                assert_eq!(rebuilt.draw_offer(), session.draw_offer());
            }
        }
        assert!(plies >= 70, "{kind:?}: only {plies} plies");
        // Snapshots at 32, then 40 (the offer: not counted here), 80 (40 moves after
        // it), 160…: a few for the whole game, not one a move.
        assert!(snapshots.load() <= 3, "{kind:?}");
        let moves = store.moves(&id).await.unwrap();
        assert_eq!(moves.len(), plies);
        assert!(
            moves
                .iter()
                .enumerate()
                .all(|(i, m)| m.ply as usize == i + 1)
        );
        let record = store.game(&id).await.unwrap().unwrap();
        assert_eq!(record.plies as usize, plies);
        // A move for a ply already stored changes nothing.
        let mut stale = last_move_row(&session).unwrap();
        stale.text = "stale".into();
        assert!(
            store
                .append_move(&id, &stale, 0, String::new)
                .await
                .is_err()
        );
        assert_eq!(load(&store, &id).await.unwrap().unwrap(), session);
        // The ending stores the whole session: nothing left to replay.
        let at = Timestamp::from_millis(session.moves()[plies - 1].at.unwrap().as_millis() + 9);
        let outcome = session.resign(session.to_move(), at).unwrap();
        store
            .finish_game(
                &id,
                outcome,
                Some(&session_json(&session)),
                at.as_millis() as i64,
            )
            .await
            .unwrap();
        let stored = store.stored_session(&id).await.unwrap().unwrap();
        assert_eq!(stored.snapshot_ply as usize, plies);
        assert!(stored.moves_after.is_empty());
        assert_eq!(load(&store, &id).await.unwrap().unwrap(), session);
    }
    store.close().await;
}
both!(rebuilt_session, a_rebuilt_session_equals_the_played_one);

/// A takeback stores the session whole at the kept ply; later moves append after it.
/// Many games' moves stored at the same moment (a group commit, one transaction for
/// the moves waiting together): every move is stored, in order, each game rebuilds as
/// played, and a refused move among them (a ply already stored) is refused alone.
async fn moves_of_many_games_at_once_are_each_stored(db: Database) {
    let store = Store::open(&db.url, 4).await.unwrap();
    let mut games = Vec::new();
    for i in 0..24 {
        let kind = [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot][i % 3];
        games.push(new_game(&store, kind).await);
    }
    for round in 0..12 {
        // A stale move beside them: a ply of one game stored in the round before.
        let stale = (round > 0).then(|| {
            let (id, session) = &games[round % games.len()];
            let mut stale = last_move_row(session).unwrap();
            stale.text = "stale".into();
            (id.clone(), stale)
        });
        let mut writes = Vec::new();
        for (id, session) in &mut games {
            assert!(next_move(session), "round {round}");
            let (store, id, row) = (store.clone(), id.clone(), last_move_row(session).unwrap());
            let json = session_json(session);
            writes.push(tokio::spawn(async move {
                store.append_move(&id, &row, 0, || json).await
            }));
        }
        let stale = stale.map(|(id, row)| {
            let store = store.clone();
            tokio::spawn(async move { store.append_move(&id, &row, 0, String::new).await })
        });
        for write in writes {
            write.await.unwrap().unwrap();
        }
        if let Some(stale) = stale {
            assert!(stale.await.unwrap().is_err(), "round {round}");
        }
    }
    for (id, session) in &games {
        let moves = store.moves(id).await.unwrap();
        assert_eq!(moves.len(), session.moves().len());
        assert!(moves.iter().all(|m| m.text != "stale"));
        assert_eq!(&load(&store, id).await.unwrap().unwrap(), session);
    }
}
both!(
    many_games_at_once,
    moves_of_many_games_at_once_are_each_stored
);

async fn a_takeback_then_moves_reload(db: Database) {
    let store = Store::open(&db.url, 4).await.unwrap();
    let (id, mut session) = new_game(&store, GameKind::Copenhagen).await;
    let snapshots = Snapshots::default();
    for _ in 0..12 {
        assert!(next_move(&mut session));
        store_move(&store, &id, &session, &snapshots).await;
    }
    // Taking back as the table does, by rebuilding from the first ten moves' data.
    let mut data = session.data();
    data.moves.truncate(10);
    let mut kept = Session::new(
        AnyGame::start(GameKind::Copenhagen),
        data.options,
        Timestamp::from_millis(T0),
    );
    for (i, mv) in data.moves.iter().enumerate() {
        let player = kept.to_move();
        kept.play(player, &mv.text, mv.at.unwrap()).unwrap();
        assert_eq!(kept.moves()[i].info.text, mv.text);
    }
    store
        .take_back(&id, 10, &session_json(&kept), T0 as i64 + 60_000)
        .await
        .unwrap();
    snapshots.stored_whole(10);
    assert_eq!(load(&store, &id).await.unwrap().unwrap(), kept);
    for _ in 0..5 {
        assert!(next_move(&mut kept));
        store_move(&store, &id, &kept, &snapshots).await;
    }
    assert_eq!(load(&store, &id).await.unwrap().unwrap(), kept);
    assert_eq!(store.moves(&id).await.unwrap().len(), 15);
    store.close().await;
}
both!(takeback_then_moves, a_takeback_then_moves_reload);

/// A move writes only its own row, so a game's row says neither how many moves it has
/// nor when it last changed: the game as read counts its moves, and an untimed game is
/// idle only when its last move is old as well as its row.
async fn a_live_game_counts_its_moves_and_its_last_move_keeps_it_active(db: Database) {
    let store = Store::open(&db.url, 4).await.unwrap();
    let record = store
        .create_game(
            &NewGame {
                kind: GameKind::Fetlar,
                first: Seat::Ai(1),
                second: Seat::Ai(2),
                time_control: "untimed".into(),
                rated: false,
                start_position: AnyGame::start(GameKind::Fetlar).start_position_string(),
                session_state: None,
            },
            T0 as i64,
        )
        .await
        .unwrap();
    let mut session = Session::new(
        AnyGame::start(GameKind::Fetlar),
        Options {
            control: "untimed".parse().unwrap(),
            takebacks: Takebacks::Never,
            clock_start: session::ClockStart::FirstMove,
        },
        Timestamp::from_millis(T0),
    );
    store
        .save_session_state(&record.id, &session_json(&session), T0 as i64)
        .await
        .unwrap();
    let snapshots = Snapshots::default();
    for _ in 0..5 {
        assert!(next_move(&mut session));
        store_move(&store, &record.id, &session, &snapshots).await;
    }
    let last = session.moves().last().unwrap().at.unwrap().as_millis() as i64;
    assert!(last > T0 as i64 + 1_000);
    assert_eq!(store.game(&record.id).await.unwrap().unwrap().plies, 5);
    // Idle since just after the row was written, but not since the last move.
    assert!(
        store
            .idle_untimed_games(T0 as i64 + 1)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.idle_untimed_games(last + 1).await.unwrap(),
        vec![record.id.clone()]
    );
    // The end writes the count into the row.
    let at = Timestamp::from_millis(last as u64 + 10);
    let outcome = session.resign(session.to_move(), at).unwrap();
    store
        .finish_game(
            &record.id,
            outcome,
            Some(&session_json(&session)),
            last + 10,
        )
        .await
        .unwrap();
    assert_eq!(store.game(&record.id).await.unwrap().unwrap().plies, 5);
    let stored = store.stored_session(&record.id).await.unwrap().unwrap();
    assert_eq!((stored.snapshot_ply, stored.moves_after.len()), (5, 0));
    store.close().await;
}
both!(
    live_game_counts_moves,
    a_live_game_counts_its_moves_and_its_last_move_keeps_it_active
);

/// The statements a move ran before this change, verbatim: the whole session rewritten
/// into the game's row with every move. Run on a connection of the meter's own for the
/// "before" figure.
const BEFORE_UPDATE: &str = "UPDATE games SET ply_count = $2, session_state = $3, updated_at = $4 \
     WHERE id = $1 AND ply_count = $2 - 1 AND status = 'playing'";
const BEFORE_INSERT: &str = "INSERT INTO moves (game_id, ply, text, first_clock_ms, \
     second_clock_ms, played_at) VALUES ($1, $2, $3, $4, $5, $6)";

/// Counts the bytes the database's log grows by (SQLite: the WAL file, emptied by a
/// `TRUNCATE` checkpoint first; PostgreSQL: the WAL insert position).
enum Meter {
    Sqlite(std::path::PathBuf, sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

impl Meter {
    async fn open(db: &Database) -> Meter {
        use sqlx::Connection;
        let url = db.url.connection_string();
        match db.url.backend() {
            server::Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
                let file: String =
                    sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                        .fetch_one(&mut conn)
                        .await
                        .unwrap();
                Meter::Sqlite(format!("{file}-wal").into(), conn)
            }
            server::Backend::Postgres => {
                Meter::Postgres(sqlx::PgConnection::connect(url).await.unwrap())
            }
        }
    }

    async fn position(&mut self) -> u64 {
        match self {
            Meter::Sqlite(path, _) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Meter::Postgres(conn) => {
                let lsn: i64 = sqlx::query_scalar(
                    "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint",
                )
                .fetch_one(&mut *conn)
                .await
                .unwrap();
                u64::try_from(lsn).unwrap()
            }
        }
    }

    async fn start(&mut self) -> u64 {
        if let Meter::Sqlite(_, conn) = self {
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&mut *conn)
                .await
                .unwrap();
        }
        self.position().await
    }

    /// Stores a move as the server did before this change.
    async fn move_before(&mut self, id: &str, session: &Session) {
        use sqlx::Connection;
        let row = last_move_row(session).unwrap();
        let state = session_json(session);
        macro_rules! run {
            ($conn:expr) => {{
                let mut tx = $conn.begin().await.unwrap();
                let done = sqlx::query(BEFORE_UPDATE)
                    .bind(id)
                    .bind(i64::from(row.ply))
                    .bind(&state)
                    .bind(row.played_at)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                assert_eq!(done.rows_affected(), 1);
                sqlx::query(BEFORE_INSERT)
                    .bind(id)
                    .bind(i64::from(row.ply))
                    .bind(&row.text)
                    .bind(row.first_clock_ms)
                    .bind(row.second_clock_ms)
                    .bind(row.played_at)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                tx.commit().await.unwrap();
            }};
        }
        match self {
            Meter::Sqlite(_, conn) => run!(conn),
            Meter::Postgres(conn) => run!(conn),
        }
    }
}

/// Plays a Copenhagen game to ply 160 twice — once storing moves as this version does,
/// once with the statements the server ran before — and prints the log bytes per move
/// over plies 6-15 and 146-155, and the bytes of the snapshots over the whole game.
async fn measure(db: Database, label: &str) {
    let store = Store::open(&db.url, 4).await.unwrap();
    let mut meter = Meter::open(&db).await;
    for before in [true, false] {
        let (id, mut session) = new_game(&store, GameKind::Copenhagen).await;
        let snapshots = Snapshots::default();
        let mut snapshot_bytes = 0;
        let mut figures = Vec::new();
        let mut start = 0;
        for ply in 1..=160 {
            assert!(next_move(&mut session));
            if ply == 6 || ply == 146 {
                start = meter.start().await;
            }
            if before {
                meter.move_before(&id, &session).await;
            } else if store_move(&store, &id, &session, &snapshots).await {
                snapshot_bytes += session_json(&session).len();
            }
            if ply == 15 || ply == 155 {
                figures.push((meter.position().await - start) / 10);
            }
        }
        println!(
            "{label} {}: log bytes per move over plies 6-15: {}, over plies 146-155: {}; \
             session snapshots over the 160 plies: {} ({} bytes, {} a move)",
            if before { "before" } else { "after" },
            figures[0],
            figures[1],
            if before { 160 } else { snapshots.load() },
            if before { 0 } else { snapshot_bytes },
            if before { 0 } else { snapshot_bytes / 160 },
        );
    }
    store.close().await;
}

/// `cargo test --release -p server --test server -- --ignored --nocapture storage::bytes_written`
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check: run by hand"]
async fn bytes_written_per_move_sqlite() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    measure(db, "SQLite").await;
}

/// The same on PostgreSQL (the WAL position is the cluster's: run it on a quiet one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check: run by hand"]
async fn bytes_written_per_move_postgres() {
    if let Some(db) = Database::fresh(common::Db::Postgres).await {
        measure(db, "PostgreSQL").await;
    }
}

/// A server started on a database holding a game stored past its snapshots resumes it
/// exactly: the same moves, revision, offers (the one stored at 40 lapsed with the moves
/// after it) and clock of the side not to move.
async fn a_server_resumes_a_game_from_snapshot_and_moves(db: Database) {
    let server = common::TestServer::start(common::test_config(&db)).await;
    let first = server.new_user("northman").await;
    let second = server.new_user("southman").await;
    server.stop().await;
    let store = Store::open(&db.url, 4).await.unwrap();
    let mut session = Session::new(
        AnyGame::start(GameKind::Fetlar),
        Options {
            control: "10+5".parse().unwrap(),
            takebacks: Takebacks::Never,
            clock_start: session::ClockStart::FirstMove,
        },
        Timestamp::now(),
    );
    let record = store
        .create_game(
            &NewGame {
                kind: GameKind::Fetlar,
                first: Seat::User(first),
                second: Seat::User(second),
                time_control: "10+5".into(),
                rated: false,
                start_position: session.game().start_position_string(),
                session_state: Some(session_json(&session)),
            },
            server::store::now_ms(),
        )
        .await
        .unwrap();
    // Played while no server ran (as a server killed after each write would leave it):
    // 45 moves a few milliseconds apart, past the snapshot at 32, with an offer stored
    // whole at 40.
    let snapshots = Snapshots::default();
    let start = Timestamp::now().as_millis();
    for ply in 1..=45_u64 {
        let legal = session.legal_any_moves();
        let player = session.to_move();
        let mv = legal[(ply as usize * 17) % legal.len()];
        let mut game = session.game().clone();
        game.play(mv);
        let mv = if game.outcome().is_some() {
            legal[0]
        } else {
            mv
        };
        session
            .play_move(player, mv, Timestamp::from_millis(start + ply))
            .unwrap();
        store_move(&store, &record.id, &session, &snapshots).await;
        if ply == 40 {
            session
                .offer_draw(Player::Second, Timestamp::from_millis(start + ply))
                .unwrap();
            store
                .save_session_state(&record.id, &session_json(&session), (start + ply) as i64)
                .await
                .unwrap();
            snapshots.stored_whole(40);
        }
    }
    assert!(session.is_ongoing());
    let stored = store.stored_session(&record.id).await.unwrap().unwrap();
    assert_eq!((stored.snapshot_ply, stored.moves_after.len()), (40, 5));
    store.close().await;

    let server = common::TestServer::start(common::test_config(&db)).await;
    let view = server
        .client()
        .get(&format!("/api/games/{}", record.id))
        .await
        .json();
    assert_eq!(view["status"], "ongoing", "{view}");
    // The same session; a resumed game may also log that its clock was given the
    // server's downtime back (one more revision, and nothing else).
    let rev = view["rev"].as_u64().unwrap();
    assert!(
        (session.revision()..=session.revision() + 1).contains(&rev),
        "{rev} after {}",
        session.revision()
    );
    assert_eq!(
        view["draw_offer"],
        serde_json::to_value(session.draw_offer()).unwrap()
    );
    let texts: Vec<&str> = view["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    let played: Vec<&str> = session
        .moves()
        .iter()
        .map(|m| m.info.text.as_str())
        .collect();
    assert_eq!(texts, played);
    // The side not to move has its clock stopped: exactly as it was after its move.
    let waiting = session.to_move().other();
    let [first_ms, second_ms] = session
        .clocks()
        .both(Timestamp::now())
        .unwrap()
        .map(|d| u64::try_from(d.as_millis()).unwrap());
    let (key, want) = match waiting {
        Player::First => ("first_ms", first_ms),
        Player::Second => ("second_ms", second_ms),
    };
    assert_eq!(view["clocks"][key], want, "{view}");
    assert_eq!(
        view["clocks"]["running"],
        serde_json::to_value(session.to_move()).unwrap()
    );
    server.stop().await;
}
both!(
    server_resumes,
    a_server_resumes_a_game_from_snapshot_and_moves
);
