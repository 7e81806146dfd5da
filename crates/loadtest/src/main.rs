//! `kingstable-loadtest`: plays random legal games of all three kinds through a real
//! Kingstable server on this machine, with spectators, idle lobby and spectator sockets
//! and optionally a hostile client, and reports moves per second, latencies, the
//! server's CPU time per 1,000 moves (from when the server has settled after its
//! start-up work) and memory, then checks every acknowledged move against the stored
//! game. See README.md.

mod chat;
mod hostile;
mod idle;
mod net;
mod players;
mod procfs;
mod proto;
mod spawn;
mod stats;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use serde_json::json;
use tokio::task::JoinSet;

use crate::hostile::HostileSettings;
use crate::net::Target;
use crate::players::PlaySettings;
use crate::stats::Stats;

/// Load test of a Kingstable server on this machine (loopback only).
#[derive(Parser, Debug)]
#[command(name = "kingstable-loadtest", version)]
#[allow(clippy::struct_excessive_bools)]
struct Args {
    /// The server to test: http://127.0.0.1:PORT (loopback addresses only).
    #[arg(long, conflicts_with = "spawn", required_unless_present = "spawn")]
    url: Option<String>,
    /// Start this `kingstable` binary (`serve` on 127.0.0.1, a fresh SQLite file in a
    /// temporary directory, `--trust-proxy`), test it, and stop it.
    #[arg(long, value_name = "PATH_TO_KINGSTABLE")]
    spawn: Option<PathBuf>,
    /// Another argument for the spawned `kingstable serve` (repeatable).
    #[arg(long = "server-arg", value_name = "ARG", allow_hyphen_values = true)]
    server_args: Vec<String>,
    /// A second server process on the same database and Redis (`kingstable serve
    /// --redis`): each game's second player and spectators connect there, so every move
    /// crosses from one process to the other.
    #[arg(long, conflicts_with = "spawn")]
    peer_url: Option<String>,
    /// The server's process id, for its CPU time and memory (set by itself with --spawn).
    #[arg(long)]
    server_pid: Option<u32>,
    /// Send each simulated client's own address in X-Forwarded-For (the server must run
    /// with --trust-proxy; on by itself with --spawn, unless --direct).
    #[arg(long)]
    forwarded: bool,
    /// With --spawn: start the server without --trust-proxy and send no X-Forwarded-For,
    /// so that every connection counts against the loopback address it comes from. The
    /// per-address connection cap applies then (behind a proxy it cannot, before a
    /// request's headers are read): for `--slow-connections` with `--slow-from`.
    #[arg(long, conflicts_with = "forwarded")]
    direct: bool,
    /// Pairs of players, each playing one game at a time.
    #[arg(long, default_value_t = 10)]
    pairs: usize,
    /// The games, in turn.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "fetlar,copenhagen,camelot"
    )]
    kinds: Vec<String>,
    /// Time control of the played games.
    #[arg(long, default_value = "10+5")]
    time_control: String,
    /// A game longer than this many plies is resigned.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Spectators on each played game.
    #[arg(long, default_value_t = 0)]
    spectators: usize,
    /// Thinking time before each move: MS or MIN-MAX (milliseconds).
    #[arg(long, default_value = "0")]
    think: String,
    /// Least milliseconds between two messages on one socket (the server allows 20 a
    /// second after a burst of 60).
    #[arg(long, default_value_t = 50)]
    pace_ms: u64,
    /// Idle spectator sockets, spread over --idle-games games nobody plays.
    #[arg(long, default_value_t = 0)]
    idle_spectators: usize,
    /// Games for the idle spectators to watch.
    #[arg(long, default_value_t = 10)]
    idle_games: usize,
    /// Lobby sockets (/ws/lobby), reading everything they are sent.
    #[arg(long, default_value_t = 0)]
    lobby: usize,
    /// Lobby chatters: accounts that each say a line in the lobby chat every
    /// --chat-every (the lobby sockets hear them all).
    #[arg(long, default_value_t = 0)]
    lobby_chatters: usize,
    /// How often each lobby chatter speaks (the chat allows 5 lines in 10 s per author).
    #[arg(long, default_value = "2500ms", value_parser = parse_duration)]
    chat_every: Duration,
    /// Add a hostile client (slow connections, an AI flood, rematch chains, analysis
    /// sockets that never read) and measure an honest player's AI game beside it.
    #[arg(long)]
    hostile: bool,
    /// Hostile: connections that never finish their headers.
    #[arg(long, default_value_t = 200)]
    slow_connections: usize,
    /// Hostile: the loopback address the slow connections come from (e.g. 127.0.0.2,
    /// another client than the rest of the run, for a server that sees addresses:
    /// --direct); by default the one the system picks, as for every other connection.
    #[arg(long, value_name = "IP")]
    slow_from: Option<std::net::IpAddr>,
    /// Hostile: long AI games (level 6) started by one guest.
    #[arg(long, default_value_t = 20)]
    flood_ai_games: usize,
    /// Hostile: resign-and-rematch chain length.
    #[arg(long, default_value_t = 30)]
    rematch_chain: usize,
    /// Hostile: analysis sockets that never read.
    #[arg(long, default_value_t = 4)]
    flood_analyses: usize,
    /// Hostile: the honest player's AI level.
    #[arg(long, default_value_t = 1)]
    victim_level: u8,
    /// Hostile: the honest player's time control.
    #[arg(long, default_value = "5+0")]
    victim_time_control: String,
    /// Hostile: the victim's AI moves measured before the flood.
    #[arg(long, default_value_t = 5)]
    calibration_moves: usize,
    /// Hostile: one flood search in ms (the server's untimed AI move): the victim's AI
    /// may be delayed by this much more than when calm.
    #[arg(long, default_value_t = 3000)]
    flood_search_ms: u64,
    /// Exit non-zero on a fairness breach of the hostile mode too (the victim's AI
    /// delayed by more than one search, a loss on time, /health slower than 2 s).
    #[arg(long)]
    fail_on_breach: bool,
    /// How long to play: `90s`, `2m`, `500ms` (plain number: seconds; at most 1 hour).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    duration: Duration,
    /// Let the pairs arrive one after the other over this time (`20s`), each then
    /// playing for `--duration`, as a crowd comes and goes; by default all start at once.
    #[arg(long, default_value = "0s", value_parser = parse_duration)]
    ramp: Duration,
    /// Most sockets the run may open in all (refused before starting when the settings
    /// need more).
    #[arg(long, default_value_t = 5000)]
    max_sockets: usize,
    /// A move not acknowledged within this is lost.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    ack_timeout: Duration,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also print the mover round trip for each step of this length (`5s`): where in
    /// the run the slow moves fell.
    #[arg(long, value_parser = parse_duration)]
    timeline: Option<Duration>,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((text, "s"), |i| text.split_at(i));
    let value: f64 = number
        .parse()
        .map_err(|_| format!("not a duration: {text}"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        _ => return Err(format!("not a duration: {text} (use ms, s or m)")),
    };
    if !(0.0..=3600.0).contains(&seconds) {
        return Err(format!("{text}: at most one hour"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn parse_think(text: &str) -> Result<(Duration, Duration)> {
    let ms = |t: &str| -> Result<Duration> {
        Ok(Duration::from_millis(
            t.trim()
                .parse()
                .with_context(|| format!("--think {text}"))?,
        ))
    };
    let (low, high) = match text.split_once('-') {
        Some((low, high)) => (ms(low)?, ms(high)?),
        None => (ms(text)?, ms(text)?),
    };
    if high < low || high > Duration::from_secs(60) {
        bail!("--think {text}: MIN-MAX milliseconds, at most 60000");
    }
    Ok((low, high))
}

/// The soft limit on this process's open files, from /proc/self/limits.
fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// Runs the test; `Ok(false)` when it found lost or mismatched moves, errors, or (with
/// --fail-on-breach) a fairness breach.
#[allow(clippy::too_many_lines)]
async fn run(args: Args) -> Result<bool> {
    let think = parse_think(&args.think)?;
    if args.direct && args.spawn.is_none() {
        bail!(
            "--direct is for a server started here (--spawn): a running one trusts a proxy or not as it was started"
        );
    }
    if let Some(from) = args.slow_from
        && !from.is_loopback()
    {
        bail!(
            "--slow-from {from}: the load generator only uses this machine's loopback addresses (127.0.0.0/8, ::1)"
        );
    }
    if args.kinds.is_empty()
        || args
            .kinds
            .iter()
            .any(|k| !matches!(k.as_str(), "fetlar" | "copenhagen" | "camelot"))
    {
        bail!("--kinds: fetlar, copenhagen, camelot");
    }
    let hostile_sockets = if args.hostile {
        args.slow_connections + args.flood_ai_games + args.flood_analyses + 4
    } else {
        0
    };
    let planned =
        args.pairs * (2 + args.spectators) + args.idle_spectators + args.lobby + hostile_sockets;
    if planned > args.max_sockets {
        bail!(
            "these settings open {planned} sockets, more than --max-sockets {}",
            args.max_sockets
        );
    }
    if let Some(limit) = open_files_limit()
        && planned + 200 > limit
    {
        bail!(
            "these settings open {planned} sockets but this process may open only {limit} files: raise it (ulimit -n {})",
            planned + 1000
        );
    }
    let spawned = match &args.spawn {
        Some(binary) => Some(spawn::spawn(binary, &args.server_args, !args.direct).await?),
        None => None,
    };
    let url = spawned
        .as_ref()
        .map_or_else(|| args.url.clone().unwrap_or_default(), |s| s.url.clone());
    let target = Target::new(&url, args.forwarded || (spawned.is_some() && !args.direct))?;
    let pid = spawned.as_ref().map(|s| s.pid).or(args.server_pid);
    if let Some(pid) = pid {
        // What the server does once at start (compressing its web client at brotli's
        // best quality takes about a CPU-second) is not a move's cost: measure after it.
        const QUIET: Duration = Duration::from_millis(500);
        const PATIENCE: Duration = Duration::from_secs(20);
        let (cpu, settled) = procfs::settle(pid, QUIET, PATIENCE).await?;
        if settled {
            println!(
                "the server has settled after {:.2} s of CPU",
                cpu.as_secs_f64()
            );
        } else {
            println!(
                "the server did not settle within {PATIENCE:?} ({:.2} s of CPU): measuring as it is",
                cpu.as_secs_f64()
            );
        }
    }
    let result = measure(&args, &target, pid, think, planned).await;
    if let Some(server) = spawned {
        let tail = server.log_tail(30);
        if let Err(error) = server.stop().await {
            eprintln!("the server's log ends:\n{tail}");
            return Err(error);
        }
    }
    result
}

#[allow(clippy::too_many_lines)]
async fn measure(
    args: &Args,
    target: &Target,
    pid: Option<u32>,
    think: (Duration, Duration),
    planned: usize,
) -> Result<bool> {
    let usage = || pid.map(procfs::usage).transpose();
    let at_start = usage()?;
    println!(
        "kingstable-loadtest: {} ({} sockets planned), {} pairs, {} spectators a game, {} idle spectators, {} lobby sockets{}, {:?}",
        target.base,
        planned,
        args.pairs,
        args.spectators,
        args.idle_spectators,
        args.lobby,
        if args.hostile { ", hostile client" } else { "" },
        args.duration
    );
    let stats = Arc::new(Stats::default());
    // Listening sockets stay open until the end of the run (the JoinSet aborts them).
    let far = Instant::now() + args.duration + Duration::from_secs(3600);
    let mut listeners = JoinSet::new();
    let opening = Instant::now();
    if args.idle_spectators > 0 {
        let games = idle::idle_games(target, args.idle_games.max(1)).await?;
        idle::open_listeners(
            target,
            &games,
            args.idle_spectators,
            false,
            &stats,
            far,
            &mut listeners,
        )
        .await;
    }
    if args.lobby > 0 {
        let lobby = ["/ws/lobby".to_owned()];
        idle::open_listeners(
            target,
            &lobby,
            args.lobby,
            true,
            &stats,
            far,
            &mut listeners,
        )
        .await;
    }
    if args.lobby_chatters > 0 {
        chat::start(
            target,
            args.lobby_chatters,
            args.chat_every,
            &stats,
            far,
            &mut listeners,
        )
        .await?;
    }
    let opened_in = opening.elapsed();
    // Let the server settle after the connection burst before measuring.
    if args.idle_spectators + args.lobby > 0 {
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let with_sockets = usage()?;

    let start = Instant::now();
    let deadline = start + args.duration;
    let settings = Arc::new(PlaySettings {
        kinds: args.kinds.clone(),
        time_control: args.time_control.clone(),
        max_plies: args.max_plies,
        spectators: args.spectators,
        think,
        pace: Duration::from_millis(args.pace_ms),
        ack_timeout: args.ack_timeout,
        deadline,
        ramp: args.ramp,
        pairs: args.pairs,
        peer: match &args.peer_url {
            Some(url) => Some(Target::new(url, args.forwarded)?),
            None => None,
        },
    });
    let played = Arc::new(Mutex::new(Vec::new()));
    let mut pairs = JoinSet::new();
    for index in 0..args.pairs {
        pairs.spawn(players::pair(
            target.clone(),
            Arc::clone(&settings),
            Arc::clone(&stats),
            Arc::clone(&played),
            index,
        ));
    }
    let hostile = args.hostile.then(|| {
        let settings = HostileSettings {
            slow_connections: args.slow_connections,
            slow_from: args.slow_from,
            ai_games: args.flood_ai_games,
            rematch_chain: args.rematch_chain,
            analyses: args.flood_analyses,
            victim_level: args.victim_level,
            victim_time_control: args.victim_time_control.clone(),
            calibration_moves: args.calibration_moves,
            flood_search: Duration::from_millis(args.flood_search_ms),
            health_limit: Duration::from_secs(2),
        };
        tokio::spawn(hostile::run(target.clone(), settings, deadline))
    });
    let cpu_start = usage()?;
    let own_start = procfs::usage(std::process::id()).ok();
    let peak = Arc::new(Mutex::new(0u64));
    let sampler = {
        let peak = Arc::clone(&peak);
        tokio::spawn(async move {
            let Some(pid) = pid else { return };
            loop {
                if let Ok(u) = procfs::usage(pid) {
                    let mut p = peak
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    *p = (*p).max(u.rss_kib);
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        })
    };
    while let Some(done) = pairs.join_next().await {
        if let Err(error) = done {
            stats.error(format!("a pair's task failed: {error}"));
        }
    }
    let played_for = start.elapsed();
    let cpu_end = usage()?;
    let own_end = procfs::usage(std::process::id()).ok();
    let hostile = match hostile {
        Some(task) => Some(task.await.context("the hostile client")?),
        None => None,
    };
    sampler.abort();
    listeners.shutdown().await;
    let after = usage()?;

    let played = std::mem::take(
        &mut *played
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let (games_checked, moves_checked, mismatches) = players::verify(target, &played).await;

    let moves = stats.moves.get();
    let per_second = moves as f64 / played_for.as_secs_f64();
    let cpu = match (cpu_start, cpu_end) {
        (Some(a), Some(b)) => Some((b.cpu.saturating_sub(a.cpu)).as_secs_f64()),
        _ => None,
    };
    let cpu_per_1000 = cpu.filter(|_| moves > 0).map(|c| c * 1000.0 / moves as f64);
    let round_trip = stats.round_trip.summary();
    let delivery = stats.delivery.summary();
    let peak_kib = *peak
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mib = |kib: u64| kib as f64 / 1024.0;

    println!(
        "played {played_for:.1?}: {moves} moves, {:.0} moves/s, {} games",
        per_second,
        stats.games.get()
    );
    println!("mover round trip (move sent -> own acknowledgement): {round_trip}");
    println!("opponent delivery (move sent -> opponent sees it):   {delivery}");
    if let Some(step) = args.timeline {
        for (i, s) in stats.round_trip.timeline(start, step).iter().enumerate() {
            let from = step * u32::try_from(i).unwrap_or(u32::MAX);
            println!("  from {from:.0?}: {s}");
        }
    }
    if let Some(cpu) = cpu {
        println!(
            "server CPU: {cpu:.2} s while playing, {} per 1,000 moves",
            cpu_per_1000.map_or("-".to_owned(), |c| format!("{c:.3} s"))
        );
    }
    // On one machine the generator's share is taken from the server's: say it.
    let own_cpu = match (own_start, own_end) {
        (Some(a), Some(b)) => Some((b.cpu.saturating_sub(a.cpu)).as_secs_f64()),
        _ => None,
    };
    if let Some(own) = own_cpu {
        println!("load generator CPU: {own:.2} s while playing");
    }
    if let (Some(a), Some(s), Some(e)) = (at_start, with_sockets, after) {
        println!(
            "server RSS: {:.1} MiB at start, {:.1} MiB with {} listening sockets open (opened in {opened_in:.1?}), {:.1} MiB peak while playing, {:.1} MiB after; peak of the process {:.1} MiB",
            mib(a.rss_kib),
            mib(s.rss_kib),
            args.idle_spectators + args.lobby,
            mib(peak_kib),
            mib(e.rss_kib),
            mib(e.peak_kib)
        );
    }
    if args.lobby > 0 {
        println!(
            "lobby: {} messages, {:.1} MB received by {} sockets",
            stats.lobby_messages.get(),
            stats.lobby_bytes.get() as f64 / 1e6,
            args.lobby
        );
    }
    if args.lobby_chatters > 0 {
        println!(
            "lobby chat: {} lines said by {} chatters, {} refused, {} heard by the lobby sockets; line sent -> heard back: {}",
            stats.chat_sent.get(),
            args.lobby_chatters,
            stats.chat_refused.get(),
            stats.chat_heard.get(),
            stats.chat_echo.summary()
        );
    }
    if args.idle_spectators > 0 {
        println!(
            "idle spectators: {} messages received",
            stats.idle_messages.get()
        );
    }
    println!(
        "checked {moves_checked} acknowledged moves of {games_checked} games against the stored games: {} mismatches",
        mismatches.len()
    );
    for mismatch in mismatches.iter().take(10) {
        println!("  mismatch: {mismatch}");
    }
    println!(
        "lost moves: {}, errors: {}, spectator mismatches: {}, rate-limited (resent): {}",
        stats.lost.get(),
        stats.errors.get(),
        stats.spectator_mismatches.get(),
        stats.rate_limited.get()
    );
    for error in stats
        .first_errors
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        println!("  error: {error}");
    }
    let mut breaches = Vec::new();
    if let Some(h) = &hostile {
        println!(
            "hostile: {} slow connections ({} closed by the server), {} AI games ({} refused), {} rematches ({} refused), {} analysis sockets that never read",
            h.slow_opened,
            h.slow_closed,
            h.flood_games,
            h.flood_refused,
            h.rematches,
            h.rematches_refused,
            h.analyses
        );
        println!("victim's AI move delay, calm:    {}", h.calm);
        println!("victim's AI move delay, flooded: {}", h.flooded);
        println!(
            "/health during the run: {} ({} failed or slower than 2 s)",
            h.health, h.health_slow
        );
        for breach in &h.breaches {
            println!("  fairness breach: {breach}");
        }
        for error in &h.errors {
            println!("  hostile client error: {error}");
        }
        breaches.clone_from(&h.breaches);
    }
    if let Some(path) = &args.json {
        let summary = |s: stats::Summary| json!({"count": s.count, "p50_ms": s.p50, "p99_ms": s.p99, "max_ms": s.max});
        let report = json!({
            "seconds": played_for.as_secs_f64(),
            "moves": moves,
            "moves_per_second": per_second,
            "games": stats.games.get(),
            "round_trip": summary(round_trip),
            "delivery": summary(delivery),
            "server_cpu_seconds": cpu,
            "server_cpu_seconds_per_1000_moves": cpu_per_1000,
            "load_generator_cpu_seconds": own_cpu,
            "server_rss_mib": {
                "start": at_start.map(|u| mib(u.rss_kib)),
                "with_sockets": with_sockets.map(|u| mib(u.rss_kib)),
                "peak_while_playing": mib(peak_kib),
                "after": after.map(|u| mib(u.rss_kib)),
            },
            "listening_sockets": args.idle_spectators + args.lobby,
            "lobby_bytes": stats.lobby_bytes.get(),
            "lobby_chat": {
                "chatters": args.lobby_chatters,
                "said": stats.chat_sent.get(),
                "refused": stats.chat_refused.get(),
                "heard": stats.chat_heard.get(),
                "echo_ms": summary(stats.chat_echo.summary()),
            },
            "moves_checked": moves_checked,
            "mismatches": mismatches.len(),
            "lost": stats.lost.get(),
            "errors": stats.errors.get(),
            "spectator_mismatches": stats.spectator_mismatches.get(),
            "hostile": hostile.as_ref().map(|h| json!({
                "victim_calm": summary(h.calm),
                "victim_flooded": summary(h.flooded),
                "health": summary(h.health),
                "health_slow": h.health_slow,
                "slow_connections": h.slow_opened,
                "slow_closed_by_server": h.slow_closed,
                "flood_games": h.flood_games,
                "flood_refused": h.flood_refused,
                "rematches": h.rematches,
                "rematches_refused": h.rematches_refused,
                "breaches": h.breaches,
            })),
        });
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let clean = mismatches.is_empty()
        && stats.lost.get() == 0
        && stats.errors.get() == 0
        && stats.spectator_mismatches.get() == 0
        && moves > 0;
    if moves == 0 {
        println!("FAILED: no move was played");
    }
    let fair = !args.fail_on_breach || breaches.is_empty();
    println!("{}", if clean && fair { "PASSED" } else { "FAILED" });
    Ok(clean && fair)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_think_ranges() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("15"), Ok(Duration::from_secs(15)));
        assert!(parse_duration("2h").is_err());
        assert!(parse_duration("61m").is_err());
        assert_eq!(parse_think("0").unwrap(), (Duration::ZERO, Duration::ZERO));
        assert_eq!(
            parse_think("1000-3000").unwrap(),
            (Duration::from_secs(1), Duration::from_secs(3))
        );
        assert!(parse_think("3-1").is_err());
        assert!(parse_think("x").is_err());
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }

    #[tokio::test]
    async fn refuses_a_slow_from_address_off_this_machine_and_direct_without_spawn() {
        use clap::Parser;
        let args = Args::try_parse_from([
            "kingstable-loadtest",
            "--url",
            "http://127.0.0.1:9",
            "--hostile",
            "--slow-from",
            "192.0.2.1",
        ])
        .unwrap();
        let error = run(args).await.unwrap_err().to_string();
        assert!(error.contains("--slow-from 192.0.2.1"), "{error}");
        // --direct only means something for a server started here.
        let args = Args::try_parse_from([
            "kingstable-loadtest",
            "--url",
            "http://127.0.0.1:9",
            "--direct",
        ])
        .unwrap();
        let error = run(args).await.unwrap_err().to_string();
        assert!(
            error.contains("--direct is for a server started here"),
            "{error}"
        );
    }
}
