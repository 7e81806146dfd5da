//! Group commit of moves: every game's owner hands its move to one writer task, which
//! stores all the moves waiting at that moment with one statement (one commit, one
//! `fsync` on SQLite) and answers each owner. Under a light load a batch is one move, as
//! before; under a heavy one the commits no longer queue one behind the other, which is
//! what bounded the moves a second a single SQLite connection could take.
//!
//! Each move is still checked on its own (the game is being played and the move is its
//! next ply), and a move refused in a batch does not hold back the others. If the batch's
//! statement fails, its moves are stored again one by one, so that a failure is given
//! to the move that caused it.

use std::collections::HashSet;
use std::fmt::Write as _;

use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, oneshot};

use super::{Conflict, StoreError, StoredMove};

/// Most moves in one transaction.
// 7 parameters a move: 1,792 in a batch, under SQLite's 32,766 and PostgreSQL's 65,535.
const BATCH: usize = 256;
/// Moves waiting for the writer, at most; an owner's next move waits for room.
const QUEUE: usize = 4096;

/// One move to store, and where to answer (`Ok(true)` once stored).
struct Pending {
    game_id: String,
    mv: StoredMove,
    /// The token of the process that owns the game (see `leases.rs`).
    owner: String,
    answer: oneshot::Sender<Result<(), StoreError>>,
}

/// The handle owners send their moves through (cheap to clone).
#[derive(Clone, Debug)]
pub(super) struct MoveWriter {
    queue: mpsc::Sender<Pending>,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("game_id", &self.game_id)
            .field("ply", &self.mv.ply)
            .finish_non_exhaustive()
    }
}

impl MoveWriter {
    /// Starts the writer task on `pool` (it ends when every handle is dropped).
    pub(super) fn start(pool: AnyPool) -> MoveWriter {
        let (queue, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, receiver));
        MoveWriter { queue }
    }

    /// Stores `mv` as the next move of `game_id`.
    pub(super) async fn append(
        &self,
        game_id: &str,
        mv: &StoredMove,
        owner: &str,
    ) -> Result<(), StoreError> {
        let (answer, answered) = oneshot::channel();
        let pending = Pending {
            game_id: game_id.to_owned(),
            mv: mv.clone(),
            owner: owner.to_owned(),
            answer,
        };
        if self.queue.send(pending).await.is_err() {
            return Err(StoreError::Database(sqlx::Error::PoolClosed));
        }
        answered
            .await
            .unwrap_or(Err(StoreError::Database(sqlx::Error::PoolClosed)))
    }
}

async fn run(pool: AnyPool, mut receiver: mpsc::Receiver<Pending>) {
    let mut batch = Vec::with_capacity(BATCH);
    while receiver.recv_many(&mut batch, BATCH).await > 0 {
        let moves: Vec<Pending> = std::mem::take(&mut batch);
        match store_batch(&pool, &moves).await {
            Ok(answers) => {
                for (pending, answer) in moves.into_iter().zip(answers) {
                    let _ = pending.answer.send(answer);
                }
            }
            Err(error) if moves.len() == 1 => {
                if let Some(pending) = moves.into_iter().next() {
                    let _ = pending.answer.send(Err(error));
                }
            }
            // Each alone, so that the failure goes to the move that caused it.
            Err(_) => {
                for pending in moves {
                    let answer = match store_batch(&pool, std::slice::from_ref(&pending)).await {
                        Ok(mut answers) => answers
                            .pop()
                            .unwrap_or(Err(StoreError::Database(sqlx::Error::PoolClosed))),
                        Err(error) => Err(error),
                    };
                    let _ = pending.answer.send(answer);
                }
            }
        }
    }
}

/// Stores `moves` with one statement (one commit): each move's answer, or the
/// statement's failure. A move is stored when its game is being played and it is the
/// game's next ply, as stored before the statement: an owner sends its next move only
/// once the last is answered, so a batch holds at most one good move of a game, and a
/// stale move beside it is refused alone. The `games` row is not written: a move costs
/// one short row whatever the game's length (the row's `ply_count` and `updated_at` are
/// brought up to date with the session's snapshots and at the end).
async fn store_batch(
    pool: &AnyPool,
    moves: &[Pending],
) -> Result<Vec<Result<(), StoreError>>, StoreError> {
    let mut sql = String::from(
        "INSERT INTO moves (game_id, ply, text, first_clock_ms, second_clock_ms, played_at) \
         SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6 FROM (VALUES ",
    );
    for i in 0..moves.len() {
        let at = i * 7;
        if i > 0 {
            sql.push_str(", ");
        }
        let _ = write!(
            sql,
            "(${}, ${}, ${}, ${}, ${}, ${}, ${})",
            at + 1,
            at + 2,
            at + 3,
            at + 4,
            at + 5,
            at + 6,
            at + 7
        );
    }
    // The game's owner must be the process that sent the move (see `leases.rs`).
    sql.push_str(
        ") AS v WHERE EXISTS (SELECT 1 FROM games g WHERE g.id = v.column1 \
         AND g.status = 'playing' AND g.owner = v.column7) \
         AND (SELECT COALESCE(MAX(m.ply), 0) FROM moves m WHERE m.game_id = v.column1) \
         = v.column2 - 1",
    );
    // A batch of one (the usual case under a light load) needs only the count of rows
    // stored, which comes back without a row to read.
    let one = moves.len() == 1;
    if !one {
        sql.push_str(" RETURNING game_id, ply");
    }
    let mut query = sqlx::query(&sql);
    for Pending {
        game_id, mv, owner, ..
    } in moves
    {
        query = query
            .bind(game_id)
            .bind(i64::from(mv.ply))
            .bind(&mv.text)
            .bind(mv.first_clock_ms)
            .bind(mv.second_clock_ms)
            .bind(mv.played_at)
            .bind(owner);
    }
    if one {
        let stored = query.execute(pool).await?.rows_affected() == 1;
        return Ok(moves
            .iter()
            .map(|pending| {
                if stored {
                    Ok(())
                } else {
                    Err(refused(pending))
                }
            })
            .collect());
    }
    let stored: HashSet<(String, i64)> = query
        .fetch_all(pool)
        .await?
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<Result<_, sqlx::Error>>()?;
    Ok(moves
        .iter()
        .map(|pending| {
            if stored.contains(&(pending.game_id.clone(), i64::from(pending.mv.ply))) {
                Ok(())
            } else {
                Err(refused(pending))
            }
        })
        .collect())
}

/// The answer to a move the statement did not store.
fn refused(Pending { game_id, mv, .. }: &Pending) -> StoreError {
    StoreError::Conflict(Conflict::NotAtPly {
        game: game_id.clone(),
        ply: mv.ply.saturating_sub(1),
    })
}
