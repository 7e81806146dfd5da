//! `kingstable migrate-db --from sqlite:FILE --to postgres://…`: a site's SQLite database
//! copied into an empty PostgreSQL database, with the server stopped
//! (docs/OPERATIONS.md, "From SQLite to PostgreSQL").

use std::io::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use clap::Args;

use server::store::backup::RUNNING_WITHIN_MS;
use server::store::transfer::{SqliteSource, TableCount, occupied_tables};
use server::{Backend, DatabaseUrl, Store};

use super::backup::{counts, runtime};

/// Options of `kingstable migrate-db`.
#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// The SQLite database to copy (a file path or `sqlite:FILE`); it is read only.
    #[arg(long)]
    pub from: DatabaseUrl,
    /// The PostgreSQL database to copy into (`postgres://USER:PASSWORD@HOST/DB`): new and
    /// empty, or only ever started on. Its tables are made first, as the server makes
    /// them.
    #[arg(long, env = "KINGSTABLE_MIGRATE_TO", hide_env_values = true)]
    pub to: DatabaseUrl,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Runs `kingstable migrate-db`.
///
/// # Errors
/// When the source is not a SQLite file, is damaged, at another migration or in use by a
/// server; when the target is not PostgreSQL, cannot be reached or holds data; when a
/// row cannot be copied or a count differs. Nothing in the target is changed then.
pub fn run(args: &MigrateArgs) -> Result<()> {
    let Some(file) = args.from.sqlite_path() else {
        bail!(
            "--from must be a SQLite database (sqlite:FILE), not {}",
            args.from
        );
    };
    if args.to.backend() != Backend::Postgres {
        bail!(
            "--to must be a PostgreSQL database (postgres://USER:PASSWORD@HOST/DB), not {}",
            args.to
        );
    }
    if !file.is_file() {
        bail!("no database file {}", file.display());
    }
    runtime()?.block_on(async {
        let source = SqliteSource::open(&file)
            .await
            .with_context(|| format!("reading {}; nothing changed", file.display()))?;
        let copied = copy(args, &file, &source).await;
        source.close().await;
        copied
    })
}

async fn copy(args: &MigrateArgs, file: &std::path::Path, source: &SqliteSource) -> Result<()> {
    if let Some(beat) = source.report.heartbeat {
        let age = now_ms() - beat;
        if age < RUNNING_WITHIN_MS {
            bail!(
                "a server wrote its heartbeat to {} {} s ago: stop it first (a server that \
                 stopped just now writes a last one: wait 15 s); nothing changed",
                file.display(),
                age.max(0) / 1000
            );
        }
    }
    // Before the tables are made (a database holding data is left exactly as it is).
    let held = occupied_tables(&args.to)
        .await
        .with_context(|| format!("reading {}", args.to))?;
    if !held.is_empty() {
        let list: Vec<String> = held.iter().map(|(t, n)| format!("{t} {n}")).collect();
        bail!(
            "{} already holds data ({}): migrate-db copies into an empty database only; \
             nothing changed",
            args.to,
            list.join(", ")
        );
    }
    eprintln!(
        "copying {} ({}) into {}",
        file.display(),
        counts(&source.report),
        args.to
    );
    let target = Store::open(&args.to, 2)
        .await
        .with_context(|| format!("opening {}", args.to))?;
    let started = Instant::now();
    let mut last_said = Instant::now();
    let result = target
        .copy_from_sqlite(source, now_ms(), RUNNING_WITHIN_MS, |table, rows| {
            // A line a second at most on stderr, for the large tables.
            if last_said.elapsed() >= Duration::from_secs(1) {
                eprintln!("  {table}: {rows} rows so far");
                let _ = std::io::stderr().flush();
                last_said = Instant::now();
            }
        })
        .await;
    target.close().await;
    let counts = result.with_context(|| format!("copying into {}", args.to))?;
    print_counts(&counts);
    let rows: i64 = counts.iter().map(|c| c.target).sum();
    println!(
        "copied {} into {}: {rows} rows in {} tables, every count matches ({:.1} s)",
        file.display(),
        args.to,
        counts.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// One line a table: its name, the rows in the source and in the copy.
fn print_counts(counts: &[TableCount]) {
    let width = counts.iter().map(|c| c.table.len()).max().unwrap_or(5);
    println!("{:width$}  {:>10}  {:>10}", "table", "sqlite", "postgres");
    for count in counts {
        println!(
            "{:width$}  {:>10}  {:>10}",
            count.table, count.source, count.target
        );
    }
}
