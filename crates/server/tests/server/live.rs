//! Live games over HTTP and WebSockets against a real server on 127.0.0.1, each case on a
//! real SQLite file and on a real PostgreSQL (see `common`): whole real games between two
//! players with a spectator, a Camelot game played on to its end by the rules, a rated
//! game between two users, the AI, refusals, a flag fall, a first move not made in time,
//! a claim against a player who left, games and guests that expire, and restarts (clean
//! and SIGKILL) that charge the downtime to nobody.

use crate::common;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use game::{EndReason, GameKind, Player};
use games::{AnyGame, Game};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use server::ratings::{Rating, rate};

use common::{Client, Database, TestServer, legal_moves, pieces_of, rating_of, test_config};

/// Copenhagen game 60 of the aagenielsen.dk archive (crates/tafl/tests/data): the
/// defenders escape to a corner on the 10th move.
const COPENHAGEN_60: &str =
    "k8-g8 h6-h8xg8 j6-j11 g6-j6 k7-k10 f6-i6 k5-i5 i6-i11xj11 k10-i10 i11-k11";

/// A Fetlar game OpenTafl wrote, which the attackers win by capturing the king.
const FETLAR_RECORD: &str =
    include_str!("../../../tafl/tests/data/opentafl-written-fetlar-king-captured.otg");

/// The first twelve moves of the 2009 World Camelot Championship, game 1.
const CAMELOT_WCF_2009_1: &str = include_str!("../../../camelot/tests/data/wcf_2009_wc_game1.txt");

/// Both players' sockets and a spectator's on game `id`, each past its first `state`.
async fn seated(server: &TestServer, a: &Client, b: &Client, id: &str) -> ([Socket; 2], Socket) {
    let mut players = [
        Socket::open(server, a, id).await,
        Socket::open(server, b, id).await,
    ];
    let mut spectator = Socket::open(server, &server.client(), id).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        socket.state().await;
    }
    (players, spectator)
}

/// The first `n` moves of [`COPENHAGEN_60`] (all of them for a larger `n`).
fn copenhagen_moves(n: usize) -> Vec<String> {
    COPENHAGEN_60
        .split(' ')
        .take(n)
        .map(str::to_owned)
        .collect()
}

async fn start(db: &Database) -> TestServer {
    TestServer::start(test_config(db)).await
}

type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game socket as a browser opens it: same origin, with the client's cookies.
pub(crate) struct Socket {
    pub(crate) stream: Stream,
    /// The last revision seen.
    pub(crate) rev: u64,
}

impl Socket {
    async fn open(server: &TestServer, client: &Client, id: &str) -> Socket {
        Socket::open_at(server.addr, &server.base, client, id).await
    }

    async fn open_at(addr: std::net::SocketAddr, base: &str, client: &Client, id: &str) -> Socket {
        Socket::open_path(addr, base, client, &format!("/ws/game/{id}")).await
    }

    async fn open_path(
        addr: std::net::SocketAddr,
        base: &str,
        client: &Client,
        path: &str,
    ) -> Socket {
        Socket::try_open_path(addr, base, client, path)
            .await
            .unwrap()
    }

    /// As [`Socket::open_path`], with the refusal when the server does not upgrade.
    pub(crate) async fn try_open_path(
        addr: std::net::SocketAddr,
        base: &str,
        client: &Client,
        path: &str,
    ) -> Result<Socket, tokio_tungstenite::tungstenite::Error> {
        let mut request = format!("ws://{addr}{path}").into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", base.parse().unwrap());
        if let Some(cookies) = client.cookie_header() {
            request
                .headers_mut()
                .insert("cookie", cookies.parse().unwrap());
        }
        let (stream, _) = tokio_tungstenite::connect_async(request).await?;
        Ok(Socket { stream, rev: 0 })
    }

    pub(crate) async fn send(&mut self, message: Value) {
        self.stream
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
    }

    /// The next JSON message (pongs, watcher counts and others included).
    async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(30), self.stream.next())
                .await
                .expect("a message within 30 s")
                .expect("the socket is open")
                .expect("a frame");
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).unwrap();
                match value["t"].as_str() {
                    Some("state") => self.rev = value["game"]["rev"].as_u64().unwrap(),
                    Some("events") => {
                        if let Some(last) = value["events"].as_array().and_then(|e| e.last()) {
                            self.rev = last["revision"].as_u64().unwrap();
                        }
                    }
                    _ => {}
                }
                return value;
            }
        }
    }

    /// Skips messages until one of type `t`.
    async fn until(&mut self, t: &str) -> Value {
        loop {
            let message = self.next().await;
            if message["t"] == t {
                return message;
            }
        }
    }

    /// The game's whole state.
    async fn state(&mut self) -> Value {
        self.send(json!({"t": "hello", "rev": 0})).await;
        self.until("state").await["game"].clone()
    }
}

/// Two guests: one makes a friend game of `kind` (taking the first side), the other
/// joins by the link. Returns the game's id.
pub(crate) async fn friend_game(
    a: &mut Client,
    b: &mut Client,
    kind: &str,
    time_control: &str,
) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": kind, "opponent": "friend", "side": "first", "time_control": time_control}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(created.json()["url"], format!("/game/{id}"));
    let joined = b.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    assert_eq!(joined.json()["side"], "second");
    id
}

fn move_texts(kind: GameKind, record: &str) -> Vec<String> {
    let replay = games::record::load(kind, record, games::record::ReplayOptions::default())
        .expect("the record replays");
    replay.game.move_texts()
}

/// Plays `text` from `players[mover]`; every socket (the players', then the
/// spectator's) sees it as one `moved` event. Returns those three `events` messages, in
/// that order: each carries the receiver's legal moves after the move.
async fn play_one(
    players: &mut [Socket; 2],
    spectator: &mut Socket,
    mover: usize,
    text: &str,
) -> [Value; 3] {
    let rev = players[mover].rev;
    players[mover]
        .send(json!({"t": "move", "rev": rev, "move": text}))
        .await;
    let mut seen = Vec::with_capacity(3);
    for socket in players.iter_mut().chain(std::iter::once(&mut *spectator)) {
        let events = socket.until("events").await;
        assert_eq!(
            events["events"].as_array().map(Vec::len),
            Some(1),
            "{events}"
        );
        let moved = &events["events"][0];
        assert_eq!(moved["type"], "moved", "{events}");
        assert_eq!(
            moved["move"]["text"].as_str().unwrap().split('x').next(),
            text.split('x').next(),
            "{events}"
        );
        seen.push(events);
    }
    seen.try_into().unwrap()
}

/// Plays `moves` alternately from the two players' sockets; every socket (the
/// spectator's too) sees every move as an event, in order. Returns the spectator's last
/// `events` message.
async fn play_through(
    players: &mut [Socket; 2],
    spectator: &mut Socket,
    moves: &[String],
) -> Value {
    let mut last = Value::Null;
    for (i, text) in moves.iter().enumerate() {
        let [_, _, watched] = play_one(players, spectator, i % 2, text).await;
        last = watched;
    }
    last
}

async fn whole_games_between_two_players_with_a_spectator(db: Database) {
    let server = start(&db).await;
    let cases = [
        (
            GameKind::Copenhagen,
            COPENHAGEN_60
                .split(' ')
                .map(str::to_owned)
                .collect::<Vec<_>>(),
            Some(("second", "corner_escape")),
        ),
        (
            GameKind::Fetlar,
            move_texts(GameKind::Fetlar, FETLAR_RECORD),
            Some(("first", "king_captured")),
        ),
        (
            GameKind::Camelot,
            move_texts(GameKind::Camelot, CAMELOT_WCF_2009_1),
            None,
        ),
    ];
    for (kind, moves, ending) in cases {
        let (mut a, mut b, mut c) = (server.client(), server.client(), server.client());
        let id = friend_game(&mut a, &mut b, kind.as_str(), "untimed").await;
        let mut players = [
            Socket::open(&server, &a, &id).await,
            Socket::open(&server, &b, &id).await,
        ];
        let mut spectator = Socket::open(&server, &c, &id).await;
        let first = players[0].state().await;
        assert_eq!(first["status"], "ongoing");
        assert_eq!(first["you"], "first");
        assert!(!first["legal_moves"].as_array().unwrap().is_empty());
        let second = players[1].state().await;
        assert_eq!(second["you"], "second");
        assert!(second["legal_moves"].as_array().unwrap().is_empty());
        let watching = spectator.state().await;
        assert_eq!(watching["you"], Value::Null);
        assert_eq!(watching["players"][0]["user"], false);

        play_through(&mut players, &mut spectator, &moves).await;
        let end = spectator.state().await;
        assert_eq!(end["moves"].as_array().unwrap().len(), moves.len());
        match ending {
            Some((winner, reason)) => {
                assert_eq!(end["status"], "finished", "{end}");
                assert_eq!(end["result"]["winner"], winner);
                assert_eq!(end["result"]["reason"], reason);
                // Over: a move is refused.
                players[0]
                    .send(json!({"t": "move", "move": moves[0]}))
                    .await;
                assert_eq!(players[0].until("error").await["code"], "game_over");
            }
            None => {
                // The fragment ends unfinished: the side to move resigns (played on to
                // an ending by the rules in `camelot_played_to_an_ending_by_the_rules`).
                let mover = moves.len() % 2;
                players[mover].send(json!({"t": "resign"})).await;
                let events = spectator.until("events").await;
                assert_eq!(events["events"][0]["type"], "ended");
                let end = spectator.state().await;
                assert_eq!(end["result"]["reason"], "resignation");
            }
        }
        // The HTTP view agrees, and the game is no longer in the live list.
        let view = c.get(&format!("/api/games/{id}")).await.json();
        assert_eq!(view["status"], "finished");
        let live = c.get("/api/games?status=live").await.json();
        assert!(
            live["games"]
                .as_array()
                .unwrap()
                .iter()
                .all(|g| g["id"] != id),
            "{live}"
        );
    }
    server.stop().await;
}
both!(
    whole_games,
    whole_games_between_two_players_with_a_spectator
);

/// The number of pieces a listed legal move captures.
fn capture_count(listed: &Value) -> usize {
    listed["captures"].as_array().map_or(0, Vec::len)
}

/// The move the Camelot test plays: of the legal moves as listed, the one that captures
/// the most pieces, the first listed among equals.
fn most_capturing(listed: &[Value]) -> &Value {
    listed
        .iter()
        .fold(None::<&Value>, |best, m| match best {
            Some(b) if capture_count(b) >= capture_count(m) => Some(b),
            _ => Some(m),
        })
        .expect("a legal move")
}

/// A Camelot game played over the sockets until the rules end it: the 2009 World
/// Championship game 1 as far as the record goes (23 plies), then both sides play by a
/// fixed policy — of the legal moves the server lists for the player to move, the one that
/// captures the most pieces, the first listed among equals — until the game ends by a
/// rule (no resignation, no clock, no agreement). That policy needs no help to end the
/// game: with today's rules and move order White captures Black's last piece on ply 57
/// (`elimination`), far inside the 600-ply bound. Every move goes through the mover's
/// socket and every socket (a spectator's too) sees it; at each ply the server's list of
/// legal moves is the `games` crate's for the same moves, and the ending the server
/// reports (the last move's event, the state, `GET /api/games/{id}`, the archive and the
/// downloadable record) is the one the `games` crate computes replaying them.
async fn camelot_played_to_an_ending_by_the_rules(db: Database) {
    const MAX_PLIES: usize = 600;
    let server = start(&db).await;
    let (mut a, mut b, mut c) = (server.client(), server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "camelot", "untimed").await;
    let mut players = [
        Socket::open(&server, &a, &id).await,
        Socket::open(&server, &b, &id).await,
    ];
    let mut spectator = Socket::open(&server, &c, &id).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        assert_eq!(socket.state().await["status"], "ongoing");
    }

    let fragment = move_texts(GameKind::Camelot, CAMELOT_WCF_2009_1);
    assert_eq!(fragment.len(), 23);
    play_through(&mut players, &mut spectator, &fragment).await;
    let mut local = AnyGame::start(GameKind::Camelot);
    local.play_texts(&fragment).expect("the fragment replays");
    assert_eq!(local.outcome(), None, "the fragment does not end the game");

    let mut mover = fragment.len() % 2;
    let state = players[mover].state().await;
    assert_eq!(state["moves"].as_array().unwrap().len(), fragment.len());
    let mut listed = state["legal_moves"].as_array().unwrap().clone();
    let (outcome, last) = loop {
        assert!(
            local.ply() < MAX_PLIES,
            "the game has not ended by the rules after {MAX_PLIES} plies: {}",
            local.position_string()
        );
        // The server lists the same moves, in the same order, as the games crate.
        let server_texts: Vec<&str> = listed.iter().map(|m| m["text"].as_str().unwrap()).collect();
        let local_moves = local.legal_moves_info();
        let local_texts: Vec<&str> = local_moves.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(server_texts, local_texts, "ply {}", local.ply() + 1);
        let chosen = most_capturing(&listed);
        let text = chosen["text"].as_str().unwrap().to_owned();
        let captures = capture_count(chosen);

        let events = play_one(&mut players, &mut spectator, mover, &text).await;
        let played = local.try_play(&text).expect("the chosen move is legal");
        assert_eq!(played.captures.len(), captures, "{text}");
        let outcome = &events[2]["events"][0]["outcome"];
        for seen in &events {
            let moved = &seen["events"][0];
            assert_eq!(moved["move"]["text"], text.as_str(), "{seen}");
            assert_eq!(moved["move"]["captures"], chosen["captures"], "{seen}");
            assert_eq!(&moved["outcome"], outcome, "{seen}");
        }
        if let Some(ended) = local.outcome() {
            assert_eq!(
                *outcome,
                serde_json::to_value(ended).unwrap(),
                "{}",
                events[2]
            );
            for seen in &events {
                assert!(legal_moves(seen).is_empty(), "{seen}");
            }
            break (ended, events[2].clone());
        }
        assert_eq!(
            *outcome,
            Value::Null,
            "the server ended the game early: {}",
            events[2]
        );
        mover = 1 - mover;
        // The next mover's own event carries their legal moves; the other has none.
        assert!(legal_moves(&events[1 - mover]).is_empty());
        listed = legal_moves(&events[mover]);
    };
    let plies = local.ply();
    assert!(
        !matches!(
            outcome.reason,
            EndReason::Timeout
                | EndReason::Resignation
                | EndReason::Agreement
                | EndReason::Adjudication
        ),
        "{outcome:?}"
    );
    let board = spectator.state().await["board"].clone();
    assert_eq!(last["pieces"].as_str().unwrap(), pieces_of(&board));
    assert_eq!(last["to_move"], board["to_move"]);
    let want = serde_json::to_value(outcome).unwrap();
    let reason = want["reason"].as_str().unwrap().to_owned();
    let result = match outcome.winner {
        Some(Player::First) => "first",
        Some(Player::Second) => "second",
        None => "draw",
    };

    // Every view of the game agrees.
    let end = spectator.state().await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["result"], want);
    assert_eq!(end["moves"].as_array().unwrap().len(), plies);
    let view = c.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"], want);
    assert_eq!(view["board"], end["board"]);
    let archived = c.get(&format!("/api/archive/{id}")).await.json();
    assert_eq!(archived["status"], "finished");
    assert_eq!(archived["result"], result);
    assert_eq!(archived["reason"], reason.as_str());
    assert_eq!(archived["plies"], plies);
    assert_eq!(archived["position"], local.position_string().as_str());
    let stored: Vec<&str> = archived["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(stored, local.move_texts());
    // The record the server writes replays to the same ending.
    let record = c.get(&format!("/api/games/{id}/record")).await;
    assert_eq!(record.status, StatusCode::OK);
    let replayed = games::record::load(
        GameKind::Camelot,
        &record.text,
        games::record::ReplayOptions::default(),
    )
    .expect("the server's record replays");
    assert_eq!(replayed.outcome, Some(outcome), "{}", record.text);
    assert_eq!(replayed.game.move_texts(), local.move_texts());
    // Over: a move is refused, and nothing changes.
    let rev = players[mover].rev;
    players[mover]
        .send(json!({"t": "move", "rev": rev, "move": fragment[0]}))
        .await;
    assert_eq!(players[mover].until("error").await["code"], "game_over");
    assert_eq!(spectator.state().await["rev"], end["rev"]);
    server.stop().await;
}
both!(
    camelot_rules_ending,
    camelot_played_to_an_ending_by_the_rules
);

/// The players' ratings as a game view shows them (rounded), the first player's first.
fn shown_ratings(view: &Value) -> [i64; 2] {
    [0, 1].map(|i| {
        view["players"][i]["rating"]
            .as_i64()
            .expect("a user's rating")
    })
}

fn assert_rating(got: Rating, want: Rating, profile: &Value) {
    assert!(
        (got.rating - want.rating).abs() < 1e-9
            && (got.deviation - want.deviation).abs() < 1e-9
            && (got.volatility - want.volatility).abs() < 1e-12,
        "{got:?} != {want:?} in {profile}"
    );
}

/// Plays Copenhagen game 60 (the defenders escape to a corner on ply 10) in game `id`
/// between `first` and `second`, over their sockets with a guest watching; returns the
/// spectator's last `events` message.
async fn play_copenhagen_60(
    server: &TestServer,
    first: &Client,
    second: &Client,
    id: &str,
) -> Value {
    let mut players = [
        Socket::open(server, first, id).await,
        Socket::open(server, second, id).await,
    ];
    let mut spectator = Socket::open(server, &server.client(), id).await;
    for (socket, you) in players.iter_mut().zip(["first", "second"]) {
        let state = socket.state().await;
        assert_eq!(state["you"], you, "{state}");
        assert_eq!(state["rated"], true, "{state}");
        assert_eq!(state["status"], "ongoing", "{state}");
    }
    spectator.state().await;
    let moves = copenhagen_moves(usize::MAX);
    play_through(&mut players, &mut spectator, &moves).await
}

/// A rated game between two signed-up users, over the sockets: Alice makes a rated
/// friend game, Bob joins by the link, and they play a real Copenhagen game the
/// defenders (Bob) win by corner escape. Both ratings move from 1500 by the same amount
/// in opposite directions (Glicko-2, computed here too), the game view, the player pages,
/// their rating histories and the archive show it as rated. A second rated game, from a
/// lobby challenge Bob posts and Alice accepts (a guest may not), starts from the stored
/// ratings.
async fn a_rated_game_changes_both_players_ratings(db: Database) {
    let server = start(&db).await;
    let (mut alice, mut bob, mut guest) = (server.client(), server.client(), server.client());
    alice.sign_up("alice", "long password").await;
    bob.sign_up("bob", "long password").await;
    let page = alice.get("/api/players/alice").await.json();
    assert_eq!(page["ratings"], json!([]), "{page}");
    assert_eq!(page["rating_history"], json!([]), "{page}");

    // Rated games are for signed-in users only.
    let refused = guest
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "rated": true}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    assert_eq!(refused.error_code(), "not_signed_in");

    let created = alice
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first",
                   "time_control": "5+3", "rated": true}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let joined = bob.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    assert_eq!(joined.json()["side"], "second");
    let view = guest.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["rated"], true);
    assert_eq!(shown_ratings(&view), [1500, 1500], "{}", view["players"]);
    for (player, name) in view["players"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["alice", "bob"])
    {
        assert_eq!(player["name"], name, "{player}");
        assert_eq!(player["user"], true, "{player}");
        assert_eq!(player["provisional"], true, "{player}");
    }

    let last = play_copenhagen_60(&server, &alice, &bob, &id).await;
    let won = json!({"winner": "second", "reason": "corner_escape"});
    assert_eq!(last["events"][0]["outcome"], won, "{last}");

    // Glicko-2 for two new players, the defender winning.
    let (want_alice, want_bob) = rate(Rating::default(), Rating::default(), Some(Player::Second));
    assert!(want_alice.rating < 1500.0 && want_bob.rating > 1500.0);
    let view = guest.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["status"], "finished", "{view}");
    assert_eq!(view["rated"], true);
    assert_eq!(view["result"], won);
    assert_eq!(
        shown_ratings(&view),
        [want_alice, want_bob].map(|r| r.rating.round() as i64),
        "{}",
        view["players"]
    );

    let page_alice = guest.get("/api/players/alice").await.json();
    let page_bob = guest.get("/api/players/bob").await.json();
    let (got_alice, got_bob) = (
        rating_of(&page_alice, "copenhagen"),
        rating_of(&page_bob, "copenhagen"),
    );
    assert_rating(got_alice, want_alice, &page_alice);
    assert_rating(got_bob, want_bob, &page_bob);
    assert!(got_alice.rating < 1500.0 && got_bob.rating > 1500.0);
    assert!(((1500.0 - got_alice.rating) - (got_bob.rating - 1500.0)).abs() < 1e-9);
    for (page, wins, losses) in [(&page_alice, 0, 1), (&page_bob, 1, 0)] {
        let rating = &page["ratings"][0];
        assert_eq!(page["ratings"].as_array().unwrap().len(), 1, "{page}");
        assert_eq!(rating["games"], 1, "{page}");
        assert_eq!(rating["wins"], wins, "{page}");
        assert_eq!(rating["losses"], losses, "{page}");
        assert_eq!(rating["provisional"], true, "{page}");
        let history = page["rating_history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{page}");
        assert_eq!(history[0]["game_id"], id.as_str());
        assert_eq!(history[0]["kind"], "copenhagen");
        assert_eq!(history[0]["rating"], rating["rating"]);
        assert_eq!(history[0]["deviation"], rating["deviation"]);
        let recent = &page["recent_games"][0];
        assert_eq!(recent["id"], id.as_str(), "{page}");
        assert_eq!(recent["rated"], true);
        assert_eq!(recent["reason"], "corner_escape");
    }

    // The archive marks it rated.
    let archived = guest.get(&format!("/api/archive/{id}")).await.json();
    assert_eq!(archived["rated"], true, "{archived}");
    assert_eq!(archived["status"], "finished");
    assert_eq!(archived["result"], "second");
    assert_eq!(archived["reason"], "corner_escape");
    assert_eq!(archived["plies"], 10);
    assert_eq!(archived["first"], json!({"type": "user", "name": "alice"}));
    assert_eq!(archived["second"], json!({"type": "user", "name": "bob"}));
    let listed = guest.get("/api/archive?rated=true").await.json();
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["games"][0]["id"], id.as_str());
    assert_eq!(
        guest.get("/api/archive?rated=false").await.json()["total"],
        0
    );

    // A rated challenge from the lobby: Bob defends again; a guest may not accept it.
    let posted = bob
        .post(
            "/api/challenges",
            json!({"kind": "copenhagen", "time_control": "untimed", "side": "second", "rated": true}),
        )
        .await;
    assert_eq!(posted.status, StatusCode::CREATED, "{}", posted.text);
    let challenge = posted.json()["id"].as_str().unwrap().to_owned();
    let open = guest.get("/api/challenges").await.json();
    assert_eq!(open[0]["id"], challenge.as_str(), "{open}");
    assert_eq!(open[0]["rated"], true);
    let refused = guest
        .post_empty(&format!("/api/challenges/{challenge}/accept"))
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.text);
    assert_eq!(refused.error_code(), "not_signed_in");
    // The case, for the client's own words.
    assert_eq!(
        refused.json()["error"]["reason"],
        "rated_needs_account",
        "{}",
        refused.text
    );
    let accepted = alice
        .post_empty(&format!("/api/challenges/{challenge}/accept"))
        .await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.text);
    let id2 = accepted.json()["game_id"].as_str().unwrap().to_owned();
    let view = guest.get(&format!("/api/games/{id2}")).await.json();
    assert_eq!(
        shown_ratings(&view),
        [want_alice, want_bob].map(|r| r.rating.round() as i64),
        "{}",
        view["players"]
    );
    let last = play_copenhagen_60(&server, &alice, &bob, &id2).await;
    assert_eq!(last["events"][0]["outcome"], won, "{last}");

    let (want_alice2, want_bob2) = rate(want_alice, want_bob, Some(Player::Second));
    let page_alice = guest.get("/api/players/alice").await.json();
    let page_bob = guest.get("/api/players/bob").await.json();
    assert_rating(
        rating_of(&page_alice, "copenhagen"),
        want_alice2,
        &page_alice,
    );
    assert_rating(rating_of(&page_bob, "copenhagen"), want_bob2, &page_bob);
    assert!(want_alice2.rating < want_alice.rating && want_bob2.rating > want_bob.rating);
    for page in [&page_alice, &page_bob] {
        assert_eq!(page["ratings"][0]["games"], 2, "{page}");
        let games: Vec<&str> = page["rating_history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|point| point["game_id"].as_str().unwrap())
            .collect();
        assert_eq!(games, [id.as_str(), id2.as_str()], "{page}");
    }
    assert_eq!(
        page_alice["opponents"],
        json!([{"opponent": {"type": "user", "name": "bob"}, "games": 2, "wins": 0, "losses": 2, "draws": 0}])
    );
    assert_eq!(
        guest.get("/api/archive?rated=true").await.json()["total"],
        2
    );
    server.stop().await;
}
both!(rated_game, a_rated_game_changes_both_players_ratings);

async fn refusals_change_nothing(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b, c) = (server.client(), server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen", "untimed").await;
    let mut first = Socket::open(&server, &a, &id).await;
    let mut second = Socket::open(&server, &b, &id).await;
    let mut stranger = Socket::open(&server, &c, &id).await;
    let before = first.state().await;
    let live = a.get("/api/games?status=live").await.json();
    assert!(
        live["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id),
        "{live}"
    );
    // A spectator's move, a move out of turn, an illegal move, a stale one, nonsense.
    stranger.send(json!({"t": "move", "move": "d1-d3"})).await;
    assert_eq!(stranger.until("error").await["code"], "not_a_player");
    stranger.send(json!({"t": "resign"})).await;
    assert_eq!(stranger.until("error").await["code"], "not_a_player");
    second.send(json!({"t": "move", "move": "e5-e3"})).await;
    assert_eq!(second.until("error").await["code"], "not_your_turn");
    first.send(json!({"t": "move", "move": "d1-d9"})).await;
    assert_eq!(first.until("error").await["code"], "illegal_move");
    first
        .send(json!({"t": "move", "rev": 99, "move": "d1-d3"}))
        .await;
    assert_eq!(first.until("error").await["code"], "stale");
    for junk in [r#"{"t":"fly"}"#, "[1,2", r#"{"t":"move"}"#, "\u{0}"] {
        first
            .stream
            .send(Message::Text(junk.to_owned().into()))
            .await
            .unwrap();
        assert_eq!(first.until("error").await["code"], "bad_message", "{junk}");
    }
    // Nothing to take back yet; no time to give without a clock.
    first.send(json!({"t": "takeback"})).await;
    let refused = first.until("error").await;
    assert_eq!(refused["code"], "not_allowed");
    assert_eq!(refused["reason"], "nothing_to_take_back", "{refused}");
    first.send(json!({"t": "give_time"})).await;
    let refused = first.until("error").await;
    assert_eq!(refused["code"], "not_allowed");
    assert_eq!(refused["reason"], "untimed", "{refused}");
    // Nothing changed.
    let after = first.state().await;
    assert_eq!(after["rev"], before["rev"]);
    assert_eq!(after["moves"], before["moves"]);
    // A message over the size limit closes that socket; the game goes on.
    let huge = format!(r#"{{"t":"move","move":"{}"}}"#, "a".repeat(10_000));
    let _ = first.stream.send(Message::Text(huge.into())).await;
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(frame)) = first.stream.next().await {
            if let Message::Close(_) = frame {
                break;
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "an oversized message closes the socket");
    let mut first = Socket::open(&server, &a, &id).await;
    let rev = first.state().await["rev"].as_u64().unwrap();
    first
        .send(json!({"t": "move", "rev": rev, "move": "d1-d3"}))
        .await;
    assert_eq!(first.until("events").await["events"][0]["type"], "moved");
    // A third person cannot join a full game; the socket of an unknown game is a 404.
    let mut d = server.client();
    let joined = d.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::CONFLICT, "{}", joined.text);
    assert_eq!(
        d.get("/api/games/nosuchgame").await.status,
        StatusCode::NOT_FOUND
    );
    // Each message handled was timed under its type: five moves (four refused, one
    // played), four unreadable, and the rest (the message over the limit was never read).
    let metrics = d.get("/metrics").await.text;
    for (kind, count) in [
        ("move", 5),
        ("invalid", 4),
        ("resign", 1),
        ("takeback", 1),
        ("give_time", 1),
    ] {
        let line =
            format!("kingstable_game_message_duration_seconds_count{{type=\"{kind}\"}} {count}\n");
        assert!(metrics.contains(&line), "{line} missing from\n{metrics}");
    }
    server.stop().await;
}
both!(refusals, refusals_change_nothing);

/// Between people a takeback is asked and answered (one request at a time, lapsing
/// with the next move), and either player may give the other time; what is stored
/// follows.
async fn takebacks_by_agreement_and_time_given_between_people(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen", "5+3").await;
    let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
    let moves = copenhagen_moves(3);
    play_through(&mut players, &mut spectator, &moves[..2]).await;
    let actions = |events: &Value, side: &str| events["actions"][side].clone();

    // The first asks; the second may accept or decline, the first may not ask again.
    players[0].send(json!({"t": "takeback"})).await;
    let asked = players[1].until("events").await;
    assert_eq!(asked["events"][0]["type"], "takeback_requested", "{asked}");
    assert_eq!(asked["takeback_request"], "first");
    let second = actions(&asked, "second");
    assert!(
        second
            .as_array()
            .unwrap()
            .contains(&json!("takeback_accept")),
        "{asked}"
    );
    assert!(
        !actions(&asked, "first")
            .as_array()
            .unwrap()
            .contains(&json!("takeback"))
    );
    players[0].until("events").await;
    players[0].send(json!({"t": "takeback"})).await;
    assert_eq!(players[0].until("error").await["code"], "not_allowed");
    players[1].send(json!({"t": "takeback_decline"})).await;
    let declined = players[0].until("events").await;
    assert_eq!(
        declined["events"][0]["type"], "takeback_declined",
        "{declined}"
    );
    assert_eq!(declined["takeback_request"], Value::Null);
    players[1].until("events").await;

    // Asked again and accepted: the first's move and the second's reply go back.
    players[0].send(json!({"t": "takeback"})).await;
    players[1].until("events").await;
    players[0].until("events").await;
    players[1].send(json!({"t": "takeback_accept"})).await;
    let taken = players[0].until("events").await;
    assert_eq!(taken["events"][0]["type"], "taken_back", "{taken}");
    assert_eq!(taken["events"][0]["plies"], 2);
    players[1].until("events").await;
    spectator.until("events").await;
    spectator.until("events").await;
    spectator.until("events").await;
    let taken_seen = spectator.until("events").await;
    assert_eq!(
        taken_seen["events"][0]["type"], "taken_back",
        "{taken_seen}"
    );
    let stored = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(stored["moves"].as_array().unwrap().len(), 0, "{stored}");

    // The game goes on; a request lapses with the next move.
    play_through(&mut players, &mut spectator, &moves[..1]).await;
    players[0].send(json!({"t": "takeback"})).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        socket.until("events").await;
    }
    let [_, _, seen] = play_one(&mut players, &mut spectator, 1, &moves[1]).await;
    assert_eq!(seen["takeback_request"], Value::Null, "{seen}");

    // Time given: 15 s on the opponent's clock, shown to everyone at once.
    let before = seen["clocks"]["second_ms"].as_u64().unwrap();
    players[0].send(json!({"t": "give_time"})).await;
    let given = spectator.until("events").await;
    assert_eq!(given["events"][0]["type"], "time_given", "{given}");
    assert_eq!(given["events"][0]["by"], "first");
    assert_eq!(given["events"][0]["ms"], 15_000);
    assert_eq!(
        given["clocks"]["second_ms"].as_u64().unwrap(),
        before + 15_000
    );
    assert!(
        actions(&given, "second")
            .as_array()
            .unwrap()
            .contains(&json!("give_time"))
    );
    // Stored: a restarted view of the game has it too.
    let view = b.get(&format!("/api/games/{id}")).await.json();
    assert!(
        view["clocks"]["second_ms"].as_u64().unwrap() >= before + 15_000 - 1_000,
        "{view}"
    );
    server.stop().await;
}
both!(
    takebacks_between_people,
    takebacks_by_agreement_and_time_given_between_people
);

/// Conditional moves in a correspondence game: entered while the opponent is to move,
/// private, checked; the expected reply is answered at once (also after a restart), and
/// another reply drops the lines.
async fn conditional_moves_answer_the_expected_reply(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b, mut c) = (server.client(), server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen", "3d").await;
    let path = format!("/api/games/{id}/conditional");
    let moves = copenhagen_moves(6);
    {
        let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
        play_through(&mut players, &mut spectator, &moves[..1]).await;
    }
    // Not on one's own turn, not a stranger's, not a line that does not play.
    let own_turn = b.put(&path, json!({"lines": [[moves[2], moves[3]]]})).await;
    assert_eq!(own_turn.status, StatusCode::CONFLICT, "{}", own_turn.text);
    let stranger = c.put(&path, json!({"lines": []})).await;
    assert_eq!(stranger.status, StatusCode::FORBIDDEN, "{}", stranger.text);
    let bad = a.put(&path, json!({"lines": [[moves[1], "d1-d9"]]})).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text);
    assert!(bad.text.contains("line 1"), "{}", bad.text);
    let odd = a.put(&path, json!({"lines": [[moves[1]]]})).await;
    assert_eq!(odd.status, StatusCode::BAD_REQUEST, "{}", odd.text);
    assert_eq!(a.get(&path).await.json()["lines"], json!([]));
    // The first: if the reply is moves[1], answer moves[2]; then moves[3], moves[4].
    let line = json!([[moves[1], moves[2], moves[3], moves[4]]]);
    let set = a.put(&path, json!({ "lines": line })).await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.text);
    assert_eq!(set.json()["lines"], line);
    assert_eq!(b.get(&path).await.json()["lines"], json!([]), "private");

    // Kept through a restart.
    server.stop().await;
    let server = start(&db).await;
    for client in [&mut a, &mut b] {
        client.base.clone_from(&server.base);
        client.origin = Some(server.base.clone());
    }
    let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
    // The expected reply: the answer comes at once, and the line goes on.
    play_one(&mut players, &mut spectator, 1, &moves[1]).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        let answered = socket.until("events").await;
        assert_eq!(answered["events"][0]["type"], "moved", "{answered}");
        assert_eq!(
            answered["events"][0]["move"]["text"], moves[2],
            "{answered}"
        );
    }
    assert_eq!(
        a.get(&path).await.json()["lines"],
        json!([[moves[3], moves[4]]])
    );
    // Another reply than the one expected: nothing is played, the lines go.
    let seen = b.get(&format!("/api/games/{id}")).await.json();
    let other = seen["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .find(|text| *text != moves[3])
        .unwrap();
    play_one(&mut players, &mut spectator, 1, &other).await;
    assert_eq!(a.get(&path).await.json()["lines"], json!([]));
    let view = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["moves"].as_array().unwrap().len(), 4, "{view}");
    // Not in a live game.
    let live = friend_game(&mut a, &mut b, "fetlar", "5+3").await;
    let refused = b
        .put(
            &format!("/api/games/{live}/conditional"),
            json!({"lines": []}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.text);
    server.stop().await;
}
both!(
    conditional_moves,
    conditional_moves_answer_the_expected_reply
);

async fn a_game_against_the_ai(db: Database) {
    let server = start(&db).await;
    let mut a = server.client();
    // The human takes the second side: the AI (level 1) moves first.
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "second", "time_control": "5+3"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    assert!(
        created.set_cookie("kingstable_guest").is_some(),
        "a guest is made"
    );
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut me = Socket::open(&server, &a, &id).await;
    let mut state = me.state().await;
    assert_eq!(state["you"], "second");
    assert_eq!(state["players"][0]["ai"], 1);
    while state["moves"].as_array().unwrap().is_empty() {
        me.until("events").await;
        state = me.state().await;
    }
    assert_eq!(state["moves"][0]["player"], "first");
    let clocks = &state["clocks"];
    assert!(clocks["second_ms"].as_u64().unwrap() <= 300_000, "{clocks}");
    assert_eq!(clocks["running"], "second");
    // The human plays a legal move; the AI answers.
    let reply = state["legal_moves"][0]["text"].as_str().unwrap().to_owned();
    me.send(json!({"t": "move", "rev": me.rev, "move": reply}))
        .await;
    let mut state = me.state().await;
    while state["moves"].as_array().unwrap().len() < 3 {
        me.until("events").await;
        state = me.state().await;
    }
    // A takeback against the AI takes back the human's move and the AI's answer.
    me.send(json!({"t": "takeback"})).await;
    let events = me.until("events").await;
    assert_eq!(events["events"][0]["type"], "taken_back", "{events}");
    let state = me.state().await;
    assert_eq!(state["moves"].as_array().unwrap().len(), 1);
    // Resigning ends it; a rematch against the AI starts at once with the sides swapped.
    me.send(json!({"t": "resign"})).await;
    let ended = me.until("events").await;
    assert_eq!(ended["events"][0]["type"], "ended");
    // Over is over, against the AI too: no takeback is offered, and one asked for is
    // refused (the game is stored as finished).
    let mine = ended["actions"]["second"].as_array().unwrap();
    assert!(!mine.contains(&json!("takeback")), "{ended}");
    assert!(mine.contains(&json!("rematch")), "{ended}");
    me.send(json!({"t": "takeback"})).await;
    assert_eq!(me.until("error").await["code"], "game_over");
    let rematch = a.post_empty(&format!("/api/games/{id}/rematch")).await;
    assert_eq!(rematch.status, StatusCode::OK, "{}", rematch.text);
    let new_id = rematch.json()["id"].as_str().unwrap().to_owned();
    let new = a.get(&format!("/api/games/{new_id}")).await.json();
    assert_eq!(new["you"], "first");
    assert_eq!(new["players"][1]["ai"], 1);
    server.stop().await;
}
both!(ai_game, a_game_against_the_ai);

/// A rematch against the AI asked for over HTTP counts once against the creation limit
/// (it was counted twice: by the endpoint and by the game's owner).
async fn a_rematch_against_the_ai_counts_once(db: Database) {
    let mut config = test_config(&db);
    config.limits.challenge = server::RateLimit::new(4, Duration::from_secs(3600));
    let server = TestServer::start(config).await;
    let mut a = server.client();
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let mut id = created.json()["id"].as_str().unwrap().to_owned();
    // One token for the game, one for each rematch: three rematches, then a refusal.
    let mut rematches = 0;
    loop {
        let mut me = Socket::open(&server, &a, &id).await;
        me.state().await;
        me.send(json!({"t": "resign"})).await;
        me.until("events").await;
        let rematch = a.post_empty(&format!("/api/games/{id}/rematch")).await;
        if rematch.status != StatusCode::OK {
            assert_eq!(
                rematch.status,
                StatusCode::TOO_MANY_REQUESTS,
                "{}",
                rematch.text
            );
            break;
        }
        rematches += 1;
        id = rematch.json()["id"].as_str().unwrap().to_owned();
        assert!(rematches <= 3, "more rematches than the limit allows");
    }
    assert_eq!(rematches, 3);
    server.stop().await;
}
both!(ai_rematch_limit, a_rematch_against_the_ai_counts_once);

async fn a_flag_falls(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    // 0.02 minutes: 1.2 seconds each, counted from each side's first move.
    let id = friend_game(&mut a, &mut b, "camelot", "0.02+0").await;
    let mut players = [
        Socket::open(&server, &a, &id).await,
        Socket::open(&server, &b, &id).await,
    ];
    let mut watcher = Socket::open(&server, &b, &id).await;
    let state = watcher.state().await;
    assert_eq!(state["clocks"]["running"], "first");
    for player in &mut players {
        player.state().await;
    }
    let first_moves = move_texts(GameKind::Camelot, CAMELOT_WCF_2009_1);
    play_through(&mut players, &mut watcher, &first_moves[..2]).await;
    let ended = watcher.until("events").await;
    assert_eq!(ended["events"][0]["type"], "ended", "{ended}");
    let view = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["reason"], "timeout");
    // Camelot: White, out of time, loses (Black has all its pieces).
    assert_eq!(view["result"]["winner"], "second");
    assert_eq!(view["clocks"]["first_ms"], 0);
    server.stop().await;
}
both!(flag, a_flag_falls);

async fn a_first_move_not_made_in_time_aborts_the_game(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    // 0.02+0: the first move must come within the base time, 1.2 s (30 s in longer games).
    let id = friend_game(&mut a, &mut b, "fetlar", "0.02+0").await;
    let mut first = Socket::open(&server, &a, &id).await;
    let mut watcher = Socket::open(&server, &server.client(), &id).await;
    let state = watcher.state().await;
    first.state().await;
    assert_eq!(state["status"], "ongoing");
    // The first player moves in time (their turn costs nothing); the second does not.
    first
        .send(json!({"t": "move", "rev": first.rev, "move": "d1-d3"}))
        .await;
    assert_eq!(watcher.until("events").await["events"][0]["type"], "moved");
    let aborted = watcher.until("events").await;
    let event = &aborted["events"][0];
    assert_eq!(event["type"], "aborted", "{aborted}");
    assert_eq!(event["by"], "second");
    assert_eq!(event["reason"], "no_first_move");
    let view = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["status"], "aborted");
    assert_eq!(view["result"], Value::Null, "aborted, not lost");
    // The first player was charged nothing for their first move.
    assert_eq!(view["clocks"]["first_ms"], 1200);

    // Against the AI only the human's first move is timed: the AI moves first here.
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": {"ai": 1}, "side": "second", "time_control": "0.02+0"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut me = Socket::open(&server, &a, &id).await;
    me.state().await;
    let mut aborted = None;
    while aborted.is_none() {
        let events = me.until("events").await;
        aborted = events["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["type"] == "aborted")
            .cloned();
    }
    let aborted = aborted.unwrap();
    assert_eq!(aborted["by"], "second", "{aborted}");
    let view = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["moves"].as_array().unwrap().len(), 1, "the AI moved");
    server.stop().await;
}
both!(first_move, a_first_move_not_made_in_time_aborts_the_game);

async fn a_player_who_leaves_can_be_claimed_against(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    // 3 s each and 10 s a move: the claim waits the base time, 3 s (30 s in longer games).
    let id = friend_game(&mut a, &mut b, "copenhagen", "0.05+10").await;
    let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
    let moves = copenhagen_moves(5);
    play_through(&mut players, &mut spectator, &moves).await;
    let [mut first, second] = players;
    // Before anyone leaves there is nothing to claim.
    first.send(json!({"t": "claim_victory"})).await;
    let refused = first.until("error").await;
    assert_eq!(refused["code"], "not_allowed", "{refused}");
    assert_eq!(refused["reason"], "opponent_present", "{refused}");
    // The second player closes their socket: everyone is told, with the countdown.
    drop(second);
    let absent = first.until("absent").await;
    assert_eq!(absent["absent"][0]["side"], "second", "{absent}");
    let wait = absent["absent"][0]["claim_in_ms"].as_u64().unwrap();
    assert!((2_000..=3_000).contains(&wait), "{absent}");
    assert_eq!(first.state().await["absent"][0]["side"], "second");
    // Too early: refused, and the game goes on.
    first.send(json!({"t": "claim_victory"})).await;
    let refused = first.until("error").await;
    assert_eq!(refused["code"], "not_allowed", "{refused}");
    assert_eq!(refused["reason"], "opponent_may_return", "{refused}");
    // They come back: the countdown stops; they leave again: it starts again.
    let second = Socket::open(&server, &b, &id).await;
    assert_eq!(first.until("absent").await["absent"], json!([]));
    drop(second);
    let absent = first.until("absent").await;
    assert_eq!(absent["absent"][0]["side"], "second");
    tokio::time::sleep(Duration::from_millis(
        absent["absent"][0]["claim_in_ms"].as_u64().unwrap() + 100,
    ))
    .await;
    // A spectator cannot claim; the player who stayed can.
    spectator.send(json!({"t": "claim_victory"})).await;
    assert_eq!(spectator.until("error").await["code"], "not_a_player");
    first.send(json!({"t": "claim_victory"})).await;
    let ended = spectator.until("events").await;
    let event = &ended["events"][0];
    assert_eq!(event["type"], "ended", "{ended}");
    assert_eq!(event["outcome"]["winner"], "first");
    assert_eq!(event["outcome"]["reason"], "abandonment");
    let view = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(view["status"], "finished");
    assert_eq!(view["result"]["reason"], "abandonment");
    assert_eq!(view["absent"], json!([]));
    server.stop().await;
}
both!(claim, a_player_who_leaves_can_be_claimed_against);

/// The game's status as the API shows it, once it is `want` (the owner acts on its own
/// time), within 10 s.
async fn status_becomes(client: &mut Client, id: &str, want: &str) -> Value {
    for _ in 0..100 {
        let view = client.get(&format!("/api/games/{id}")).await.json();
        if view["status"] == want {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("game {id} never became {want}");
}

async fn unjoined_and_abandoned_games_and_unused_guests_expire(db: Database) {
    use server::store::now_ms;
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let hour = 3_600_000;
    let created = a
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "first", "time_control": "5+3"}),
        )
        .await;
    let unjoined = created.json()["id"].as_str().unwrap().to_owned();
    let untimed = friend_game(&mut a, &mut b, "copenhagen", "untimed").await;
    let timed = friend_game(&mut a, &mut b, "copenhagen", "5+3").await;
    let lonely = server
        .state
        .store
        .create_guest("hash-of-a-guest-with-no-game", now_ms())
        .await
        .unwrap();
    // A day less an hour later: nothing has expired yet.
    server::live::expire_stale(&server.state, now_ms() + 23 * hour)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let view = a.get(&format!("/api/games/{unjoined}")).await.json();
    assert_eq!(view["status"], "waiting");
    // A day later: the unjoined game is aborted.
    let report = server::live::expire_stale(&server.state, now_ms() + 25 * hour)
        .await
        .unwrap();
    assert_eq!(report.games, 1);
    assert_eq!(report.guests, 0);
    status_becomes(&mut a, &unjoined, "aborted").await;
    let late = b.post_empty(&format!("/api/games/{unjoined}/join")).await;
    assert!(late.status.is_client_error(), "{}", late.text);
    // Fifteen days later: the untimed game nobody moved in is abandoned (aborted); the
    // timed one goes on (its clocks end it); a month later the guest with no game goes.
    let report = server::live::expire_stale(&server.state, now_ms() + 15 * 24 * hour)
        .await
        .unwrap();
    assert_eq!(report.games, 1);
    let view = status_becomes(&mut a, &untimed, "aborted").await;
    assert_eq!(view["result"], Value::Null);
    let view = a.get(&format!("/api/games/{timed}")).await.json();
    assert_eq!(view["status"], "ongoing");
    let live = a.get("/api/games?status=live").await.json();
    assert!(!live.to_string().contains(&untimed), "{live}");
    let report = server::live::expire_stale(&server.state, now_ms() + 31 * 24 * hour)
        .await
        .unwrap();
    assert_eq!(report.guests, 1);
    let store = &server.state.store;
    assert!(
        store
            .guest_by_token("hash-of-a-guest-with-no-game")
            .await
            .unwrap()
            .is_none(),
        "{lonely:?} purged"
    );
    // The players, who have games, are kept: their cookies still name them.
    assert_eq!(
        a.get(&format!("/api/games/{timed}")).await.json()["you"],
        "first"
    );
    server.stop().await;
}
both!(
    expiry,
    unjoined_and_abandoned_games_and_unused_guests_expire
);

async fn a_restart_keeps_every_move_and_the_clocks(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen", "10+5").await;
    let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
    let moves = copenhagen_moves(3);
    play_through(&mut players, &mut spectator, &moves).await;
    let before = a.get(&format!("/api/games/{id}")).await.json();
    drop(players);
    drop(spectator);
    server.stop().await;
    let pause = Duration::from_millis(1500);
    tokio::time::sleep(pause).await;

    let server = start(&db).await;
    a.base.clone_from(&server.base);
    a.origin = Some(server.base.clone());
    let after = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(after["moves"], before["moves"]);
    assert_eq!(after["status"], "ongoing");
    // The time the server was down (1.5 s) is charged to nobody: the second player's
    // clock lost only what ran while the server was up.
    let (was, is) = (
        before["clocks"]["second_ms"].as_u64().unwrap(),
        after["clocks"]["second_ms"].as_u64().unwrap(),
    );
    assert!(was.saturating_sub(is) < 1000, "{was} -> {is}");
    assert_eq!(after["clocks"]["first_ms"], before["clocks"]["first_ms"]);
    // And play goes on.
    b.base.clone_from(&server.base);
    b.origin = Some(server.base.clone());
    let mut second = Socket::open(&server, &b, &id).await;
    let rev = second.state().await["rev"].as_u64().unwrap();
    second
        .send(json!({"t": "move", "rev": rev, "move": "g6-j6"}))
        .await;
    assert_eq!(second.until("events").await["events"][0]["type"], "moved");
    server.stop().await;
}
both!(restart, a_restart_keeps_every_move_and_the_clocks);

/// Not a test on its own: the server process that
/// `a_server_killed_mid_game_loses_nothing` starts, kills with SIGKILL, and starts again.
/// It serves the database named by `KINGSTABLE_KILL_TEST_DB` and prints its address.
#[test]
#[ignore = "started by a_server_killed_mid_game_loses_nothing"]
fn server_process() {
    let Ok(database) = std::env::var("KINGSTABLE_KILL_TEST_DB") else {
        return;
    };
    if let Ok(filter) = std::env::var("KINGSTABLE_KILL_TEST_LOG") {
        server::logging::init(&filter, server::logging::LogFormat::default()).unwrap();
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut config = server::Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            database: database.parse().unwrap(),
            instance: std::env::var("KINGSTABLE_KILL_TEST_INSTANCE").ok(),
            redis: std::env::var("KINGSTABLE_KILL_TEST_REDIS").ok(),
            ..server::Config::default()
        };
        if std::env::var_os("KINGSTABLE_KILL_TEST_MANY_GAMES").is_some() {
            // Every client of the test comes from 127.0.0.1: a long run makes more guests
            // and games from that one address than a person would.
            let many = server::RateLimit::new(10_000, Duration::from_millis(1));
            config.limits.guest = many;
            config.limits.challenge = many;
        }
        let server = server::Server::bind(config).await.unwrap();
        println!("ADDR {}", server.local_addr());
        server.run(std::future::pending()).await.unwrap();
    });
}

/// Starts [`server_process`] on `database`; the child and its base URL.
fn server_child(database: &str) -> (std::process::Child, String) {
    server_child_named(database, None)
}

/// [`server_child`] under the instance name `instance` (default: host and port).
fn server_child_named(database: &str, instance: Option<&str>) -> (std::process::Child, String) {
    server_child_on_bus(database, instance, None)
}

/// [`server_child_named`] on the bus at `redis`.
pub(crate) fn server_child_on_bus(
    database: &str,
    instance: Option<&str>,
    redis: Option<&str>,
) -> (std::process::Child, String) {
    server_child_with(database, instance, redis, false)
}

/// [`server_child_on_bus`]; `many_games`: with no limit on the guests and games made
/// from one address (all the test's clients share 127.0.0.1).
pub(crate) fn server_child_with(
    database: &str,
    instance: Option<&str>,
    redis: Option<&str>,
    many_games: bool,
) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    if many_games {
        command.env("KINGSTABLE_KILL_TEST_MANY_GAMES", "1");
    }
    if let Some(instance) = instance {
        command.env("KINGSTABLE_KILL_TEST_INSTANCE", instance);
    }
    if let Some(redis) = redis {
        command.env("KINGSTABLE_KILL_TEST_REDIS", redis);
    }
    let mut child = command
        .args([
            "--ignored",
            "--exact",
            "live::server_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("KINGSTABLE_KILL_TEST_DB", database)
        .stdout(std::process::Stdio::piped())
        .stderr(if std::env::var_os("KINGSTABLE_KILL_TEST_LOG").is_some() {
            std::process::Stdio::inherit()
        } else {
            std::process::Stdio::null()
        })
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server prints its address")
            .unwrap();
        // The harness may print `test server_process ... ` on the same line first.
        if let Some((_, addr)) = line.split_once("ADDR ") {
            break addr.trim().to_owned();
        }
    };
    (child, format!("http://{addr}"))
}

async fn a_server_killed_mid_game_loses_nothing(db: Database) {
    let database = db.url.connection_string().to_owned();
    let (mut child, base) = server_child(&database);
    let client_for = Client::new;
    let (mut a, mut b) = (client_for(&base), client_for(&base));
    let id = friend_game(&mut a, &mut b, "copenhagen", "10+5").await;
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let mut players = [
        Socket::open_at(addr, &base, &a, &id).await,
        Socket::open_at(addr, &base, &b, &id).await,
    ];
    let mut spectator = Socket::open_at(addr, &base, &client_for(&base), &id).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        socket.state().await;
    }
    let moves = copenhagen_moves(3);
    // Every move acknowledged (seen by the spectator) before the kill must survive it.
    play_through(&mut players, &mut spectator, &moves).await;
    let before = a.get(&format!("/api/games/{id}")).await.json();
    child.kill().unwrap(); // SIGKILL: no goodbye, no flush
    child.wait().unwrap();
    drop(players);
    drop(spectator);
    tokio::time::sleep(Duration::from_millis(2500)).await;

    let (mut child, base) = server_child(&database);
    let mut a = client_for(&base);
    let after = a.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(after["moves"], before["moves"], "{after}");
    assert_eq!(after["status"], "ongoing");
    let (was, is) = (
        before["clocks"]["second_ms"].as_u64().unwrap(),
        after["clocks"]["second_ms"].as_u64().unwrap(),
    );
    // The 2.5 s (and more, to the last heartbeat) the server was down were given back.
    assert!(
        was.saturating_sub(is) < 1000,
        "the clock was charged the downtime: {was} -> {is}"
    );
    assert_eq!(after["clocks"]["first_ms"], before["clocks"]["first_ms"]);
    // The second player plays on, with the same cookie.
    let mut b2 = client_for(&base);
    b2.cookies.clone_from(&b.cookies);
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let mut second = Socket::open_at(addr, &base, &b2, &id).await;
    let rev = second.state().await["rev"].as_u64().unwrap();
    second
        .send(json!({"t": "move", "rev": rev, "move": "g6-j6"}))
        .await;
    assert_eq!(second.until("events").await["events"][0]["type"], "moved");
    child.kill().unwrap();
    child.wait().unwrap();
}
both!(killed, a_server_killed_mid_game_loses_nothing);

/// Two server processes on one database (issue 23): a game is played on the first,
/// which is killed with SIGKILL mid-game. The second takes the game over once the first's
/// lease lapses (its socket refused with 503 until then); every move acknowledged before
/// the kill is there, the clock of the side to move was not charged the handover, and
/// the game plays on through the second.
async fn a_killed_process_hands_its_games_over(db: Database) {
    let database = db.url.connection_string().to_owned();
    let (one, base_one) = server_child_named(&database, Some("one"));
    let (two, base_two) = server_child_named(&database, Some("two"));
    // Killed whatever happens (a failed assertion too).
    let (mut one, mut two) = (Reaped(one), Reaped(two));
    let (mut a, mut b) = (Client::new(&base_one), Client::new(&base_one));
    let id = friend_game(&mut a, &mut b, "copenhagen", "10+5").await;
    let addr_one: std::net::SocketAddr = base_one.trim_start_matches("http://").parse().unwrap();
    let mut players = [
        Socket::open_at(addr_one, &base_one, &a, &id).await,
        Socket::open_at(addr_one, &base_one, &b, &id).await,
    ];
    let mut spectator = Socket::open_at(addr_one, &base_one, &Client::new(&base_one), &id).await;
    for socket in players.iter_mut().chain(std::iter::once(&mut spectator)) {
        socket.state().await;
    }
    // Every move acknowledged (seen by the spectator) before the kill must survive it.
    play_through(&mut players, &mut spectator, &copenhagen_moves(5)).await;
    let before = a.get(&format!("/api/games/{id}")).await.json();
    one.0.kill().unwrap(); // SIGKILL: no goodbye, no lease released
    one.0.wait().unwrap();
    drop(players);
    drop(spectator);

    // The second answers the players once it owns the game: 503 until then.
    let addr_two: std::net::SocketAddr = base_two.trim_start_matches("http://").parse().unwrap();
    let mut b2 = Client::new(&base_two);
    b2.cookies.clone_from(&b.cookies);
    let started = std::time::Instant::now();
    let mut refused = 0;
    let mut second = loop {
        match Socket::try_open_path(addr_two, &base_two, &b2, &format!("/ws/game/{id}")).await {
            Ok(socket) => break socket,
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
                refused += 1;
            }
            Err(error) => panic!("connecting to the second process: {error}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the second process took the game over within its lease's time"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        refused > 0,
        "the game was not the second's before the lease lapsed"
    );
    let state = second.state().await;
    let after = Client::new(&base_two)
        .get(&format!("/api/games/{id}"))
        .await
        .json();
    assert_eq!(after["moves"], before["moves"], "{after}");
    assert_eq!(after["status"], "ongoing");
    // The second player's clock ran while the first process lived, not after.
    let (was, is) = (
        before["clocks"]["second_ms"].as_u64().unwrap(),
        after["clocks"]["second_ms"].as_u64().unwrap(),
    );
    assert!(
        was.saturating_sub(is) < 4_000,
        "the clock was charged the handover: {was} -> {is}"
    );
    let rev = state["rev"].as_u64().unwrap();
    second
        .send(json!({"t": "move", "rev": rev, "move": copenhagen_moves(6)[5]}))
        .await;
    assert_eq!(second.until("events").await["events"][0]["type"], "moved");
    let stored = Client::new(&base_two)
        .get(&format!("/api/games/{id}"))
        .await
        .json();
    assert_eq!(
        stored["moves"].as_array().unwrap().len(),
        before["moves"].as_array().unwrap().len() + 1
    );
    two.0.kill().unwrap();
    two.0.wait().unwrap();
}
both!(killed_handed_over, a_killed_process_hands_its_games_over);

/// A child process killed (SIGKILL) and reaped when dropped.
pub(crate) struct Reaped(pub(crate) std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The load measurement of the server issue: 50 games against the AI (level 6, whose
/// opponents answer at once, so the AI pool never idles) while two people play each
/// other; prints the people's move round trip (move sent → their own `events` back).
/// Run it by hand: `cargo test --release -p server --test server -- --ignored live::load --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement, not a check: run by hand"]
async fn load_50_ai_games_and_two_people() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let mut config = test_config(&db);
    // All from one address here: more new games and guests than one person may make.
    config.limits.challenge = server::RateLimit::new(100, Duration::from_millis(10));
    config.limits.guest = server::RateLimit::new(100, Duration::from_millis(10));
    config.ai.games = 100;
    let server = TestServer::start(config).await;
    let mut bots = Vec::new();
    for i in 0..50 {
        let mut client = server.client();
        let kind = ["fetlar", "copenhagen", "camelot"][i % 3];
        let created = client
            .post(
                "/api/games",
                json!({"kind": kind, "opponent": {"ai": 6}, "side": "second", "time_control": "untimed"}),
            )
            .await;
        let id = created.json()["id"].as_str().unwrap().to_owned();
        let mut socket = Socket::open(&server, &client, &id).await;
        bots.push(tokio::spawn(async move {
            // Answer every AI move at once with the first legal move, until the game ends.
            loop {
                let state = socket.state().await;
                if state["status"] != "ongoing" {
                    return;
                }
                if let Some(mv) = state["legal_moves"][0]["text"].as_str() {
                    let rev = socket.rev;
                    socket
                        .send(json!({"t": "move", "rev": rev, "move": mv}))
                        .await;
                }
                socket.until("events").await;
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (mut a, mut b) = (server.client(), server.client());
    let id = friend_game(&mut a, &mut b, "copenhagen", "untimed").await;
    let mut players = [
        Socket::open(&server, &a, &id).await,
        Socket::open(&server, &b, &id).await,
    ];
    let mut times = Vec::new();
    for ply in 0..40 {
        let mover = ply % 2;
        let state = players[mover].state().await;
        if state["status"] != "ongoing" {
            break;
        }
        let mv = state["legal_moves"][0]["text"].as_str().unwrap().to_owned();
        let rev = players[mover].rev;
        let sent = std::time::Instant::now();
        players[mover]
            .send(json!({"t": "move", "rev": rev, "move": mv}))
            .await;
        players[mover].until("events").await;
        times.push(sent.elapsed());
        players[1 - mover].until("events").await;
    }
    times.sort();
    let queue = server.state.metrics.ai_queue.get();
    println!(
        "two people, {} moves while 50 AI games ran (AI queue {queue}): median {:?}, p99 {:?}, max {:?}",
        times.len(),
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        times[times.len() - 1]
    );
    for bot in bots {
        bot.abort();
    }
    server.stop().await;
}

async fn analysis_and_review(db: Database) {
    let server = start(&db).await;
    let (mut a, mut b) = (server.client(), server.client());
    // The board of any line, with its legal moves; a bad move is named.
    let position = a
        .post(
            "/api/position",
            json!({"kind": "camelot", "position": "", "moves": ["D6-F8", "H11-F9"]}),
        )
        .await;
    assert_eq!(position.status, StatusCode::OK, "{}", position.text);
    assert_eq!(position.json()["moves"].as_array().unwrap().len(), 2);
    assert!(
        !position.json()["legal_moves"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let bad = a
        .post(
            "/api/position",
            json!({"kind": "fetlar", "moves": ["d1-d3", "d3-d1"]}),
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text.contains("move 2 (d3-d1)"), "{}", bad.text);

    // The engine on a position: depths, then the best move.
    let mut engine = Socket::open_path(server.addr, &server.base, &a, "/ws/analysis").await;
    engine
        .send(json!({"t": "analyze", "kind": "copenhagen", "moves": ["d1-d3"], "time_ms": 400}))
        .await;
    let info = engine.until("info").await;
    assert!(info["depth"].as_u64().unwrap() >= 1, "{info}");
    assert!(info["score"].is_object(), "{info}");
    let done = engine.until("done").await;
    assert!(done["best"].is_string(), "{done}");
    engine
        .send(json!({"t": "analyze", "kind": "fetlar", "position": "nonsense"}))
        .await;
    assert_eq!(engine.until("error").await["code"], "bad_position");

    // A finished game's review: every move, with the evaluation for the first player.
    let id = friend_game(&mut a, &mut b, "copenhagen", "untimed").await;
    let (mut players, mut spectator) = seated(&server, &a, &b, &id).await;
    let moves = copenhagen_moves(usize::MAX);
    play_through(&mut players, &mut spectator, &moves).await;
    engine
        .send(json!({"t": "review", "game": id, "time_ms_per_ply": 50}))
        .await;
    let mut plies = Vec::new();
    loop {
        let message = engine.next().await;
        match message["t"].as_str() {
            Some("review_ply") => plies.push(message),
            Some("review_done") => break,
            _ => {}
        }
    }
    assert_eq!(plies.len(), moves.len());
    // The last move escaped to a corner: the defenders (second) have won.
    let last = &plies[moves.len() - 1];
    assert!(last["score"]["loss_in"].is_number(), "{last}");
    server.stop().await;
}
both!(analysis, analysis_and_review);
