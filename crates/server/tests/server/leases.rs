//! One owner per live game among server processes sharing a database (issue 23): the
//! lease on each game's row, and the fence on every write of a live game, on SQLite and
//! PostgreSQL.

use crate::common;

use std::time::Duration;

use game::{EndReason, GameKind, Outcome, Player};
use reqwest::StatusCode;
use serde_json::json;
use server::SqliteSync;
use server::store::{
    Claimed, LEASE_MS, NewGame, Owner, Seat, Store, StoreError, StoredMove, now_ms,
};

use common::{Database, TestServer, test_config, ws};

async fn open(db: &Database, instance: &str) -> Store {
    Store::open_as(&db.url, 2, SqliteSync::default(), Owner::new(instance))
        .await
        .expect("store opens")
}

fn ai_game() -> NewGame {
    NewGame {
        kind: GameKind::Fetlar,
        first: Seat::Ai(1),
        second: Seat::Ai(2),
        time_control: "untimed".into(),
        rated: false,
        start_position: "start".into(),
        session_state: None,
    }
}

fn mv(ply: u32, at: i64) -> StoredMove {
    StoredMove {
        ply,
        text: format!("m{ply}"),
        first_clock_ms: None,
        second_clock_ms: None,
        played_at: at,
    }
}

fn fenced<T: std::fmt::Debug>(result: Result<T, StoreError>) -> bool {
    matches!(result, Err(StoreError::Fenced(_)))
}

fn ids(claimed: Vec<Claimed>) -> Vec<String> {
    claimed.into_iter().map(|c| c.id).collect()
}

/// Process `a` makes a game: `b` cannot claim it while `a`'s lease holds, and every
/// write `b` tries is fenced. Once the lease lapses `b` takes it (knowing when `a` was
/// last alive), and from then `a` is fenced. A new run of `a` takes back the games of
/// its earlier run at once; the games of a released lease are claimed at once by anyone.
async fn one_owner_per_game(db: Database) {
    let a = open(&db, "a").await;
    let b = open(&db, "b").await;
    let now = now_ms();
    a.renew_lease(now).await.unwrap();
    b.renew_lease(now).await.unwrap();
    let game = a.create_game(&ai_game(), now).await.unwrap();
    let id = game.id.clone();
    assert_eq!(
        a.game_owner(&id).await.unwrap(),
        Some(Some(a.owner().token().to_owned()))
    );
    assert_eq!(a.owned_games().await.unwrap(), vec![id.clone()]);

    // b: nothing to claim, nothing it may write.
    assert!(b.claim_games(now).await.unwrap().is_empty());
    assert!(b.owned_elsewhere(&id).await.unwrap());
    assert!(fenced(
        b.append_move(&id, &mv(1, now), 0, String::new).await
    ));
    assert!(fenced(b.save_session_state(&id, "{}", now).await));
    assert!(fenced(b.take_back(&id, 0, "{}", now).await));
    assert!(fenced(b.abort_game(&id, None, now).await));
    let draw = Outcome {
        winner: None,
        reason: EndReason::Agreement,
    };
    assert!(fenced(b.finish_game(&id, draw, None, now).await));
    assert_eq!(b.moves(&id).await.unwrap().len(), 0);

    // a plays on.
    a.append_move(&id, &mv(1, now), 0, String::new)
        .await
        .unwrap();

    // a goes silent: after its lease's time b takes the game, and a is fenced.
    let later = now + LEASE_MS + 1;
    b.renew_lease(later).await.unwrap();
    let claimed = b.claim_games(later).await.unwrap();
    assert_eq!(
        claimed,
        vec![Claimed {
            id: id.clone(),
            alive_until: Some(now)
        }]
    );
    assert!(fenced(
        a.append_move(&id, &mv(2, later), 0, String::new).await
    ));
    assert!(a.owned_games().await.unwrap().is_empty());
    b.append_move(&id, &mv(2, later), 0, String::new)
        .await
        .unwrap();
    let stored: Vec<u32> = b.moves(&id).await.unwrap().iter().map(|m| m.ply).collect();
    assert_eq!(
        stored,
        [1, 2],
        "every acknowledged move, none of the fenced one"
    );
    // A move for a ply already stored is a conflict, not a fence.
    assert!(matches!(
        b.append_move(&id, &mv(2, later), 0, String::new).await,
        Err(StoreError::Conflict(_))
    ));

    // A second game of a, and a new run of a: it takes that one back at once (and a's
    // old run is fenced from it), not b's.
    a.renew_lease(later).await.unwrap();
    let second = a.create_game(&ai_game(), later).await.unwrap().id;
    let a2 = open(&db, "a").await;
    a2.renew_lease(later).await.unwrap();
    assert_eq!(
        ids(a2.claim_games(later).await.unwrap()),
        vec![second.clone()]
    );
    assert!(fenced(a.save_session_state(&second, "{}", later).await));
    a2.save_session_state(&second, "{}", later).await.unwrap();

    // b stops gracefully: its game may be claimed at once.
    b.release_lease().await.unwrap();
    let claimed = a2.claim_games(later).await.unwrap();
    assert_eq!(
        claimed,
        vec![Claimed {
            id: id.clone(),
            alive_until: None
        }]
    );
    let win = Outcome {
        winner: Some(Player::First),
        reason: EndReason::Resignation,
    };
    a2.finish_game(&id, win, None, later).await.unwrap();
    // A finished game is nobody's to claim: only a2's live one, once its lease lapses.
    let much_later = later + 10 * LEASE_MS;
    b.renew_lease(much_later).await.unwrap();
    assert_eq!(ids(b.claim_games(much_later).await.unwrap()), vec![second]);
    assert_eq!(a2.owned_games().await.unwrap(), Vec::<String>::new());
}
both!(one_owner_per_game, one_owner_per_game);

/// Two servers on one database: the game made on the first is owned by it alone (the
/// second does not resume it); when the first stops, the second takes the game over
/// within a round of its lease keeper, and it plays on there with every move kept.
async fn a_stopped_server_hands_its_games_over(db: Database) {
    let config = |name: &str| server::Config {
        instance: Some(name.to_owned()),
        ..test_config(&db)
    };
    let first = TestServer::start(config("first")).await;
    let second = TestServer::start(config("second")).await;
    let mut player = first.client();
    let created = player
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    assert!(first.state.live.handle(&id).is_some());
    // A round of the second's keeper: it leaves the first's game alone, and sends a
    // socket for it back (to connect again, and reach the owner).
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    assert!(second.state.live.handle(&id).is_none());
    let path = format!("/ws/game/{id}");
    match tokio_tungstenite::connect_async(ws::request(&second, &player, &path)).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        }
        other => panic!("the second server refuses the socket: {other:?}"),
    }

    first.stop().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while second.state.live.handle(&id).is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the second server took the game over"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        second.state.store.game_owner(&id).await.unwrap(),
        Some(Some(second.state.store.owner().token().to_owned()))
    );
    // The friend joins through the second server: its owner answers.
    let mut friend = second.client();
    let joined = friend.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(joined.status, StatusCode::OK, "{}", joined.text);
    second.stop().await;
}
both!(
    a_stopped_server_hands_its_games_over,
    a_stopped_server_hands_its_games_over
);

/// A server whose game another process took (it stalled past its lease, say) stops
/// running it: its owner ends within a round of the lease keeper, and the game's sockets
/// there are closed with 1012 so that their clients connect again.
async fn a_server_that_lost_a_game_lets_it_go(db: Database) {
    let server = TestServer::start(server::Config {
        instance: Some("slow".to_owned()),
        ..test_config(&db)
    })
    .await;
    let mut player = server.client();
    let created = player
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "first", "time_control": "untimed"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut socket = ws::connect(&server, &player, &format!("/ws/game/{id}")).await;

    // Another process, seeing the lease lapsed (as it would after a stall), takes it.
    let other = open(&db, "other").await;
    let later = now_ms() + 2 * LEASE_MS;
    other.renew_lease(later).await.unwrap();
    assert_eq!(
        ids(other.claim_games(later).await.unwrap()),
        vec![id.clone()]
    );
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        use futures_util::StreamExt;
        loop {
            match socket.next().await {
                Some(Ok(tokio_tungstenite::tungstenite::Message::Close(frame))) => {
                    return frame.map(|f| u16::from(f.code));
                }
                Some(Ok(_)) => {}
                None | Some(Err(_)) => return None,
            }
        }
    })
    .await
    .expect("the socket is closed within a round of the lease keeper");
    assert_eq!(closed, Some(1012));
    assert!(server.state.live.handle(&id).is_none());
    // The game is the other's to write, and the server no longer can.
    assert!(fenced(
        server
            .state
            .store
            .save_session_state(&id, "{}", now_ms())
            .await
    ));
    other.save_session_state(&id, "{}", now_ms()).await.unwrap();
    server.stop().await;
}
both!(
    a_server_that_lost_a_game_lets_it_go,
    a_server_that_lost_a_game_lets_it_go
);
