//! The engine's runs for the analysis socket — an analysis, a review — as jobs on the AI
//! pool (after game moves, within the asker's quotas). A run never waits on the socket:
//! progress goes by `try_send` (an analysis's progress is dropped when the reader is
//! behind, the next one supersedes it; a review stops), and the final answer by a
//! oneshot channel.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use engine::{AnyEngine, EngineOptions, Limits, Score};
use game::Game;
use games::AnyGame;
use tokio::sync::{mpsc, oneshot};

use super::review::{classify, for_first};
use super::socket::Reply;
use crate::live::{Asker, QuotaError, Ticket, Work};
use crate::state::AppState;

/// Hash table of one analysis, in MiB.
const HASH_MB: usize = 32;

/// A run given to the pool: dropping it cancels it.
#[derive(Debug)]
pub(super) struct Running {
    /// Cancels the run when dropped.
    pub ticket: Ticket,
    /// Its last message (`done`, `review_done`), sent once it ends.
    pub done: oneshot::Receiver<Reply>,
}

fn engine() -> AnyEngine {
    AnyEngine::new(EngineOptions {
        hash_mb: HASH_MB,
        ..EngineOptions::default()
    })
}

/// Queues an analysis of `game` for up to `time`, its progress to `progress`.
pub(super) fn analysis(
    state: &AppState,
    asker: Asker,
    game: AnyGame,
    time: Duration,
    progress: mpsc::Sender<Reply>,
) -> Result<Running, QuotaError> {
    let (done_tx, done) = oneshot::channel();
    let ticket = state
        .ai
        .submit_analysis(Work::Analysis, asker, move |stop| {
            let answer = engine().answer(&game, &Limits::move_time(time), stop, |info| {
                // A reader that is behind misses this line; the next one supersedes it.
                let _ = progress.try_send(Reply::Info {
                    depth: info.depth,
                    score: info.score.into(),
                    nodes: info.nodes,
                    nps: info.nps,
                    pv: info.pv.clone(),
                });
            });
            let _ = done_tx.send(Reply::Done { best: answer.best });
        })?;
    Ok(Running { ticket, done })
}

/// Queues a review of the game from `start` through `moves` (legal, already checked),
/// each position searched for `per_ply`; one `review_ply` per move to `progress`.
pub(super) fn review(
    state: &AppState,
    asker: Asker,
    start: AnyGame,
    moves: Vec<String>,
    per_ply: Duration,
    progress: mpsc::Sender<Reply>,
) -> Result<Running, QuotaError> {
    let (done_tx, done) = oneshot::channel();
    let ticket = state.ai.submit_analysis(Work::Review, asker, move |stop| {
        review_moves(&start, &moves, per_ply, stop, &progress);
        let _ = done_tx.send(Reply::ReviewDone);
    })?;
    Ok(Running { ticket, done })
}

/// Searches every position of the game and reports each move; stops when `stop` is set
/// or the reader has fallen a whole review behind.
fn review_moves(
    start: &AnyGame,
    moves: &[String],
    per_ply: Duration,
    stop: &AtomicBool,
    progress: &mpsc::Sender<Reply>,
) {
    let mut engine = engine();
    let limits = Limits::move_time(per_ply);
    // The score for the side to move, and the best move, of each position.
    let mut search = |position: &AnyGame| -> (Score, Option<String>) {
        if let Some(outcome) = position.outcome() {
            return (Score::of_outcome(outcome, position.to_move(), 0), None);
        }
        let answer = engine.answer(position, &limits, stop, |_| {});
        (answer.score, answer.best)
    };
    let mut board = start.clone();
    let (mut before, mut best_before) = search(&board);
    for (i, text) in moves.iter().enumerate() {
        if stop.load(Ordering::Relaxed) || board.try_play(text).is_err() {
            return;
        }
        let (after, best_after) = search(&board);
        let reply = Reply::ReviewPly {
            ply: i + 1,
            score: for_first(after, board.to_move()).into(),
            best: best_before.take(),
            class: classify(before, after),
        };
        if progress.try_send(reply).is_err() {
            return;
        }
        before = after;
        best_before = best_after;
    }
}
