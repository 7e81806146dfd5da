//! Analysis: any position as the board draws it (`POST /api/position`), and the engine
//! thinking about it on `/ws/analysis`, streaming depth, evaluation and best line.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use engine::{DefaultEngine, EngineGame, Limits, Score, SearchInfo, line_texts};
use game::{Game, GameKind};
use games::{AnyGame, BoardView, MoveInfo};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::games::{SOCKET_MESSAGE_LIMIT, send};
use super::{ApiJson, json_with};
use crate::error::{ApiError, ErrorCode};
use crate::live::PlayedView;
use crate::security::{check_direct, check_same_origin};
use crate::state::AppState;

/// The longest one analysis may run.
pub const MAX_ANALYSIS: Duration = Duration::from_secs(60);
/// Most moves a line to analyse may have.
const MAX_LINE: usize = 1000;
/// Hash table of one analysis, in MiB.
const HASH_MB: usize = 32;
/// Search time per position of a review, unless asked otherwise.
const REVIEW_PER_PLY: Duration = Duration::from_millis(300);
/// The most a review may take per position.
const MAX_REVIEW_PER_PLY: Duration = Duration::from_secs(2);
/// Most plies a review looks at.
const MAX_REVIEW_PLIES: usize = 400;
/// A move that loses this much (in the engine's units, from the mover's side) is a
/// mistake; twice as much with a margin, a blunder.
const MISTAKE: i32 = 100;
const BLUNDER: i32 = 300;

/// The body of `POST /api/position`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionBody {
    kind: GameKind,
    /// A position string; empty for the start position.
    #[serde(default)]
    position: String,
    /// Moves played from it.
    #[serde(default)]
    moves: Vec<String>,
}

/// What the board of the analysis page draws.
#[derive(Debug, Serialize)]
struct PositionView {
    board: BoardView,
    legal_moves: Vec<MoveInfo>,
    /// The position string after the moves.
    position: String,
    moves: Vec<PlayedView>,
    /// The result, if the line ends the game.
    result: Option<game::Outcome>,
}

/// The game `position` (empty: the start) of `kind` after `moves`, or a sentence saying
/// what is wrong.
fn line(
    kind: GameKind,
    position: &str,
    moves: &[String],
) -> Result<(AnyGame, Vec<PlayedView>), String> {
    if moves.len() > MAX_LINE {
        return Err(format!("at most {MAX_LINE} moves"));
    }
    let mut game = if position.trim().is_empty() {
        AnyGame::start(kind)
    } else {
        AnyGame::from_position(kind, position).map_err(|e| format!("position: {e}"))?
    };
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let player = game.to_move();
        let info = game
            .try_play(text)
            .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        played.push(PlayedView {
            ply: i + 1,
            player,
            info,
        });
    }
    Ok((game, played))
}

/// `POST /api/position`: the board, legal moves and position string of a position and
/// a line of moves from it.
pub async fn position(ApiJson(body): ApiJson<PositionBody>) -> Result<Response, ApiError> {
    let (game, moves) = line(body.kind, &body.position, &body.moves)
        .map_err(|why| ApiError::new(ErrorCode::BadRequest, why))?;
    let view = PositionView {
        board: BoardView::of(&game),
        legal_moves: game.legal_moves_info(),
        position: game.position_string(),
        moves,
        result: game.outcome(),
    };
    Ok(json_with(StatusCode::OK, &view))
}

/// What a client sends on `/ws/analysis`.
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Request {
    /// Analyse this position and line, for up to `time_ms`.
    Analyze {
        kind: GameKind,
        #[serde(default)]
        position: String,
        #[serde(default)]
        moves: Vec<String>,
        #[serde(default)]
        time_ms: Option<u64>,
    },
    /// A computer review of a game: every position searched for `time_ms_per_ply`.
    Review {
        game: String,
        #[serde(default)]
        time_ms_per_ply: Option<u64>,
    },
    /// Stop the analysis (it answers `done` with what it has).
    Stop,
    /// Keep the connection open.
    Ping,
}

/// A score as clients read it.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum ScoreView {
    /// Centipawn-like units for the side to move.
    Cp(i32),
    /// The side to move wins in this many plies.
    WinIn(i32),
    /// The side to move loses in this many plies.
    LossIn(i32),
}

impl From<Score> for ScoreView {
    fn from(score: Score) -> ScoreView {
        match score.plies_to_end() {
            Some(plies) if score.0 > 0 => ScoreView::WinIn(plies),
            Some(plies) => ScoreView::LossIn(plies),
            None => ScoreView::Cp(score.0),
        }
    }
}

/// What the server sends on `/ws/analysis`.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Reply {
    /// A completed depth.
    Info {
        depth: u32,
        score: ScoreView,
        nodes: u64,
        nps: u64,
        pv: Vec<String>,
    },
    /// The analysis ended (stopped, or out of time): its best move.
    Done {
        best: Option<String>,
    },
    /// A reviewed move: the evaluation after it for the first player, the best move in
    /// the position before it, and `mistake` or `blunder` when it lost that much.
    ReviewPly {
        ply: usize,
        score: ScoreView,
        best: Option<String>,
        class: Option<&'static str>,
    },
    /// The review is complete (or was stopped).
    ReviewDone,
    /// A refused message.
    Error {
        code: &'static str,
        message: String,
    },
    Pong,
}

/// `GET /ws/analysis`: the engine on a position, one analysis at a time per socket.
pub async fn socket(
    State(state): State<AppState>,
    viewer: crate::auth::Viewer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let watch = state.revocations.watch(&state, &viewer);
    Ok(upgrade
        .max_message_size(SOCKET_MESSAGE_LIMIT * 4)
        .on_upgrade(move |socket| serve(state, watch, socket)))
}

async fn serve(state: AppState, mut watch: crate::auth::SessionWatch, mut socket: WebSocket) {
    state.metrics.sockets.inc();
    let limiter = state.limiters.socket_limiter();
    let (sender, mut replies) = mpsc::channel::<Reply>(64);
    let mut running: Option<Arc<AtomicBool>> = None;
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => break,
            // Signed out everywhere, or the password changed: the socket closes.
            () = watch.ended() => break,
            reply = replies.recv() => {
                let Some(reply) = reply else { break };
                if matches!(reply, Reply::Done { .. } | Reply::ReviewDone) {
                    running = None;
                }
                if !send(&mut socket, &reply).await { break }
            }
            incoming = tokio::time::timeout(Duration::from_secs(120), socket.recv()) => {
                let Ok(Some(Ok(message))) = incoming else { break };
                let Message::Text(text) = message else {
                    if matches!(message, Message::Close(_)) { break }
                    continue;
                };
                if check_direct(&limiter).is_err() {
                    let reply = Reply::Error { code: "rate_limited", message: "too many messages: slow down".into() };
                    if !send(&mut socket, &reply).await { break }
                    continue;
                }
                let reply = match serde_json::from_str::<Request>(&text) {
                    Err(error) => Some(Reply::Error { code: "bad_message", message: format!("not a message of this socket: {error}") }),
                    Ok(Request::Ping) => Some(Reply::Pong),
                    Ok(Request::Stop) => {
                        if let Some(stop) = &running { stop.store(true, Ordering::Relaxed) }
                        None
                    }
                    Ok(Request::Review { game, time_ms_per_ply }) => match reviewed_game(&state, &game).await {
                        Err(why) => Some(Reply::Error { code: "bad_game", message: why }),
                        Ok(game) => {
                            if let Some(stop) = running.take() { stop.store(true, Ordering::Relaxed) }
                            let stop = Arc::new(AtomicBool::new(false));
                            running = Some(Arc::clone(&stop));
                            let per_ply = time_ms_per_ply.map_or(REVIEW_PER_PLY, Duration::from_millis).min(MAX_REVIEW_PER_PLY);
                            start_review(&state, game, per_ply, stop, sender.clone());
                            None
                        }
                    },
                    Ok(Request::Analyze { kind, position, moves, time_ms }) => match line(kind, &position, &moves) {
                        Err(why) => Some(Reply::Error { code: "bad_position", message: why }),
                        Ok((game, _)) => {
                            if let Some(stop) = running.take() { stop.store(true, Ordering::Relaxed) }
                            let stop = Arc::new(AtomicBool::new(false));
                            running = Some(Arc::clone(&stop));
                            let time = time_ms.map_or(MAX_ANALYSIS, Duration::from_millis).min(MAX_ANALYSIS);
                            start(&state, game, time, stop, sender.clone());
                            None
                        }
                    },
                };
                if let Some(reply) = reply && !send(&mut socket, &reply).await { break }
            }
        }
    }
    if let Some(stop) = running {
        stop.store(true, Ordering::Relaxed);
    }
    state.metrics.sockets.dec();
}

/// Runs one analysis on the AI pool, sending its progress to `replies`.
fn start(
    state: &AppState,
    game: AnyGame,
    time: Duration,
    stop: Arc<AtomicBool>,
    replies: mpsc::Sender<Reply>,
) {
    let permits = state.ai.permits();
    state.tasks.spawn(async move {
        let Ok(permit) = permits.acquire_owned().await else {
            return;
        };
        if stop.load(Ordering::Relaxed) {
            let _ = replies.send(Reply::Done { best: None }).await;
            return;
        }
        let done = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            match &game {
                AnyGame::Tafl(g) => think(g, time, &stop, &replies),
                AnyGame::Camelot(g) => think(g, time, &stop, &replies),
            }
        })
        .await;
        if let Err(error) = done {
            tracing::error!(%error, "an analysis failed");
        }
    });
}

fn think<G: EngineGame>(
    game: &G,
    time: Duration,
    stop: &AtomicBool,
    replies: &mpsc::Sender<Reply>,
) {
    let mut engine = DefaultEngine::<G>::default();
    engine.set_hash_mb(HASH_MB);
    engine.set_threads(1);
    let limits = Limits::move_time(time);
    let answer = engine.answer(game, &limits, stop, |info: &SearchInfo<G::Move>| {
        let _ = replies.blocking_send(Reply::Info {
            depth: info.depth,
            score: info.score.into(),
            nodes: info.nodes,
            nps: info.nps,
            pv: line_texts(game, &info.pv),
        });
    });
    let best = answer.result.best_move.map(|mv| game.format_move(mv));
    let _ = replies.blocking_send(Reply::Done { best });
}

/// The game `id` (live or finished) rebuilt from its start and moves.
async fn reviewed_game(state: &AppState, id: &str) -> Result<AnyGame, String> {
    let ident = crate::live::Ident::default();
    let view = match state.live.handle(id) {
        Some(handle) => handle.view(ident.clone()).await,
        None => None,
    };
    let view = match view {
        Some(view) => view,
        None => crate::live::stored_view(state, id, &ident)
            .await
            .map_err(|_| "the game cannot be read now".to_owned())?
            .ok_or_else(|| "no such game".to_owned())?,
    };
    let moves: Vec<String> = view.moves.iter().map(|m| m.info.text.clone()).collect();
    if moves.len() > MAX_REVIEW_PLIES {
        return Err(format!("a review covers at most {MAX_REVIEW_PLIES} plies"));
    }
    line(view.kind, &view.start_position, &moves).map(|(game, _)| game)
}

fn start_review(
    state: &AppState,
    game: AnyGame,
    per_ply: Duration,
    stop: Arc<AtomicBool>,
    replies: mpsc::Sender<Reply>,
) {
    let permits = state.ai.permits();
    state.tasks.spawn(async move {
        let Ok(permit) = permits.acquire_owned().await else {
            return;
        };
        let done = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            match &game {
                AnyGame::Tafl(g) => {
                    review(g, &g.moves().collect::<Vec<_>>(), per_ply, &stop, &replies)
                }
                AnyGame::Camelot(g) => {
                    review(g, &g.moves().collect::<Vec<_>>(), per_ply, &stop, &replies)
                }
            }
            let _ = replies.blocking_send(Reply::ReviewDone);
        })
        .await;
        if let Err(error) = done {
            tracing::error!(%error, "a review failed");
        }
    });
}

/// A score as a number for comparing moves (decisive scores as large ones).
fn units(score: Score) -> i32 {
    match score.plies_to_end() {
        Some(plies) if score.0 > 0 => 10_000 - plies,
        Some(plies) => -10_000 + plies,
        None => score.0,
    }
}

/// Searches every position of `game`'s moves (from its start) and reports each move.
fn review<G: EngineGame>(
    game: &G,
    moves: &[G::Move],
    per_ply: Duration,
    stop: &AtomicBool,
    replies: &mpsc::Sender<Reply>,
) {
    let mut board = game.clone();
    for _ in moves {
        board.undo();
    }
    let mut engine = DefaultEngine::<G>::default();
    engine.set_hash_mb(HASH_MB);
    engine.set_threads(1);
    let limits = Limits::move_time(per_ply);
    // The score for the side to move, and the best move, of each position.
    let search = |position: &G| -> (Score, Option<String>) {
        if let Some(outcome) = position.outcome() {
            return (Score::of_outcome(outcome, position.to_move(), 0), None);
        }
        let answer = engine.answer(position, &limits, stop, |_| {});
        (
            answer.result.score,
            answer.result.best_move.map(|mv| position.format_move(mv)),
        )
    };
    let (mut before, mut best_before) = search(&board);
    for (i, &mv) in moves.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        board.play(mv);
        let (after, best_after) = search(&board);
        // From the mover's side: what the position was worth, and what it is now.
        let lost = units(before) - units(after.flip());
        let class = if lost >= BLUNDER {
            Some("blunder")
        } else if lost >= MISTAKE {
            Some("mistake")
        } else {
            None
        };
        let for_first = if board.to_move() == game::Player::First {
            after
        } else {
            after.flip()
        };
        let reply = Reply::ReviewPly {
            ply: i + 1,
            score: for_first.into(),
            best: best_before.clone(),
            class,
        };
        if replies.blocking_send(reply).is_err() {
            return;
        }
        before = after;
        best_before = best_after;
    }
}
