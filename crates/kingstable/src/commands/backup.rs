//! `kingstable backup` and `kingstable restore`: a consistent copy of the server's SQLite
//! database taken while it runs, and that copy put back with the server stopped
//! (docs/OPERATIONS.md, "Backups"). PostgreSQL is backed up with its own `pg_dump`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use clap::Args;

use server::store::backup::{FileReport, inspect_sqlite_file};
use server::{DatabaseUrl, Store};

/// A server writes its heartbeat every 5 s: one younger than this is a server running
/// (or stopped just now, which also writes one).
const RUNNING_WITHIN: Duration =
    Duration::from_millis(server::store::backup::RUNNING_WITHIN_MS.unsigned_abs());

/// The server's database, as `kingstable serve` names it: a SQLite file here.
#[derive(Args, Debug)]
pub struct DatabaseArg {
    /// The server's database (as for `kingstable serve`): a SQLite file.
    #[arg(
        long,
        env = "KINGSTABLE_DATABASE",
        default_value = "kingstable.db",
        hide_env_values = true
    )]
    pub database: DatabaseUrl,
}

/// Options of `kingstable backup`.
#[derive(Args, Debug)]
pub struct BackupArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// The file to write (it must not exist).
    pub out: PathBuf,
}

/// Options of `kingstable restore`.
#[derive(Args, Debug)]
pub struct RestoreArgs {
    #[command(flatten)]
    pub db: DatabaseArg,
    /// The backup to put in its place (a file `kingstable backup` wrote).
    pub backup: PathBuf,
    /// Restore even though a server wrote its heartbeat into the database in the last
    /// 15 seconds (one stopped just now writes a last one).
    #[arg(long)]
    pub force: bool,
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

fn sqlite_file(database: &DatabaseUrl, postgres_hint: &str) -> Result<PathBuf> {
    match database.sqlite_path() {
        Some(path) => Ok(path),
        None => bail!("{database} is PostgreSQL: {postgres_hint} (docs/OPERATIONS.md, Backups)"),
    }
}

/// The rows of a report in one line: `users 3, games 12, moves 480, …`.
pub(crate) fn counts(report: &FileReport) -> String {
    report
        .rows
        .iter()
        .map(|(table, rows)| format!("{table} {rows}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `kingstable backup`.
///
/// # Errors
/// On PostgreSQL, a missing database, an existing output file, or a copy that does not
/// check out (the bad copy is removed).
pub fn backup(args: &BackupArgs) -> Result<()> {
    let file = sqlite_file(
        &args.db.database,
        "back it up with `pg_dump --format=custom --file=kingstable.dump DB`",
    )?;
    if !file.is_file() {
        bail!("no database file {}", file.display());
    }
    if args.out.exists() {
        bail!(
            "{} exists already: a backup never overwrites a file",
            args.out.display()
        );
    }
    runtime()?.block_on(async {
        // Opened, never created (a mistyped path is an error); a running server may
        // have it open too.
        let store = Store::open(&DatabaseUrl::sqlite_existing(&file), 1)
            .await
            .with_context(|| format!("opening the database {}", file.display()))?;
        let copied = store.backup_sqlite(&args.out).await;
        store.close().await;
        copied.with_context(|| format!("writing {}", args.out.display()))?;
        match inspect_sqlite_file(&args.out).await {
            Ok(report) => {
                println!(
                    "backed up {} to {} (quick_check ok): {}",
                    file.display(),
                    args.out.display(),
                    counts(&report)
                );
                Ok(())
            }
            Err(error) => {
                let _ = std::fs::remove_file(&args.out);
                bail!("the copy did not check out, and was removed: {error}")
            }
        }
    })
}

/// Runs `kingstable restore`.
///
/// # Errors
/// On PostgreSQL, a damaged or foreign backup, a server still running on the database,
/// or a failed copy; nothing is changed then.
pub fn restore(args: &RestoreArgs) -> Result<()> {
    let target = sqlite_file(
        &args.db.database,
        "restore it with `pg_restore --clean --dbname=DB kingstable.dump`",
    )?;
    runtime()?.block_on(async {
        let report = inspect_sqlite_file(&args.backup).await.with_context(|| {
            format!(
                "the backup {} cannot be restored; nothing changed",
                args.backup.display()
            )
        })?;
        if target.exists() && !args.force {
            // A damaged database is what a restore is for: only its heartbeat matters.
            if let Ok(current) = inspect_sqlite_file(&target).await
                && let Some(beat) = current.heartbeat
            {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
                let age = Duration::from_millis(u64::try_from(now - beat).unwrap_or(0));
                if age < RUNNING_WITHIN {
                    bail!(
                        "a server wrote its heartbeat to {} {} s ago: stop it first (a server \
                         that stopped just now writes a last one: wait 15 s, or pass --force); \
                         nothing changed",
                        target.display(),
                        age.as_secs()
                    );
                }
            }
        }
        let kept = if target.exists() {
            Some(set_aside(&target)?)
        } else {
            None
        };
        put_in_place(&args.backup, &target)?;
        let restored = inspect_sqlite_file(&target).await?;
        println!(
            "restored {} from {} (quick_check ok): {}",
            target.display(),
            args.backup.display(),
            counts(&restored)
        );
        if let Some(kept) = kept {
            println!("the database it replaced is kept as {}", kept.display());
        }
        if report.rows != restored.rows {
            bail!(
                "the restored file does not hold what the backup holds ({} against {})",
                counts(&restored),
                counts(&report)
            );
        }
        Ok(())
    })
}

/// `FILE` with `suffix` added to its name (`kingstable.db` + `-wal`).
fn with_suffix(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Moves the database and its write-ahead log aside (`FILE.before-restore-MILLIS`,
/// with `-wal` and `-shm`): a log left beside the restored file would be replayed into
/// it.
fn set_aside(target: &Path) -> Result<PathBuf> {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let kept = with_suffix(target, &format!(".before-restore-{stamp}"));
    for suffix in ["-wal", "-shm"] {
        let side = with_suffix(target, suffix);
        if side.exists() {
            std::fs::rename(&side, with_suffix(&kept, suffix))
                .with_context(|| format!("moving {} aside", side.display()))?;
        }
    }
    std::fs::rename(target, &kept).with_context(|| format!("moving {} aside", target.display()))?;
    Ok(kept)
}

/// Copies `backup` to `target` through a temporary file beside it, synced before it is
/// renamed into place (a crash leaves the old name empty or whole, never half a file).
fn put_in_place(backup: &Path, target: &Path) -> Result<()> {
    let temporary = with_suffix(target, ".restoring");
    std::fs::copy(backup, &temporary)
        .with_context(|| format!("copying {} to {}", backup.display(), temporary.display()))?;
    std::fs::File::open(&temporary)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("syncing {}", temporary.display()))?;
    std::fs::rename(&temporary, target)
        .with_context(|| format!("renaming {} to {}", temporary.display(), target.display()))?;
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The rename itself made durable (where the platform allows opening a folder).
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}
