//! One hostile client beside the honest ones: connections that never finish their
//! headers, a flood of long AI games and of resign-and-rematch chains from one guest,
//! analysis sockets that never read; and what an honest player sees meanwhile — the
//! delay of the AI's moves in its own timed game (the victim), and `/health`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::net::{self, Arrival, Identity, Target};
use crate::players::{Rng, send};
use crate::proto::{self, Incoming};
use crate::stats::{Count, Samples, Summary};

/// What the hostile client does.
#[derive(Clone, Debug)]
pub struct HostileSettings {
    /// Connections that send part of a request's headers, or nothing, and then wait.
    pub slow_connections: usize,
    /// The local address they come from (the system's choice if none).
    pub slow_from: Option<std::net::IpAddr>,
    /// Long AI games (level 6, untimed) played at once by one guest, who answers each AI
    /// move at once.
    pub ai_games: usize,
    /// Length of the resign-and-rematch chain against the AI.
    pub rematch_chain: usize,
    /// Analysis sockets asking for a long analysis and never reading.
    pub analyses: usize,
    /// The honest player's AI level and time control.
    pub victim_level: u8,
    /// The honest player's time control.
    pub victim_time_control: String,
    /// AI moves measured before the flood starts.
    pub calibration_moves: usize,
    /// One search of the flood (the server's think time for an untimed AI move): the
    /// victim's AI move may be delayed this much beyond its calm delay, not more.
    pub flood_search: Duration,
    /// `/health` must answer within this.
    pub health_limit: Duration,
}

/// What was seen.
#[derive(Debug, Default)]
pub struct HostileReport {
    /// The victim's AI move delays before the flood.
    pub calm: Summary,
    /// And during it.
    pub flooded: Summary,
    /// The victim lost a game on time.
    pub victim_flagged: Count,
    /// `/health` answer times during the run.
    pub health: Summary,
    /// `/health` requests that failed or took longer than the limit.
    pub health_slow: u64,
    /// Slow connections the server closed (and their count).
    pub slow_closed: u64,
    /// Slow connections opened.
    pub slow_opened: u64,
    /// AI games the flood started, and those the server refused.
    pub flood_games: u64,
    /// Refused.
    pub flood_refused: u64,
    /// Rematches in the chain, and those refused.
    pub rematches: u64,
    /// Refused.
    pub rematches_refused: u64,
    /// Analysis sockets opened.
    pub analyses: u64,
    /// Breaches of fairness, described.
    pub breaches: Vec<String>,
    /// Errors of the hostile client itself (not findings).
    pub errors: Vec<String>,
}

/// Runs the hostile client until `until`.
pub async fn run(target: Target, settings: HostileSettings, until: Instant) -> HostileReport {
    let health = Arc::new(Samples::default());
    let health_slow = Arc::new(Count::default());
    let mut tasks = JoinSet::new();
    {
        let (target, health, slow) = (
            target.clone(),
            Arc::clone(&health),
            Arc::clone(&health_slow),
        );
        let limit = settings.health_limit;
        tasks.spawn(async move { probe_health(target, until, limit, &health, &slow).await });
    }
    let victim_delays = Arc::new(Mutex::new((Vec::new(), Vec::new())));
    let flagged = Arc::new(Count::default());
    let (calm_done, calm_wait) = tokio::sync::oneshot::channel();
    let victim = {
        let (target, settings) = (target.clone(), settings.clone());
        let (delays, flagged) = (Arc::clone(&victim_delays), Arc::clone(&flagged));
        tokio::spawn(
            async move { victim(target, settings, until, delays, flagged, calm_done).await },
        )
    };
    // The flood starts once the victim's calm delays are measured (or after 20 s).
    let _ = tokio::time::timeout(Duration::from_secs(20), calm_wait).await;
    let mut report = HostileReport::default();
    let slow_closed = Arc::new(Count::default());
    for i in 0..settings.slow_connections {
        match slow_connect(target.addr, settings.slow_from).await {
            Ok(stream) => {
                report.slow_opened += 1;
                let closed = Arc::clone(&slow_closed);
                tasks.spawn(
                    async move { slow_connection(stream, i % 2 == 0, until, &closed).await },
                );
            }
            Err(error) => {
                report.errors.push(format!("slow connection {i}: {error}"));
                break;
            }
        }
    }
    let mut flooder = Identity::new();
    // The chain first: its first game counts against the creation limit, its rematches
    // (on the server of issue 19's start) do not.
    if let Err(error) = rematch_chain(&target, &settings, &mut flooder, until, &mut report).await {
        report.errors.push(format!("rematch chain: {error:#}"));
    }
    let flood = flood(&target, &settings, &mut flooder, until, &mut report).await;
    let mut analysis_sockets = Vec::new();
    for _ in 0..settings.analyses {
        match analysis_that_never_reads(&target, &flooder).await {
            Ok(socket) => analysis_sockets.push(socket),
            Err(error) => report.errors.push(format!("analysis socket: {error:#}")),
        }
    }
    report.analyses = analysis_sockets.len() as u64;
    tokio::time::sleep_until(until.into()).await;
    drop(analysis_sockets);
    for task in flood {
        task.abort();
    }
    match victim.await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => report.errors.push(format!("victim: {error:#}")),
        Err(error) => report.errors.push(format!("victim task: {error}")),
    }
    while tasks.join_next().await.is_some() {}
    let (mut calm, mut flooded) = std::mem::take(
        &mut *victim_delays
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    report.calm = crate::stats::summarize(&mut calm);
    report.flooded = crate::stats::summarize(&mut flooded);
    report.victim_flagged.add(flagged.get());
    report.health = health.summary();
    report.health_slow = health_slow.get();
    report.slow_closed = slow_closed.get();
    // One search of delay: the victim's move may wait for one flood search in flight.
    // A search stops at its time limit only at its next time check, and on a loaded
    // machine its thread may be off the CPU then: a fifth of a search is allowed for
    // that, and 250 ms for the rest (two searches waited for still breach).
    let search_ms = settings.flood_search.as_secs_f64() * 1000.0;
    let allowed = report.calm.max + search_ms * 1.2 + 250.0;
    if report.flooded.count == 0 {
        report
            .breaches
            .push("the victim's AI made no move during the flood".into());
    } else if report.flooded.max > allowed {
        report.breaches.push(format!(
            "the victim's AI move was delayed {:.0} ms during the flood (calm max {:.0} ms, allowed {allowed:.0} ms: one search of {} ms more)",
            report.flooded.max,
            report.calm.max,
            settings.flood_search.as_millis()
        ));
    }
    if flagged.get() > 0 {
        report
            .breaches
            .push(format!("the victim lost {} game(s) on time", flagged.get()));
    }
    if report.health_slow > 0 {
        report.breaches.push(format!(
            "/health failed or took more than {:?} {} time(s)",
            settings.health_limit, report.health_slow
        ));
    }
    report
}

/// `GET /health` on a new connection every half second.
async fn probe_health(
    target: Target,
    until: Instant,
    limit: Duration,
    samples: &Samples,
    slow: &Count,
) {
    let Ok(client) = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .timeout(limit * 3)
        .build()
    else {
        slow.inc();
        return;
    };
    let url = format!("{}/health", target.base);
    while Instant::now() < until {
        let started = Instant::now();
        let ok = client
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        let took = started.elapsed();
        samples.add(took);
        if !ok || took > limit {
            slow.inc();
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A connection to `server`, from `from` if given.
async fn slow_connect(
    server: std::net::SocketAddr,
    from: Option<std::net::IpAddr>,
) -> std::io::Result<TcpStream> {
    let Some(from) = from else {
        return TcpStream::connect(server).await;
    };
    let socket = if from.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.bind(std::net::SocketAddr::new(from, 0))?;
    socket.connect(server).await
}

/// Holds a connection that never finishes its request; counts it when the server closes it.
async fn slow_connection(mut stream: TcpStream, partial: bool, until: Instant, closed: &Count) {
    if partial {
        let _ = stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .await;
    }
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout_at(until.into(), async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    if read.is_ok() {
        closed.inc();
    }
}

/// Starts `ai_games` long AI games from one guest, each answered at once; returns their tasks.
async fn flood(
    target: &Target,
    settings: &HostileSettings,
    flooder: &mut Identity,
    until: Instant,
    report: &mut HostileReport,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    for i in 0..settings.ai_games {
        let kind = ["copenhagen", "fetlar", "camelot"][i % 3];
        let created = flooder
            .post(
                target,
                "/api/games",
                json!({"kind": kind, "opponent": {"ai": 6}, "side": "first", "time_control": "untimed"}),
            )
            .await;
        match created {
            Ok(reply) if reply.status == StatusCode::CREATED => {
                report.flood_games += 1;
                let id = reply.json["id"].as_str().unwrap_or_default().to_owned();
                let (target, flooder) = (target.clone(), flooder.clone());
                tasks.push(tokio::spawn(async move {
                    let _ = answer_the_ai(&target, &flooder, &id, until, i as u64).await;
                }));
            }
            Ok(reply) if reply.status.is_client_error() => report.flood_refused += 1,
            Ok(reply) => report.errors.push(format!("flood game: {}", reply.status)),
            Err(error) => report.errors.push(format!("flood game: {error:#}")),
        }
    }
    tasks
}

/// Plays a random legal move each time it is the flooder's turn, until the game ends.
async fn answer_the_ai(
    target: &Target,
    who: &Identity,
    id: &str,
    until: Instant,
    seed: u64,
) -> Result<()> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut sender = net::reader(who.socket(target, &format!("/ws/game/{id}")).await?, 0, tx);
    send(&mut sender, proto::simple("hello")).await?;
    let mut rng = Rng::new(seed + 1000);
    let mut rev = 0;
    while let Ok(Some(arrival)) = tokio::time::timeout_at(until.into(), rx.recv()).await {
        let legal = match arrival.message {
            Some(Incoming::State(state)) if state.is_over() => return Ok(()),
            Some(Incoming::State(state)) => {
                rev = state.rev;
                state.legal
            }
            Some(Incoming::Events(events)) if events.ends() => return Ok(()),
            Some(Incoming::Events(events)) => {
                rev = events.last_revision().unwrap_or(rev);
                events.legal.unwrap_or_default()
            }
            None => return Ok(()),
            _ => continue,
        };
        if !legal.is_empty() {
            let text = &legal[rng.below(legal.len())];
            send(&mut sender, proto::move_message(rev, text)).await?;
        }
    }
    Ok(())
}

/// An analysis socket that asks for a minute's analysis and never reads what comes back.
async fn analysis_that_never_reads(target: &Target, who: &Identity) -> Result<net::WebSocket> {
    use futures_util::SinkExt;
    let mut socket = who.socket(target, "/ws/analysis").await?;
    socket
        .send(tokio_tungstenite::tungstenite::Message::Text(
            proto::analyze("copenhagen", 60_000).into(),
        ))
        .await?;
    Ok(socket)
}

/// Against the AI (which moves first): resign, ask for the rematch, resign it, … —
/// `rematch_chain` times or until `until`.
async fn rematch_chain(
    target: &Target,
    settings: &HostileSettings,
    flooder: &mut Identity,
    until: Instant,
    report: &mut HostileReport,
) -> Result<()> {
    if settings.rematch_chain == 0 {
        return Ok(());
    }
    let created = flooder
        .post(
            target,
            "/api/games",
            json!({"kind": "copenhagen", "opponent": {"ai": 6}, "side": "second", "time_control": "untimed"}),
        )
        .await?;
    if created.status != StatusCode::CREATED {
        report.rematches_refused += 1;
        return Ok(());
    }
    let mut id = created.json["id"].as_str().unwrap_or_default().to_owned();
    for _ in 0..settings.rematch_chain {
        if Instant::now() >= until {
            break;
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut sender = net::reader(
            flooder.socket(target, &format!("/ws/game/{id}")).await?,
            0,
            tx,
        );
        // A game socket sends the game's changes once its client has said hello.
        send(&mut sender, proto::simple("hello")).await?;
        send(&mut sender, proto::simple("resign")).await?;
        let ended = tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(arrival) = rx.recv().await {
                match arrival.message {
                    Some(Incoming::Events(events)) if events.ends() => return Ok(()),
                    Some(Incoming::Error { code, message }) => {
                        return Err(anyhow!("resign: {code}: {message}"));
                    }
                    None => return Err(anyhow!("socket closed")),
                    _ => {}
                }
            }
            Err(anyhow!("socket closed"))
        })
        .await;
        match ended {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(error),
            Err(_) => bail!("no end of game within 10 s of resigning"),
        }
        let rematch = flooder
            .request(
                target,
                reqwest::Method::POST,
                &format!("/api/games/{id}/rematch"),
                None,
            )
            .await?;
        match rematch.json["id"].as_str() {
            Some(next) if rematch.status == StatusCode::OK => {
                report.rematches += 1;
                id = next.to_owned();
            }
            _ => {
                report.rematches_refused += 1;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The honest player: a timed game against the AI, playing at once; measures how long the
/// AI takes to answer each move. The first `calibration_moves` are the calm figures
/// (then `calm_done` fires), the rest are taken during the flood.
async fn victim(
    target: Target,
    settings: HostileSettings,
    until: Instant,
    delays: Arc<Mutex<(Vec<u64>, Vec<u64>)>>,
    flagged: Arc<Count>,
    calm_done: tokio::sync::oneshot::Sender<()>,
) -> Result<()> {
    let mut me = Identity::new();
    let mut calm_done = Some(calm_done);
    let mut rng = Rng::new(99);
    let mut measured = 0;
    while Instant::now() < until {
        let created = me
            .post(
                &target,
                "/api/games",
                json!({"kind": "copenhagen", "opponent": {"ai": settings.victim_level}, "side": "first",
                       "time_control": settings.victim_time_control}),
            )
            .await?;
        if created.status != StatusCode::CREATED {
            bail!(
                "the victim's game was refused: {} {}",
                created.status,
                created.json
            );
        }
        let id = created.json["id"].as_str().unwrap_or_default().to_owned();
        let (tx, mut rx) = mpsc::unbounded_channel::<Arrival>();
        let mut sender = net::reader(me.socket(&target, &format!("/ws/game/{id}")).await?, 0, tx);
        send(&mut sender, proto::simple("hello")).await?;
        let mut rev = 0;
        let mut waiting_since: Option<Instant> = None;
        loop {
            let Ok(Some(arrival)) = tokio::time::timeout_at(until.into(), rx.recv()).await else {
                // Still waiting at the end: that wait counts (at least this long).
                if let Some(since) = waiting_since {
                    let micros = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
                    let mut d = delays
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if measured < settings.calibration_moves {
                        d.0.push(micros);
                    } else {
                        d.1.push(micros);
                    }
                }
                let _ = send(&mut sender, proto::simple("resign")).await;
                return Ok(());
            };
            let (legal, ends) = match arrival.message {
                Some(Incoming::State(state)) => {
                    rev = state.rev;
                    {
                        let over = state.is_over();
                        (state.legal, over)
                    }
                }
                Some(Incoming::Events(events)) => {
                    rev = events.last_revision().unwrap_or(rev);
                    let ai_moved = events
                        .events
                        .iter()
                        .any(|e| e.moved.is_some() && e.player.as_deref() == Some("second"));
                    if ai_moved && let Some(since) = waiting_since.take() {
                        let micros =
                            u64::try_from((arrival.at - since).as_micros()).unwrap_or(u64::MAX);
                        let mut d = delays
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        if measured < settings.calibration_moves {
                            d.0.push(micros);
                        } else {
                            d.1.push(micros);
                        }
                        measured += 1;
                        if measured == settings.calibration_moves
                            && let Some(done) = calm_done.take()
                        {
                            let _ = done.send(());
                        }
                    }
                    let own_move = events
                        .events
                        .iter()
                        .any(|e| e.moved.is_some() && e.player.as_deref() == Some("first"));
                    if own_move {
                        waiting_since = Some(arrival.at);
                    }
                    {
                        let ends = events.ends();
                        (events.legal.unwrap_or_default(), ends)
                    }
                }
                Some(Incoming::Error { code, message }) => {
                    bail!("victim refused: {code}: {message}")
                }
                None => bail!("the victim's socket closed"),
                _ => continue,
            };
            if ends {
                // A game lost on time while the AI was flooded is the flood's doing.
                let state = me.get(&target, &format!("/api/games/{id}")).await?;
                if state.json["result"]["reason"].as_str() == Some("timeout") {
                    flagged.inc();
                }
                break;
            }
            if !legal.is_empty() {
                // Within the server's socket rate limit (20 messages a second).
                tokio::time::sleep(Duration::from_millis(60)).await;
                let text = &legal[rng.below(legal.len())];
                send(&mut sender, proto::move_message(rev, text)).await?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn slow_connections_come_from_the_address_asked() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = listener.local_addr().unwrap();
        let from: std::net::IpAddr = [127, 0, 0, 2].into();
        let _stream = slow_connect(server, Some(from)).await.unwrap();
        let (_, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.ip(), from);
        // Without one, the system's choice (loopback's own).
        let _stream = slow_connect(server, None).await.unwrap();
        let (_, peer) = listener.accept().await.unwrap();
        assert_eq!(peer.ip(), std::net::IpAddr::from([127, 0, 0, 1]));
    }
}
