//! Group commit of moves: every game's owner hands its move to one writer task, which
//! stores all the moves waiting at that moment in one transaction (one commit, one
//! `fsync` on SQLite) and answers each owner. Under a light load a batch is one move, as
//! before; under a heavy one the commits no longer queue one behind the other, which is
//! what bounded the moves a second a single SQLite connection could take.
//!
//! Each move is still checked on its own (the game is being played and the move is its
//! next ply), and a move refused in a batch does not hold back the others. If the batch's
//! transaction fails, its moves are stored again one by one, so that a failure is given
//! to the move that caused it.

use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, oneshot};

use super::{StoreError, StoredMove, games::ply_from, games::snapshot_due};

/// Most moves in one transaction.
const BATCH: usize = 256;
/// Moves waiting for the writer, at most; an owner's next move waits for room.
const QUEUE: usize = 4096;

/// One move to store, and where to answer: `Ok(true)` when the session is due a
/// snapshot at this ply (see [`snapshot_due`]).
struct Pending {
    game_id: String,
    mv: StoredMove,
    answer: oneshot::Sender<Result<bool, StoreError>>,
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

    /// Stores `mv` as the next move of `game_id`; true when a snapshot is due now.
    pub(super) async fn append(&self, game_id: &str, mv: &StoredMove) -> Result<bool, StoreError> {
        let (answer, answered) = oneshot::channel();
        let pending = Pending {
            game_id: game_id.to_owned(),
            mv: mv.clone(),
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

/// Stores `moves` in one transaction: each move's answer, or the transaction's failure.
async fn store_batch(
    pool: &AnyPool,
    moves: &[Pending],
) -> Result<Vec<Result<bool, StoreError>>, StoreError> {
    let mut tx = pool.begin().await?;
    let mut answers = Vec::with_capacity(moves.len());
    for Pending { game_id, mv, .. } in moves {
        let ply = i64::from(mv.ply);
        let updated = sqlx::query(
            "UPDATE games SET ply_count = $2, updated_at = $3 \
             WHERE id = $1 AND ply_count = $2 - 1 AND status = 'playing' \
             RETURNING COALESCE(snapshot_ply, $2 - 1)",
        )
        .bind(game_id)
        .bind(ply)
        .bind(mv.played_at)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(updated) = updated else {
            answers.push(Err(StoreError::Conflict(format!(
                "game {game_id} is not being played at ply {}",
                mv.ply.saturating_sub(1)
            ))));
            continue;
        };
        let snapshot_ply = ply_from(updated.try_get(0)?)?;
        sqlx::query(
            "INSERT INTO moves (game_id, ply, text, first_clock_ms, second_clock_ms, played_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(game_id)
        .bind(ply)
        .bind(&mv.text)
        .bind(mv.first_clock_ms)
        .bind(mv.second_clock_ms)
        .bind(mv.played_at)
        .execute(&mut *tx)
        .await?;
        answers.push(Ok(snapshot_due(mv.ply, snapshot_ply)));
    }
    tx.commit().await?;
    Ok(answers)
}
