//! The store's connections, with the moves' path let in first.
//!
//! Every query of the store goes through [`Pool`] (it is an [`Executor`] like sqlx's own
//! pool) except the moves': the writer of moves ([`super::writer`]) and a move's snapshot
//! use the pool directly. The rest — requests, sockets' look-ups, sweeps — first pass a
//! gate with one place fewer than the pool has connections (one on SQLite, whose single
//! connection they share with the moves). So at most that many of them wait at the pool
//! at once, and a move's statement waits for one of them at most, not for a queue of
//! hundreds: with 2,000 games starting at once on SQLite, the moves' writer waited up to
//! 360 ms for the connection behind the new games' requests, for 2 ms of its own work.
//! The others wait at the gate instead, in the order they came.

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::{self, BoxStream};
use sqlx::any::{AnyQueryResult, AnyRow, AnyStatement, AnyTypeInfo};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Describe, Either, Execute, Executor, Transaction};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The store's connections (cheap to clone).
#[derive(Clone, Debug)]
pub(super) struct Pool {
    raw: AnyPool,
    /// Places for everything but the moves' path.
    gate: Arc<Semaphore>,
}

/// A connection or transaction taken through the gate: it keeps its place until dropped.
#[derive(Debug)]
pub(super) struct Gated<T> {
    inner: T,
    _place: OwnedSemaphorePermit,
}

impl Pool {
    /// `raw`, of `connections` connections, with `connections - 1` places at the gate
    /// (one when it has a single connection).
    pub(super) fn new(raw: AnyPool, connections: u32) -> Pool {
        Pool {
            raw,
            gate: Arc::new(Semaphore::new(places(connections))),
        }
    }

    /// The pool itself, not gated: for the moves' path, and the migrations at start.
    pub(super) fn priority(&self) -> &AnyPool {
        &self.raw
    }

    /// A place at the gate, waited for as long as a connection is at the pool: a query
    /// fails after that time rather than wait for ever behind a stuck one.
    async fn place(gate: Arc<Semaphore>) -> Result<OwnedSemaphorePermit, sqlx::Error> {
        match tokio::time::timeout(super::ACQUIRE_TIMEOUT, gate.acquire_owned()).await {
            Ok(Ok(place)) => Ok(place),
            // The gate is never closed: an error would mean the store is gone.
            Ok(Err(_)) => Err(sqlx::Error::PoolClosed),
            Err(_) => Err(sqlx::Error::PoolTimedOut),
        }
    }

    /// A connection, through the gate.
    pub(super) async fn acquire(&self) -> Result<Gated<PoolConnection<Any>>, sqlx::Error> {
        let place = Pool::place(Arc::clone(&self.gate)).await?;
        Ok(Gated {
            inner: self.raw.acquire().await?,
            _place: place,
        })
    }

    /// A transaction, through the gate.
    pub(super) async fn begin(&self) -> Result<Gated<Transaction<'static, Any>>, sqlx::Error> {
        let place = Pool::place(Arc::clone(&self.gate)).await?;
        Ok(Gated {
            inner: self.raw.begin().await?,
            _place: place,
        })
    }

    /// A transaction that writes after it reads, through the gate: on SQLite it takes the
    /// write lock at once (`BEGIN IMMEDIATE`), so that another connection's write
    /// between its read and its write makes it wait (the busy timeout) instead of
    /// failing as "database is locked".
    pub(super) async fn begin_writing(
        &self,
        backend: super::Backend,
    ) -> Result<Gated<Transaction<'static, Any>>, sqlx::Error> {
        if backend != super::Backend::Sqlite {
            return self.begin().await;
        }
        let place = Pool::place(Arc::clone(&self.gate)).await?;
        Ok(Gated {
            inner: self.raw.begin_with("BEGIN IMMEDIATE").await?,
            _place: place,
        })
    }

    /// Waits for running queries, then closes every connection.
    pub(super) async fn close(&self) {
        super::close_pool(&self.raw).await;
    }
}

/// The places at the gate of a pool of `connections`: one fewer, and at least one.
fn places(connections: u32) -> usize {
    usize::try_from(connections.saturating_sub(1).max(1)).unwrap_or(1)
}

impl Gated<Transaction<'static, Any>> {
    /// Commits the transaction (and gives its place back).
    pub(super) async fn commit(self) -> Result<(), sqlx::Error> {
        self.inner.commit().await
    }
}

impl<T: std::ops::Deref<Target = AnyConnection>> std::ops::Deref for Gated<T> {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        &self.inner
    }
}

impl<T: std::ops::DerefMut<Target = AnyConnection>> std::ops::DerefMut for Gated<T> {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.inner
    }
}

impl<'p> Executor<'p> for &'_ Pool {
    type Database = Any;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let raw = self.raw.clone();
        let gate = Arc::clone(&self.gate);
        Box::pin(
            stream::once(async move {
                match Pool::place(gate).await {
                    Ok(place) => <&AnyPool as Executor<'e>>::fetch_many(&raw, query)
                        // The place is kept until the rows are read.
                        .map(move |item| {
                            let _ = &place;
                            item
                        })
                        .boxed(),
                    Err(error) => stream::once(async move { Err(error) }).boxed(),
                }
            })
            .flatten(),
        )
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<AnyRow>, sqlx::Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let raw = self.raw.clone();
        let gate = Arc::clone(&self.gate);
        Box::pin(async move {
            let _place = Pool::place(gate).await?;
            <&AnyPool as Executor<'e>>::fetch_optional(&raw, query).await
        })
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [AnyTypeInfo],
    ) -> BoxFuture<'e, Result<AnyStatement<'q>, sqlx::Error>>
    where
        'p: 'e,
    {
        let raw = self.raw.clone();
        let gate = Arc::clone(&self.gate);
        Box::pin(async move {
            let _place = Pool::place(gate).await?;
            <&AnyPool as Executor<'e>>::prepare_with(&raw, sql, parameters).await
        })
    }

    fn describe<'e, 'q: 'e>(self, sql: &'q str) -> BoxFuture<'e, Result<Describe<Any>, sqlx::Error>>
    where
        'p: 'e,
    {
        let raw = self.raw.clone();
        let gate = Arc::clone(&self.gate);
        Box::pin(async move {
            let _place = Pool::place(gate).await?;
            <&AnyPool as Executor<'e>>::describe(&raw, sql).await
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::DatabaseUrl;
    use crate::store::Store;

    /// While the gate's one place is taken (a request holding it), a query of the moves'
    /// path still runs, and any other query waits for the place.
    #[tokio::test]
    async fn the_moves_path_passes_a_full_gate() {
        let dir = tempfile::tempdir().unwrap();
        let url: DatabaseUrl = dir.path().join("k.db").to_str().unwrap().parse().unwrap();
        let store = Store::open(&url, 1).await.unwrap();
        let pool = store.pool.clone();
        let held = Pool::place(Arc::clone(&pool.gate)).await.unwrap();
        let moves: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM moves")
            .fetch_one(pool.priority())
            .await
            .unwrap();
        assert_eq!(moves, 0);
        let waiting = tokio::spawn({
            let pool = pool.clone();
            async move {
                sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM games")
                    .fetch_one(&pool)
                    .await
            }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !waiting.is_finished(),
            "a gated query ran past a taken place"
        );
        drop(held);
        assert_eq!(waiting.await.unwrap().unwrap(), 0);
        // Transactions and connections take a place too, and give it back.
        let tx = pool.begin().await.unwrap();
        assert_eq!(pool.gate.available_permits(), 0);
        tx.commit().await.unwrap();
        drop(pool.acquire().await.unwrap());
        assert_eq!(pool.gate.available_permits(), 1);
        store.close().await;
    }

    /// A query does not wait at the gate for ever: after as long as it would wait at the
    /// pool, it fails as the pool's own wait does.
    #[tokio::test(start_paused = true)]
    async fn a_place_is_waited_for_as_long_as_a_connection() {
        let gate = Arc::new(Semaphore::new(1));
        let held = Pool::place(Arc::clone(&gate)).await.unwrap();
        let started = tokio::time::Instant::now();
        let waited = Pool::place(Arc::clone(&gate)).await;
        assert!(
            matches!(waited, Err(sqlx::Error::PoolTimedOut)),
            "{waited:?}"
        );
        assert_eq!(started.elapsed(), crate::store::ACQUIRE_TIMEOUT);
        drop(held);
        assert!(Pool::place(gate).await.is_ok());
    }

    /// PostgreSQL's pool of `n` connections keeps one for the moves.
    #[test]
    fn places_leave_a_connection_to_the_moves() {
        assert_eq!(places(1), 1);
        assert_eq!(places(2), 1);
        assert_eq!(places(10), 9);
    }
}
