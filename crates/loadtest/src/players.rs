//! Pairs of guests playing random legal games through the game socket, watched by
//! spectators, each acknowledged move kept for the check against the stored game.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use futures_util::SinkExt;
use reqwest::StatusCode;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use crate::net::{self, Arrival, Identity, Sender, Target};
use crate::proto::{self, Incoming};
use crate::stats::Stats;

/// How the pairs play.
#[derive(Clone, Debug)]
pub struct PlaySettings {
    /// The games, played in turn (`fetlar`, `copenhagen`, `camelot`).
    pub kinds: Vec<String>,
    /// Time control of each game (`untimed`, `5+3`…).
    pub time_control: String,
    /// A game longer than this is resigned.
    pub max_plies: usize,
    /// Spectators on each played game.
    pub spectators: usize,
    /// Thinking time before each move: a uniform draw from this range.
    pub think: (Duration, Duration),
    /// Least time between two messages on one socket (the server's socket rate limit).
    pub pace: Duration,
    /// A move not acknowledged within this is lost.
    pub ack_timeout: Duration,
    /// No move is started after this (for the first pair: see `ramp`).
    pub deadline: Instant,
    /// Pair `i` of `pairs` starts `ramp * i / pairs` after the first, and stops as much
    /// after `deadline`.
    pub ramp: Duration,
    /// How many pairs play.
    pub pairs: usize,
    /// Another server process on the same database and Redis: each game's second player
    /// joins and plays there, and its spectators watch there (`None`: all on the one
    /// server).
    pub peer: Option<Target>,
}

/// A game a pair played: what to check against the stored game.
#[derive(Clone, Debug)]
pub struct Played {
    /// The game's id.
    pub id: String,
    /// The moves acknowledged to their movers, in order.
    pub acked: Vec<String>,
}

/// A small random generator (xorshift64*), seeded per task.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded by `seed` (any value).
    #[must_use]
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x % n as u64) as usize
    }

    /// A duration in `range`.
    pub fn within(&mut self, (low, high): (Duration, Duration)) -> Duration {
        let span = high.saturating_sub(low).as_millis() as usize;
        if span == 0 {
            low
        } else {
            low + Duration::from_millis(self.below(span + 1) as u64)
        }
    }
}

/// Sends text on a socket.
pub async fn send(sender: &mut Sender, text: String) -> Result<()> {
    sender.send(Message::Text(text.into())).await?;
    Ok(())
}

/// Creates a friend game of `kind` by `a` (first side), joined by `b`. Each request comes
/// from a fresh client address, as from many players.
///
/// # Errors
/// When the server refuses either step.
pub async fn friend_game(
    target: &Target,
    a: &mut Identity,
    b: &mut Identity,
    kind: &str,
    time_control: &str,
) -> Result<String> {
    a.address = net::fresh_address();
    let created = a
        .post(
            target,
            "/api/games",
            json!({"kind": kind, "opponent": "friend", "side": "first", "time_control": time_control}),
        )
        .await?;
    if created.status != StatusCode::CREATED {
        bail!("POST /api/games: {} {}", created.status, created.json);
    }
    let id = created.json["id"]
        .as_str()
        .ok_or_else(|| anyhow!("POST /api/games: no id in {}", created.json))?
        .to_owned();
    b.address = net::fresh_address();
    let joined = b
        .request(
            target,
            reqwest::Method::POST,
            &format!("/api/games/{id}/join"),
            None,
        )
        .await?;
    if joined.status != StatusCode::OK {
        bail!(
            "POST /api/games/{id}/join: {} {}",
            joined.status,
            joined.json
        );
    }
    Ok(id)
}

/// One pair's games until the deadline; what they played goes to `played`.
pub async fn pair(
    target: Target,
    settings: Arc<PlaySettings>,
    stats: Arc<Stats>,
    played: Arc<Mutex<Vec<Played>>>,
    index: usize,
) {
    let mut rng = Rng::new(index as u64 + 1);
    let (mut a, mut b) = (Identity::new(), Identity::new());
    let arrival = settings
        .ramp
        .mul_f64(index as f64 / settings.pairs.max(1) as f64);
    let settings = if arrival.is_zero() {
        settings
    } else {
        tokio::time::sleep(arrival).await;
        Arc::new(PlaySettings {
            deadline: settings.deadline + arrival,
            ..PlaySettings::clone(&settings)
        })
    };
    let mut turn = index;
    while Instant::now() < settings.deadline {
        let kind = settings.kinds[turn % settings.kinds.len()].clone();
        turn += 1;
        let mut game = Played {
            id: String::new(),
            acked: Vec::new(),
        };
        let result = play_game(
            &target, &settings, &stats, &mut a, &mut b, &kind, &mut rng, &mut game,
        )
        .await;
        // A game cut short by an error is checked too, as far as it went.
        if !game.id.is_empty() {
            played
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(game);
        }
        if let Err(error) = result {
            stats.error(format!("pair {index}, {kind}: {error:#}"));
            // Do not spin on a server that refuses everything.
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// What a socket said after a move.
struct Seen {
    at: Instant,
    text: Option<String>,
    legal: Option<Vec<String>>,
}

/// Plays one game between `a` and `b` to its end (or the deadline, or `max_plies`, when
/// the player to move resigns), noting in `game` its id and each acknowledged move.
#[allow(clippy::too_many_lines, clippy::too_many_arguments)]
async fn play_game(
    target: &Target,
    settings: &PlaySettings,
    stats: &Stats,
    a: &mut Identity,
    b: &mut Identity,
    kind: &str,
    rng: &mut Rng,
    game: &mut Played,
) -> Result<()> {
    let id = friend_game(target, a, b, kind, &settings.time_control).await?;
    let there = settings.peer.as_ref().unwrap_or(target);
    game.id.clone_from(&id);
    let acked = &mut game.acked;
    let path = format!("/ws/game/{id}");
    let (tx, mut rx) = mpsc::unbounded_channel::<Arrival>();
    let mut senders = [
        net::reader(a.socket(target, &path).await?, 0, tx.clone()),
        net::reader(b.socket(there, &path).await?, 1, tx),
    ];
    let mut watchers = Vec::new();
    for _ in 0..settings.spectators {
        let socket = Identity::new().socket(there, &path).await?;
        watchers.push(tokio::spawn(spectate(
            socket,
            settings.ack_timeout * 4 + settings.deadline.saturating_duration_since(Instant::now()),
        )));
    }
    let mut last_sent = [Instant::now(); 2];
    for sender in &mut senders {
        send(sender, proto::simple("hello")).await?;
    }
    let mut legal: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut rev = 0;
    let mut to_move = 0;
    let mut states = 0;
    while states < 2 {
        let arrival = recv(&mut rx, settings.ack_timeout).await?;
        if let Some(Incoming::State(state)) = arrival.message {
            states += 1;
            rev = rev.max(state.rev);
            to_move = usize::from(state.to_move == "second");
            legal[arrival.from] = state.legal;
        }
    }
    let mut over = false;
    while !over {
        let mover = to_move;
        if Instant::now() >= settings.deadline || acked.len() >= settings.max_plies {
            send(&mut senders[mover], proto::simple("resign")).await?;
            wait_for_end(&mut rx, settings.ack_timeout).await?;
            break;
        }
        if legal[mover].is_empty() {
            bail!(
                "game {id}: no legal moves for the player to move after {} plies",
                acked.len()
            );
        }
        let text = legal[mover][rng.below(legal[mover].len())].clone();
        let pause = rng
            .within(settings.think)
            .max((last_sent[mover] + settings.pace).saturating_duration_since(Instant::now()));
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        let mut sent = Instant::now();
        last_sent[mover] = sent;
        send(&mut senders[mover], proto::move_message(rev, &text)).await?;
        let sent_rev = rev;
        let mut seen: [Option<Seen>; 2] = [None, None];
        while seen.iter().any(Option::is_none) {
            let left = settings.ack_timeout.saturating_sub(sent.elapsed());
            let Ok(arrival) = recv(&mut rx, left).await else {
                stats.lost.inc();
                bail!(
                    "game {id}: move {text} (ply {}) not acknowledged within {:?}",
                    acked.len() + 1,
                    settings.ack_timeout
                );
            };
            let from = arrival.from;
            match arrival.message {
                None => {
                    if seen[mover].is_none() {
                        stats.lost.inc();
                    }
                    bail!("game {id}: a player's socket closed");
                }
                Some(Incoming::Events(events)) => {
                    rev = rev.max(events.last_revision().unwrap_or(rev));
                    over |= events.ends() && events.last_revision() > Some(sent_rev);
                    // Only this move's event: a socket may be sent one change twice
                    // (as an answer and as a broadcast).
                    let this_move = events
                        .events
                        .iter()
                        .filter(|e| e.revision > sent_rev)
                        .find_map(|e| e.moved.clone());
                    if let Some(moved) = this_move {
                        seen[from] = Some(Seen {
                            at: arrival.at,
                            text: Some(moved),
                            legal: events.legal,
                        });
                    } else if events.ends() && events.last_revision() > Some(sent_rev) {
                        // Ended otherwise (on time): nobody will see the move.
                        seen[from].get_or_insert(Seen {
                            at: arrival.at,
                            text: None,
                            legal: None,
                        });
                    }
                }
                Some(Incoming::Error { code, message }) if from == mover => {
                    if code == "rate_limited" {
                        stats.rate_limited.inc();
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        sent = Instant::now();
                        send(&mut senders[mover], proto::move_message(rev, &text)).await?;
                    } else {
                        bail!("game {id}: move {text} refused: {code}: {message}");
                    }
                }
                Some(Incoming::State(state)) => {
                    // Not asked for: a server may send it to catch a socket up.
                    rev = rev.max(state.rev);
                    over |= state.is_over();
                }
                Some(_) => {}
            }
        }
        let [Some(own), Some(other)] = [seen[mover].take(), seen[1 - mover].take()] else {
            unreachable!("both seen")
        };
        match own.text {
            Some(ack) => {
                if ack != text {
                    stats.error(format!("game {id}: sent {text}, acknowledged as {ack}"));
                }
                stats.moves.inc();
                stats.round_trip.add(own.at - sent);
                if other.text.is_some() {
                    stats.delivery.add(other.at.saturating_duration_since(sent));
                }
                acked.push(ack);
            }
            None => stats.lost.inc(),
        }
        legal[1 - mover] = other.legal.unwrap_or_default();
        legal[mover].clear();
        to_move = 1 - mover;
    }
    stats.games.inc();
    for watcher in watchers {
        match watcher.await {
            Ok(Ok(seen)) if seen == *acked => {}
            Ok(Ok(seen)) => {
                stats.spectator_mismatches.inc();
                stats.error(format!(
                    "game {id}: a spectator saw {} moves, the players {} (first difference at {:?})",
                    seen.len(),
                    acked.len(),
                    seen.iter().zip(acked.iter()).position(|(s, a)| s != a)
                ));
            }
            Ok(Err(error)) => stats.error(format!("game {id}: spectator: {error:#}")),
            Err(error) => stats.error(format!("game {id}: spectator task: {error}")),
        }
    }
    for sender in &mut senders {
        let _ = sender.send(Message::Close(None)).await;
    }
    Ok(())
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<Arrival>, within: Duration) -> Result<Arrival> {
    match tokio::time::timeout(within, rx.recv()).await {
        Ok(Some(arrival)) => Ok(arrival),
        Ok(None) => bail!("both sockets closed"),
        Err(_) => bail!("no message within {within:?}"),
    }
}

async fn wait_for_end(rx: &mut mpsc::UnboundedReceiver<Arrival>, within: Duration) -> Result<()> {
    let until = Instant::now() + within;
    loop {
        let arrival = recv(rx, until.saturating_duration_since(Instant::now())).await?;
        match arrival.message {
            Some(Incoming::Events(events)) if events.ends() => return Ok(()),
            Some(Incoming::State(state)) if state.is_over() => return Ok(()),
            Some(Incoming::Error { code, message }) => bail!("resign refused: {code}: {message}"),
            None => bail!("a socket closed before the game ended"),
            _ => {}
        }
    }
}

/// A spectator: reads the game's moves until it ends (or `within` passes); returns them.
async fn spectate(socket: net::WebSocket, within: Duration) -> Result<Vec<String>> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut sender = net::reader(socket, 0, tx);
    send(&mut sender, proto::simple("hello")).await?;
    let until = Instant::now() + within;
    let mut moves = Vec::new();
    let mut last = 0;
    loop {
        let arrival = recv(&mut rx, until.saturating_duration_since(Instant::now())).await?;
        match arrival.message {
            Some(Incoming::State(state)) => {
                last = state.rev;
                let over = state.is_over();
                moves = state.moves;
                if over {
                    break;
                }
            }
            Some(Incoming::Events(events)) => {
                for event in &events.events {
                    if event.revision <= last {
                        continue;
                    }
                    if let Some(text) = &event.moved {
                        moves.push(text.clone());
                    }
                    last = event.revision;
                }
                if events.ends() {
                    break;
                }
            }
            None => bail!("the socket closed before the game ended"),
            _ => {}
        }
    }
    let _ = sender.send(Message::Close(None)).await;
    Ok(moves)
}

/// Compares each game's acknowledged moves with the stored game (`GET /api/games/{id}`):
/// returns the number of games and moves checked, and a description of each mismatch.
pub async fn verify(target: &Target, played: &[Played]) -> (usize, usize, Vec<String>) {
    let mut checker = Identity::new();
    let mut mismatches = Vec::new();
    let mut moves = 0;
    for game in played {
        moves += game.acked.len();
        let reply = match checker
            .get(target, &format!("/api/games/{}", game.id))
            .await
        {
            Ok(reply) if reply.status == StatusCode::OK => reply,
            Ok(reply) => {
                mismatches.push(format!("game {}: GET answered {}", game.id, reply.status));
                continue;
            }
            Err(error) => {
                mismatches.push(format!("game {}: {error:#}", game.id));
                continue;
            }
        };
        let stored = proto::game_state(&reply.json).moves;
        if stored != game.acked {
            let at = stored
                .iter()
                .zip(&game.acked)
                .position(|(s, a)| s != a)
                .unwrap_or(stored.len().min(game.acked.len()));
            mismatches.push(format!(
                "game {}: {} moves acknowledged, {} stored, first difference at ply {}",
                game.id,
                game.acked.len(),
                stored.len(),
                at + 1
            ));
        }
    }
    (played.len(), moves, mismatches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_stays_in_range_and_differs_by_seed() {
        let mut rng = Rng::new(7);
        for n in 1..50 {
            assert!(rng.below(n) < n);
        }
        let draws = |seed| {
            let mut rng = Rng::new(seed);
            (0..8).map(|_| rng.below(1000)).collect::<Vec<_>>()
        };
        assert_ne!(draws(1), draws(2));
        assert_eq!(draws(3), draws(3));
        let d = Rng::new(1).within((Duration::from_millis(5), Duration::from_millis(9)));
        assert!((5..=9).contains(&d.as_millis()));
    }
}
