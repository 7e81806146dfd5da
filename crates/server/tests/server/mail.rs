//! E-mail against a real SMTP server on loopback (Python's aiosmtpd, started by each test
//! on a port the system picks; `tests/smtp/sink.py`), each case on SQLite and on
//! PostgreSQL: an address is confirmed by the link that arrives; a reset link works once,
//! not twice, not after it expires, and ends every other sign-in; the digest and the
//! clock warning say what waits and come at most once (a restart included); addresses
//! are never shown to others; without `--smtp` the site says e-mail is off.
//!
//! Without aiosmtpd (`python3 -m pip install aiosmtpd`) the SMTP cases say they skipped,
//! unless `KINGSTABLE_REQUIRE_SMTP=1`, which makes a missing aiosmtpd a failure.

use crate::common;

use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use server::mail::{MailConfig, reminders};
use server::store::{TokenPurpose, now_ms};
use server::{Config, RateLimit};
use tokio::sync::mpsc;

use common::ws::Ws;
use common::{Client, Database, TestServer, test_config};

/// The SMTP server of one test: aiosmtpd in a Python process, its messages as JSON.
struct Sink {
    child: Child,
    port: u16,
    messages: mpsc::UnboundedReceiver<Value>,
}

impl Sink {
    /// Starts the sink, or `None` (after saying so) when aiosmtpd is not installed.
    fn start() -> Option<Sink> {
        Sink::start_on(0)
    }

    /// Starts the sink on `port` (0: one the system picks).
    fn start_on(port: u16) -> Option<Sink> {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/smtp/sink.py");
        let available = Command::new("python3")
            .args(["-c", "import aiosmtpd"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !available {
            assert!(
                std::env::var("KINGSTABLE_REQUIRE_SMTP").as_deref() != Ok("1"),
                "KINGSTABLE_REQUIRE_SMTP=1 but python3 cannot import aiosmtpd \
                 (python3 -m pip install aiosmtpd)"
            );
            let _ = writeln!(
                std::io::stderr(),
                "skipped: python3 cannot import aiosmtpd (python3 -m pip install aiosmtpd)"
            );
            return None;
        }
        let mut child = Command::new("python3")
            .arg(script)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the SMTP sink");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let first = lines
            .next()
            .expect("the sink says its port")
            .expect("a line");
        let port = first
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no port in {first:?}"));
        let (send, messages) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let message = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("the sink wrote {line:?}: {e}"));
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        Some(Sink {
            child,
            port,
            messages,
        })
    }

    /// The next message received (within 30 s).
    async fn next(&mut self) -> Value {
        tokio::time::timeout(Duration::from_secs(30), self.messages.recv())
            .await
            .expect("a message within 30 s")
            .expect("the sink is running")
    }

    /// The messages received so far, without waiting.
    fn received(&mut self) -> Vec<Value> {
        let mut all = Vec::new();
        while let Ok(message) = self.messages.try_recv() {
            all.push(message);
        }
        all
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        // Closing its standard input stops it; kill it in case it does not.
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The configuration of a server that mails through `sink`.
fn with_mail(db: &Database, sink: &Sink) -> Config {
    let mut config = test_config(db);
    let mut mail = MailConfig::new(
        format!("smtp://127.0.0.1:{}", sink.port).parse().unwrap(),
        "Kingstable <noreply@kingstable.test>".parse().unwrap(),
    );
    // The tests scan when they choose (the first scan at start finds nothing).
    mail.reminder_interval = Duration::from_secs(3600);
    config.mail = Some(mail);
    config.limits.mail_per_account = RateLimit::new(50, Duration::from_secs(60));
    config
}

/// The token of the link `/{path}?token=…` in a message's text.
fn link_token(message: &Value, path: &str) -> String {
    let body = message["body"].as_str().expect("a text");
    let marker = format!("/{path}?token=");
    let at = body
        .find(&marker)
        .unwrap_or_else(|| panic!("no {marker} link in {body}"));
    body[at + marker.len()..].chars().take(43).collect()
}

fn assert_to(message: &Value, address: &str) {
    assert_eq!(message["rcpt_tos"], json!([address]), "{message}");
    assert_eq!(message["mail_from"], "noreply@kingstable.test", "{message}");
    assert_eq!(message["content_type"], "text/plain", "{message}");
}

async fn add_address(client: &mut Client, sink: &mut Sink, address: &str) {
    let added = client
        .post(
            "/api/account/email",
            json!({"address": address, "password": "long password"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::ACCEPTED, "{}", added.text);
    let message = sink.next().await;
    assert_to(&message, address);
    let token = link_token(&message, "confirm");
    let confirmed = client
        .post("/api/account/email/confirm", json!({ "token": token }))
        .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text);
}

async fn an_address_is_confirmed_by_its_link_and_never_shown_to_others(db: Database) {
    let Some(mut sink) = Sink::start() else {
        return;
    };
    let server = TestServer::start(with_mail(&db, &sink)).await;
    let mut ragnar = server.client();
    ragnar.sign_up("ragnar", "long password").await;
    let settings = ragnar.get("/api/account/mail").await.json();
    assert_eq!(
        settings,
        json!({"enabled": true, "address": null, "pending": null, "digest": true, "clock_warning": true})
    );

    // Bad input changes nothing and sends nothing.
    for (body, code) in [
        (
            json!({"address": "ragnar@example.org", "password": "wrong password"}),
            "invalid_credentials",
        ),
        (
            json!({"address": "not an address", "password": "long password"}),
            "invalid_address",
        ),
        (
            json!({"address": "Ragnar <ragnar@example.org>", "password": "long password"}),
            "invalid_address",
        ),
        (json!({"address": "ragnar@example.org"}), "invalid_json"),
    ] {
        let reply = ragnar.post("/api/account/email", body.clone()).await;
        assert_eq!(reply.error_code(), code, "{body}");
    }
    assert_eq!(
        ragnar.get("/api/account/mail").await.json()["pending"],
        Value::Null
    );
    let mut stranger = server.client();
    let anonymous = stranger
        .post(
            "/api/account/email",
            json!({"address": "x@example.org", "password": "long password"}),
        )
        .await;
    assert_eq!(anonymous.error_code(), "not_signed_in");

    // The link arrives at the new address; until followed, the address only waits.
    let added = ragnar
        .post(
            "/api/account/email",
            json!({"address": "Ragnar.L@Example.org", "password": "long password"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::ACCEPTED, "{}", added.text);
    assert_eq!(added.json()["address"], Value::Null);
    assert_eq!(added.json()["pending"]["address"], "Ragnar.L@Example.org");
    let message = sink.next().await;
    assert_to(&message, "Ragnar.L@Example.org");
    assert_eq!(
        message["subject"],
        "Confirm your e-mail address for Kingstable"
    );
    assert!(message["body"].as_str().unwrap().contains("Hello ragnar"));
    let token = link_token(&message, "confirm");
    assert!(
        message["body"]
            .as_str()
            .unwrap()
            .contains(&format!("{}/confirm?token=", server.base)),
        "links point at the site"
    );

    // The link works, from any browser, once.
    for bad in ["", "short", &"!".repeat(43), &"A".repeat(43)] {
        let reply = stranger
            .post("/api/account/email/confirm", json!({ "token": bad }))
            .await;
        assert_eq!(reply.error_code(), "invalid_token", "{bad}");
    }
    let confirmed = stranger
        .post("/api/account/email/confirm", json!({ "token": token }))
        .await;
    assert_eq!(confirmed.status, StatusCode::OK, "{}", confirmed.text);
    assert_eq!(confirmed.json()["user"]["name"], "ragnar");
    let again = stranger
        .post("/api/account/email/confirm", json!({ "token": token }))
        .await;
    assert_eq!(again.error_code(), "invalid_token");
    let settings = ragnar.get("/api/account/mail").await.json();
    assert_eq!(settings["address"], "Ragnar.L@Example.org");
    assert_eq!(settings["pending"], Value::Null);

    // Another account cannot confirm the same address (any case).
    let mut bjorn = server.client();
    bjorn.sign_up("bjorn", "long password").await;
    bjorn
        .post(
            "/api/account/email",
            json!({"address": "ragnar.l@example.org", "password": "long password"}),
        )
        .await;
    let taken = link_token(&sink.next().await, "confirm");
    let reply = bjorn
        .post("/api/account/email/confirm", json!({ "token": taken }))
        .await;
    assert_eq!(reply.error_code(), "address_taken");
    assert_eq!(
        bjorn.get("/api/account/mail").await.json()["address"],
        Value::Null
    );

    // Nobody else reads the address: not in anything another player can ask for.
    let id = {
        let created = ragnar
            .post(
                "/api/games",
                json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": "3d"}),
            )
            .await;
        created.json()["id"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        bjorn
            .post_empty(&format!("/api/games/{id}/join"))
            .await
            .status,
        StatusCode::OK
    );
    let mut socket = Ws::open(&server, &bjorn, &format!("/ws/game/{id}")).await;
    let state = socket.state().await;
    for text in [
        bjorn.get("/api/players/ragnar").await.text,
        bjorn.get(&format!("/api/games/{id}")).await.text,
        bjorn.get("/api/games?status=live").await.text,
        bjorn.get("/api/archive?player=ragnar").await.text,
        bjorn.get("/api/whoami").await.text,
        stranger.get("/api/players/ragnar").await.text,
        state.to_string(),
    ] {
        assert!(
            !text.to_lowercase().contains("example.org"),
            "an address shown to another player: {text}"
        );
    }

    // Changing the address needs the password; removing it too, and then no mail goes.
    let wrong = ragnar
        .post(
            "/api/account/email/remove",
            json!({"password": "wrong password"}),
        )
        .await;
    assert_eq!(wrong.error_code(), "invalid_credentials");
    let removed = ragnar
        .post(
            "/api/account/email/remove",
            json!({"password": "long password"}),
        )
        .await;
    assert_eq!(removed.status, StatusCode::OK, "{}", removed.text);
    assert_eq!(removed.json()["address"], Value::Null);
    assert!(sink.received().is_empty());
    server.stop().await;
}
both!(
    address_confirmation,
    an_address_is_confirmed_by_its_link_and_never_shown_to_others
);

async fn mail_comes_in_the_accounts_language(db: Database) {
    let Some(mut sink) = Sink::start() else {
        return;
    };
    let server = TestServer::start(with_mail(&db, &sink)).await;
    let mut sigrid = server.client();
    sigrid.sign_up("sigrid", "long password").await;
    // Bad input changes nothing.
    for (body, code) in [
        (json!({"lang": "de"}), "bad_request"),
        (json!({"lang": "fr", "x": 1}), "invalid_json"),
        (json!({}), "invalid_json"),
    ] {
        let reply = sigrid.put("/api/account/language", body.clone()).await;
        assert_eq!(reply.error_code(), code, "{body}: {}", reply.text);
    }
    let mut guest = server.client();
    guest.post_empty("/api/guest").await;
    let reply = guest
        .put("/api/account/language", json!({"lang": "fr"}))
        .await;
    assert_eq!(reply.error_code(), "not_signed_in");
    let reply = sigrid
        .put("/api/account/language", json!({"lang": "fr"}))
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", reply.text);

    let added = sigrid
        .post(
            "/api/account/email",
            json!({"address": "sigrid@example.org", "password": "long password"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::ACCEPTED, "{}", added.text);
    let message = sink.next().await;
    assert_to(&message, "sigrid@example.org");
    assert_eq!(
        message["subject"],
        "Confirmez votre adresse e-mail pour Kingstable"
    );
    assert!(
        message["body"].as_str().unwrap().contains("Bonjour sigrid"),
        "{message}"
    );
    server.stop().await;
}
both!(mail_language, mail_comes_in_the_accounts_language);

async fn a_reset_link_works_once_and_not_after_it_expires(db: Database) {
    let Some(mut sink) = Sink::start() else {
        return;
    };
    let server = TestServer::start(with_mail(&db, &sink)).await;
    let mut ragnar = server.client();
    ragnar.sign_up("ragnar", "long password").await;
    add_address(&mut ragnar, &mut sink, "ragnar@example.org").await;
    let mut elsewhere = server.client();
    assert_eq!(
        elsewhere.sign_in("ragnar", "long password").await.status,
        StatusCode::OK
    );

    // A socket open under a sign-in that the reset will end.
    let mut lobby = common::ws::connect(&server, &elsewhere, "/ws/lobby").await;

    // The same answer whatever exists; mail only for an account with an address.
    let mut forgetful = server.client();
    let mut answers = Vec::new();
    for login in ["nobody", "nobody@example.org", "RAGNAR"] {
        let reply = forgetful
            .post("/api/account/reset/request", json!({ "login": login }))
            .await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text);
        answers.push(reply.text);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    let message = sink.next().await;
    assert_to(&message, "ragnar@example.org");
    assert_eq!(message["subject"], "Set a new Kingstable password");
    let token = link_token(&message, "reset");

    // A bad new password is refused and the link still works.
    let short = forgetful
        .post(
            "/api/account/reset",
            json!({"token": token, "new_password": "short"}),
        )
        .await;
    assert_eq!(short.error_code(), "invalid_password");
    let reset = forgetful
        .post(
            "/api/account/reset",
            json!({"token": token, "new_password": "a new long password"}),
        )
        .await;
    assert_eq!(reset.status, StatusCode::OK, "{}", reset.text);
    assert_eq!(reset.json()["user"]["name"], "ragnar");
    // Signed in here; signed out everywhere else.
    assert_eq!(forgetful.whoami().await["kind"], "user");
    assert_eq!(ragnar.whoami().await["kind"], "anonymous");
    assert_eq!(elsewhere.whoami().await["kind"], "anonymous");
    assert!(
        common::ws::closes(&mut lobby).await,
        "the ended sign-in's socket closes"
    );
    let mut fresh = server.client();
    assert_eq!(
        fresh.sign_in("ragnar", "long password").await.error_code(),
        "invalid_credentials"
    );
    assert_eq!(
        fresh.sign_in("ragnar", "a new long password").await.status,
        StatusCode::OK
    );

    // Not twice.
    let twice = server
        .client()
        .post(
            "/api/account/reset",
            json!({"token": token, "new_password": "yet another password"}),
        )
        .await;
    assert_eq!(twice.error_code(), "invalid_token");

    // Not after it expires (an hour): the time is passed in.
    server
        .client()
        .post(
            "/api/account/reset/request",
            json!({ "login": "ragnar@EXAMPLE.org" }),
        )
        .await;
    let token = link_token(&sink.next().await, "reset");
    let hash = server::auth::token_hash(&token);
    let store = &server.state.store;
    let later = now_ms() + 3_600_001;
    assert_eq!(
        store
            .mail_token_user(&hash, TokenPurpose::Reset, later)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .reset_password(&hash, "not used", later)
            .await
            .unwrap(),
        None
    );
    // Still good now: it was refused for its age only.
    assert!(
        store
            .mail_token_user(&hash, TokenPurpose::Reset, now_ms())
            .await
            .unwrap()
            .is_some()
    );
    // A confirmation link is not a reset link.
    assert_eq!(
        server
            .client()
            .post("/api/account/email/confirm", json!({ "token": token }))
            .await
            .error_code(),
        "invalid_token"
    );
    // Expired links are cleared by the maintenance job.
    assert_eq!(store.delete_expired_mail_tokens(later).await.unwrap(), 1);
    assert!(sink.received().is_empty());
    server.stop().await;
}
both!(reset_link, a_reset_link_works_once_and_not_after_it_expires);

/// A correspondence game between `a` (first) and `b`, after one move each: `a` to move,
/// both clocks counting.
async fn correspondence_game(server: &TestServer, a: &mut Client, b: &mut Client) -> String {
    let created = a
        .post(
            "/api/games",
            json!({"kind": "copenhagen", "opponent": "friend", "side": "first", "time_control": "3d"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text);
    let id = created.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        b.post_empty(&format!("/api/games/{id}/join")).await.status,
        StatusCode::OK
    );
    let path = format!("/ws/game/{id}");
    for client in [&*a, &*b] {
        let mut socket = Ws::open(server, client, &path).await;
        let game = socket.state().await;
        let text = game["legal_moves"][0]["text"].as_str().unwrap().to_owned();
        socket
            .send(json!({"t": "move", "rev": game["rev"], "move": text}))
            .await;
        socket.until("events").await;
    }
    id
}

async fn digests_and_clock_warnings_come_at_most_once(db: Database) {
    let Some(mut sink) = Sink::start() else {
        return;
    };
    let config = with_mail(&db, &sink);
    let server = TestServer::start(config.clone()).await;
    let (mut a, mut b) = (server.client(), server.client());
    a.sign_up("ragnar", "long password").await;
    b.sign_up("bjorn", "long password").await;
    add_address(&mut a, &mut sink, "ragnar@example.org").await;
    add_address(&mut b, &mut sink, "bjorn@example.org").await;
    let id = correspondence_game(&server, &mut a, &mut b).await;
    let mailer = server.state.mailer.clone().expect("mail on");
    let day = 86_400_000;
    // A second after the game's last move: when the scan ran in the same millisecond as
    // the move, exactly 3 days were left ("3 days 0 hours"), not the 2 days 23 hours
    // asserted below.
    let now = now_ms() + 1_000;

    // Ragnar's move waits: a digest for him, none for Bjorn; no warning with 3 days left.
    let report = reminders::scan(&server.state, &mailer, now).await.unwrap();
    assert_eq!(
        report,
        reminders::ScanReport {
            digests: 1,
            warnings: 0
        }
    );
    let digest = sink.next().await;
    assert_to(&digest, "ragnar@example.org");
    assert_eq!(digest["subject"], "Kingstable: a game waits for your move");
    let body = digest["body"].as_str().unwrap();
    assert!(
        body.contains("Copenhagen Hnefatafl against bjorn: 2 days 23 hours left"),
        "{body}"
    );
    assert!(
        body.contains(&format!("{}/game/{id}", server.base)),
        "{body}"
    );
    // At most one a day.
    let again = reminders::scan(&server.state, &mailer, now + 60_000)
        .await
        .unwrap();
    assert_eq!(again, reminders::ScanReport::default());

    // Two and a half days later: below a quarter of 3 days; a new day, a new digest.
    let late = now + 5 * day / 2;
    let report = reminders::scan(&server.state, &mailer, late).await.unwrap();
    assert_eq!(
        report,
        reminders::ScanReport {
            digests: 1,
            warnings: 1
        }
    );
    let mut two = [sink.next().await, sink.next().await];
    two.sort_by_key(|m| m["subject"].as_str().unwrap().contains("waits"));
    let [warning, digest] = two;
    assert_to(&warning, "ragnar@example.org");
    assert_to(&digest, "ragnar@example.org");
    assert!(
        warning["subject"]
            .as_str()
            .unwrap()
            .starts_with("Kingstable: 11 hours "),
        "{warning}"
    );
    let body = warning["body"].as_str().unwrap();
    assert!(
        body.contains("game against bjorn is running low: 11 hours"),
        "{body}"
    );
    assert!(
        body.contains(&format!("{}/game/{id}", server.base)),
        "{body}"
    );
    // At most one per turn, and none again after a restart.
    let report = reminders::scan(&server.state, &mailer, late + 60_000)
        .await
        .unwrap();
    assert_eq!(report, reminders::ScanReport::default());
    server.stop().await;
    let server = TestServer::start(config).await;
    let mailer = server.state.mailer.clone().expect("mail on");
    let report = reminders::scan(&server.state, &mailer, late + 120_000)
        .await
        .unwrap();
    assert_eq!(report, reminders::ScanReport::default());

    // The switches: off, nothing; on again, the next day's digest.
    let mut a = server.client();
    assert_eq!(
        a.sign_in("ragnar", "long password").await.status,
        StatusCode::OK
    );
    let off = a.post("/api/account/mail", json!({"digest": false})).await;
    assert_eq!(off.status, StatusCode::OK, "{}", off.text);
    assert_eq!(off.json()["digest"], false);
    assert_eq!(off.json()["clock_warning"], true);
    let next_day = late + day;
    let report = reminders::scan(&server.state, &mailer, next_day)
        .await
        .unwrap();
    assert_eq!(report, reminders::ScanReport::default());
    let bad = a.post("/api/account/mail", json!({"digest": "yes"})).await;
    assert_eq!(bad.error_code(), "invalid_json");
    let on = a.post("/api/account/mail", json!({"digest": true})).await;
    assert_eq!(on.json()["digest"], true);
    let report = reminders::scan(&server.state, &mailer, next_day)
        .await
        .unwrap();
    assert_eq!(
        report,
        reminders::ScanReport {
            digests: 1,
            warnings: 0
        }
    );
    assert_to(&sink.next().await, "ragnar@example.org");
    assert!(sink.received().is_empty());
    server.stop().await;
}
both!(reminders_once, digests_and_clock_warnings_come_at_most_once);

/// An SMTP server that is down costs no request any time, and the message goes once it
/// is back: the worker tries again after a pause.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_waits_for_the_smtp_server_to_come_back() {
    // A port nobody listens on yet (the sink takes it later).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let db = Database::fresh(common::Db::Sqlite).await.expect("sqlite");
    let mut config = test_config(&db);
    config.mail = Some(MailConfig::new(
        format!("smtp://127.0.0.1:{port}").parse().unwrap(),
        "noreply@kingstable.test".parse().unwrap(),
    ));
    let server = TestServer::start(config).await;
    let mut ragnar = server.client();
    ragnar.sign_up("ragnar", "long password").await;
    let added = ragnar
        .post(
            "/api/account/email",
            json!({"address": "ragnar@example.org", "password": "long password"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::ACCEPTED, "{}", added.text);
    // The first try has failed or is failing; the request was answered all the same.
    let Some(mut sink) = Sink::start_on(port) else {
        return;
    };
    let message = sink.next().await;
    assert_to(&message, "ragnar@example.org");
    assert!(link_token(&message, "confirm").len() == 43);
    server.stop().await;
}

/// The queue is bounded: past [`server::mail::QUEUE`] messages waiting, one more is
/// refused at once rather than waited for.
#[test]
fn the_mail_queue_refuses_what_it_cannot_hold() {
    let mailer = server::mail::Mailer::new(
        MailConfig::new(
            "smtp://127.0.0.1:9".parse().unwrap(),
            "noreply@kingstable.test".parse().unwrap(),
        ),
        "http://127.0.0.1:8080/",
    );
    assert_eq!(mailer.base_url(), "http://127.0.0.1:8080");
    let message = server::mail::Outgoing {
        to: "ragnar@example.org".parse().unwrap(),
        subject: "s".into(),
        body: "b".into(),
        kind: "test",
    };
    // No worker: nothing leaves the queue.
    for _ in 0..server::mail::QUEUE {
        assert!(mailer.send(message.clone()));
    }
    assert!(!mailer.send(message));
}

/// Without `--smtp`: the site says e-mail is off and sends nothing; accounts work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_smtp_the_site_says_mail_is_off() {
    let db = Database::fresh(common::Db::Sqlite).await.expect("sqlite");
    let server = TestServer::start(test_config(&db)).await;
    let mut client = server.client();
    assert_eq!(
        client.get("/api/mail").await.json(),
        json!({"enabled": false})
    );
    client.sign_up("ragnar", "long password").await;
    let settings = client.get("/api/account/mail").await.json();
    assert_eq!(settings["enabled"], false);
    let add = client
        .post(
            "/api/account/email",
            json!({"address": "ragnar@example.org", "password": "long password"}),
        )
        .await;
    assert_eq!(add.error_code(), "mail_off");
    let reset = server
        .client()
        .post("/api/account/reset/request", json!({"login": "ragnar"}))
        .await;
    assert_eq!(reset.error_code(), "mail_off");
    assert!(server.state.mailer.is_none());
    server.stop().await;
}
