//! `kingstable admin` as an operator runs it: on the server's database, a clear error and
//! a failing exit status for an unknown account or a bad duration. (Bans and mutes taking
//! hold on a running server's open sockets are tested in the server crate's tests/chat.rs.)

use std::process::{Command, Output};

fn admin(db: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .arg("admin")
        .args(args)
        .arg("--database")
        .arg(db)
        .env_remove("KINGSTABLE_DATABASE")
        .output()
        .expect("kingstable admin runs")
}

#[test]
fn admin_commands_refuse_unknown_accounts_and_bad_durations() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kingstable.db");
    let listed = admin(&db, &["reports"]);
    assert!(listed.status.success(), "{listed:?}");
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "no reports");
    for args in [
        &["ban", "nobody"][..],
        &["unban", "nobody"],
        &["mute", "nobody", "--minutes", "5"],
    ] {
        let out = admin(&db, args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no account is named \"nobody\""),
            "{args:?}: {stderr}"
        );
    }
    let out = admin(&db, &["mute", "nobody", "--minutes", "0"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 to 525600 minutes"));
}
