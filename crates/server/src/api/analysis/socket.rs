//! `/ws/analysis`: the socket, its messages, and one run at a time per socket.

use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::Response;
use engine::Score;
use game::GameKind;
use games::AnyGame;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::guard;
use super::run::{self, Progress, Running, Tagged};
use super::{MAX_ANALYSIS, MAX_LINES, MAX_REVIEW_PLIES, line, start_of};
use crate::api::game_socket::{SOCKET_MESSAGE_LIMIT, send, sized};
use crate::auth::Viewer;
use crate::conn::SocketSlot;
use crate::error::ApiError;
use crate::live::Asker;
use crate::security::{ClientIp, check_direct, check_same_origin};
use crate::state::AppState;

/// A socket that says nothing for this long is closed.
const SOCKET_IDLE: Duration = Duration::from_secs(120);
/// A client that does not take a message within this long is dropped.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// Progress messages that may wait for a slow reader: a whole review's, and some.
const PROGRESS: usize = MAX_REVIEW_PLIES + 64;

/// What a client sends on `/ws/analysis`.
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum Request {
    /// Analyse this position and line, for up to `time_ms`, reporting the best `lines`
    /// lines (1 to [`MAX_LINES`]; 1 when absent). Every answer to it carries its `id`.
    Analyze {
        #[serde(default)]
        id: Option<u64>,
        kind: GameKind,
        #[serde(default)]
        position: String,
        #[serde(default)]
        moves: Vec<String>,
        #[serde(default)]
        time_ms: Option<u64>,
        #[serde(default)]
        lines: Option<usize>,
    },
    /// A computer review of a finished game: every position searched for a fixed number
    /// of nodes (see [`run::REVIEW_NODES`]); computed once, then served from storage.
    Review {
        #[serde(default)]
        id: Option<u64>,
        game: String,
    },
    /// Stop the analysis (it answers `done` with what it has).
    Stop,
    /// Keep the connection open.
    Ping,
}

/// A score as clients read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ScoreView {
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

/// One of the best lines of an analysis: its score for the side to move, and its moves.
#[derive(Debug, Serialize)]
pub(super) struct LineView {
    pub(super) score: ScoreView,
    pub(super) pv: Vec<String>,
}

/// The error codes of `/ws/analysis` (as the game socket's
/// [`crate::live::SocketError`]), sent as their snake_case names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
pub(super) enum AnalysisError {
    /// The position or the moves cannot be played.
    BadPosition,
    /// The game to review cannot be read, or is too long.
    BadGame,
    /// The position, or the game, is being played now.
    GameInProgress,
    /// Not a message of this socket, or one out of bounds.
    BadMessage,
    /// Too many messages.
    RateLimited,
    /// The asker's (or the address's) analyses or reviews are used up for now.
    Quota,
}

/// What the server sends on `/ws/analysis`.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(super) enum Reply {
    /// A completed depth.
    Info {
        depth: u32,
        score: ScoreView,
        nodes: u64,
        nps: u64,
        pv: Vec<String>,
        /// The best lines, best first (the first is `score` and `pv`).
        lines: Vec<LineView>,
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
        code: AnalysisError,
        message: String,
    },
    Pong,
}

/// A reply as sent: with the `id` of the request it answers, when that request had one
/// (a client tells the answers to its latest request from late ones to an older one).
#[derive(Serialize)]
struct Out<'a> {
    #[serde(flatten)]
    reply: &'a Reply,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
}

impl Request {
    /// The client's tag of this request.
    fn id(&self) -> Option<u64> {
        match self {
            Request::Analyze { id, .. } | Request::Review { id, .. } => *id,
            Request::Stop | Request::Ping => None,
        }
    }
}

/// `GET /ws/analysis`: the engine on a position, one analysis at a time per socket.
/// Counts against the address's sockets; its runs count against the viewer's (and the
/// address's) quotas of analyses and reviews.
pub async fn socket(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    check_same_origin(&headers, &state.config)?;
    let slot = state.connections.socket(ip)?;
    let asker = Asker::new(&crate::live::Ident::from(&viewer), Some(ip));
    let watch = state.revocations.watch(&state, &viewer);
    Ok(sized(upgrade)
        .max_message_size(SOCKET_MESSAGE_LIMIT * 4)
        .on_upgrade(move |socket| serve(state, socket, asker, slot, watch)))
}

/// Sends `reply`, unless the client has not taken messages for [`SEND_TIMEOUT`]; false
/// when the socket is to be dropped.
async fn deliver(socket: &mut WebSocket, reply: &Reply) -> bool {
    deliver_tagged(socket, reply, None).await
}

/// Sends `reply` with the `id` of the request it answers.
async fn deliver_tagged(socket: &mut WebSocket, reply: &Reply, id: Option<u64>) -> bool {
    matches!(
        tokio::time::timeout(SEND_TIMEOUT, send(socket, &Out { reply, id })).await,
        Ok(true)
    )
}

/// The current run's last message, once it ends.
async fn finished(running: &mut Option<Running>) -> Option<Reply> {
    match running {
        Some(run) => (&mut run.done).await.ok(),
        None => std::future::pending().await,
    }
}

async fn serve(
    state: AppState,
    mut socket: WebSocket,
    asker: Asker,
    _slot: SocketSlot,
    mut watch: crate::auth::SessionWatch,
) {
    state.metrics.sockets.inc();
    let limiter = state.limiters.socket_limiter();
    let (progress, mut replies) = mpsc::channel::<Tagged>(PROGRESS);
    // Dropping the run (a new one, the socket's end) cancels it on the pool.
    let mut running: Option<Running> = None;
    // The number of the latest run: progress of an earlier (replaced) one still queued
    // is dropped, never sent after the new run's request.
    let mut latest: u64 = 0;
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => break,
            // Signed out everywhere, or the password changed: the socket closes.
            () = watch.ended() => break,
            tagged = replies.recv() => {
                let Some(tagged) = tagged else { break };
                if tagged.run == latest && !deliver_tagged(&mut socket, &tagged.reply, tagged.id).await { break }
            }
            last = finished(&mut running), if running.is_some() => {
                let id = running.as_ref().and_then(|run| run.id);
                running = None;
                // Progress still queued goes first.
                let mut open = true;
                while let Ok(tagged) = replies.try_recv() {
                    if tagged.run == latest {
                        open = open && deliver_tagged(&mut socket, &tagged.reply, tagged.id).await;
                    }
                }
                if let Some(last) = last {
                    open = open && deliver_tagged(&mut socket, &last, id).await;
                }
                if !open { break }
            }
            incoming = tokio::time::timeout(SOCKET_IDLE, socket.recv()) => {
                let Ok(Some(Ok(message))) = incoming else { break };
                let Message::Text(text) = message else {
                    if matches!(message, Message::Close(_)) { break }
                    continue;
                };
                if check_direct(&limiter).is_err() {
                    let reply = Reply::Error { code: AnalysisError::RateLimited, message: "too many messages: slow down".into() };
                    if !deliver(&mut socket, &reply).await { break }
                    continue;
                }
                let mut id = None;
                let reply = match serde_json::from_str::<Request>(&text) {
                    Err(error) => Some(Reply::Error { code: AnalysisError::BadMessage, message: format!("not a message of this socket: {error}") }),
                    Ok(Request::Ping) => Some(Reply::Pong),
                    Ok(Request::Stop) => {
                        if let Some(run) = &running { run.cancel() }
                        None
                    }
                    Ok(request) => {
                        // A new run replaces the one under way: nothing more of that one
                        // is sent.
                        id = request.id();
                        latest += 1;
                        running = None;
                        let progress = Progress::new(progress.clone(), latest, id);
                        match start(&state, &asker, request, progress).await {
                            Ok(run) => { running = Some(run); None }
                            Err(reply) => Some(reply),
                        }
                    }
                };
                if let Some(reply) = reply && !deliver_tagged(&mut socket, &reply, id).await { break }
            }
        }
    }
    drop(running);
    state.metrics.sockets.dec();
}

/// The refusal of an analysis of a game being played (see [`guard`]).
fn in_progress(message: &str) -> Reply {
    Reply::Error {
        code: AnalysisError::GameInProgress,
        message: message.to_owned(),
    }
}

/// Starts the run `request` asks for, or says why not.
async fn start(
    state: &AppState,
    asker: &Asker,
    request: Request,
    progress: Progress,
) -> Result<Running, Reply> {
    let quota = |error: crate::live::QuotaError| Reply::Error {
        code: AnalysisError::Quota,
        message: error.to_string(),
    };
    match request {
        Request::Analyze {
            id: _,
            kind,
            position,
            moves,
            time_ms,
            lines,
        } => {
            let lines = lines.unwrap_or(1);
            if !(1..=MAX_LINES).contains(&lines) {
                return Err(Reply::Error {
                    code: AnalysisError::BadMessage,
                    message: format!("lines: from 1 to {MAX_LINES}, not {lines}"),
                });
            }
            let (game, _) = line(kind, &position, &moves).map_err(|why| Reply::Error {
                code: AnalysisError::BadPosition,
                message: why,
            })?;
            let start = start_of(kind, &position).map_err(|why| Reply::Error {
                code: AnalysisError::BadPosition,
                message: why,
            })?;
            if guard::touches_live_game(state, &start, &moves) {
                return Err(in_progress(
                    "this position is being played in a game now: it can be analysed once \
                     that game ends",
                ));
            }
            let time = time_ms
                .map_or(MAX_ANALYSIS, Duration::from_millis)
                .min(MAX_ANALYSIS);
            run::analysis(state, asker.clone(), game, time, lines, progress)
                .await
                .map_err(quota)
        }
        Request::Review { id: _, game } => {
            if guard::is_live_game(state, &game) {
                return Err(in_progress(
                    "the game is still being played: it can be reviewed once it ends",
                ));
            }
            let (start, moves) = reviewed_game(state, &game)
                .await
                .map_err(|why| Reply::Error {
                    code: AnalysisError::BadGame,
                    message: why,
                })?;
            if let Some(stored) = run::stored_review(state, &game, &moves, &progress).await {
                return Ok(stored);
            }
            run::review(state, asker.clone(), game, start, moves, progress)
                .await
                .map_err(quota)
        }
        Request::Stop | Request::Ping => Err(Reply::Error {
            code: AnalysisError::BadMessage,
            message: "nothing to start".into(),
        }),
    }
}

/// The game `id` (live or finished): its start and its moves, checked to play.
async fn reviewed_game(state: &AppState, id: &str) -> Result<(AnyGame, Vec<String>), String> {
    let ident = crate::live::Ident::default();
    let view = state.live.handle(id).map(|handle| handle.view_now(&ident));
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
    line(view.kind, &view.start_position, &moves)?;
    Ok((start_of(view.kind, &view.start_position)?, moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn every_error_code_is_sent_as_docs_api_md_names_it() {
        let api = include_str!("../../../../../docs/API.md");
        let line = api
            .lines()
            .find(|l| l.starts_with("Errors: `{\"t\":\"error\",\"code\":\"bad_position\""))
            .expect("the analysis socket's errors in docs/API.md");
        let documented: Vec<&str> = line
            .split("\"code\":")
            .nth(1)
            .and_then(|rest| rest.split(",\"message\"").next())
            .expect("the codes")
            .split('|')
            .map(|code| code.trim_matches('"'))
            .collect();
        let sent: Vec<String> = AnalysisError::VARIANTS
            .iter()
            .map(|code| {
                serde_json::to_value(code)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(sent, documented);
        let reply = Out {
            reply: &Reply::Error {
                code: AnalysisError::GameInProgress,
                message: "m".into(),
            },
            id: Some(2),
        };
        assert_eq!(
            serde_json::to_string(&reply).unwrap(),
            r#"{"t":"error","code":"game_in_progress","message":"m","id":2}"#
        );
    }
}
