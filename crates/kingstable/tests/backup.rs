//! `kingstable backup` and `kingstable restore` on SQLite databases made by the server: a
//! backup taken while the database is open elsewhere holds what was stored and never
//! overwrites a file; a restore refuses a damaged backup and a database a server is
//! still writing to, keeps the file it replaces, and leaves no write-ahead log behind;
//! PostgreSQL addresses are sent to pg_dump and pg_restore.

mod common;

use common::{block_on, kingstable};
use server::auth::Password;
use server::{DatabaseUrl, Store};

fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

async fn add_user(store: &Store, name: &str) {
    let hash = server::auth::hash_password_blocking(&Password::new("a password")).unwrap();
    store.create_user(name, &hash, None, 1).await.unwrap();
}

fn users(path: &std::path::Path) -> Vec<String> {
    block_on(async {
        let store = Store::open(&DatabaseUrl::sqlite_existing(path), 1)
            .await
            .unwrap();
        let mut names = Vec::new();
        for name in ["ragnar", "sigrid", "astrid"] {
            if store.user_with_password(name).await.unwrap().is_some() {
                names.push(name.to_owned());
            }
        }
        store.close().await;
        names
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_backup_taken_while_open_restores_what_was_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kingstable.db");
    let copy = dir.path().join("backup.db");
    let db_arg = db.to_str().unwrap();
    let copy_arg = copy.to_str().unwrap();

    // The database is open (as a running server has it) while the backup is taken.
    block_on(async {
        let store = Store::open(&DatabaseUrl::sqlite_file(&db), 1)
            .await
            .unwrap();
        add_user(&store, "Ragnar").await;
        add_user(&store, "Sigrid").await;
        let taken = kingstable(&["backup", "--database", db_arg, copy_arg]);
        assert!(taken.status.success(), "{}", text(&taken.stderr));
        let said = text(&taken.stdout);
        assert!(
            said.contains("quick_check ok") && said.contains("users 2"),
            "{said}"
        );
        // Never over a file.
        let again = kingstable(&["backup", "--database", db_arg, copy_arg]);
        assert_eq!(again.status.code(), Some(2));
        assert!(text(&again.stderr).contains("exists already"));
        // After the backup: one more account, and the server's heartbeat just now.
        add_user(&store, "Astrid").await;
        store.beat(now_ms()).await.unwrap();
        store.close().await;
    });
    assert_eq!(users(&copy), ["ragnar", "sigrid"]);

    // A server wrote its heartbeat a moment ago: refused, nothing changed.
    let refused = kingstable(&["restore", "--database", db_arg, copy_arg]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("stop it first"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(users(&db), ["ragnar", "sigrid", "astrid"]);

    // A damaged or foreign backup: refused, nothing changed.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![7u8; 8192]).unwrap();
    let bad = kingstable(&[
        "restore",
        "--force",
        "--database",
        db_arg,
        junk.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("cannot be restored"),
        "{}",
        text(&bad.stderr)
    );
    assert_eq!(users(&db), ["ragnar", "sigrid", "astrid"]);

    // A write-ahead log left beside the database (by a server killed mid-write) goes
    // aside with it: never replayed into the restored file.
    let left = b"a log left by a server killed mid-write";
    std::fs::write(dir.path().join("kingstable.db-wal"), left).unwrap();
    // Restored (the server stopped): the backup's accounts, the old file kept aside.
    let restored = kingstable(&["restore", "--force", "--database", db_arg, copy_arg]);
    assert!(restored.status.success(), "{}", text(&restored.stderr));
    assert!(
        text(&restored.stdout).contains("users 2"),
        "{}",
        text(&restored.stdout)
    );
    assert_eq!(users(&db), ["ragnar", "sigrid"]);
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("kingstable.db.before-restore-")
                && !name.ends_with("-wal")
                && !name.ends_with("-shm")
        })
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let mut kept_log = kept[0].clone().into_os_string();
    kept_log.push("-wal");
    assert_eq!(std::fs::read(&kept_log).unwrap(), left);
    assert_eq!(users(&kept[0]), ["ragnar", "sigrid", "astrid"]);
}

#[test]
fn postgres_and_missing_files_get_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.db");
    let pg = kingstable(&[
        "backup",
        "--database",
        "postgres://kingstable@127.0.0.1/kingstable",
        out.to_str().unwrap(),
    ]);
    assert_eq!(pg.status.code(), Some(2));
    assert!(text(&pg.stderr).contains("pg_dump"), "{}", text(&pg.stderr));
    let pg = kingstable(&[
        "restore",
        "--database",
        "postgres://kingstable@127.0.0.1/kingstable",
        out.to_str().unwrap(),
    ]);
    assert!(
        text(&pg.stderr).contains("pg_restore"),
        "{}",
        text(&pg.stderr)
    );
    let missing = dir.path().join("nothing.db");
    let none = kingstable(&[
        "backup",
        "--database",
        missing.to_str().unwrap(),
        out.to_str().unwrap(),
    ]);
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none.stderr).contains("no database file"));
    assert!(!missing.exists() && !out.exists());
}
