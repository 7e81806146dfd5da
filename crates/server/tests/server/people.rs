//! A place players come back to (issue 21): each player's own games (`GET /api/me/games`
//! and the lobby socket's `my_games` / `my_game`, sent only to that player's sockets),
//! the rating list (`GET /api/ratings`), a player's rank, and who is online — against a
//! real server on 127.0.0.1, on SQLite and PostgreSQL.

use crate::common;

use std::time::Duration;

use game::{EndReason, GameKind, Outcome, Player};
use reqwest::StatusCode;
use serde_json::{Value, json};
use server::store::{NewGame, Seat, now_ms};

use common::ws::Ws;
use common::{Client, Database, TestServer, test_config};

async fn start(db: &Database) -> TestServer {
    let mut config = test_config(db);
    // Every socket of these tests comes from 127.0.0.1.
    config.connections.sockets_per_address = 1_000;
    config.connections.per_address = 1_000;
    config.limits.challenge = server::RateLimit::new(100, Duration::from_millis(10));
    TestServer::start(config).await
}

/// A correspondence friend game between `a` (first) and `b`; its id.
async fn friend_game(a: &mut Client, b: &mut Client) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": "3d"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    id
}

/// The next message that is not a lobby message (snapshot, changes).
async fn personal(ws: &mut Ws) -> Value {
    loop {
        let message = ws.next().await;
        if message["t"] != "snapshot" && message["t"] != "changes" {
            return message;
        }
    }
}

/// Nothing personal is waiting on `ws`: a ping's answer is the next message for it.
async fn nothing_personal(ws: &mut Ws) {
    ws.send(json!({"t": "ping"})).await;
    let next = personal(ws).await;
    assert_eq!(next["t"], "pong", "{next}");
}

/// Opens a socket, or says the HTTP status it was refused with.
async fn try_connect(
    server: &TestServer,
    client: &Client,
    path: &str,
) -> Result<common::ws::Stream, u16> {
    let request = common::ws::request(server, client, path);
    match tokio_tungstenite::connect_async(request).await {
        Ok((stream, _)) => Ok(stream),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("{other}"),
    }
}

async fn my_games(client: &mut Client) -> Value {
    let reply = client.get("/api/me/games").await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    reply.json()
}

async fn my_games_list_and_live_updates_reach_only_the_players(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b, mut c) = (server.client(), server.client(), server.client());
    // Nobody yet: nothing to list.
    assert_eq!(my_games(&mut c).await, json!({"games": [], "your_turn": 0}));
    c.post_empty("/api/guest").await;
    let id = friend_game(&mut a, &mut b).await;

    // The first player (the attackers) is to move.
    let mine = my_games(&mut a).await;
    assert_eq!(mine["your_turn"], 1, "{mine}");
    let game = &mine["games"][0];
    assert_eq!(game["id"], id);
    assert_eq!(game["you"], "first");
    assert_eq!(game["to_move"], "first");
    assert_eq!(game["status"], "ongoing");
    assert_eq!(game["time_control"], "3d");
    assert_eq!(game["players"].as_array().unwrap().len(), 2);
    let theirs = my_games(&mut b).await;
    assert_eq!(theirs["your_turn"], 0);
    assert_eq!(theirs["games"][0]["you"], "second");
    assert_eq!(my_games(&mut c).await["games"], json!([]));

    // Each player's socket (the personal feed only) starts with their list.
    let mut a_me = Ws::open(&server, &a, "/ws/lobby?feed=me").await;
    let mut b_me = Ws::open(&server, &b, "/ws/lobby?feed=me").await;
    let mut c_me = Ws::open(&server, &c, "/ws/lobby?feed=me").await;
    let first = a_me.next().await;
    assert_eq!(first["t"], "my_games", "{first}");
    assert_eq!(first["games"][0]["id"], id);
    assert_eq!(b_me.next().await["games"][0]["you"], "second");
    assert_eq!(c_me.next().await["games"], json!([]));

    // The first player moves: both players hear it once, with their own side.
    let mut board = Ws::open(&server, &a, &format!("/ws/game/{id}")).await;
    let state = board.state().await;
    let text = state["legal_moves"][0]["text"].as_str().unwrap().to_owned();
    board
        .send(json!({"t": "move", "rev": state["rev"], "move": text}))
        .await;
    let to_b = personal(&mut b_me).await;
    assert_eq!(to_b["t"], "my_game", "{to_b}");
    assert_eq!(to_b["game"]["id"], id);
    assert_eq!(to_b["game"]["you"], "second");
    assert_eq!(to_b["game"]["to_move"], "second");
    assert_eq!(to_b["game"]["plies"], 1);
    assert!(to_b["game"]["clocks"]["second_ms"].as_u64().unwrap() > 0);
    let to_a = personal(&mut a_me).await;
    assert_eq!(to_a["game"]["you"], "first");
    assert_eq!(to_a["game"]["to_move"], "second");
    // Someone not in the game hears nothing of it.
    nothing_personal(&mut c_me).await;
    assert_eq!(my_games(&mut b).await["your_turn"], 1);
    assert_eq!(my_games(&mut a).await["your_turn"], 0);

    // An offer reaches the opponent's list.
    let mut b_board = Ws::open(&server, &b, &format!("/ws/game/{id}")).await;
    b_board.state().await;
    b_board.send(json!({"t": "draw_offer"})).await;
    let offered = personal(&mut a_me).await;
    assert_eq!(offered["game"]["draw_offer"], "second", "{offered}");
    assert_eq!(personal(&mut b_me).await["game"]["draw_offer"], "second");

    // The game ends: the last message says so, and the list is empty again.
    board.send(json!({"t": "resign"})).await;
    let ended = personal(&mut b_me).await;
    assert_eq!(ended["game"]["status"], "finished", "{ended}");
    assert_eq!(ended["game"]["result"]["winner"], "second");
    assert_eq!(ended["game"]["to_move"], Value::Null);
    assert_eq!(personal(&mut a_me).await["game"]["status"], "finished");
    nothing_personal(&mut c_me).await;
    assert_eq!(my_games(&mut a).await["games"], json!([]));
    server.stop().await;
}
both!(
    my_games_live,
    my_games_list_and_live_updates_reach_only_the_players
);

async fn a_waiting_game_is_listed_and_its_start_is_told(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "second", "time_control": "5+3"}),
        )
        .await;
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mine = my_games(&mut a).await;
    assert_eq!(mine["games"][0]["status"], "waiting", "{mine}");
    assert_eq!(mine["your_turn"], 0);
    // The whole socket (lobby and own games): the snapshot, then the list.
    let mut a_all = Ws::open(&server, &a, "/ws/lobby").await;
    assert_eq!(a_all.next().await["t"], "snapshot");
    assert_eq!(a_all.next().await["games"][0]["status"], "waiting");
    b.post_empty(&format!("/api/games/{id}/join")).await;
    let started = personal(&mut a_all).await;
    assert_eq!(started["t"], "my_game");
    assert_eq!(started["game"]["status"], "ongoing", "{started}");
    assert_eq!(started["game"]["you"], "second");
    assert_eq!(started["game"]["to_move"], "first");
    server.stop().await;
}
both!(
    my_games_waiting,
    a_waiting_game_is_listed_and_its_start_is_told
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_socket_feeds_and_the_sockets_per_player_are_bounded() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let server = start(&db).await;
    let mut a = server.client();
    a.post_empty("/api/guest").await;
    // A bad feed is refused.
    for path in ["/ws/lobby?feed=everything", "/ws/lobby?fed=me"] {
        assert_eq!(
            try_connect(&server, &a, path).await.err(),
            Some(400),
            "{path}"
        );
    }

    // The lobby alone: no list of one's games.
    let mut lobby = Ws::open(&server, &a, "/ws/lobby?feed=lobby").await;
    assert_eq!(lobby.next().await["t"], "snapshot");
    nothing_personal(&mut lobby).await;

    // One player's sockets on their games are bounded; others are not held back.
    let mut open = Vec::new();
    for _ in 0..server::live::people::SOCKETS_PER_PERSON {
        let mut ws = Ws::open(&server, &a, "/ws/lobby?feed=me").await;
        assert_eq!(ws.next().await["t"], "my_games");
        open.push(ws);
    }
    let over = try_connect(&server, &a, "/ws/lobby?feed=me").await;
    assert_eq!(over.err(), Some(429));
    let mut b = server.client();
    b.post_empty("/api/guest").await;
    let mut other = Ws::open(&server, &b, "/ws/lobby?feed=me").await;
    assert_eq!(other.next().await["t"], "my_games");
    // Two people online (the anonymous visitor's lobby socket is nobody).
    let ratings = server
        .client()
        .get("/api/ratings?game=camelot")
        .await
        .json();
    assert_eq!(ratings["online"], 2, "{ratings}");
    drop(open);
    drop(other);
    // Closed sockets leave the count (once the server has seen them close).
    let mut online = 2;
    for _ in 0..100 {
        online = server
            .client()
            .get("/api/ratings?game=camelot")
            .await
            .json()["online"]
            .as_u64()
            .unwrap();
        if online == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(online, 0);
    server.stop().await;
}

/// Rated Copenhagen games between users in the store: (first, second, winner or `None`
/// for a draw), `rounds` times over.
async fn rated_games(server: &TestServer, pairs: &[(&str, &str, Option<Player>)], rounds: usize) {
    let store = &server.state.store;
    for _ in 0..rounds {
        for (first, second, winner) in pairs {
            let game = store
                .create_game(
                    &NewGame {
                        kind: GameKind::Copenhagen,
                        first: Seat::User((*first).to_owned()),
                        second: Seat::User((*second).to_owned()),
                        time_control: "5+3".into(),
                        rated: true,
                        start_position: "start".into(),
                        session_state: None,
                    },
                    now_ms(),
                )
                .await
                .unwrap();
            store
                .finish_game(
                    &game.id,
                    match winner {
                        Some(side) => Outcome::win(*side, EndReason::KingCaptured),
                        None => Outcome::draw(EndReason::Repetition),
                    },
                    None,
                    now_ms(),
                )
                .await
                .unwrap();
        }
    }
}

async fn rating_list_ranks_established_players_only(db: Database) {
    let server = start(&db).await;
    let ana = server.new_user("ana").await;
    let bob = server.new_user("bob").await;
    let cyd = server.new_user("cyd").await;
    let dag = server.new_user("dag").await;
    // Close games, over and over: established ratings, ana above bob above cyd.
    let (win, draw) = (Some(Player::First), None);
    rated_games(
        &server,
        &[
            (&ana, &bob, win),
            (&bob, &ana, draw),
            (&bob, &cyd, win),
            (&cyd, &bob, draw),
            (&ana, &cyd, win),
            (&cyd, &ana, draw),
        ],
        8,
    )
    .await;
    // dag has played once: provisional, not listed.
    rated_games(&server, &[(&dag, &cyd, draw)], 1).await;

    let mut client = server.client();
    let list = client.get("/api/ratings?game=copenhagen").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text);
    let list = list.json();
    assert_eq!(list["game"], "copenhagen");
    assert_eq!(list["total"], 3, "{list}");
    assert_eq!(
        (list["page"].as_i64(), list["pages"].as_i64()),
        (Some(1), Some(1))
    );
    let names: Vec<&str> = list["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ana", "bob", "cyd"]);
    let top = &list["players"][0];
    assert_eq!(top["rank"], 1);
    assert_eq!(top["games"], 32);
    assert_eq!(top["wins"], 16);
    assert_eq!(top["draws"], 16);
    assert!(top["deviation"].as_f64().unwrap() <= 110.0, "{top}");
    assert!(top["last_active"].as_i64().unwrap() > 0);
    assert_eq!(top["online"], false);
    assert!(top.get("user_id").is_none(), "ids stay private: {top}");
    // Another game has nobody established yet; a page past the last is empty.
    let empty = client.get("/api/ratings?game=fetlar").await.json();
    assert_eq!(
        (empty["total"].as_i64(), empty["pages"].as_i64()),
        (Some(0), Some(1))
    );
    let past = client
        .get("/api/ratings?game=copenhagen&page=2")
        .await
        .json();
    assert_eq!(past["players"], json!([]));

    // The profile says the same rank; a provisional rating has none.
    let bo_page = client.get("/api/players/BOB").await.json();
    assert_eq!(bo_page["ratings"][0]["rank"], 2, "{bo_page}");
    assert_eq!(bo_page["online"], false);
    let dag_page = client.get("/api/players/dag").await.json();
    assert_eq!(dag_page["ratings"][0]["provisional"], true);
    assert_eq!(dag_page["ratings"][0]["rank"], Value::Null);

    // Online: a signed-in player with a socket open is marked in the list.
    let mut signed = server.client();
    assert_eq!(
        signed.sign_in("ana", "long password").await.status,
        StatusCode::OK
    );
    let mut socket = Ws::open(&server, &signed, "/ws/lobby?feed=me").await;
    socket.next().await;
    let list = client.get("/api/ratings?game=copenhagen").await.json();
    assert_eq!(list["players"][0]["online"], true, "{list}");
    assert_eq!(list["online"], 1);
    assert_eq!(client.get("/api/players/ana").await.json()["online"], true);

    // Bad input: a clear error, nothing else.
    for query in [
        "",
        "?game=chess",
        "?game=copenhagen&page=0",
        "?game=copenhagen&page=x",
        "?game=copenhagen&page=201",
        "?game=copenhagen&sort=name",
    ] {
        let reply = client.get(&format!("/api/ratings{query}")).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{query}: {}",
            reply.text
        );
        assert_eq!(reply.error_code(), "bad_request");
    }
    server.stop().await;
}
both!(rating_list, rating_list_ranks_established_players_only);

/// The next `my_challenges` message on `ws` (skipping the others).
async fn next_challenges(ws: &mut Ws) -> Value {
    loop {
        let message = personal(ws).await;
        if message["t"] == "my_challenges" {
            return message;
        }
    }
}

/// The `by` names of a list of challenges.
fn names(list: &Value, who: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c[who].as_str().unwrap().to_owned())
        .collect()
}

async fn a_challenge_to_one_player_reaches_them_alone(db: Database) {
    let server = start(&db).await;
    let mut accounts = Vec::new();
    for name in ["alice", "bob", "carol"] {
        let mut client = server.client();
        let reply = client.sign_up(name, "long password").await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        accounts.push(client);
    }
    let [mut alice, mut bob, mut carol] = <[Client; 3]>::try_from(accounts).ok().unwrap();
    let mut a_me = Ws::open(&server, &alice, "/ws/lobby?feed=me").await;
    let mut b_me = Ws::open(&server, &bob, "/ws/lobby?feed=me").await;
    let mut c_me = Ws::open(&server, &carol, "/ws/lobby?feed=me").await;
    for ws in [&mut a_me, &mut b_me, &mut c_me] {
        assert_eq!(ws.next().await["t"], "my_games");
        let challenges = ws.next().await;
        assert_eq!(
            challenges,
            json!({"t": "my_challenges", "incoming": [], "outgoing": []})
        );
    }
    let challenge =
        |to: &str| json!({"kind": "copenhagen", "time_control": "5+3", "side": "first", "to": to});

    // Alice challenges Bob: Bob's page hears it at once, and Alice's; Carol hears nothing
    // and the lobby does not list it.
    let posted = alice.post("/api/challenges", challenge("Bob")).await;
    assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    let id = posted.json()["id"].as_str().unwrap().to_owned();
    let to_bob = next_challenges(&mut b_me).await;
    assert_eq!(names(&to_bob["incoming"], "by"), ["alice"], "{to_bob}");
    assert_eq!(to_bob["incoming"][0]["to"], "bob");
    assert_eq!(to_bob["incoming"][0]["id"], id.as_str());
    assert_eq!(to_bob["outgoing"], json!([]));
    let by_alice = next_challenges(&mut a_me).await;
    assert_eq!(names(&by_alice["outgoing"], "to"), ["bob"], "{by_alice}");
    nothing_personal(&mut c_me).await;
    assert_eq!(carol.get("/api/challenges").await.json(), json!([]));
    let listed = bob.get("/api/me/challenges").await.json();
    assert_eq!(names(&listed["incoming"], "by"), ["alice"], "{listed}");

    // Only Bob answers it; bad requests change nothing.
    let reply = carol
        .post_empty(&format!("/api/challenges/{id}/accept"))
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text);
    let reply = carol
        .post_empty(&format!("/api/challenges/{id}/decline"))
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.text);
    let reply = alice.post("/api/challenges", challenge("alice")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{}", reply.text);
    let reply = alice.post("/api/challenges", challenge("nobody")).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.text);
    let mut guest = server.client();
    guest.post_empty("/api/guest").await;
    let reply = guest.post("/api/challenges", challenge("bob")).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{}", reply.text);
    let reply = guest.get("/api/me/challenges").await;
    assert_eq!(reply.json(), json!({"incoming": [], "outgoing": []}));

    // Bob declines: both lists are empty again; a second answer finds it gone.
    let reply = bob
        .post_empty(&format!("/api/challenges/{id}/decline"))
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.text);
    assert_eq!(next_challenges(&mut b_me).await["incoming"], json!([]));
    assert_eq!(next_challenges(&mut a_me).await["outgoing"], json!([]));
    let reply = bob
        .post_empty(&format!("/api/challenges/{id}/accept"))
        .await;
    assert_eq!(reply.status, StatusCode::CONFLICT, "{}", reply.text);
    assert_eq!(
        reply.json()["error"]["reason"],
        "challenge_gone",
        "{}",
        reply.text
    );

    // Alice withdraws the next one: gone from Bob's list too.
    let posted = alice.post("/api/challenges", challenge("bob")).await;
    let id = posted.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        next_challenges(&mut b_me).await["incoming"][0]["id"],
        id.as_str()
    );
    next_challenges(&mut a_me).await;
    let reply = alice.delete(&format!("/api/challenges/{id}")).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.text);
    assert_eq!(next_challenges(&mut b_me).await["incoming"], json!([]));
    next_challenges(&mut a_me).await;

    // Bob accepts the third: the game starts with Alice on the side she chose, and both
    // are told (their lists, and the game among their games).
    let posted = alice.post("/api/challenges", challenge("bob")).await;
    let id = posted.json()["id"].as_str().unwrap().to_owned();
    next_challenges(&mut b_me).await;
    next_challenges(&mut a_me).await;
    let reply = bob
        .post_empty(&format!("/api/challenges/{id}/accept"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    let game = reply.json()["game_id"].as_str().unwrap().to_owned();
    let mut told = (false, false);
    while !(told.0 && told.1) {
        let message = personal(&mut a_me).await;
        match message["t"].as_str() {
            Some("my_challenges") => {
                assert_eq!(message["outgoing"], json!([]));
                told.0 = true;
            }
            Some("my_game") => {
                assert_eq!(message["game"]["id"], game.as_str());
                assert_eq!(message["game"]["you"], "first");
                told.1 = true;
            }
            _ => panic!("{message}"),
        }
    }
    let mine = my_games(&mut bob).await;
    assert_eq!(mine["games"][0]["id"], game.as_str(), "{mine}");
    assert_eq!(mine["games"][0]["you"], "second");
    nothing_personal(&mut c_me).await;
    server.stop().await;
}
both!(
    direct_challenges,
    a_challenge_to_one_player_reaches_them_alone
);
