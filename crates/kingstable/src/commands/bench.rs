//! `kingstable bench`: the engine's deterministic benchmark. Fixed positions of all three
//! games searched to a fixed depth on one thread; the total node count is the search's
//! signature, and nodes per second its speed.

use std::time::Duration;

use anyhow::Result;
use engine::bench::{self, BenchLine};

/// Prints one line per position, then the totals; the last line is the signature alone.
/// Each game is searched to its default depth unless `depth` is given.
pub fn run(depth: Option<u32>) -> Result<()> {
    println!(
        "{:<11} {:<44} {:>5} {:>12} {:>9} {:>10}  best move (score)",
        "game", "position", "depth", "nodes", "time", "nodes/s"
    );
    let lines = bench::run(depth, |line: &BenchLine| {
        println!(
            "{:<11} {:<44} {:>5} {:>12} {:>8.3}s {:>10}  {} ({})",
            line.position.game.as_str(),
            line.position.name,
            line.depth,
            line.nodes,
            line.time.as_secs_f64(),
            nps(line.nodes, line.time),
            line.best_move,
            line.score
        );
    })?;
    let mut total_nodes = 0;
    let mut total_time = Duration::ZERO;
    for game in game::GameKind::ALL {
        let (nodes, time) = lines
            .iter()
            .filter(|l| l.position.game == game)
            .fold((0, Duration::ZERO), |(n, t), l| (n + l.nodes, t + l.time));
        println!(
            "{:<11} {nodes} nodes, {} nodes/s",
            game.as_str(),
            nps(nodes, time)
        );
        total_nodes += nodes;
        total_time += time;
    }
    println!(
        "total: {total_nodes} nodes in {:.3}s, {} nodes/s",
        total_time.as_secs_f64(),
        nps(total_nodes, total_time)
    );
    println!("{total_nodes}");
    Ok(())
}

fn nps(nodes: u64, time: Duration) -> u64 {
    (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64
}
