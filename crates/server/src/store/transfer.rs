//! Moving a site from SQLite to PostgreSQL (`kingstable migrate-db`; docs/OPERATIONS.md,
//! "From SQLite to PostgreSQL"): every table of [`TABLES`] copied from a SQLite file,
//! read in one read transaction without changing it, into an empty, migrated PostgreSQL
//! database in one transaction, ids as they were, then counted table by table before the
//! transaction commits. A failure anywhere leaves the target as it was.

use std::path::Path;

use futures_util::TryStreamExt;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyConnection, AnyPool, Row};

use super::backup::{FileReport, TABLES, inspect};
use super::{CopyRefusal, MIGRATIONS, Store, StoreError};
use crate::config::{Backend, DatabaseUrl};

/// Most parameters in one `INSERT` (PostgreSQL takes 65,535).
const MAX_PARAMETERS: usize = 30_000;
/// Most rows in one `INSERT`.
const MAX_ROWS: usize = 1_000;

/// The table a copy treats apart: a server writes a row in it on starting, so a target
/// that only ever saw a server start is still empty; its row is replaced by the source's.
const HEARTBEAT: &str = "heartbeat";

/// A SQLite database opened read-only as the source of a copy, checked and counted.
#[derive(Debug)]
pub struct SqliteSource {
    pool: AnyPool,
    /// Its rows and heartbeat, as read when opened.
    pub report: FileReport,
    /// The last migration applied to it.
    pub version: i64,
}

impl SqliteSource {
    /// Opens the SQLite file at `path` read-only and checks it: its pages, that it is a
    /// Kingstable database at this program's migration, and that it has no table the
    /// copy would leave behind.
    ///
    /// # Errors
    /// When it is missing, damaged, foreign, at another migration, or holds a table
    /// [`TABLES`] does not name.
    pub async fn open(path: &Path) -> Result<SqliteSource, StoreError> {
        sqlx::any::install_default_drivers();
        if !path.is_file() {
            return Err(StoreError::NotFound("database file"));
        }
        let url = format!("sqlite://{}?mode=ro", path.display());
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await?;
        match SqliteSource::check(&pool).await {
            Ok((report, version)) => Ok(SqliteSource {
                pool,
                report,
                version,
            }),
            Err(error) => {
                super::close_pool(&pool).await;
                Err(error)
            }
        }
    }

    async fn check(pool: &AnyPool) -> Result<(FileReport, i64), StoreError> {
        let report = inspect(pool).await?;
        let latest = MIGRATIONS.last().map_or(0, |m| m.0);
        let version: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(pool)
                .await?;
        let version = version.unwrap_or(0);
        if version != latest {
            return Err(StoreError::Conflict(
                CopyRefusal::Migration { version, latest }.into(),
            ));
        }
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite_%' AND name != '_sqlx_migrations' ORDER BY name",
        )
        .fetch_all(pool)
        .await?;
        let unknown: Vec<&str> = tables
            .iter()
            .map(String::as_str)
            .filter(|table| !TABLES.contains(table))
            .collect();
        if !unknown.is_empty() {
            return Err(StoreError::Corrupt(format!(
                "the SQLite database has tables this program does not copy: {}",
                unknown.join(", ")
            )));
        }
        Ok((report, version))
    }

    /// Closes the file.
    pub async fn close(&self) {
        super::close_pool(&self.pool).await;
    }
}

/// A table's rows in the source and, after the copy, in the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableCount {
    /// The table.
    pub table: &'static str,
    /// Its rows in the source, as read in the copy's transaction.
    pub source: i64,
    /// Its rows in the target, counted before the copy committed.
    pub target: i64,
}

/// A column's type in PostgreSQL, which says how to read its value from SQLite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ColumnType {
    Text,
    Integer,
    Float,
}

/// One value on its way.
#[derive(Debug)]
enum Value {
    Text(Option<String>),
    Integer(Option<i64>),
    Float(Option<f64>),
}

/// Rows per table of [`TABLES`] in the PostgreSQL database at `url`, leaving out empty
/// tables, the heartbeat and tables it does not have yet: what a copy into it would
/// refuse. Reads only (the database is not migrated).
///
/// # Errors
/// When `url` is not PostgreSQL or cannot be read.
pub async fn occupied_tables(url: &DatabaseUrl) -> Result<Vec<(&'static str, i64)>, StoreError> {
    if url.backend() != Backend::Postgres {
        return Err(StoreError::Conflict(
            CopyRefusal::NotPostgres(url.to_string()).into(),
        ));
    }
    sqlx::any::install_default_drivers();
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(url.connection_string())
        .await?;
    let mut connection = pool.acquire().await?;
    let occupied = occupied(&mut connection, false).await;
    drop(connection);
    super::close_pool(&pool).await;
    occupied
}

/// The tables of [`TABLES`] present and holding rows (the heartbeat left out).
async fn occupied(
    connection: &mut AnyConnection,
    all_present: bool,
) -> Result<Vec<(&'static str, i64)>, StoreError> {
    let present: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = current_schema()",
    )
    .fetch_all(&mut *connection)
    .await?;
    let mut rows = Vec::new();
    for table in TABLES {
        if table == HEARTBEAT || !(all_present || present.iter().any(|t| t == table)) {
            continue;
        }
        let count = count(&mut *connection, table).await?;
        if count > 0 {
            rows.push((table, count));
        }
    }
    Ok(rows)
}

/// `SELECT COUNT(*)` of one of [`TABLES`] (a constant, never input).
async fn count(connection: &mut AnyConnection, table: &str) -> Result<i64, StoreError> {
    Ok(sqlx::query(&format!("SELECT COUNT(*) FROM {table}"))
        .fetch_one(connection)
        .await?
        .try_get(0)?)
}

/// `name` as a quoted SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The refusal of a target that holds data.
fn occupied_error(rows: &[(&str, i64)]) -> StoreError {
    let list: Vec<String> = rows.iter().map(|(t, n)| format!("{t} {n}")).collect();
    StoreError::Conflict(CopyRefusal::Occupied(list).into())
}

impl Store {
    /// Copies every table of `source` into this PostgreSQL database, which must hold no
    /// data (a server that only started on it leaves a heartbeat, which is replaced; one
    /// whose heartbeat is younger than `running_within_ms` at `now` is refused). One
    /// transaction: the tables are locked against writers, copied in [`TABLES`] order
    /// (parents before the rows that refer to them), sequences set past the copied ids,
    /// and every table counted against the source before it commits. `progress` hears
    /// `(table, rows copied so far)` after each batch.
    ///
    /// # Errors
    /// On SQLite, on a target with data or a running server, on a value the target's
    /// column cannot take, or when a count differs; the target is unchanged then.
    pub async fn copy_from_sqlite(
        &self,
        source: &SqliteSource,
        now: i64,
        running_within_ms: i64,
        mut progress: impl FnMut(&str, u64),
    ) -> Result<Vec<TableCount>, StoreError> {
        if self.backend != Backend::Postgres {
            return Err(StoreError::Conflict(CopyRefusal::IntoPostgresOnly.into()));
        }
        let mut target = self.pool.begin().await?;
        // Writers wait until the copy commits; readers do not.
        sqlx::query(&format!(
            "LOCK TABLE {} IN EXCLUSIVE MODE",
            TABLES.join(", ")
        ))
        .execute(&mut *target)
        .await?;
        let held = occupied(&mut target, true).await?;
        if !held.is_empty() {
            return Err(occupied_error(&held));
        }
        let beat: Option<i64> = sqlx::query_scalar("SELECT beat_at FROM heartbeat WHERE id = 1")
            .fetch_optional(&mut *target)
            .await?;
        if let Some(beat) = beat
            && now - beat < running_within_ms
        {
            return Err(StoreError::Conflict(
                CopyRefusal::ServerRunning {
                    seconds: (now - beat) / 1000,
                }
                .into(),
            ));
        }
        sqlx::query("DELETE FROM heartbeat")
            .execute(&mut *target)
            .await?;

        // One read transaction: every table as of one moment.
        let mut reader = source.pool.begin().await?;
        let mut counts = Vec::with_capacity(TABLES.len());
        for table in TABLES {
            let columns = target_columns(&mut target, table).await?;
            check_source_columns(&mut reader, table, &columns).await?;
            let copied =
                copy_table(&mut reader, &mut target, table, &columns, &mut progress).await?;
            let source_rows = count(&mut reader, table).await?;
            if copied != u64::try_from(source_rows).unwrap_or(u64::MAX) {
                return Err(StoreError::Conflict(
                    CopyRefusal::ReadShort {
                        table: table.to_owned(),
                        copied,
                        counted: source_rows,
                    }
                    .into(),
                ));
            }
            counts.push(TableCount {
                table,
                source: source_rows,
                target: 0,
            });
        }
        reset_sequences_in(&mut target, &TABLES).await?;
        for entry in &mut counts {
            entry.target = count(&mut target, entry.table).await?;
        }
        reader.rollback().await?;
        if let Some(differs) = counts.iter().find(|c| c.source != c.target) {
            return Err(StoreError::Conflict(
                CopyRefusal::CountsDiffer {
                    table: differs.table.to_owned(),
                    source_rows: differs.source,
                    target_rows: differs.target,
                }
                .into(),
            ));
        }
        target.commit().await?;
        // Fresh statistics for the planner after a bulk load (outside the transaction;
        // a failure here loses nothing).
        if let Err(error) = sqlx::query(&format!("ANALYZE {}", TABLES.join(", ")))
            .execute(&self.pool)
            .await
        {
            tracing::warn!(%error, "ANALYZE after the copy");
        }
        Ok(counts)
    }

    /// Sets each sequence behind a column of `tables` (serial or identity) past the
    /// largest value stored, so that the next default value is new: after rows were
    /// inserted with their ids, as a copy does. Returns `table.column` of each one set.
    /// Kingstable's own tables use random text ids and have none today; this keeps a copy
    /// right if a migration adds one.
    ///
    /// # Errors
    /// On SQLite, or a database failure.
    pub async fn reset_sequences(&self, tables: &[&str]) -> Result<Vec<String>, StoreError> {
        if self.backend != Backend::Postgres {
            return Err(StoreError::Conflict(
                CopyRefusal::SequencesOnPostgres.into(),
            ));
        }
        let mut connection = self.pool.acquire().await?;
        reset_sequences_in(&mut connection, tables).await
    }
}

/// [`Store::reset_sequences`] on one connection (the copy's transaction).
async fn reset_sequences_in(
    connection: &mut AnyConnection,
    tables: &[&str],
) -> Result<Vec<String>, StoreError> {
    let rows = sqlx::query(
        "SELECT table_name::text, column_name::text, \
                pg_get_serial_sequence(quote_ident(table_name), column_name)::text \
         FROM information_schema.columns \
         WHERE table_schema = current_schema() \
           AND (column_default LIKE 'nextval(%' OR is_identity = 'YES') \
         ORDER BY table_name, column_name",
    )
    .fetch_all(&mut *connection)
    .await?;
    let mut set = Vec::new();
    for row in rows {
        let table: String = row.try_get(0)?;
        let column: String = row.try_get(1)?;
        let sequence: Option<String> = row.try_get(2)?;
        let (Some(sequence), true) = (sequence, tables.contains(&table.as_str())) else {
            continue;
        };
        // is_called false: the next value is exactly MAX + 1 (1 for an empty table).
        sqlx::query(&format!(
            "SELECT setval($1::regclass, COALESCE((SELECT MAX({c}) FROM {t}), 0) + 1, false)",
            c = quoted(&column),
            t = quoted(&table)
        ))
        .bind(sequence)
        .execute(&mut *connection)
        .await?;
        set.push(format!("{table}.{column}"));
    }
    Ok(set)
}

/// The target's columns of `table`, in order, with their types.
async fn target_columns(
    connection: &mut AnyConnection,
    table: &str,
) -> Result<Vec<(String, ColumnType)>, StoreError> {
    let rows = sqlx::query(
        "SELECT column_name::text, data_type::text FROM information_schema.columns \
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
    )
    .bind(table)
    .fetch_all(connection)
    .await?;
    let mut columns = Vec::with_capacity(rows.len());
    for row in rows {
        let name: String = row.try_get(0)?;
        let data_type: String = row.try_get(1)?;
        let kind = match data_type.as_str() {
            "text" | "character varying" => ColumnType::Text,
            "bigint" | "integer" | "smallint" => ColumnType::Integer,
            "double precision" | "real" => ColumnType::Float,
            other => {
                return Err(StoreError::Corrupt(format!(
                    "{table}.{name} is of type {other}, which the copy does not handle"
                )));
            }
        };
        columns.push((name, kind));
    }
    if columns.is_empty() {
        return Err(StoreError::Corrupt(format!(
            "the PostgreSQL database has no table {table}"
        )));
    }
    Ok(columns)
}

/// Checks that the source's `table` has the target's columns, no more, no fewer.
async fn check_source_columns(
    connection: &mut AnyConnection,
    table: &str,
    columns: &[(String, ColumnType)],
) -> Result<(), StoreError> {
    let mut source: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_table_info($1)")
        .bind(table)
        .fetch_all(connection)
        .await?;
    let mut target: Vec<String> = columns.iter().map(|(name, _)| name.clone()).collect();
    source.sort();
    target.sort();
    if source != target {
        return Err(StoreError::Corrupt(format!(
            "{table} has columns ({}) in SQLite and ({}) in PostgreSQL",
            source.join(", "),
            target.join(", ")
        )));
    }
    Ok(())
}

/// Streams `table`'s rows from the source into the target in batches; the rows copied.
async fn copy_table(
    reader: &mut AnyConnection,
    target: &mut AnyConnection,
    table: &'static str,
    columns: &[(String, ColumnType)],
    progress: &mut impl FnMut(&str, u64),
) -> Result<u64, StoreError> {
    let select = columns
        .iter()
        .map(|(name, kind)| match kind {
            // A whole number stored in a REAL column reads as an integer otherwise.
            ColumnType::Float => format!("CAST({} AS REAL)", quoted(name)),
            ColumnType::Text | ColumnType::Integer => quoted(name),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let names = columns
        .iter()
        .map(|(name, _)| quoted(name))
        .collect::<Vec<_>>()
        .join(", ");
    let per_batch = (MAX_PARAMETERS / columns.len()).clamp(1, MAX_ROWS);
    let sql = format!("SELECT {select} FROM {table}");
    let mut rows = sqlx::query(&sql).fetch(reader);
    let mut batch: Vec<Vec<Value>> = Vec::with_capacity(per_batch);
    let mut copied = 0_u64;
    while let Some(row) = rows.try_next().await? {
        batch.push(read_row(&row, table, columns)?);
        if batch.len() == per_batch {
            copied += insert(target, table, &names, columns.len(), &mut batch).await?;
            progress(table, copied);
        }
    }
    if !batch.is_empty() {
        copied += insert(target, table, &names, columns.len(), &mut batch).await?;
    }
    progress(table, copied);
    Ok(copied)
}

/// One source row's values, each read as its target column's type.
fn read_row(
    row: &AnyRow,
    table: &str,
    columns: &[(String, ColumnType)],
) -> Result<Vec<Value>, StoreError> {
    columns
        .iter()
        .enumerate()
        .map(|(i, (name, kind))| {
            let value = match kind {
                ColumnType::Text => row.try_get(i).map(Value::Text),
                ColumnType::Integer => row.try_get(i).map(Value::Integer),
                ColumnType::Float => row.try_get(i).map(Value::Float),
            };
            value.map_err(|error| {
                StoreError::Corrupt(format!(
                    "{table}.{name}: a value PostgreSQL's column cannot take ({error}); \
                     nothing changed"
                ))
            })
        })
        .collect()
}

/// Inserts the rows of `batch` (emptied) in one statement; the rows inserted.
async fn insert(
    target: &mut AnyConnection,
    table: &str,
    names: &str,
    width: usize,
    batch: &mut Vec<Vec<Value>>,
) -> Result<u64, StoreError> {
    let mut sql = format!("INSERT INTO {table} ({names}) VALUES ");
    for (r, _) in batch.iter().enumerate() {
        if r > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for c in 0..width {
            if c > 0 {
                sql.push_str(", ");
            }
            sql.push('$');
            sql.push_str(&(r * width + c + 1).to_string());
        }
        sql.push(')');
    }
    let mut query = sqlx::query(&sql);
    for value in batch.drain(..).flatten() {
        query = match value {
            Value::Text(v) => query.bind(v),
            Value::Integer(v) => query.bind(v),
            Value::Float(v) => query.bind(v),
        };
    }
    Ok(query.execute(target).await?.rows_affected())
}
