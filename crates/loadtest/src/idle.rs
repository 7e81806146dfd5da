//! Sockets that only listen: lobby sockets and spectators of idle games. They read
//! everything they are sent (counting it) and ping every 25 s, as the web client does.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;

use crate::net::{Identity, Target, WebSocket};
use crate::players;
use crate::proto;
use crate::stats::{Count, Stats};

/// How often a listening socket pings.
const PING_EVERY: Duration = Duration::from_secs(25);

/// Opens `count` sockets at `paths` (in turn), at most `parallel` connecting at once; each
/// then listens until `until`. Returns when all are open (or failed, counted as errors).
pub async fn open_listeners(
    target: &Target,
    paths: &[String],
    count: usize,
    lobby: bool,
    stats: &Arc<Stats>,
    until: Instant,
    tasks: &mut JoinSet<()>,
) {
    let gate = Arc::new(Semaphore::new(32));
    let mut opening = JoinSet::new();
    for i in 0..count {
        let path = paths[i % paths.len()].clone();
        let target = target.clone();
        let gate = Arc::clone(&gate);
        opening.spawn(async move {
            let _permit = gate.acquire_owned().await;
            Identity::new().socket(&target, &path).await
        });
    }
    while let Some(opened) = opening.join_next().await {
        match opened {
            Ok(Ok(socket)) => {
                let stats = Arc::clone(stats);
                tasks.spawn(async move {
                    let (messages, bytes, chat) = if lobby {
                        (&stats.lobby_messages, &stats.lobby_bytes, &stats.chat_heard)
                    } else {
                        (&stats.idle_messages, &Count::default(), &Count::default())
                    };
                    if let Err(error) = listen(socket, until, messages, bytes, chat).await {
                        stats.error(format!("a listening socket: {error:#}"));
                    }
                });
            }
            Ok(Err(error)) => stats.error(format!("opening a listening socket: {error:#}")),
            Err(error) => stats.error(format!("opening a listening socket: {error}")),
        }
    }
}

async fn listen(
    mut socket: WebSocket,
    until: Instant,
    messages: &Count,
    bytes: &Count,
    chat: &Count,
) -> Result<()> {
    let mut ping = tokio::time::interval_at((Instant::now() + PING_EVERY).into(), PING_EVERY);
    let deadline = tokio::time::sleep_until(until.into());
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            () = &mut deadline => break,
            _ = ping.tick() => socket.send(Message::Text(proto::simple("ping").into())).await?,
            next = socket.next() => match next {
                Some(Ok(Message::Text(text))) => {
                    messages.inc();
                    bytes.add(text.len() as u64);
                    if text.starts_with("{\"t\":\"lobby_chat\"") {
                        chat.inc();
                    }
                }
                Some(Ok(Message::Close(_))) | None => anyhow::bail!("closed by the server"),
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error.into()),
            }
        }
    }
    let _ = socket.close(None).await;
    Ok(())
}

/// Creates `count` friend games that nobody plays (untimed, both seats taken), for idle
/// spectators to watch; returns their socket paths.
///
/// # Errors
/// When the server refuses one.
pub async fn idle_games(target: &Target, count: usize) -> Result<Vec<String>> {
    let mut paths = Vec::with_capacity(count);
    for i in 0..count {
        let (mut a, mut b) = (Identity::new(), Identity::new());
        let kind = ["fetlar", "copenhagen", "camelot"][i % 3];
        let id = players::friend_game(target, &mut a, &mut b, kind, "untimed").await?;
        paths.push(format!("/ws/game/{id}"));
    }
    Ok(paths)
}
