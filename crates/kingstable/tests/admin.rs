//! `kingstable admin` on a SQLite database made by the server: a new password (made or
//! read from standard input) replaces the old one and ends every sign-in; a bad one
//! changes nothing; the moderator flag is granted and revoked; unknown users and
//! missing files are errors.

mod common;

use common::{block_on, kingstable, kingstable_with_input};
use server::auth::{Password, verify_password_blocking};
use server::{DatabaseUrl, Store};

/// A database with the user `ragnar` (password `old password`) signed in once.
fn database(dir: &std::path::Path) -> (String, String) {
    let path = dir.join("kingstable.db");
    let url = DatabaseUrl::sqlite_file(&path);
    let hash = server::auth::hash_password_blocking(&Password::new("old password")).unwrap();
    let id = block_on(async {
        let store = Store::open(&url, 1).await.unwrap();
        let (user, _) = store.create_user("Ragnar", &hash, None, 1).await.unwrap();
        store
            .create_session(&user.id, "session-hash", 1, i64::MAX)
            .await
            .unwrap();
        store.close().await;
        user.id
    });
    (path.to_str().unwrap().to_owned(), id)
}

fn stored_hash(path: &str) -> (String, bool) {
    block_on(async {
        let store = Store::open(&path.parse().unwrap(), 1).await.unwrap();
        let (user, hash) = store.user_with_password("ragnar").await.unwrap().unwrap();
        let signed_in = store
            .session_user("session-hash", 2)
            .await
            .unwrap()
            .is_some();
        let _ = user;
        store.close().await;
        (hash, signed_in)
    })
}

#[test]
fn admin_reset_password_makes_one_or_reads_one_and_ends_sign_ins() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = database(dir.path());

    // Refused: too short. Nothing changes.
    let short = kingstable_with_input(
        &[
            "admin",
            "--database",
            &path,
            "reset-password",
            "ragnar",
            "--stdin",
        ],
        "short\n",
    );
    assert_eq!(short.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&short.stderr).contains("8 to 128"));
    let (hash, signed_in) = stored_hash(&path);
    assert!(verify_password_blocking(
        &Password::new("old password"),
        &hash
    ));
    assert!(signed_in);

    // Made: printed alone on stdout.
    let made = kingstable(&["admin", "--database", &path, "reset-password", "RAGNAR"]);
    assert!(made.status.success(), "{made:?}");
    let printed = String::from_utf8(made.stdout).unwrap();
    let password = printed.trim();
    assert_eq!(password.len(), 20, "{printed:?}");
    let (hash, signed_in) = stored_hash(&path);
    assert!(verify_password_blocking(&Password::new(password), &hash));
    assert!(!verify_password_blocking(
        &Password::new("old password"),
        &hash
    ));
    assert!(!signed_in, "the old sign-in must end");

    // Read from standard input.
    let read = kingstable_with_input(
        &[
            "admin",
            "reset-password",
            "ragnar",
            "--stdin",
            "--database",
            &path,
        ],
        "a brand new password\n",
    );
    assert!(read.status.success(), "{read:?}");
    assert!(read.stdout.is_empty());
    let (hash, _) = stored_hash(&path);
    assert!(verify_password_blocking(
        &Password::new("a brand new password"),
        &hash
    ));
}

#[test]
fn admin_grants_and_revokes_the_moderator_role() {
    let dir = tempfile::tempdir().unwrap();
    let (path, id) = database(dir.path());
    let is_moderator = || {
        block_on(async {
            let store = Store::open(&path.parse().unwrap(), 1).await.unwrap();
            let flag = store.is_moderator(&id).await.unwrap();
            store.close().await;
            flag
        })
    };
    assert!(!is_moderator());
    let granted = kingstable(&["admin", "--database", &path, "grant", "moderator", "ragnar"]);
    assert!(granted.status.success(), "{granted:?}");
    assert!(String::from_utf8_lossy(&granted.stdout).contains("Ragnar is now a moderator"));
    assert!(is_moderator());
    let revoked = kingstable(&[
        "admin",
        "--database",
        &path,
        "revoke",
        "moderator",
        "ragnar",
    ]);
    assert!(revoked.status.success(), "{revoked:?}");
    assert!(!is_moderator());

    let nobody = kingstable(&["admin", "--database", &path, "grant", "moderator", "nobody"]);
    assert_eq!(nobody.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nobody.stderr).contains("no user named \"nobody\""));
    let role = kingstable(&["admin", "--database", &path, "grant", "king", "ragnar"]);
    assert_eq!(role.status.code(), Some(2));
    let missing = dir.path().join("missing.db");
    let missing = kingstable(&[
        "admin",
        "--database",
        missing.to_str().unwrap(),
        "grant",
        "moderator",
        "ragnar",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        !dir.path().join("missing.db").exists(),
        "admin must not create a database"
    );
}

/// `kingstable admin` with ARGS on the database at `db`.
fn admin_on(db: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .arg("admin")
        .args(args)
        .arg("--database")
        .arg(db)
        .env_remove("KINGSTABLE_DATABASE")
        .output()
        .expect("kingstable admin runs")
}

#[test]
fn chat_moderation_refuses_unknown_accounts_and_bad_durations() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = database(dir.path());
    let db = std::path::Path::new(&path);
    let listed = admin_on(db, &["reports"]);
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "no reports");
    for args in [
        &["ban", "nobody"][..],
        &["unban", "nobody"],
        &["mute", "nobody", "--minutes", "5"],
    ] {
        let out = admin_on(db, args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no account is named \"nobody\""),
            "{args:?}: {stderr}"
        );
    }
    let out = admin_on(db, &["mute", "ragnar", "--minutes", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 to 525600 minutes"));
    let banned = admin_on(db, &["ban", "ragnar"]);
    assert!(banned.status.success(), "{banned:?}");
}
