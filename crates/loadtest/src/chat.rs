//! Lobby chatters: accounts that say a line in the lobby chat at a steady pace, as people
//! on the home page do, while the lobby sockets of the run hear every line. Each chatter
//! times its own line's way back (sent → heard on its own lobby socket: stored, then sent
//! once to every lobby socket), and counts refusals (the chat's rate limit is 5 lines in
//! 10 s per author).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;

use crate::net::{Identity, Target};
use crate::stats::Stats;

/// Starts `count` chatters, each saying a line every `every` until `until`.
///
/// # Errors
/// When an account cannot be made (the run stops before it starts).
pub async fn start(
    target: &Target,
    count: usize,
    every: Duration,
    stats: &Arc<Stats>,
    until: Instant,
    tasks: &mut JoinSet<()>,
) -> Result<()> {
    let run = std::process::id();
    for index in 0..count {
        let mut who = Identity::new();
        let name = format!("lt{run:x}c{index}");
        let reply = who
            .post(
                target,
                "/api/account/signup",
                json!({"username": name, "password": "a load test password"}),
            )
            .await?;
        if !reply.status.is_success() {
            bail!("signing up {name}: {} {}", reply.status, reply.json);
        }
        let socket = who
            .socket(target, "/ws/lobby")
            .await
            .with_context(|| format!("{name}'s lobby socket"))?;
        let stats = Arc::clone(stats);
        tasks.spawn(async move {
            if let Err(error) = chatter(socket, index, every, &stats, until).await {
                stats.error(format!("a lobby chatter: {error:#}"));
            }
        });
    }
    Ok(())
}

async fn chatter(
    socket: crate::net::WebSocket,
    index: usize,
    every: Duration,
    stats: &Stats,
    until: Instant,
) -> Result<()> {
    let (mut sender, mut reader) = socket.split();
    // Spread the chatters over the interval.
    let offset = every.mul_f64((index % 16) as f64 / 16.0);
    let mut tick = tokio::time::interval_at((Instant::now() + offset).into(), every);
    let deadline = tokio::time::sleep_until(until.into());
    tokio::pin!(deadline);
    let mut waiting: Option<(String, Instant)> = None;
    let mut n = 0u64;
    loop {
        tokio::select! {
            () = &mut deadline => break,
            _ = tick.tick() => {
                n += 1;
                let text = format!("chatter {index} line {n}");
                sender
                    .send(Message::Text(json!({"t": "chat", "text": text}).to_string().into()))
                    .await?;
                stats.chat_sent.inc();
                waiting = Some((text, Instant::now()));
            }
            next = reader.next() => match next {
                Some(Ok(Message::Text(text))) => {
                    stats.lobby_messages.inc();
                    stats.lobby_bytes.add(text.len() as u64);
                    if !text.contains("\"lobby_chat\"") && !text.contains("\"error\"") {
                        continue;
                    }
                    let message: Value = serde_json::from_str(&text)?;
                    match message["t"].as_str() {
                        Some("lobby_chat") => {
                            if let Some((said, at)) = &waiting
                                && message["text"] == said.as_str()
                            {
                                stats.chat_echo.add(at.elapsed());
                                waiting = None;
                            }
                        }
                        Some("error") => {
                            stats.chat_refused.inc();
                            waiting = None;
                        }
                        _ => {}
                    }
                }
                Some(Ok(Message::Close(_))) | None => bail!("closed by the server"),
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error.into()),
            }
        }
    }
    let _ = sender.close().await;
    Ok(())
}
