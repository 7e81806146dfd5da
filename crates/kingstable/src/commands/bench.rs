//! `kingstable bench`: the engine's deterministic benchmark. Fixed positions of all three
//! games searched to a fixed depth on one thread; the total node count is the search's
//! signature, and nodes per second its speed. With `--threads N` each position is also
//! searched on N threads, and the time to the same depth measures what the extra threads
//! bring.

use std::time::Duration;

use anyhow::Result;
use engine::bench::{self, BenchLine};

/// Prints one line per position, then the totals; the last line is the signature alone.
/// Each game is searched to its default depth unless `depth` is given.
pub fn run(depth: Option<u32>, threads: usize) -> Result<()> {
    let parallel = threads > 1;
    print!(
        "{:<11} {:<44} {:>5} {:>12} {:>9} {:>10}",
        "game", "position", "depth", "nodes", "time", "nodes/s"
    );
    if parallel {
        print!(" {:>9} {:>7}", format!("time@{threads}"), "speedup");
    }
    println!("  best move (score)");
    let lines = bench::run(depth, threads, |line: &BenchLine| {
        print!(
            "{:<11} {:<44} {:>5} {:>12} {:>8.3}s {:>10}",
            line.position.game.as_str(),
            line.position.name,
            line.depth,
            line.nodes,
            line.time.as_secs_f64(),
            nps(line.nodes, line.time),
        );
        if let Some(run) = line.parallel {
            print!(
                " {:>8.3}s {:>6.2}x",
                run.time.as_secs_f64(),
                speedup(line.time, run.time)
            );
        }
        println!("  {} ({})", line.best_move, line.score);
    })?;
    let mut total_nodes = 0;
    let mut total_time = Duration::ZERO;
    for game in game::GameKind::ALL {
        let of_game: Vec<&BenchLine> = lines.iter().filter(|l| l.position.game == game).collect();
        let nodes: u64 = of_game.iter().map(|l| l.nodes).sum();
        let time: Duration = of_game.iter().map(|l| l.time).sum();
        print!(
            "{:<11} {nodes} nodes, {} nodes/s",
            game.as_str(),
            nps(nodes, time)
        );
        if parallel {
            let parallel: Duration = of_game
                .iter()
                .filter_map(|l| l.parallel.map(|p| p.time))
                .sum();
            print!(
                "; on {threads} threads the same depths in {:.3}s instead of {:.3}s ({:.2}x)",
                parallel.as_secs_f64(),
                time.as_secs_f64(),
                speedup(time, parallel)
            );
        }
        println!();
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

fn speedup(one: Duration, many: Duration) -> f64 {
    one.as_secs_f64() / many.as_secs_f64().max(1e-6)
}
