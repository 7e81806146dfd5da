//! Accounts and input (issue 19, item 7), each case on SQLite and on PostgreSQL: the
//! sign-in limiter never refuses the owner's right password from another address;
//! ending sign-ins closes their sockets; the adopted guest's token stops working; guests
//! cannot sit in rated games; control characters are refused with 400; imported names
//! are cleaned; the Origin check ignores `Host`; a damaged SQLite file is refused.

use crate::common;

use std::time::Duration;

use futures_util::StreamExt;
use game::{EndReason, GameKind, Outcome, Player};
use games::AnyGame;
use games::record;
use reqwest::StatusCode;
use serde_json::json;
use server::RateLimit;
use server::store::Store;

use common::{Client, Database, TestServer, test_config};

/// A sign-in from `address` (the server trusts `X-Forwarded-For` in these tests).
async fn sign_in_from(
    server: &TestServer,
    address: &str,
    name: &str,
    password: &str,
) -> (StatusCode, String) {
    let reply = reqwest::Client::new()
        .post(format!("{}/api/account/signin", server.base))
        .header("origin", &server.base)
        .header("x-forwarded-for", address)
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
        .unwrap();
    let status = reply.status();
    let body: serde_json::Value = reply.json().await.unwrap();
    let code = body["error"]["code"].as_str().unwrap_or("").to_owned();
    (status, code)
}

async fn wrong_guesses_never_lock_the_owner_out(db: Database) {
    let mut config = test_config(&db);
    config.trust_proxy = true;
    config.limits.sign_in = RateLimit::new(100, Duration::from_millis(10));
    config.limits.sign_in_account = RateLimit::new(3, Duration::from_secs(3600));
    let server = TestServer::start(config).await;
    server.client().sign_up("owner", "long password").await;

    // Someone guesses from one address until refused.
    let mut codes = Vec::new();
    for _ in 0..5 {
        codes.push(
            sign_in_from(&server, "203.0.113.7", "owner", "guess guess")
                .await
                .1,
        );
    }
    assert_eq!(
        codes,
        [
            "invalid_credentials",
            "invalid_credentials",
            "invalid_credentials",
            "rate_limited",
            "rate_limited"
        ]
    );
    // Even the right password is refused there now (that address spent its guesses)…
    let there = sign_in_from(&server, "203.0.113.7", "OWNER", "long password").await;
    assert_eq!(
        there,
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited".into())
    );
    // …and guesses from many more addresses change nothing for the owner at home.
    for i in 1..=10 {
        let address = format!("198.51.100.{i}");
        for _ in 0..3 {
            let guess = sign_in_from(&server, &address, "owner", "wrong wrong").await;
            assert_eq!(guess.1, "invalid_credentials");
        }
    }
    let home = sign_in_from(&server, "192.0.2.1", "owner", "long password").await;
    assert_eq!(home.0, StatusCode::OK, "{home:?}");
    // The owner's own typo at home is one wrong guess, not a lock-out.
    let typo = sign_in_from(&server, "192.0.2.1", "owner", "long passwort").await;
    assert_eq!(typo.1, "invalid_credentials");
    let again = sign_in_from(&server, "192.0.2.1", "owner", "long password").await;
    assert_eq!(again.0, StatusCode::OK);
    server.stop().await;
}
both!(sign_in_limiter, wrong_guesses_never_lock_the_owner_out);

use common::ws::{Stream, closes};

async fn open_socket(server: &TestServer, client: &Client, path: &str) -> Stream {
    common::ws::connect(server, client, path).await
}

/// Whether `socket` stays open: it answers a ping.
async fn answers(socket: &mut Stream) -> bool {
    use futures_util::SinkExt;
    let sent = socket
        .send(tokio_tungstenite::tungstenite::Message::Text(
            r#"{"t":"ping"}"#.into(),
        ))
        .await;
    if sent.is_err() {
        return false;
    }
    let answer = async {
        loop {
            match socket.next().await {
                Some(Ok(message)) if message.is_text() => {
                    if message.to_text().unwrap().contains("pong") {
                        return true;
                    }
                }
                Some(Ok(message)) if message.is_close() => return false,
                Some(Ok(_)) => {}
                None | Some(Err(_)) => return false,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .unwrap_or(false)
}

async fn ending_sign_ins_closes_their_sockets(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut laptop = server.client();
    laptop.sign_up("sigrid", "long password").await;
    let mut phone = server.client();
    assert_eq!(
        phone.sign_in("sigrid", "long password").await.status,
        StatusCode::OK
    );
    let created = laptop
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "first", "time_control": "5+3"}),
        )
        .await;
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut bystander = server.client();
    bystander.sign_up("bystander", "long password").await;

    // A password change on the phone closes the laptop's sockets, not the phone's own.
    let mut laptop_game = open_socket(&server, &laptop, &format!("/ws/game/{id}")).await;
    let mut laptop_lobby = open_socket(&server, &laptop, "/ws/lobby").await;
    let mut laptop_analysis = open_socket(&server, &laptop, "/ws/analysis").await;
    let mut phone_game = open_socket(&server, &phone, &format!("/ws/game/{id}")).await;
    let mut others = open_socket(&server, &bystander, &format!("/ws/game/{id}")).await;
    let changed = phone
        .post(
            "/api/account/password",
            json!({"current_password": "long password", "new_password": "longer password"}),
        )
        .await;
    assert_eq!(changed.status, StatusCode::NO_CONTENT, "{}", changed.text);
    assert!(closes(&mut laptop_game).await, "game socket");
    assert!(closes(&mut laptop_lobby).await, "lobby socket");
    assert!(closes(&mut laptop_analysis).await, "analysis socket");
    assert!(
        answers(&mut phone_game).await,
        "the phone's own socket stays"
    );
    assert!(answers(&mut others).await, "another account's socket stays");

    // Signing out everywhere closes the phone's sockets too.
    let mut phone_lobby = open_socket(&server, &phone, "/ws/lobby").await;
    let ended = phone.post_empty("/api/account/signout-everywhere").await;
    assert_eq!(ended.status, StatusCode::OK);
    assert!(closes(&mut phone_game).await);
    assert!(closes(&mut phone_lobby).await);
    assert!(answers(&mut others).await);
    server.stop().await;
}
both!(sockets_closed, ending_sign_ins_closes_their_sockets);

async fn the_adopted_guest_token_stops_working(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut visitor = server.client();
    assert_eq!(
        visitor.post_empty("/api/guest").await.status,
        StatusCode::CREATED
    );
    let old_cookie = visitor.cookies["kingstable_guest"].clone();
    let signed_up = visitor.sign_up("astrid", "long password").await;
    assert!(signed_up.json()["adopted_guest"].is_string());
    assert!(!visitor.cookies.contains_key("kingstable_guest"));
    // A copy of the old cookie is nobody now.
    let mut copy = server.client();
    copy.cookies.insert("kingstable_guest".into(), old_cookie);
    assert_eq!(copy.whoami().await["kind"], "anonymous");
    server.stop().await;
}
both!(guest_token_replaced, the_adopted_guest_token_stops_working);

async fn guests_cannot_sit_in_rated_games(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut host = server.client();
    host.sign_up("hostess", "long password").await;
    let created = host
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first",
                   "time_control": "5+3", "rated": true}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    // An anonymous visitor and a guest are refused, and no guest is made for them.
    let mut anonymous = server.client();
    let reply = anonymous.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(reply.error_code(), "not_signed_in");
    assert!(anonymous.cookies.is_empty());
    let mut guest = server.client();
    guest.post_empty("/api/guest").await;
    let reply = guest.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.error_code(), "not_signed_in");
    // A user may.
    let mut user = server.client();
    user.sign_up("visitor", "long password").await;
    let reply = user.post_empty(&format!("/api/games/{id}/join")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    server.stop().await;
}
both!(rated_seats, guests_cannot_sit_in_rated_games);

async fn control_characters_are_refused_with_400(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    for (path, body) in [
        (
            "/api/account/signup",
            json!({"username": "a\u{0}b", "password": "long password"}),
        ),
        (
            "/api/account/signin",
            json!({"username": "nul\u{0}", "password": "long password"}),
        ),
        (
            "/api/account/signin",
            json!({"username": "ragnar", "password": "pass\u{0}word!"}),
        ),
        (
            "/api/account/signup",
            json!({"username": "esc\u{1b}", "password": "long password"}),
        ),
        (
            "/api/import",
            json!({"kind": "copenhagen", "record": "[Attackers \"x\u{0}\"]\n"}),
        ),
        (
            "/api/position",
            json!({"kind": "copenhagen", "position": "\u{0}"}),
        ),
    ] {
        let reply = client.post(path, body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{path} {body}: {}",
            reply.text
        );
        assert_eq!(reply.error_code(), "bad_request");
        assert!(reply.text.contains("control character"), "{}", reply.text);
    }
    for path in [
        "/api/players/rag%00nar",
        "/api/games/abc%00def",
        "/api/archive?player=x%00y",
        "/api/games?status=live%0A",
    ] {
        let reply = client.get(path).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{path}: {}",
            reply.text
        );
        assert_eq!(reply.error_code(), "bad_request");
    }
    let reply = client
        .request(
            reqwest::Method::POST,
            "/api/import?kind=copenhagen",
            Some(("text/plain", b"d1-d3\0 ---\n".to_vec())),
        )
        .await;
    assert_eq!(reply.error_code(), "bad_request");
    // Line breaks and tabs in a record are fine; nothing was stored by the refusals.
    let signed_up = client.sign_up("clean", "long password").await;
    assert_eq!(signed_up.status, StatusCode::CREATED);
    assert_eq!(
        server.state.store.user_by_name("esc\u{1b}").await.unwrap(),
        None
    );
    assert_eq!(
        client.get("/api/archive").await.json()["games"]
            .as_array()
            .map(Vec::len),
        Some(0)
    );
    server.stop().await;
}
both!(control_characters, control_characters_are_refused_with_400);

async fn imported_names_are_cleaned(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    let mut camelot = AnyGame::start(GameKind::Camelot);
    let first = camelot.legal_moves_info()[0].text.clone();
    camelot.try_play(&first).unwrap();
    let score = record::write(
        &camelot,
        &[
            ("White".into(), "Dan \u{202E}akyorT".into()),
            (
                "Black".into(),
                "\u{2066}Michael\u{2069}   Nolan\u{200F}".into(),
            ),
        ],
        Some(Outcome::win(Player::First, EndReason::Resignation)),
    );
    let reply = client
        .post("/api/import", json!({"kind": "camelot", "record": score}))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
    let id = reply.json()["id"].as_str().unwrap().to_owned();
    let game = client.get(&format!("/api/archive/{id}")).await.json();
    assert_eq!(
        game["names"],
        json!({"first": "Dan akyorT", "second": "Michael Nolan"})
    );
    let download = client.get(&format!("/api/games/{id}/record")).await;
    assert!(!download.text.contains('\u{202E}'), "{}", download.text);
    server.stop().await;
}
both!(imported_names, imported_names_are_cleaned);

async fn the_origin_check_ignores_the_host_header(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    client.sign_up("hostcheck", "long password").await;
    let cookie: Vec<String> = client
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let http = reqwest::Client::new();
    // A page on another site posts with the user's cookie; the request names that site
    // as its host too (a DNS-rebinding page does). Refused: the server's own origin is
    // its listen address.
    let forged = http
        .post(format!("{}/api/account/signout-everywhere", server.base))
        .header("host", "evil.example")
        .header("origin", "http://evil.example")
        .header("cookie", cookie.join("; "))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let body: serde_json::Value = forged.json().await.unwrap();
    assert_eq!(body["error"]["code"], "cross_origin");
    assert_eq!(client.whoami().await["kind"], "user", "still signed in");
    // The same from the server's own address (or `localhost` on its port) is accepted.
    let port = server.addr.port();
    let own = http
        .post(format!("{}/api/account/signout", server.base))
        .header("origin", format!("http://localhost:{port}"))
        .header("cookie", cookie.join("; "))
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), StatusCode::NO_CONTENT);
    server.stop().await;
}
both!(origin_check, the_origin_check_ignores_the_host_header);

/// `serve` refuses a SQLite file with damaged pages (it used to start and answer
/// `/health`).
#[tokio::test]
async fn a_damaged_sqlite_file_is_refused_at_start() {
    use std::io::{Seek, SeekFrom, Write};
    let db = Database::fresh(common::Db::Sqlite).await.unwrap();
    let mut config = test_config(&db);
    config.limits.sign_up = RateLimit::new(100, Duration::from_millis(10));
    let server = TestServer::start(config).await;
    for i in 0..40 {
        server
            .client()
            .sign_up(&format!("player{i}"), "long password")
            .await;
    }
    server.stop().await;
    let path = db
        .url
        .connection_string()
        .trim_start_matches("sqlite://")
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    // A clean file starts; its log is then written into it, so that the damage below
    // lands on the pages the tables live in.
    let store = server::Store::open(&db.url, 1).await.unwrap();
    store.close().await;
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(db.url.connection_string())
            .await
            .unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    }
    // Scribble over the middle of the file (not its header page).
    let length = std::fs::metadata(&path).unwrap().len();
    assert!(length > 4 * 4096, "{length}");
    let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.seek(SeekFrom::Start(2 * 4096 + 8)).unwrap();
    file.write_all(&[0xA5; 4096 * 2]).unwrap();
    file.sync_all().unwrap();
    drop(file);
    let error = server::Store::open(&db.url, 1).await.unwrap_err();
    assert!(
        matches!(error, server::store::StoreError::Damaged(_)),
        "{error}"
    );
    assert!(error.to_string().contains("damaged"), "{error}");
    let config = test_config(&db);
    let refused = server::Server::bind(config).await;
    assert!(refused.is_err());
}

async fn a_reset_by_another_process_closes_the_accounts_sockets_at_once(db: Database) {
    let server = TestServer::start(test_config(&db)).await;
    let mut thief = server.client();
    thief.sign_up("gudrun", "long password").await;
    let mut bystander = server.client();
    bystander.sign_up("bystander", "long password").await;
    let created = thief
        .post(
            "/api/games",
            json!({"kind": "fetlar", "opponent": "friend", "side": "first", "time_control": "5+3"}),
        )
        .await;
    let id = created.json()["id"].as_str().unwrap().to_owned();
    let mut thief_game = open_socket(&server, &thief, &format!("/ws/game/{id}")).await;
    let mut thief_lobby = open_socket(&server, &thief, "/ws/lobby").await;
    let mut others = open_socket(&server, &bystander, "/ws/lobby").await;

    // `kingstable admin reset-password` runs as another process, on the same database:
    // the running server learns of it from the database, not from a message in memory.
    let admin = Store::open(&db.url, 1).await.unwrap();
    let user = admin.user_by_name("gudrun").await.unwrap().unwrap();
    let hash =
        server::auth::hash_password_blocking(&server::auth::Password::new("a brand new password"))
            .unwrap();
    admin
        .set_password_hash(&user.id, &hash, None)
        .await
        .unwrap();
    admin.close().await;
    assert!(closes(&mut thief_game).await, "game socket");
    assert!(closes(&mut thief_lobby).await, "lobby socket");
    assert!(answers(&mut others).await, "another account's socket stays");
    // And the old sign-in is over for HTTP too.
    assert_eq!(thief.whoami().await["kind"], "anonymous");
    server.stop().await;
}
both!(
    reset_elsewhere,
    a_reset_by_another_process_closes_the_accounts_sockets_at_once
);
