//! The archive against a real server on 127.0.0.1, on SQLite and on PostgreSQL: finished
//! games (real moves from recorded real games, stored through the store) listed,
//! filtered and paged; each game as JSON; each kind exported and replayed by
//! `games::record`; records imported, good and bad; and the player page over them.

use crate::common;

use game::{EndReason, GameKind, Outcome, Player};
use games::record::{self, ReplayOptions};
use games::{AnyGame, Game};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::store::{GameRecord, NewGame, Seat, Store, StoredMove};

use common::{Client, Database, TestServer, test_config};

/// A test data file of a rules crate.
fn data(path: &str) -> String {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The moves of the first game of a record that replay (up to any fault).
fn recorded_moves(kind: GameKind, path: &str) -> Vec<String> {
    let read = record::read(kind, &data(path), ReplayOptions::default());
    let replay = read[0].replay.as_ref().expect("start sets up");
    replay.game.move_texts()
}

/// 20 real Copenhagen games from aagenielsen.dk: their moves (the CSV's second column).
fn aagenielsen_games(count: usize) -> Vec<Vec<String>> {
    data("tafl/tests/data/aagenielsen_archive_part1.csv")
        .lines()
        .skip(1)
        .filter_map(|line| line.split(',').nth(1))
        .map(|moves| {
            let mut game = AnyGame::start(GameKind::Copenhagen);
            // Through any ending the rules reach; the stored moves are the ones that play.
            for text in moves.split_whitespace() {
                if game.outcome().is_some() || game.try_play(text).is_err() {
                    break;
                }
            }
            game.move_texts()
        })
        .filter(|moves| moves.len() >= 4)
        .take(count)
        .collect()
}

/// Stores a game between `first` and `second`, plays `moves` into it one by one as the
/// live layer does, and finishes it with `outcome` at `finished_at`.
#[allow(clippy::too_many_arguments)]
async fn finished_game(
    store: &Store,
    kind: GameKind,
    first: Seat,
    second: Seat,
    rated: bool,
    moves: &[String],
    outcome: Outcome,
    finished_at: i64,
) -> GameRecord {
    let start = AnyGame::start(kind);
    let game = store
        .create_game(
            &NewGame {
                kind,
                first,
                second,
                time_control: if rated { "5+3" } else { "untimed" }.into(),
                rated,
                start_position: start.start_position_string(),
                session_state: None,
            },
            finished_at - 1_000,
        )
        .await
        .unwrap();
    for (ply, text) in (1..).zip(moves) {
        let timed = rated.then_some(300_000 - i64::from(ply));
        store
            .append_move(
                &game.id,
                &StoredMove {
                    ply,
                    text: text.clone(),
                    first_clock_ms: timed,
                    second_clock_ms: timed,
                    played_at: finished_at - 500,
                },
                0,
                || "{}".to_owned(),
            )
            .await
            .unwrap();
    }
    store
        .finish_game(&game.id, outcome, None, finished_at)
        .await
        .unwrap();
    store.game(&game.id).await.unwrap().unwrap()
}

/// The 2014 English Fetlar final through the move before its bad capture claim (22
/// plies), casual, user `first` against guest `second`, lost by the first for `reason`.
async fn fetlar_final(
    store: &Store,
    first: &str,
    second: &str,
    reason: EndReason,
    finished_at: i64,
) -> GameRecord {
    finished_game(
        store,
        GameKind::Fetlar,
        Seat::User(first.to_owned()),
        Seat::Guest(second.to_owned()),
        false,
        &recorded_moves(
            GameKind::Fetlar,
            "tafl/tests/data/fetlar_english_national_championship_2014_final.txt",
        ),
        Outcome::win(Player::Second, reason),
        finished_at,
    )
    .await
}

fn ids(page: &Value) -> Vec<String> {
    page["games"]
        .as_array()
        .unwrap_or_else(|| panic!("no games in {page}"))
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The three real games of the archive tests and the moves each was stored with.
struct Stored {
    copenhagen: GameRecord,
    fetlar: GameRecord,
    camelot: GameRecord,
    guest_name: String,
}

const T0: i64 = 1_800_000_000_000;

/// Alice, Bob and a guest; three real games, one of each kind, plus `extra` short real
/// Copenhagen games between Alice and Bob; a game still being played and an aborted one.
async fn store_games(server: &TestServer, extra: usize) -> Stored {
    let alice = server.new_user("alice").await;
    let bob = server.new_user("bob").await;
    let store = &server.state.store;
    let guest = store.create_guest("hash-of-a-guest", T0).await.unwrap();

    // 2015 grandmaster game, Copenhagen, the attackers resigned; rated.
    let copenhagen = finished_game(
        store,
        GameKind::Copenhagen,
        Seat::User(alice.clone()),
        Seat::User(bob.clone()),
        true,
        &recorded_moves(
            GameKind::Copenhagen,
            "tafl/tests/data/millar_vs_schachus_2015.otg",
        ),
        Outcome::win(Player::Second, EndReason::Resignation),
        T0 + 10_000,
    )
    .await;
    // 2014 English Fetlar final, through the move before its bad capture claim: the
    // attackers lost on time.
    let fetlar = fetlar_final(store, &bob, &guest.id, EndReason::Timeout, T0 + 20_000).await;
    assert_eq!(fetlar.plies, 22);
    // 2009 WCF world championship game 5, Camelot, drawn by agreement against the AI.
    let camelot = finished_game(
        store,
        GameKind::Camelot,
        Seat::Ai(4),
        Seat::User(alice.clone()),
        false,
        &recorded_moves(
            GameKind::Camelot,
            "camelot/tests/data/wcf_2009_wc_game5.txt",
        ),
        Outcome::draw(EndReason::Agreement),
        T0 + 30_000,
    )
    .await;
    for (i, moves) in (0..).zip(aagenielsen_games(extra)) {
        let winner = if i % 2 == 0 {
            Player::First
        } else {
            Player::Second
        };
        finished_game(
            store,
            GameKind::Copenhagen,
            Seat::User(alice.clone()),
            Seat::User(bob.clone()),
            false,
            &moves,
            Outcome::win(winner, EndReason::Resignation),
            T0 + 100_000 + i * 1_000,
        )
        .await;
    }
    // Neither a live nor an aborted game is in the archive.
    let live = NewGame {
        kind: GameKind::Fetlar,
        first: Seat::User(alice.clone()),
        second: Seat::User(bob.clone()),
        time_control: "untimed".into(),
        rated: false,
        start_position: AnyGame::start(GameKind::Fetlar).start_position_string(),
        session_state: None,
    };
    store.create_game(&live, T0).await.unwrap();
    let aborted = store.create_game(&live, T0).await.unwrap();
    store.abort_game(&aborted.id, None, T0 + 1).await.unwrap();
    Stored {
        copenhagen,
        fetlar,
        camelot,
        guest_name: guest.name,
    }
}

async fn archive_filters_and_pages(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let stored = store_games(&server, 20).await;
    let mut client = server.client();

    let page1 = client.get("/api/archive").await;
    assert_eq!(page1.status, StatusCode::OK, "{}", page1.text);
    let page1 = page1.json();
    assert_eq!(
        (page1["page"].as_u64(), page1["pages"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(page1["total"], 23);
    assert_eq!(page1["games"].as_array().unwrap().len(), 20);
    let page2 = client.get("/api/archive?page=2").await.json();
    let last = ids(&page2);
    // The latest finished first: the real games are the three oldest.
    assert_eq!(
        last,
        [
            stored.camelot.id.clone(),
            stored.fetlar.id.clone(),
            stored.copenhagen.id.clone()
        ]
    );
    assert!(ids(&page1).iter().all(|id| !last.contains(id)));
    let finished: Vec<i64> = page1["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["finished_at"].as_i64().unwrap())
        .collect();
    assert!(finished.windows(2).all(|w| w[0] > w[1]), "{finished:?}");
    // Past the last page: no games, and the page count stays.
    let beyond = client.get("/api/archive?page=3").await.json();
    assert_eq!((ids(&beyond).len(), beyond["pages"].as_u64()), (0, Some(2)));

    let summary = &page2["games"][1];
    assert_eq!(
        *summary,
        json!({
            "id": stored.fetlar.id, "kind": "fetlar",
            "first": {"type": "user", "name": "bob"},
            "second": {"type": "guest", "name": stored.guest_name},
            "time_control": "untimed", "rated": false, "status": "finished",
            "result": "second", "reason": "timeout", "ended_by": "first", "plies": 22,
            "created_at": T0 + 19_000, "finished_at": T0 + 20_000, "imported": false
        })
    );

    let count = async |client: &mut Client, query: &str| {
        let reply = client.get(&format!("/api/archive?{query}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{query}: {}", reply.text);
        let json = reply.json();
        (json["total"].as_u64().unwrap(), ids(&json))
    };
    assert_eq!(
        count(&mut client, "kind=camelot").await,
        (1, vec![stored.camelot.id.clone()])
    );
    assert_eq!(count(&mut client, "kind=fetlar").await.0, 1);
    assert_eq!(count(&mut client, "kind=copenhagen").await.0, 21);
    assert_eq!(count(&mut client, "player=ALICE").await.0, 22);
    assert_eq!(count(&mut client, "player=bob&kind=fetlar").await.0, 1);
    let guest = stored.guest_name.to_lowercase();
    assert_eq!(
        count(&mut client, &format!("player={guest}")).await,
        (1, vec![stored.fetlar.id.clone()])
    );
    assert_eq!(count(&mut client, "player=nobody").await, (0, vec![]));
    assert_eq!(
        count(&mut client, "result=draw").await,
        (1, vec![stored.camelot.id.clone()])
    );
    // Ten of the twenty extra games, and the Copenhagen and Fetlar games, went to the
    // second player.
    assert_eq!(count(&mut client, "result=second").await.0, 12);
    assert_eq!(count(&mut client, "result=first").await.0, 10);
    assert_eq!(
        count(&mut client, "rated=true").await,
        (1, vec![stored.copenhagen.id.clone()])
    );
    assert_eq!(count(&mut client, "rated=false").await.0, 22);
    assert_eq!(
        count(
            &mut client,
            &format!("since={}&until={}", T0 + 20_000, T0 + 30_000)
        )
        .await,
        (1, vec![stored.fetlar.id.clone()])
    );
    assert_eq!(
        count(&mut client, &format!("since={}", T0 + 100_000))
            .await
            .0,
        20
    );
    // Days, as a date field sends them (UTC): T0 is 2027-01-15 08:00; `until` takes its
    // whole day in.
    assert_eq!(
        count(&mut client, "since=2027-01-15&until=2027-01-15")
            .await
            .0,
        23
    );
    assert_eq!(count(&mut client, "since=2027-01-16").await.0, 0);
    assert_eq!(count(&mut client, "until=2027-01-14").await.0, 0);
    // Empty parameters are ignored.
    assert_eq!(count(&mut client, "kind=&player=&page=").await.0, 23);

    for query in [
        "kind=chess",
        "result=win",
        "rated=maybe",
        "since=yesterday",
        "since=2027-02-30",
        "until=2027-1",
        "until=1.5",
        "page=0",
        "page=-1",
        "colour=white",
    ] {
        let reply = client.get(&format!("/api/archive?{query}")).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(reply.error_code(), "bad_request", "{query}");
    }
    server.stop().await;
}
both!(archive_list, archive_filters_and_pages);

async fn games_as_json_and_records(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let stored = store_games(&server, 0).await;
    let mut client = server.client();
    let store = &server.state.store;

    // One game as JSON: players, moves with their geometry, the position reached.
    let reply = client
        .get(&format!("/api/archive/{}", stored.copenhagen.id))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let game = reply.json();
    assert_eq!(game["first"], json!({"type": "user", "name": "alice"}));
    assert_eq!(game["second"], json!({"type": "user", "name": "bob"}));
    assert_eq!(game["rated"], true);
    assert_eq!(
        game["record_url"],
        format!("/api/games/{}/record", stored.copenhagen.id)
    );
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 68);
    assert_eq!(
        moves[0],
        json!({"ply": 1, "player": "first", "text": "d1-d3",
               "from": {"file": 3, "rank": 0}, "to": {"file": 3, "rank": 2},
               "path": [{"file": 3, "rank": 0}, {"file": 3, "rank": 2}], "captures": [],
               "first_clock_ms": 299_999, "second_clock_ms": 299_999,
               "played_at": T0 + 9_500})
    );
    assert_eq!(moves[1]["player"], "second");
    // 4... g7-g10xf10: a capture, with the square of the piece taken.
    assert_eq!(moves[7]["text"], "g7-g10xf10");
    assert_eq!(moves[7]["captures"], json!([{"file": 5, "rank": 9}]));
    let mut replayed = AnyGame::start(GameKind::Copenhagen);
    for mv in moves {
        replayed.try_play(mv["text"].as_str().unwrap()).unwrap();
    }
    assert_eq!(game["position"], replayed.position_string());
    // Camelot moves carry every step of their path.
    let camelot = client
        .get(&format!("/api/archive/{}", stored.camelot.id))
        .await
        .json();
    assert_eq!(camelot["first"], json!({"type": "ai", "level": 4}));
    let canter = camelot["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["path"].as_array().unwrap().len() > 2)
        .expect("a move of several steps");
    assert_eq!(
        canter["text"].as_str().unwrap().matches(['-', 'x']).count() + 1,
        canter["path"].as_array().unwrap().len()
    );

    // Each kind exported as its own record, which replays to the same game and ending.
    for (stored_game, extension, names) in [
        (
            &stored.copenhagen,
            "otg",
            ["alice".to_owned(), "bob".to_owned()],
        ),
        (
            &stored.fetlar,
            "otg",
            ["bob".to_owned(), stored.guest_name.clone()],
        ),
        (
            &stored.camelot,
            "txt",
            ["kingstable AI (level 4)".to_owned(), "alice".to_owned()],
        ),
    ] {
        let reply = client
            .get(&format!("/api/games/{}/record", stored_game.id))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
        assert_eq!(reply.headers["content-type"], "text/plain; charset=utf-8");
        let disposition = reply.headers["content-disposition"].to_str().unwrap();
        assert_eq!(
            disposition,
            format!(
                "attachment; filename=\"kingstable-{}-{}.{extension}\"",
                stored_game.kind, stored_game.id
            )
        );
        let text = reply.text;
        for name in names {
            assert!(text.contains(&name), "{name} not in\n{text}");
        }
        assert!(text.contains("2027.01.15"), "the date, in\n{text}");
        let replay = record::load(stored_game.kind, &text, ReplayOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let want: Vec<String> = store
            .moves(&stored_game.id)
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.text)
            .collect();
        assert_eq!(replay.game.move_texts(), want, "{text}");
        assert_eq!(replay.outcome, stored_game.outcome, "{text}");
    }
    // Endings outside the rules are named.
    let fetlar = client
        .get(&format!("/api/games/{}/record", stored.fetlar.id))
        .await
        .text;
    assert!(fetlar.contains("[termination:time forfeit]"), "{fetlar}");
    let camelot = client
        .get(&format!("/api/games/{}/record", stored.camelot.id))
        .await
        .text;
    assert!(camelot.contains("draw agreed"), "{camelot}");
    let rated = client
        .get(&format!("/api/games/{}/record", stored.copenhagen.id))
        .await
        .text;
    assert!(rated.contains("5+3"), "the time control, in\n{rated}");

    for path in ["/api/archive/nosuchgame", "/api/games/nosuchgame/record"] {
        let reply = client.get(path).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(reply.error_code(), "not_found");
    }
    server.stop().await;
}
both!(archive_games, games_as_json_and_records);

async fn post_text(client: &mut Client, path: &str, text: &str) -> common::Reply {
    client
        .request(
            Method::POST,
            path,
            Some(("text/plain; charset=utf-8", text.as_bytes().to_vec())),
        )
        .await
}

async fn records_are_imported_for_review(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    let millar = data("tafl/tests/data/millar_vs_schachus_2015.otg");

    // Pasted, as JSON.
    let reply = client
        .post(
            "/api/import",
            json!({"kind": "copenhagen", "record": millar}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let id = reply.json()["id"].as_str().unwrap().to_owned();
    // The same record again is the same game: 200 and its id, no copy in the archive.
    let again = client
        .post(
            "/api/import",
            json!({"kind": "copenhagen", "record": millar}),
        )
        .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text);
    assert_eq!(again.json()["id"], id.as_str());
    let listed = client.get("/api/archive?player=tim%20millar").await.json();
    assert_eq!(ids(&listed), [id.as_str()]);
    let game = client.get(&format!("/api/archive/{id}")).await.json();
    assert_eq!(game["imported"], true);
    assert_eq!(game["rated"], false);
    assert_eq!(game["status"], "finished");
    assert_eq!(
        (game["result"].as_str(), game["reason"].as_str()),
        (Some("second"), Some("resignation"))
    );
    assert_eq!(
        game["names"],
        json!({"first": "Tim Millar", "second": "Schachus"})
    );
    assert_eq!(
        (game["first"].clone(), game["second"].clone()),
        (Value::Null, Value::Null)
    );
    assert_eq!(game["moves"].as_array().unwrap().len(), 68);
    // Dated as the record dates it (2015-01-07), not the day of the import.
    assert_eq!(game["finished_at"], json!(1_420_588_800_000_i64));
    assert_eq!(game["created_at"], json!(1_420_588_800_000_i64));
    // Its game page (the live layer's view of a stored game) shows it whole.
    let page = client.get(&format!("/api/games/{id}")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    let page = page.json();
    assert_eq!(page["status"], "finished");
    assert_eq!(
        page["result"],
        json!({"winner": "second", "reason": "resignation"})
    );
    assert_eq!(page["moves"].as_array().unwrap().len(), 68);
    for key in ["ply", "player", "text", "from", "to", "path", "captures"] {
        assert_eq!(page["moves"][7][key], game["moves"][7][key], "{key}");
    }
    let replayed = record::load(GameKind::Copenhagen, &millar, ReplayOptions::default()).unwrap();
    assert_eq!(page["board"], json!(games::BoardView::of(&replayed.game)));
    // It is in the archive, found by the record's names, and exports again.
    let found = client.get("/api/archive?player=tim%20millar").await.json();
    assert_eq!(ids(&found), [id.as_str()]);
    let exported = client.get(&format!("/api/games/{id}/record")).await.text;
    assert!(exported.contains("[attackers:Tim Millar]"), "{exported}");
    assert!(exported.contains("[date:2015.01.07]"), "{exported}");
    let again = record::load(GameKind::Copenhagen, &exported, ReplayOptions::default()).unwrap();
    let original = record::load(GameKind::Copenhagen, &millar, ReplayOptions::default()).unwrap();
    assert_eq!(again.game.move_texts(), original.game.move_texts());
    assert_eq!(again.outcome, original.outcome);

    // Uploaded as plain text; a move list typed without its captures, ended by `---`.
    let typed: Vec<String> = original
        .game
        .move_texts()
        .iter()
        .take(20)
        .map(|m| m.split('x').next().unwrap().to_owned())
        .collect();
    let text = format!("{} ---\n", typed.join(" "));
    let reply = post_text(&mut client, "/api/import?kind=copenhagen", &text).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let typed_id = reply.json()["id"].as_str().unwrap().to_owned();
    let game = client.get(&format!("/api/archive/{typed_id}")).await.json();
    let stored: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(stored, original.game.move_texts()[..20]);
    // 20 plies: the attackers are to move and resigned.
    assert_eq!(game["result"], "second");
    assert_eq!(game["names"], json!({"first": null, "second": null}));

    // A Camelot score, exported from the game stored above, imports to the same moves.
    let camelot_moves = recorded_moves(
        GameKind::Camelot,
        "camelot/tests/data/wcf_2009_wc_game5.txt",
    );
    let mut camelot = AnyGame::start(GameKind::Camelot);
    camelot.play_texts(&camelot_moves).unwrap();
    let score = record::write(
        &camelot,
        &[
            ("White".into(), "Dan Troyka".into()),
            ("Black".into(), "Michael Nolan".into()),
        ],
        Some(Outcome::win(Player::First, EndReason::Resignation)),
    );
    let reply = client
        .post("/api/import", json!({"kind": "camelot", "record": score}))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let camelot_id = reply.json()["id"].as_str().unwrap().to_owned();
    let game = client
        .get(&format!("/api/archive/{camelot_id}"))
        .await
        .json();
    assert_eq!(
        game["names"],
        json!({"first": "Dan Troyka", "second": "Michael Nolan"})
    );
    assert_eq!(game["moves"].as_array().unwrap().len(), camelot_moves.len());
    assert_eq!(game["result"], "first");

    let imported = client.get("/api/archive").await.json();
    assert_eq!(imported["total"], 3);
    assert_eq!(
        client.get("/api/archive?rated=true").await.json()["total"],
        0
    );

    // Bad records are refused with what is wrong and where; nothing is stored.
    let fetlar_final = data("tafl/tests/data/fetlar_english_national_championship_2014_final.txt");
    let bad: Vec<(&str, String, &str)> = vec![
        // The 2014 final claims a capture the rules do not give (move 12, line 24).
        (
            "fetlar",
            fetlar_final,
            "fetlar game 1, line 24, ply 23 (i11-i3xi2): i11-i3xi2: the move captures nothing, not i2",
        ),
        ("copenhagen", "d1-d3 e5-e9 ---\n".into(), "ply 2 (e5-e9)"),
        (
            "copenhagen",
            "d1-d3 e5-e2\nd1-d3 e5-e2\n".into(),
            "holds 2 games",
        ),
        ("copenhagen", "   \n".into(), "holds no game"),
        (
            "copenhagen",
            "d1-d3 e5-e2\n".into(),
            "does not say how the game ended",
        ),
        // A Camelot record read as tafl.
        (
            "fetlar",
            data("camelot/tests/data/wcf_2009_wc_game1.txt"),
            "ply 1 (D6-F8)",
        ),
        (
            "camelot",
            "[FEN \"nonsense\"]\n\n1. D6-F8 *\n".into(),
            "line",
        ),
    ];
    for (kind, text, says) in bad {
        let reply = client
            .post("/api/import", json!({"kind": kind, "record": text}))
            .await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}",
            reply.text
        );
        assert_eq!(reply.error_code(), "invalid_record");
        let message = reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(message.contains(says), "{message:?} should say {says:?}");
    }
    let reply = post_text(&mut client, "/api/import", "d1-d3 ---\n").await;
    assert_eq!(reply.error_code(), "bad_request");
    let reply = post_text(&mut client, "/api/import?kind=chess", "d1-d3 ---\n").await;
    assert_eq!(reply.error_code(), "bad_request");
    let reply = client
        .post("/api/import", json!({"kind": "chess", "record": "e2-e4"}))
        .await;
    assert_eq!(reply.error_code(), "invalid_json");
    let reply = client.post("/api/import", json!({"kind": "fetlar"})).await;
    assert_eq!(reply.error_code(), "invalid_json");
    let reply = client
        .request(
            Method::POST,
            "/api/import",
            Some(("application/octet-stream", vec![0, 1, 2])),
        )
        .await;
    assert_eq!(reply.error_code(), "unsupported_media_type");
    let reply = client
        .request(
            Method::POST,
            "/api/import?kind=fetlar",
            Some(("text/plain", vec![0xff, 0xfe])),
        )
        .await;
    assert_eq!(reply.error_code(), "invalid_record");
    let huge = "d1-d3 d3-d1 ".repeat(10_000);
    let reply = post_text(&mut client, "/api/import?kind=fetlar", &huge).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.error_code(), "body_too_large");
    // The server closes a connection whose body it refused unread: a new client.
    let mut client = server.client();
    // From another site: refused.
    let mut other = server.client();
    other.origin = Some("http://evil.example".into());
    let reply = other
        .post(
            "/api/import",
            json!({"kind": "copenhagen", "record": millar}),
        )
        .await;
    assert_eq!(reply.error_code(), "cross_origin");
    assert_eq!(client.get("/api/archive").await.json()["total"], 3);
    server.stop().await;
}
both!(import, records_are_imported_for_review);

async fn imports_are_rate_limited(db: Database) {
    let mut config = test_config(&db);
    config.limits.import = server::RateLimit::new(2, std::time::Duration::from_secs(3600));
    let server = TestServer::start(config).await;
    let mut client = server.client();
    let record = json!({"kind": "fetlar", "record": "d1-d3 ---\n"});
    // The second is the same record (answered with the first's id): it counts too.
    for status in [StatusCode::CREATED, StatusCode::OK] {
        assert_eq!(
            client.post("/api/import", record.clone()).await.status,
            status
        );
    }
    let reply = client.post("/api/import", record).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(reply.error_code(), "rate_limited");
    assert!(reply.headers.contains_key("retry-after"));
    server.stop().await;
}
both!(import_rate_limit, imports_are_rate_limited);

/// The player page over archived games: record against each opponent, recent games and
/// rating history per game; a guest who signs up keeps their finished games.
async fn player_page_over_the_archive(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let stored = store_games(&server, 4).await;
    let mut client = server.client();

    let alice = client.get("/api/players/Alice").await.json();
    // Against Bob: the rated Copenhagen loss and four casual games (two won, two lost).
    assert_eq!(
        alice["opponents"],
        json!([
            {"opponent": {"type": "user", "name": "bob"}, "games": 5, "wins": 2, "losses": 3, "draws": 0},
            {"opponent": {"type": "ai", "level": 4}, "games": 1, "wins": 0, "losses": 0, "draws": 1}
        ])
    );
    let recent = alice["recent_games"].as_array().unwrap();
    assert_eq!(
        recent.len(),
        8,
        "five with Bob, the AI game, a live and an aborted one"
    );
    assert!(recent.iter().all(|g| g["id"] != stored.fetlar.id));
    assert_eq!(alice["ratings"][0]["kind"], "copenhagen");
    assert_eq!(alice["ratings"][0]["losses"], 1);
    assert_eq!(
        alice["rating_history"],
        json!([{
            "kind": "copenhagen", "game_id": stored.copenhagen.id,
            "rating": alice["ratings"][0]["rating"], "deviation": alice["ratings"][0]["deviation"],
            "recorded_at": T0 + 10_000
        }])
    );

    // The guest who beat Bob at Fetlar signs up, and keeps that game.
    let guest_token = "guest-token-of-the-fetlar-winner";
    let store = &server.state.store;
    // The stored guest's cookie is made up here: give it a known token.
    let guest = store
        .create_guest(&server::auth::token_hash(guest_token), T0)
        .await
        .unwrap();
    let bob = store.user_by_name("bob").await.unwrap().unwrap().id;
    let game = fetlar_final(store, &bob, &guest.id, EndReason::Resignation, T0 + 50_000).await;
    let mut sigrun = server.client();
    sigrun
        .cookies
        .insert("kingstable_guest".into(), guest_token.into());
    let reply = sigrun.sign_up("Sigrun", "shieldmaiden").await;
    assert_eq!(reply.json()["adopted_guest"], guest.name.as_str());
    let page = client.get("/api/players/sigrun").await.json();
    assert_eq!(page["recent_games"][0]["id"], game.id.as_str());
    assert_eq!(
        page["opponents"],
        json!([{"opponent": {"type": "user", "name": "bob"}, "games": 1, "wins": 1, "losses": 0, "draws": 0}])
    );
    // Bob's page names her now; the archive finds the game by her name.
    let bob = client.get("/api/players/bob").await.json();
    assert!(
        bob["opponents"]
            .as_array()
            .unwrap()
            .contains(&json!({"opponent": {"type": "user", "name": "Sigrun"}, "games": 1, "wins": 0, "losses": 1, "draws": 0})),
        "{}",
        bob["opponents"]
    );
    let found = client.get("/api/archive?player=sigrun").await.json();
    assert_eq!(ids(&found), [game.id.as_str()]);
    assert_eq!(
        found["games"][0]["second"],
        json!({"type": "user", "name": "Sigrun"})
    );
    server.stop().await;
}
both!(player_page, player_page_over_the_archive);
