//! The engine's runs for the analysis socket — an analysis, a review — as jobs on the AI
//! pool (after game moves, within the asker's quotas). A run never waits on the socket:
//! progress goes by `try_send` (an analysis's progress is dropped when the reader is
//! behind, the next one supersedes it; a review stops), and the final answer by a
//! oneshot channel.
//!
//! A review searches every position for [`REVIEW_NODES`] nodes on one thread with a
//! fresh hash table: the same game gives the same review on every run, for everyone. A
//! complete one is stored and served from storage afterwards ([`stored_review`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use engine::{AnyEngine, EngineOptions, Limits, Score};
use game::Game;
use games::AnyGame;
use tokio::sync::{mpsc, oneshot};

use super::review::{classify, for_first};
use super::socket::{LineView, Reply, ScoreView};
use crate::live::{Asker, QuotaError, Ticket, Work};
use crate::state::AppState;
use crate::store::{StoredReview, now_ms};

/// Hash table of one analysis, in MiB.
const HASH_MB: usize = 32;

/// The search budget of each position of a review, in nodes.
pub const REVIEW_NODES: u64 = 60_000;

/// A run given to the pool: dropping it cancels it.
#[derive(Debug)]
pub(super) struct Running {
    /// Cancels the run when dropped (`None`: a review read from storage, nothing runs).
    pub ticket: Option<Ticket>,
    /// Its last message (`done`, `review_done`), sent once it ends.
    pub done: oneshot::Receiver<Reply>,
    /// The client's tag of the request that started it.
    pub id: Option<u64>,
}

/// A message of a run, with the run it comes from: the socket's number for the run, and
/// the client's tag of its request.
#[derive(Debug)]
pub(super) struct Tagged {
    pub run: u64,
    pub id: Option<u64>,
    pub reply: Reply,
}

/// Where a run sends its progress.
#[derive(Clone, Debug)]
pub(super) struct Progress {
    to: mpsc::Sender<Tagged>,
    run: u64,
    id: Option<u64>,
}

impl Progress {
    /// Progress of the socket's run number `run`, started by a request tagged `id`.
    pub fn new(to: mpsc::Sender<Tagged>, run: u64, id: Option<u64>) -> Progress {
        Progress { to, run, id }
    }

    /// Queues `reply` unless the queue is full (false then).
    fn try_send(&self, reply: Reply) -> bool {
        self.to
            .try_send(Tagged {
                run: self.run,
                id: self.id,
                reply,
            })
            .is_ok()
    }
}

impl Running {
    /// Stops the run (it answers its last message with what it has).
    pub fn cancel(&self) {
        if let Some(ticket) = &self.ticket {
            ticket.cancel();
        }
    }
}

/// A reviewed move as stored (and as `review_ply` sends it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct ReviewedPly {
    pub ply: usize,
    /// The move reviewed (a stored review serves the game only while its moves match).
    pub text: String,
    pub score: ScoreView,
    pub best: Option<String>,
    pub class: Option<String>,
}

impl ReviewedPly {
    fn reply(&self) -> Reply {
        Reply::ReviewPly {
            ply: self.ply,
            score: self.score,
            best: self.best.clone(),
            class: match self.class.as_deref() {
                Some("blunder") => Some("blunder"),
                Some("mistake") => Some("mistake"),
                _ => None,
            },
        }
    }
}

fn engine() -> AnyEngine {
    AnyEngine::new(EngineOptions {
        hash_mb: HASH_MB,
        // A draw is worth what the game says: no contempt in analysis and reviews.
        contempt: Some(0),
        ..EngineOptions::default()
    })
}

/// Queues an analysis of `game` for up to `time` reporting its best `lines` lines (the
/// same one job, in the same time), its progress to `progress`.
pub(super) async fn analysis(
    state: &AppState,
    asker: Asker,
    game: AnyGame,
    time: Duration,
    lines: usize,
    progress: Progress,
) -> Result<Running, QuotaError> {
    let id = progress.id;
    let (done_tx, done) = oneshot::channel();
    let hold = crate::live::ai::hold(state, Work::Analysis, &asker).await?;
    let ticket = state
        .ai
        .submit_analysis(Work::Analysis, asker, hold, move |stop| {
            let mut engine = engine();
            engine.set_lines(lines);
            let answer = engine.answer(&game, &Limits::move_time(time), stop, |info| {
                // A reader that is behind misses this line; the next one supersedes it.
                progress.try_send(Reply::Info {
                    depth: info.depth,
                    score: info.score.into(),
                    nodes: info.nodes,
                    nps: info.nps,
                    pv: info.pv.clone(),
                    lines: info
                        .lines
                        .iter()
                        .map(|line| LineView {
                            score: line.score.into(),
                            pv: line.pv.clone(),
                        })
                        .collect(),
                });
            });
            let _ = done_tx.send(Reply::Done { best: answer.best });
        })?;
    Ok(Running {
        ticket: Some(ticket),
        done,
        id,
    })
}

/// The stored review of the game `id` over `moves`, sent to `progress` at once, if one
/// was made of these moves with [`REVIEW_NODES`]; `None` when it is to be made.
pub(super) async fn stored_review(
    state: &AppState,
    id: &str,
    moves: &[String],
    progress: &Progress,
) -> Option<Running> {
    let stored = match state.store.review(id).await {
        Ok(stored) => stored?,
        Err(error) => {
            tracing::warn!(game = %id, %error, "reading a stored review");
            return None;
        }
    };
    if stored.nodes != REVIEW_NODES {
        return None;
    }
    let plies: Vec<ReviewedPly> = serde_json::from_str(&stored.plies)
        .inspect_err(|error| tracing::error!(game = %id, %error, "a stored review does not read"))
        .ok()?;
    let same_moves =
        plies.len() == moves.len() && plies.iter().zip(moves).all(|(ply, text)| &ply.text == text);
    if !same_moves {
        return None;
    }
    for ply in &plies {
        // The channel holds a whole review (and the socket reads it before anything else).
        progress.try_send(ply.reply());
    }
    let (done_tx, done) = oneshot::channel();
    let _ = done_tx.send(Reply::ReviewDone);
    Some(Running {
        ticket: None,
        done,
        id: progress.id,
    })
}

/// Queues a review of the finished game `id` from `start` through `moves` (legal,
/// already checked), each position searched for [`REVIEW_NODES`]; one `review_ply` per
/// move to `progress`. A complete review is stored.
pub(super) async fn review(
    state: &AppState,
    asker: Asker,
    id: String,
    start: AnyGame,
    moves: Vec<String>,
    progress: Progress,
) -> Result<Running, QuotaError> {
    let tag = progress.id;
    let (done_tx, done) = oneshot::channel();
    let runtime = tokio::runtime::Handle::current();
    let keeper = state.clone();
    let hold = crate::live::ai::hold(state, Work::Review, &asker).await?;
    let ticket = state
        .ai
        .submit_analysis(Work::Review, asker, hold, move |stop| {
            let plies = review_moves(&start, &moves, REVIEW_NODES, stop, &progress);
            if plies.len() == moves.len() {
                runtime.spawn(keep_review(keeper, id, plies));
            }
            let _ = done_tx.send(Reply::ReviewDone);
        })?;
    Ok(Running {
        ticket: Some(ticket),
        done,
        id: tag,
    })
}

/// Stores a complete review.
async fn keep_review(state: AppState, id: String, plies: Vec<ReviewedPly>) {
    let review = StoredReview {
        nodes: REVIEW_NODES,
        plies: serde_json::to_string(&plies).unwrap_or_default(),
    };
    if let Err(error) = state.store.save_review(&id, &review, now_ms()).await {
        tracing::warn!(game = %id, %error, "storing a review");
    }
}

/// Searches every position of the game for `nodes` nodes and reports each move; stops
/// when `stop` is set or the reader has fallen a whole review behind. Returns the moves
/// reviewed.
fn review_moves(
    start: &AnyGame,
    moves: &[String],
    nodes: u64,
    stop: &AtomicBool,
    progress: &Progress,
) -> Vec<ReviewedPly> {
    let mut engine = engine();
    let limits = Limits::nodes(nodes);
    // The score for the side to move, and the best move, of each position.
    let mut search = |position: &AnyGame| -> (Score, Option<String>) {
        if let Some(outcome) = position.outcome() {
            return (Score::of_outcome(outcome, position.to_move(), 0), None);
        }
        let answer = engine.answer(position, &limits, stop, |_| {});
        (answer.score, answer.best)
    };
    let mut board = start.clone();
    let mut reviewed = Vec::with_capacity(moves.len());
    let (mut before, mut best_before) = search(&board);
    for (i, text) in moves.iter().enumerate() {
        if stop.load(Ordering::Relaxed) || board.try_play(text).is_err() {
            break;
        }
        let (after, best_after) = search(&board);
        // A search cut short by `stop` is not the review's: it is not kept.
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let ply = ReviewedPly {
            ply: i + 1,
            text: text.clone(),
            score: for_first(after, board.to_move()).into(),
            best: best_before.take(),
            class: classify(before, after).map(str::to_owned),
        };
        if !progress.try_send(ply.reply()) {
            break;
        }
        reviewed.push(ply);
        before = after;
        best_before = best_after;
    }
    reviewed
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::GameKind;

    #[test]
    fn a_review_is_the_same_on_every_run() {
        // Copenhagen game 60 of the aagenielsen.dk archive, ending in a corner escape.
        let moves: Vec<String> =
            "k8-g8 h6-h8xg8 j6-j11 g6-j6 k7-k10 f6-i6 k5-i5 i6-i11xj11 k10-i10 i11-k11"
                .split(' ')
                .map(str::to_owned)
                .collect();
        let start = AnyGame::start(GameKind::Copenhagen);
        let run = || {
            let (to, mut sent) = mpsc::channel(64);
            let progress = Progress::new(to, 1, None);
            let reviewed = review_moves(&start, &moves, 5_000, &AtomicBool::new(false), &progress);
            let mut replies = 0;
            while sent.try_recv().is_ok() {
                replies += 1;
            }
            assert_eq!(replies, reviewed.len());
            reviewed
        };
        let first = run();
        assert_eq!(first.len(), moves.len());
        assert_eq!(run(), first);
        // The last move escapes to a corner: the defenders (second) have won.
        assert!(matches!(
            first[moves.len() - 1].score,
            ScoreView::LossIn(_) | ScoreView::WinIn(_)
        ));
    }
}
