//! The storage layer the live-game layer builds on, on SQLite and on PostgreSQL: the
//! lobby's challenges, and rating updates when many games finish at once.

use crate::common;

use game::{EndReason, GameKind, Outcome, Player};
use server::store::{
    ChallengeSide, ChallengeStatus, NewChallenge, NewGame, Seat, StoreError, now_ms,
};

use common::{Database, TestServer, test_config};

async fn sign_up(server: &TestServer, name: &str) -> String {
    server.client().sign_up(name, "long password").await;
    server
        .state
        .store
        .user_by_name(name)
        .await
        .unwrap()
        .expect("user")
        .id
}

fn game_between(first: Seat, second: Seat, rated: bool) -> NewGame {
    NewGame {
        kind: GameKind::Fetlar,
        first,
        second,
        time_control: "3+2".into(),
        rated,
        start_position: "start".into(),
        session_state: None,
    }
}

async fn challenges_open_accept_cancel(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let store = &server.state.store;
    let maker = sign_up(&server, "maker").await;
    let taker = sign_up(&server, "taker").await;
    let guest = store
        .create_guest("token-hash-of-a-guest", now_ms())
        .await
        .unwrap();

    let new = |creator: Seat, side| NewChallenge {
        kind: GameKind::Fetlar,
        time_control: "3+2".into(),
        side,
        rated: true,
        creator,
        to_user_id: None,
    };
    let first = store
        .create_challenge(
            &new(Seat::User(maker.clone()), ChallengeSide::Random),
            now_ms(),
        )
        .await
        .unwrap();
    let second = store
        .create_challenge(
            &new(Seat::Guest(guest.id.clone()), ChallengeSide::Second),
            now_ms() + 1,
        )
        .await
        .unwrap();
    assert_eq!(first.creator.username.as_deref(), Some("maker"));
    assert_eq!(
        second.creator.guest_name.as_deref(),
        Some(guest.name.as_str())
    );
    // Newest first.
    let open = store.open_challenges(10, now_ms()).await.unwrap();
    assert_eq!(
        open.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        [&second.id, &first.id]
    );
    assert!(matches!(
        store
            .create_challenge(&new(Seat::Ai(3), ChallengeSide::First), now_ms())
            .await,
        Err(StoreError::Conflict(_))
    ));

    // Only the maker may cancel.
    assert!(
        store
            .cancel_challenge(&second.id, &Seat::User(taker.clone()))
            .await
            .is_err()
    );
    store
        .cancel_challenge(&second.id, &Seat::Guest(guest.id.clone()))
        .await
        .unwrap();
    assert_eq!(
        store.challenge(&second.id).await.unwrap().unwrap().status,
        ChallengeStatus::Cancelled
    );

    // Accepting makes the game; a second acceptance makes nothing.
    let game = game_between(Seat::User(taker.clone()), Seat::User(maker.clone()), true);
    let made = store
        .accept_challenge(&first.id, &game, now_ms())
        .await
        .unwrap();
    assert_eq!(made.status.as_str(), "playing");
    assert_eq!(made.first.username.as_deref(), Some("taker"));
    let accepted = store.challenge(&first.id).await.unwrap().unwrap();
    assert_eq!(accepted.status, ChallengeStatus::Accepted);
    assert_eq!(accepted.game_id.as_deref(), Some(made.id.as_str()));
    let late = store.accept_challenge(&first.id, &game, now_ms()).await;
    assert!(matches!(late, Err(StoreError::Conflict(_))), "{late:?}");
    assert!(
        store
            .open_challenges(10, now_ms())
            .await
            .unwrap()
            .is_empty()
    );
    let live = store.live_games().await.unwrap();
    assert_eq!(live.len(), 1, "the refused acceptance stored no game");
    server.stop().await;
}
both!(challenges, challenges_open_accept_cancel);

/// A live challenge lapses after 30 minutes, a correspondence one after a week; a
/// poster's live challenges can be withdrawn at once (they left the lobby), their
/// correspondence ones stay.
async fn challenges_lapse_and_leave_with_their_poster(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let store = &server.state.store;
    let poster = sign_up(&server, "poster").await;
    let seat = Seat::User(poster.clone());
    let new = |time_control: &str| NewChallenge {
        kind: GameKind::Copenhagen,
        time_control: time_control.into(),
        side: ChallengeSide::Random,
        rated: false,
        creator: seat.clone(),
        to_user_id: None,
    };
    let now = now_ms();
    let minute = 60 * 1000;
    let day = 24 * 60 * minute;
    let stale_live = store
        .create_challenge(&new("5+3"), now - 31 * minute)
        .await
        .unwrap();
    let fresh_live = store
        .create_challenge(&new("untimed"), now - 29 * minute)
        .await
        .unwrap();
    let old_mail = store
        .create_challenge(&new("3d"), now - 8 * day)
        .await
        .unwrap();
    let mail = store
        .create_challenge(&new("3d"), now - 2 * day)
        .await
        .unwrap();
    assert_eq!(stale_live.expires_at(), stale_live.created_at + 30 * minute);
    assert_eq!(mail.expires_at(), mail.created_at + 7 * day);
    let ids =
        |list: Vec<server::store::Challenge>| list.into_iter().map(|c| c.id).collect::<Vec<_>>();
    assert_eq!(
        ids(store.open_challenges(10, now).await.unwrap()),
        [fresh_live.id.clone(), mail.id.clone()]
    );
    assert_eq!(
        ids(store.open_challenges_of(&seat, now).await.unwrap()),
        [fresh_live.id.clone(), mail.id.clone()]
    );
    let mut expired = store.expire_challenges(now).await.unwrap();
    expired.sort();
    let mut want = vec![stale_live.id.clone(), old_mail.id.clone()];
    want.sort();
    assert_eq!(expired, want);
    assert_eq!(
        store.challenge(&old_mail.id).await.unwrap().unwrap().status,
        ChallengeStatus::Cancelled
    );
    assert!(store.expire_challenges(now).await.unwrap().is_empty());
    // The poster leaves: the live challenge goes, the correspondence one stays.
    assert_eq!(
        store.cancel_live_challenges_of(&seat).await.unwrap(),
        [fresh_live.id]
    );
    assert_eq!(
        ids(store.open_challenges(10, now).await.unwrap()),
        [mail.id]
    );
    server.stop().await;
}
both!(
    challenge_lifetimes,
    challenges_lapse_and_leave_with_their_poster
);

async fn simultaneous_finishes_lose_no_rating_update(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let store = server.state.store.clone();
    let star = sign_up(&server, "star").await;
    let mut games = Vec::new();
    for i in 0..6 {
        let rival = sign_up(&server, &format!("rival{i}")).await;
        let game = store
            .create_game(
                &game_between(Seat::User(star.clone()), Seat::User(rival), true),
                now_ms(),
            )
            .await
            .unwrap();
        games.push(game.id);
    }
    // All six end at once; each reads and writes the star's rating.
    let finishes = games.iter().map(|id| {
        let store = store.clone();
        let id = id.clone();
        tokio::spawn(async move {
            store
                .finish_game(
                    &id,
                    Outcome::win(Player::First, EndReason::KingCaptured),
                    None,
                    now_ms(),
                )
                .await
        })
    });
    for finish in finishes.collect::<Vec<_>>() {
        finish.await.unwrap().unwrap();
    }
    let ratings = store.ratings_of(&star).await.unwrap();
    assert_eq!(ratings.len(), 1);
    assert_eq!(ratings[0].games, 6, "every game counted once");
    assert_eq!(ratings[0].wins, 6);
    let history = store.rating_history(&star, 100).await.unwrap();
    assert_eq!(history.len(), 6);
    // Applied one after another, each from the rating the previous one left.
    let mut expected = server::ratings::Rating::default();
    for point in &history {
        assert!(
            point.rating > expected.rating,
            "six wins only go up: {history:?}"
        );
        expected.rating = point.rating;
    }
    assert!((ratings[0].rating.rating - history[5].rating).abs() < 1e-9);
    server.stop().await;
}
both!(
    concurrent_ratings,
    simultaneous_finishes_lose_no_rating_update
);
