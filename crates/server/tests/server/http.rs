//! The HTTP API against a real server on 127.0.0.1, each case on a real SQLite file and
//! on a real PostgreSQL (see `common`).

use crate::common;

use std::time::Duration;

use game::{EndReason, GameKind, Outcome, Player};
use reqwest::{Method, StatusCode};
use serde_json::json;
use server::ratings::{Rating, rate};
use server::store::{NewGame, Seat, StoredMove, now_ms};
use server::{Config, RateLimit};

use common::{Database, TestServer, rating_of, test_config};

async fn start(db: &Database) -> TestServer {
    TestServer::start(test_config(db)).await
}

async fn health_reports_database(db: Database) {
    let backend = db.url.backend().as_str();
    let server = start(&db).await;
    let reply = server.client().get("/health").await;
    assert_eq!(reply.status, StatusCode::OK);
    let json = reply.json();
    assert_eq!(json["status"], "ok");
    assert_eq!(json["database"], backend);
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    server.stop().await;
}
both!(health, health_reports_database);

async fn levels_list_their_ratings(db: Database) {
    let server = start(&db).await;
    let reply = server.client().get("/api/levels").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.headers.get("cache-control").unwrap(),
        "public, max-age=3600"
    );
    let json = reply.json();
    assert_eq!(json["anchor"], "greedy");
    assert_eq!(json["anchor_rating"], 1000);
    let levels = json["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 6);
    for (i, level) in levels.iter().enumerate() {
        assert_eq!(level["level"], i + 1);
        let parsed: engine::Level = level["name"].as_str().unwrap().parse().unwrap();
        assert_eq!(usize::from(parsed.number()), i + 1);
        for kind in GameKind::ALL {
            let rating = level["ratings"][kind.to_string()].as_u64().unwrap();
            assert_eq!(rating, u64::from(parsed.rating(kind)), "{kind} {level}");
        }
    }
    server.stop().await;
}
both!(levels, levels_list_their_ratings);

async fn sign_up_in_out(db: Database) {
    let server = start(&db).await;
    let mut alice = server.client();
    assert_eq!(alice.whoami().await["kind"], "anonymous");

    let reply = alice.sign_up("Alice", "correct horse").await;
    assert_eq!(reply.json()["user"]["name"], "Alice");
    let cookie = reply
        .set_cookie("kingstable_session")
        .expect("session cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "not configured secure: {cookie}"
    );
    // The cookie holds the token; the database holds only its hash.
    let token = alice.cookies["kingstable_session"].clone();
    assert!(!reply.text.contains(&token));
    let me = alice.whoami().await;
    assert_eq!(me["kind"], "user");
    assert_eq!(me["name"], "Alice");

    // Names are unique ignoring case.
    let mut other = server.client();
    let taken = other
        .post(
            "/api/account/signup",
            json!({"username": "alice", "password": "another one"}),
        )
        .await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    assert_eq!(taken.error_code(), "username_taken");

    let out = alice.post_empty("/api/account/signout").await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    assert_eq!(alice.whoami().await["kind"], "anonymous");
    // The old token no longer works even if a client kept it.
    alice.cookies.insert("kingstable_session".into(), token);
    assert_eq!(alice.whoami().await["kind"], "anonymous");
    alice.cookies.clear();

    let wrong = alice.sign_in("alice", "wrong horse").await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert_eq!(wrong.error_code(), "invalid_credentials");
    assert!(wrong.set_cookie("kingstable_session").is_none());
    let nobody = alice.sign_in("nobody", "correct horse").await;
    assert_eq!(nobody.status, StatusCode::UNAUTHORIZED);
    assert_eq!(nobody.error_code(), "invalid_credentials");
    assert_eq!(
        nobody.json()["error"]["message"],
        wrong.json()["error"]["message"]
    );

    let right = alice.sign_in("ALICE", "correct horse").await;
    assert_eq!(right.status, StatusCode::OK, "{}", right.text);
    assert_eq!(right.json()["user"]["name"], "Alice");
    assert_eq!(alice.whoami().await["name"], "Alice");
    server.stop().await;
}
both!(accounts, sign_up_in_out);

async fn sign_up_rules(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    for (username, password, code) in [
        ("ab", "long enough", "invalid_username"),
        ("9lives", "long enough", "invalid_username"),
        ("guest-x", "long enough", "invalid_username"),
        ("has space", "long enough", "invalid_username"),
        ("ragnar", "short", "invalid_password"),
        ("ragnar", "Ragnar", "invalid_password"),
    ] {
        let reply = client
            .post(
                "/api/account/signup",
                json!({"username": username, "password": password}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{username}");
        assert_eq!(reply.error_code(), code, "{username} {password}");
    }
    let missing = client
        .post("/api/account/signup", json!({"username": "ragnar"}))
        .await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    assert_eq!(missing.error_code(), "invalid_json");
    assert!(
        missing.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("password")
    );
    let extra = client
        .post(
            "/api/account/signup",
            json!({"username": "ragnar", "password": "long enough", "admin": true}),
        )
        .await;
    assert_eq!(extra.error_code(), "invalid_json");
    // Nothing was created by any of those.
    assert_eq!(
        client.get("/api/players/ragnar").await.status,
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}
both!(sign_up_validation, sign_up_rules);

async fn sign_out_everywhere_and_change_password(db: Database) {
    let server = start(&db).await;
    let mut laptop = server.client();
    laptop.sign_up("bjorn", "first password").await;
    let mut phone = server.client();
    assert_eq!(
        phone.sign_in("bjorn", "first password").await.status,
        StatusCode::OK
    );
    let mut tablet = server.client();
    assert_eq!(
        tablet.sign_in("bjorn", "first password").await.status,
        StatusCode::OK
    );

    // Changing the password needs the current one…
    let refused = laptop
        .post(
            "/api/account/password",
            json!({"current_password": "not it at all", "new_password": "second password"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.error_code(), "invalid_credentials");
    let too_short = laptop
        .post(
            "/api/account/password",
            json!({"current_password": "first password", "new_password": "short"}),
        )
        .await;
    assert_eq!(too_short.error_code(), "invalid_password");
    // …and ends every other sign-in but keeps this one.
    let changed = laptop
        .post(
            "/api/account/password",
            json!({"current_password": "first password", "new_password": "second password"}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::NO_CONTENT, "{}", changed.text);
    assert_eq!(laptop.whoami().await["kind"], "user");
    assert_eq!(phone.whoami().await["kind"], "anonymous");
    let mut fresh = server.client();
    assert_eq!(
        fresh.sign_in("bjorn", "first password").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        phone.sign_in("bjorn", "second password").await.status,
        StatusCode::OK
    );

    let everywhere = phone.post_empty("/api/account/signout-everywhere").await;
    assert_eq!(everywhere.status, StatusCode::OK);
    assert_eq!(everywhere.json()["sessions_ended"], 2);
    assert_eq!(laptop.whoami().await["kind"], "anonymous");
    assert_eq!(phone.whoami().await["kind"], "anonymous");
    assert_eq!(tablet.whoami().await["kind"], "anonymous");

    let not_signed_in = phone.post_empty("/api/account/signout-everywhere").await;
    assert_eq!(not_signed_in.status, StatusCode::UNAUTHORIZED);
    assert_eq!(not_signed_in.error_code(), "not_signed_in");
    server.stop().await;
}
both!(sessions, sign_out_everywhere_and_change_password);

async fn guest_cookie_and_adoption(db: Database) {
    let server = start(&db).await;
    let mut visitor = server.client();
    let created = visitor.post_empty("/api/guest").await;
    assert_eq!(created.status, StatusCode::CREATED);
    let name = created.json()["name"].as_str().unwrap().to_owned();
    assert!(name.starts_with("Guest-"), "{name}");
    let cookie = created
        .set_cookie("kingstable_guest")
        .expect("guest cookie");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"));
    assert_eq!(
        visitor.whoami().await,
        json!({"kind": "guest", "name": name})
    );
    // Asking again keeps the same guest.
    let again = visitor.post_empty("/api/guest").await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.json()["name"], name.as_str());
    // A made-up token is nobody.
    let mut forger = server.client();
    forger
        .cookies
        .insert("kingstable_guest".into(), "made-up-token".into());
    assert_eq!(forger.whoami().await["kind"], "anonymous");

    // The guest plays a game (the live layer will create it; the store does here)…
    let store = &server.state.store;
    let guest = store
        .guest_by_token(&server::auth::token_hash(
            &visitor.cookies["kingstable_guest"],
        ))
        .await
        .unwrap()
        .expect("guest stored");
    let game = store
        .create_game(
            &NewGame {
                kind: GameKind::Copenhagen,
                first: Seat::Guest(guest.id.clone()),
                second: Seat::Ai(3),
                time_control: "5+3".into(),
                rated: false,
                start_position: "start".into(),
                session_state: None,
            },
            now_ms(),
        )
        .await
        .unwrap();
    // …then signs up, and keeps it.
    let signed_up = visitor.sign_up("Ingrid", "shieldmaiden").await;
    assert_eq!(signed_up.json()["adopted_guest"], name.as_str());
    assert!(
        !visitor.cookies.contains_key("kingstable_guest"),
        "guest cookie cleared"
    );
    assert_eq!(visitor.whoami().await["name"], "Ingrid");
    let profile = visitor.get("/api/players/ingrid").await.json();
    assert_eq!(profile["recent_games"][0]["id"], game.id.as_str());
    assert_eq!(
        profile["recent_games"][0]["first"],
        json!({"type": "user", "name": "Ingrid"})
    );
    assert_eq!(
        profile["recent_games"][0]["second"],
        json!({"type": "ai", "level": 3})
    );
    server.stop().await;
}
both!(guests, guest_cookie_and_adoption);

async fn cross_origin_requests_are_refused(db: Database) {
    let server = start(&db).await;
    let mut victim = server.client();
    victim.sign_up("victim", "long password").await;

    // Another site's page posting with the victim's cookies.
    victim.origin = Some("http://evil.example".into());
    let forged = victim.post_empty("/api/account/signout-everywhere").await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert_eq!(forged.error_code(), "cross_origin");
    // No Origin at all but cookies: refused too.
    victim.origin = None;
    let bare = victim.post_empty("/api/account/signout").await;
    assert_eq!(bare.error_code(), "cross_origin");
    // Nothing changed: still signed in.
    victim.origin = Some(server.base.clone());
    assert_eq!(victim.whoami().await["kind"], "user");
    // GET is not state-changing and is not checked.
    victim.origin = Some("http://evil.example".into());
    assert_eq!(victim.get("/api/whoami").await.status, StatusCode::OK);

    // A cross-origin sign-up creates nothing.
    let mut attacker = server.client();
    attacker.origin = Some("http://evil.example".into());
    let refused = attacker
        .post(
            "/api/account/signup",
            json!({"username": "planted", "password": "long password"}),
        )
        .await;
    assert_eq!(refused.error_code(), "cross_origin");
    assert_eq!(
        attacker.get("/api/players/planted").await.status,
        StatusCode::NOT_FOUND
    );
    // A client with no cookies and no Origin (a script, curl) may sign up.
    attacker.origin = None;
    let script = attacker
        .post(
            "/api/account/signup",
            json!({"username": "scripted", "password": "long password"}),
        )
        .await;
    assert_eq!(script.status, StatusCode::CREATED, "{}", script.text);
    server.stop().await;
}
both!(csrf, cross_origin_requests_are_refused);

async fn bad_requests_get_json_errors(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    let huge = json!({"username": "x".repeat(200_000), "password": "long password"});
    let reply = client.post("/api/account/signup", huge).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.error_code(), "body_too_large");
    // The server closes a connection whose body it refused unread: a new client, so
    // that the next request does not race that close on a pooled connection.
    let mut client = server.client();

    let form = client
        .request(
            Method::POST,
            "/api/account/signin",
            Some((
                "application/x-www-form-urlencoded",
                b"username=a&password=b".to_vec(),
            )),
        )
        .await;
    assert_eq!(form.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(form.error_code(), "unsupported_media_type");

    for garbage in [
        &b"{"[..],
        b"[1,2",
        b"\xff\xfe\x00",
        b"null",
        b"{\"username\": 5}",
    ] {
        let reply = client
            .request(
                Method::POST,
                "/api/account/signin",
                Some(("application/json", garbage.to_vec())),
            )
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{garbage:?}");
        assert_eq!(reply.error_code(), "invalid_json");
    }

    let unknown = client.get("/api/no/such/thing").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.error_code(), "not_found");
    let wrong_method = client.get("/api/account/signin").await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(wrong_method.error_code(), "method_not_allowed");
    let put_file = client.request(Method::PUT, "/index.html", None).await;
    assert_eq!(put_file.error_code(), "method_not_allowed");
    let no_player = client.get("/api/players/%FF%FE").await;
    assert!(
        no_player.status == StatusCode::BAD_REQUEST || no_player.status == StatusCode::NOT_FOUND
    );
    assert!(!no_player.error_code().is_empty());

    // After all that the server is still up.
    assert_eq!(client.get("/health").await.status, StatusCode::OK);
    server.stop().await;
}
both!(bad_requests, bad_requests_get_json_errors);

async fn sign_in_and_sign_up_are_rate_limited(db: Database) {
    let mut config = test_config(&db);
    config.limits.sign_in = RateLimit::new(3, Duration::from_secs(3600));
    config.limits.sign_up = RateLimit::new(2, Duration::from_secs(3600));
    config.limits.guest = RateLimit::new(1, Duration::from_secs(3600));
    let server = TestServer::start(config).await;
    let mut client = server.client();
    client.sign_up("target", "long password").await;
    client.post_empty("/api/account/signout").await;
    for _ in 0..3 {
        let reply = client.sign_in("target", "wrong password").await;
        assert_eq!(reply.error_code(), "invalid_credentials");
    }
    // The fourth attempt is refused before the password is even checked: the right
    // password does not get through either.
    let limited = client.sign_in("target", "long password").await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.error_code(), "rate_limited");
    let wait: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait > 1000, "retry after {wait} s");
    assert_eq!(client.whoami().await["kind"], "anonymous");

    client.sign_up("second", "long password").await;
    let third = client
        .post(
            "/api/account/signup",
            json!({"username": "third", "password": "long password"}),
        )
        .await;
    assert_eq!(third.error_code(), "rate_limited");

    let mut visitor = server.client();
    assert_eq!(
        visitor.post_empty("/api/guest").await.status,
        StatusCode::CREATED
    );
    let mut visitor2 = server.client();
    assert_eq!(
        visitor2.post_empty("/api/guest").await.error_code(),
        "rate_limited"
    );
    server.stop().await;
}
both!(rate_limits, sign_in_and_sign_up_are_rate_limited);

async fn sign_in_per_account_limit(db: Database) {
    let mut config = test_config(&db);
    config.limits.sign_in_account = RateLimit::new(2, Duration::from_secs(3600));
    let server = TestServer::start(config).await;
    let mut client = server.client();
    client.sign_up("guarded", "long password").await;
    assert_eq!(
        client.sign_in("guarded", "nope nope").await.error_code(),
        "invalid_credentials"
    );
    assert_eq!(
        client.sign_in("GUARDED", "nope nope").await.error_code(),
        "invalid_credentials"
    );
    assert_eq!(
        client
            .sign_in("Guarded", "long password")
            .await
            .error_code(),
        "rate_limited"
    );
    // Other accounts are not affected.
    client.sign_up("other", "long password").await;
    assert_eq!(
        client.sign_in("other", "long password").await.status,
        StatusCode::OK
    );
    server.stop().await;
}
both!(rate_limit_per_account, sign_in_per_account_limit);

async fn metrics_in_prometheus_format(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    server.state.metrics.live_games.set(2);
    server.state.metrics.sockets.set(5);
    server.state.metrics.ai_queue.set(1);
    for _ in 0..3 {
        server.state.metrics.move_played();
    }
    let reply = client.get("/metrics").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(
        reply.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    for line in [
        "kingstable_live_games 2",
        "kingstable_sockets 5",
        "kingstable_ai_queue_length 1",
        "kingstable_moves_total 3",
        "kingstable_moves_per_second 0.05",
        "# TYPE kingstable_moves_total counter",
    ] {
        assert!(
            reply.text.contains(line),
            "{line} missing from\n{}",
            reply.text
        );
    }
    assert!(
        reply
            .text
            .contains("kingstable_http_responses_total{class=\"4xx\"} 0")
    );
    // The first scrape's own response is counted by the next one.
    let again = client.get("/metrics").await;
    assert!(
        again
            .text
            .contains("kingstable_http_responses_total{class=\"2xx\"} 1")
    );
    // Request durations by route pattern: two games' ids under one label, every page of
    // the web client and unknown path under another.
    for path in [
        "/api/games/nosuchgame",
        "/api/games/another",
        "/some/page",
        "/x.js",
    ] {
        client.get(path).await;
    }
    let third = client.get("/metrics").await.text;
    for line in [
        "# TYPE kingstable_http_request_duration_seconds histogram",
        "kingstable_http_request_duration_seconds_count{method=\"GET\",route=\"/api/games/{id}\"} 2",
        "kingstable_http_request_duration_seconds_count{method=\"GET\",route=\"(web)\"} 2",
        "kingstable_http_request_duration_seconds_count{method=\"GET\",route=\"/metrics\"} 2",
        "kingstable_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/games/{id}\",le=\"+Inf\"} 2",
        "# TYPE kingstable_game_message_duration_seconds histogram",
    ] {
        assert!(third.contains(line), "{line} missing from\n{third}");
    }
    assert!(!third.contains("nosuchgame") && !third.contains("/some/page"));
    server.stop().await;
}
both!(metrics, metrics_in_prometheus_format);

async fn user_id(server: &TestServer, name: &str) -> String {
    server
        .state
        .store
        .user_by_name(name)
        .await
        .unwrap()
        .expect("user")
        .id
}

fn close(a: Rating, b: Rating) -> bool {
    (a.rating - b.rating).abs() < 1e-9
        && (a.deviation - b.deviation).abs() < 1e-9
        && (a.volatility - b.volatility).abs() < 1e-12
}

async fn rated_game_changes_both_ratings(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    client.sign_up("attacker", "long password").await;
    client.sign_up("defender", "long password").await;
    let (a, d) = (
        user_id(&server, "attacker").await,
        user_id(&server, "defender").await,
    );
    let store = &server.state.store;
    let new_game = |rated| NewGame {
        kind: GameKind::Copenhagen,
        first: Seat::User(a.clone()),
        second: Seat::User(d.clone()),
        time_control: "10+5".into(),
        rated,
        start_position: "start".into(),
        session_state: Some("{\"v\":1}".into()),
    };

    // A rated game the defenders win by corner escape.
    let game = store.create_game(&new_game(true), now_ms()).await.unwrap();
    let outcome = Outcome::win(Player::Second, EndReason::CornerEscape);
    let finished = store
        .finish_game(&game.id, outcome, None, now_ms())
        .await
        .unwrap();
    let (want_a, want_d) = rate(Rating::default(), Rating::default(), Some(Player::Second));
    let changes = finished.rating_changes.expect("rated between users");
    assert!(close(changes[0].after, want_a) && close(changes[1].after, want_d));

    let pa = client.get("/api/players/attacker").await.json();
    let pd = client.get("/api/players/defender").await.json();
    assert!(close(rating_of(&pa, "copenhagen"), want_a), "{pa}");
    assert!(close(rating_of(&pd, "copenhagen"), want_d), "{pd}");
    assert!(want_d.rating > 1500.0 && want_a.rating < 1500.0);
    assert_eq!(pd["ratings"][0]["wins"], 1);
    assert_eq!(pa["ratings"][0]["losses"], 1);
    assert_eq!(pd["ratings"][0]["provisional"], true);
    assert_eq!(pa["rating_history"].as_array().unwrap().len(), 1);
    assert_eq!(pa["rating_history"][0]["game_id"], game.id.as_str());
    assert_eq!(
        pa["opponents"],
        json!([{"opponent": {"type": "user", "name": "defender"}, "games": 1, "wins": 0, "losses": 1, "draws": 0}])
    );
    assert_eq!(pd["recent_games"][0]["result"], "second");
    assert_eq!(pd["recent_games"][0]["reason"], "corner_escape");
    assert_eq!(pd["recent_games"][0]["status"], "finished");

    // Finishing it again changes nothing.
    let again = store
        .finish_game(
            &game.id,
            Outcome::win(Player::First, EndReason::KingCaptured),
            None,
            now_ms(),
        )
        .await;
    assert!(
        matches!(again, Err(server::store::StoreError::Conflict(_))),
        "{again:?}"
    );
    let pa2 = client.get("/api/players/attacker").await.json();
    assert!(close(rating_of(&pa2, "copenhagen"), want_a));

    // A second rated game (a draw) starts from the stored ratings.
    let second = store.create_game(&new_game(true), now_ms()).await.unwrap();
    let drawn = store
        .finish_game(
            &second.id,
            Outcome::draw(EndReason::Repetition),
            None,
            now_ms(),
        )
        .await
        .unwrap();
    let (want_a2, want_d2) = rate(want_a, want_d, None);
    let changes = drawn.rating_changes.unwrap();
    assert!(close(changes[0].before, want_a) && close(changes[0].after, want_a2));
    assert!(close(changes[1].after, want_d2));
    let pa3 = client.get("/api/players/attacker").await.json();
    assert_eq!(pa3["ratings"][0]["games"], 2);
    assert_eq!(pa3["ratings"][0]["draws"], 1);
    assert_eq!(pa3["rating_history"].as_array().unwrap().len(), 2);

    // An unrated game changes no rating, but counts in the record against opponents.
    let casual = store.create_game(&new_game(false), now_ms()).await.unwrap();
    let unrated = store
        .finish_game(
            &casual.id,
            Outcome::win(Player::First, EndReason::KingCaptured),
            None,
            now_ms(),
        )
        .await
        .unwrap();
    assert!(unrated.rating_changes.is_none());
    let pa4 = client.get("/api/players/attacker").await.json();
    assert!(close(rating_of(&pa4, "copenhagen"), want_a2));
    assert_eq!(pa4["opponents"][0]["games"], 3);
    assert_eq!(pa4["opponents"][0]["wins"], 1);
    assert_eq!(pa4["opponents"][0]["losses"], 1);
    assert_eq!(pa4["opponents"][0]["draws"], 1);
    server.stop().await;
}
both!(ratings, rated_game_changes_both_ratings);

async fn moves_and_state_survive_a_restart(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    client.sign_up("north", "long password").await;
    let north = user_id(&server, "north").await;
    let store = server.state.store.clone();
    let game = store
        .create_game(
            &NewGame {
                kind: GameKind::Camelot,
                first: Seat::User(north.clone()),
                second: Seat::Open,
                time_control: "3d".into(),
                rated: false,
                start_position: "camelot start".into(),
                session_state: Some("{\"revision\":0}".into()),
            },
            now_ms(),
        )
        .await
        .unwrap();
    assert_eq!(game.status.as_str(), "waiting");
    let mv = |ply: u32, text: &str| StoredMove {
        ply,
        text: text.into(),
        first_clock_ms: Some(259_200_000),
        second_clock_ms: Some(259_200_000 - i64::from(ply)),
        played_at: 1_700_000_000_000 + i64::from(ply),
    };
    // No moves before both seats are taken.
    assert!(
        store
            .append_move(&game.id, &mv(1, "F2-F4"), 0, || "{}".to_owned())
            .await
            .is_err()
    );
    let seated = store
        .take_seat(&game.id, Player::Second, &Seat::Ai(6), None, now_ms())
        .await
        .unwrap();
    assert_eq!(seated.status.as_str(), "playing");
    assert!(
        store
            .take_seat(&game.id, Player::Second, &Seat::Ai(1), None, now_ms())
            .await
            .is_err()
    );
    store
        .append_move(&game.id, &mv(1, "F2-F4"), 0, || {
            "{\"revision\":1}".to_owned()
        })
        .await
        .unwrap();
    store
        .append_move(&game.id, &mv(2, "F15-F13"), 0, || {
            "{\"revision\":2}".to_owned()
        })
        .await
        .unwrap();
    // A ply out of order is refused and changes nothing.
    assert!(
        store
            .append_move(&game.id, &mv(2, "G2-G4"), 0, || "{\"revision\":9}"
                .to_owned())
            .await
            .is_err()
    );
    assert!(
        store
            .append_move(&game.id, &mv(4, "G2-G4"), 0, || "{\"revision\":9}"
                .to_owned())
            .await
            .is_err()
    );
    store
        .append_move(&game.id, &mv(3, "G2-G4"), 0, || {
            "{\"revision\":3}".to_owned()
        })
        .await
        .unwrap();
    store
        .take_back(&game.id, 2, "{\"revision\":4}", now_ms())
        .await
        .unwrap();
    server.stop().await;

    // A new server on the same database finds the game as it was, and takes it back
    // (at its start, which runs beside this test: wait for it).
    let server = start(&db).await;
    let store = &server.state.store;
    let me = Some(Some(store.owner().token().to_owned()));
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while store.game_owner(&game.id).await.unwrap() != me {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the new server owns the game"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let live = store.live_games().await.unwrap();
    assert_eq!(live.len(), 1);
    let (restored, state) = &live[0];
    assert_eq!(restored.id, game.id);
    assert_eq!(restored.plies, 2);
    assert_eq!(restored.first.username.as_deref(), Some("north"));
    assert_eq!(restored.second.ai_level, Some(6));
    // The takeback stored the session whole at the kept ply: nothing to replay.
    let state = state.as_ref().unwrap();
    assert_eq!(state.snapshot, "{\"revision\":4}");
    assert_eq!(state.snapshot_ply, 2);
    assert!(state.moves_after.is_empty());
    let moves = store.moves(&game.id).await.unwrap();
    assert_eq!(moves, vec![mv(1, "F2-F4"), mv(2, "F15-F13")]);
    store.abort_game(&game.id, None, now_ms()).await.unwrap();
    assert!(store.live_games().await.unwrap().is_empty());
    assert!(store.abort_game(&game.id, None, now_ms()).await.is_err());
    server.stop().await;
}
both!(restart, moves_and_state_survive_a_restart);

async fn web_client_is_served(db: Database) {
    let server = start(&db).await;
    let mut client = server.client();
    let index = client.get("/").await;
    assert_eq!(index.status, StatusCode::OK);
    assert!(
        index.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(index.text.contains("<title>Kingstable"));
    let csp = index.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert_eq!(index.headers["x-content-type-options"], "nosniff");
    let script = client.get("/js/api.js").await;
    assert!(
        script.headers["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    assert!(script.text.contains("/api/whoami"));
    // A client-side route gets the page; a missing file is a JSON 404.
    let route = client.get("/game/abc123").await;
    assert_eq!(route.status, StatusCode::OK);
    assert_eq!(route.text, index.text);
    let missing = client.get("/missing.js").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.error_code(), "not_found");
    let sneaky = client.get("/../Cargo.toml").await;
    assert_ne!(sneaky.status, StatusCode::OK);
    // Revalidation with the ETag is a 304.
    let etag = index.headers["etag"].to_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    let cached = http
        .get(format!("{}/", server.base))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
    server.stop().await;
}
both!(web, web_client_is_served);

async fn files_are_compressed_and_revalidated(db: Database) {
    use std::io::Read as _;
    let server = start(&db).await;
    // The files compressed once at their best (the server does it at start).
    server::web::precompress();
    let http = reqwest::Client::new();
    let fetch = |path: &str, encoding: &str| {
        http.get(format!("{}{path}", server.base))
            .header("accept-encoding", encoding)
            .send()
    };
    for path in ["/", "/js/board.js", "/css/app.css"] {
        let plain = fetch(path, "identity").await.unwrap();
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain = plain.bytes().await.unwrap();
        let gzip = fetch(path, "gzip").await.unwrap();
        assert_eq!(gzip.headers()["content-encoding"], "gzip", "{path}");
        assert!(
            gzip.headers()["vary"]
                .to_str()
                .unwrap()
                .to_ascii_lowercase()
                .contains("accept-encoding")
        );
        let gzip = gzip.bytes().await.unwrap();
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&gzip[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, plain, "{path}: gzip gives back the file");
        let brotli = fetch(path, "br, gzip").await.unwrap();
        assert_eq!(brotli.headers()["content-encoding"], "br", "{path}");
        let brotli = brotli.bytes().await.unwrap();
        assert!(
            brotli.len() * 2 < plain.len(),
            "{path}: {} bytes compressed from {}",
            brotli.len(),
            plain.len()
        );
        let mut unpacked = Vec::new();
        brotli::BrotliDecompress(&mut &brotli[..], &mut unpacked).unwrap();
        assert_eq!(unpacked, plain, "{path}: brotli gives back the file");
        // Brotli at its best beats gzip (on the fly, brotli's fast level did not).
        assert!(
            brotli.len() < gzip.len(),
            "{path}: {} against {}",
            brotli.len(),
            gzip.len()
        );
    }
    // JSON answers are compressed too; the ETag of a file holds whatever the encoding,
    // so a compressed copy in the browser's cache revalidates to a 304.
    let json = fetch("/api/archive", "gzip").await.unwrap();
    assert_eq!(json.status(), StatusCode::OK);
    let first = fetch("/js/board.js", "br").await.unwrap();
    let tag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(tag.starts_with("W/"), "{tag}");
    let again = http
        .get(format!("{}/js/board.js", server.base))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &tag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()["cache-control"], "no-cache");
    server.stop().await;
}
both!(compression, files_are_compressed_and_revalidated);

#[tokio::test]
async fn secure_cookies_when_configured() {
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let server = TestServer::start(Config {
        secure_cookies: true,
        ..test_config(&db)
    })
    .await;
    let mut client = server.client();
    let reply = client.post_empty("/api/guest").await;
    assert!(
        reply
            .set_cookie("kingstable_guest")
            .unwrap()
            .contains("Secure")
    );
    server.stop().await;
}

async fn garbage_on_the_socket_does_not_hurt(db: Database) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start(&db).await;
    for junk in [
        b"\x00\x01\x02\xff\xfe not http at all\r\n\r\n".to_vec(),
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ".iter().copied().chain(std::iter::repeat_n(b'a', 200_000)).chain(*b"\r\n\r\n").collect(),
        b"POST /api/account/signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{".to_vec(),
        b"GET /%%%%/../\xc3\x28 HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
    ] {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let _ = stream.write_all(&junk).await;
        let _ = stream.shutdown().await;
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
        let text = String::from_utf8_lossy(&answer);
        assert!(!text.contains("panicked"), "{text}");
    }
    assert_eq!(server.client().get("/health").await.status, StatusCode::OK);
    server.stop().await;
}
both!(garbage, garbage_on_the_socket_does_not_hurt);
